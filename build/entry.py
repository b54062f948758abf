"""The frozen binary's entry point: the same CLI as the ``earshot`` console script."""

import sys

from earshot.cli._entry import main

if __name__ == "__main__":
    sys.exit(main())
