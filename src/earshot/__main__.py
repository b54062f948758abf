"""`python -m earshot`: the same CLI as the `earshot` script."""

from earshot.cli._entry import main

if __name__ == "__main__":
    raise SystemExit(main())
