"""JSON Schema (what earshot tools declare) to the OpenAPI 3.0 subset Gemini accepts in
``functionDeclarations[].parameters``.

Kept: ``type`` (a list such as ``["string", "null"]`` becomes the one type plus
``nullable``), ``format`` only where Gemini accepts it (string: ``enum``, ``date-time``;
integer: ``int32``, ``int64``; number: ``float``, ``double``), ``description``,
``nullable``, ``enum`` of strings (``const`` becomes a one-value enum), ``properties``,
``required`` (only names that are properties), ``items``, ``anyOf`` (``oneOf`` becomes
``anyOf``; a ``{"type": "null"}`` alternative becomes ``nullable``; one alternative left is
inlined), ``minItems``/``maxItems``, ``minimum``/``maximum``.

Resolved: local ``$ref``s (``#/$defs/X``, ``#/definitions/X``) are inlined; a cycle is cut
at its second visit with a bare ``{"type": "object"}``. A one-element ``allOf`` is inlined.

Dropped: everything else (``$schema``, ``additionalProperties``, ``$defs``, ``default``,
``examples``, ``pattern``, ``title``, multi-element ``allOf``, non-string enums, ...), since
Gemini answers 400 to fields outside its subset. Dropping loses constraints but never
invents any. An empty ``properties`` object is omitted (Gemini rejects it).
"""

from __future__ import annotations

from earshot.providers.types import JSONObject, JSONValue

_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
_FORMATS: dict[str, frozenset[str]] = {
    "string": frozenset({"enum", "date-time"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}
_NUMERIC_KEYS = ("minItems", "maxItems", "minimum", "maximum")
_MAX_DEPTH = 32


def to_gemini_schema(schema: JSONObject) -> JSONObject:
    """The Gemini form of a tool's input schema (see the module docstring)."""
    return _Converter(schema).convert(schema, (), 0)


def has_parameters(schema: JSONObject) -> bool:
    """Whether a converted schema declares anything: an object schema with no properties
    means the tool takes no arguments."""
    if schema.get("type") == "object":
        return "properties" in schema
    return bool(schema)


class _Converter:
    def __init__(self, root: JSONObject) -> None:
        self.defs: dict[str, JSONValue] = {}
        for key in ("$defs", "definitions"):
            table = root.get(key)
            if isinstance(table, dict):
                for name, value in table.items():
                    self.defs[f"#/{key}/{name}"] = value

    def convert(self, schema: JSONObject, refs: tuple[str, ...], depth: int) -> JSONObject:
        if depth > _MAX_DEPTH:
            return {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self.defs.get(ref)
            if ref in refs or not isinstance(target, dict):
                return {"type": "object"}
            merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
            return self.convert(merged, (*refs, ref), depth + 1)
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            merged = {**all_of[0], **{k: v for k, v in schema.items() if k != "allOf"}}
            return self.convert(merged, refs, depth + 1)

        out: JSONObject = {}
        nullable = schema.get("nullable") is True
        type_ = schema.get("type")
        if isinstance(type_, list):
            names = [t for t in type_ if isinstance(t, str)]
            nullable = nullable or "null" in names
            kinds = [t for t in names if t in _TYPES]
            if len(kinds) == 1:
                out["type"] = kinds[0]
            elif kinds:
                return self._alternatives(
                    schema, [{"type": k} for k in kinds], nullable, refs, depth
                )
        elif isinstance(type_, str):
            if type_ == "null":
                nullable = True
            elif type_ in _TYPES:
                out["type"] = type_

        alternatives = schema.get("anyOf", schema.get("oneOf"))
        if isinstance(alternatives, list):
            options = [a for a in alternatives if isinstance(a, dict)]
            return self._alternatives(schema, options, nullable, refs, depth)

        fmt = schema.get("format")
        kind = out.get("type")
        if isinstance(fmt, str) and isinstance(kind, str) and fmt in _FORMATS.get(kind, ()):
            out["format"] = fmt
        description = schema.get("description")
        if isinstance(description, str) and description:
            out["description"] = description
        enum = _string_enum(schema)
        if enum is not None:
            values, enum_nullable = enum
            nullable = nullable or enum_nullable
            if values:
                out.setdefault("type", "string")
                if out["type"] == "string":
                    out["enum"] = list(values)
        if nullable:
            out["nullable"] = True

        properties = schema.get("properties")
        if isinstance(properties, dict) and properties:
            converted: JSONObject = {}
            for name, sub in properties.items():
                converted[name] = (
                    self.convert(sub, refs, depth + 1) if isinstance(sub, dict) else {}
                )
            out["properties"] = converted
            required = schema.get("required")
            if isinstance(required, list):
                names = [r for r in required if isinstance(r, str) and r in converted]
                if names:
                    out["required"] = list(names)
        items = schema.get("items")
        if isinstance(items, dict):
            out["items"] = self.convert(items, refs, depth + 1)
        for key in _NUMERIC_KEYS:
            value = schema.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[key] = value
        return out

    def _alternatives(
        self,
        schema: JSONObject,
        options: list[JSONObject],
        nullable: bool,
        refs: tuple[str, ...],
        depth: int,
    ) -> JSONObject:
        kept: list[JSONObject] = []
        for option in options:
            if option.get("type") == "null" and len(option) == 1:
                nullable = True
            else:
                kept.append(self.convert(option, refs, depth + 1))
        out: JSONObject = {}
        if len(kept) == 1:
            out.update(kept[0])
        elif kept:
            out["anyOf"] = list(kept)
        description = schema.get("description")
        if isinstance(description, str) and description:
            out["description"] = description
        if nullable:
            out["nullable"] = True
        return out


def _string_enum(schema: JSONObject) -> tuple[list[JSONValue], bool] | None:
    """The schema's enum (or const) when every non-null value is a string, with whether
    null was one of the values; None when there is none or it holds other values."""
    if "const" in schema:
        raw: JSONValue = [schema["const"]]
    else:
        raw = schema.get("enum")
    if not isinstance(raw, list):
        return None
    values: list[JSONValue] = [v for v in raw if v is not None]
    if not all(isinstance(v, str) for v in values):
        return None
    return values, len(values) != len(raw)


__all__ = ["has_parameters", "to_gemini_schema"]
