"""The JSON value types every layer shares.

``JSONValue`` is a recursive alias for the type checker and ``Any`` at run time (msgspec
cannot resolve a recursive alias; decoded JSON is exactly the plain values it describes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    JSONValue: TypeAlias = (
        "str | int | float | bool | list[JSONValue] | dict[str, JSONValue] | None"
    )
else:
    JSONValue = Any
JSONObject: TypeAlias = "dict[str, JSONValue]"

__all__ = ["JSONObject", "JSONValue"]
