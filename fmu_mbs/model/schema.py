"""The model file format as data: a JSON Schema and Markdown reference tables, both generated from the element
dataclasses (their field metadata holds unit and meaning), so the documentation cannot drift from the code.

    python -m fmu_mbs.model.schema > docs/model-schema.json
    python -m fmu_mbs.model.schema --markdown   # the element tables of docs/model-format.md
"""

from __future__ import annotations

import json
import sys
from dataclasses import MISSING, fields

from . import elements
from .elements import BODY_KINDS, FORCE_KINDS, FORMAT_VERSION
from .functions import FUNCTION_KINDS
from .json_io import FORMAT_TAG

_NUMBER = {"type": "number"}
_FUNCTION = {"oneOf": [_NUMBER, {"$ref": "#/$defs/time_function"}]}


def _field_schema(f) -> dict:
    name, hint = f.name, str(f.type)
    if name in ("function", "force", "torque") and "tuple[TimeFunction" in hint:
        return {"type": "array", "items": _FUNCTION}
    if name in ("function", "force", "torque", "stroke"):
        return _FUNCTION
    if "Curve" in hint:
        return {"type": "array", "items": {"type": "array", "items": _NUMBER, "minItems": 2, "maxItems": 2}}
    if hint.startswith("tuple[str"):
        return {"type": "array", "items": {"type": "string"}}
    if hint.startswith("tuple[tuple[int"):
        return {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
    if hint == "bool":
        return {"type": "boolean"}
    if hint.startswith("tuple[Vec"):
        return {"type": "array", "items": {"type": "array", "items": _NUMBER}}
    if hint.startswith("Vec") or hint.startswith("tuple[float"):
        return {"type": "array", "items": _NUMBER}
    if hint.startswith("float | None"):
        return _NUMBER
    if hint in ("float",):
        return _NUMBER
    if hint == "int":
        return {"type": "integer"}
    if name == "inertia":
        return {"oneOf": [_NUMBER, {"type": "array", "items": {"type": "array", "items": _NUMBER}}]}
    return {"type": "string"}


def _object(cls, tag: str | None) -> dict:
    props: dict = {"name": {"type": "string"}}
    required = ["name"]
    if tag is not None:
        props["type"] = {"const": tag}
        required.append("type")
    for f in fields(cls):
        if f.name == "name":
            continue
        schema = _field_schema(f)
        meta = f.metadata
        if meta:
            schema = dict(schema, description=f"{meta.get('doc', '')} [{meta.get('unit', '')}]".strip())
        props[f.name] = schema
        if f.default is MISSING and f.default_factory is MISSING:
            required.append(f.name)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False,
            "description": (cls.__doc__ or "").strip().split("\n\n")[0]}


def json_schema() -> dict:
    """JSON Schema (draft 2020-12) of a model file."""
    fn_defs = []
    for kind, cls in FUNCTION_KINDS.items():
        if kind == "constant":
            continue
        obj = _object(cls, kind)
        obj["properties"].pop("name")
        obj["required"].remove("name")
        fn_defs.append(obj)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"fmu-mbs model, format version {FORMAT_VERSION}",
        "type": "object",
        "required": ["name", "dimension"],
        "additionalProperties": False,
        "properties": {
            "format": {"const": FORMAT_TAG},
            "format_version": {"const": FORMAT_VERSION},
            "name": {"type": "string"},
            "description": {"type": "string"},
            "dimension": {"enum": [2, 3]},
            "gravity": {"type": "array", "items": _NUMBER, "description": "gravity vector [m/s2]"},
            "bodies": {"type": "array", "items": {"oneOf": [_object(c, t) for t, c in BODY_KINDS.items()]}},
            "markers": {"type": "array", "items": _object(elements.Marker, None)},
            "joints": {"type": "array", "items": _object(elements.Joint, None)},
            "drivers": {"type": "array", "items": _object(elements.Driver, None)},
            "forces": {"type": "array", "items": {"oneOf": [_object(c, t) for t, c in FORCE_KINDS.items()]}},
            "shapes": {"type": "array", "items": _object(elements.Shape, None)},
            "exposed": {"type": "array", "items": {"type": "string", "pattern": r"^\w+\.\w+$"},
                        "description": "parameters FMUs expose, '<element>.<field>'"},
        },
        "$defs": {"time_function": {"oneOf": fn_defs}},
    }


def _plain_type(hint: str) -> str:
    hint = hint.replace("tuple[Vec, Vec, Vec]", "3x3 matrix").replace("Vec", "vector").replace("Curve", "curve")
    hint = hint.replace("TimeFunction", "function").replace("tuple[function, ...]", "list of functions")
    hint = hint.replace("tuple[str, ...]", "list of names").replace("tuple[tuple[int, ...], ...]", "index lists")
    hint = hint.replace("tuple[vector, ...]", "list of vectors")
    return hint.replace("tuple[float, ...]", "vector").replace(" | None", " (optional)")


def markdown_tables() -> str:
    """One Markdown table per element kind: field, type, unit, default, meaning."""
    out = []
    groups = [("Bodies (`bodies`, field `type`)", BODY_KINDS),
              ("Markers, joints and drivers", {"markers": elements.Marker, "joints": elements.Joint,
                                               "drivers": elements.Driver}),
              ("Force elements (`forces`, field `type`)", FORCE_KINDS),
              ("Contact shapes (`shapes`)", {"shapes": elements.Shape}),
              ("Time functions (`{\"type\": ...}`; a bare number is a constant)", FUNCTION_KINDS)]
    for title, kinds in groups:
        out.append(f"### {title}\n")
        for tag, cls in kinds.items():
            doc = " ".join((cls.__doc__ or "").split())
            out.append(f"#### `{tag}`\n\n{doc}\n")
            out.append("| field | type | unit | default | meaning |\n|---|---|---|---|---|")
            for f in fields(cls):
                if f.name == "name":
                    continue
                default = "required" if f.default is MISSING and f.default_factory is MISSING else (
                    repr(f.default) if f.default is not MISSING else "")
                if isinstance(f.default, tuple):
                    default = json.dumps(list(f.default))
                unit = f.metadata.get("unit", "") if f.metadata else ""
                meaning = f.metadata.get("doc", "") if f.metadata else ""
                out.append(f"| `{f.name}` | {_plain_type(str(f.type))} | {unit} | {default} | {meaning} |")
            out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    if "--markdown" in sys.argv:
        print(markdown_tables())
    else:
        print(json.dumps(json_schema(), indent=2))
