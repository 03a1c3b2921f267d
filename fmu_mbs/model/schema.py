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
from .exact_beam import GeometricallyExactBeam
from .functions import FUNCTION_KINDS
from .json_io import FORMAT_TAG

_NUMBER = {"type": "number"}
_FUNCTION = {"oneOf": [_NUMBER, {"$ref": "#/$defs/time_function"}]}
_NUMBERS = {"type": "array", "items": _NUMBER}
_E = elements
#: fields with a fixed set of values: the same constants that validate.py checks against
_ENUMS = {(_E.Joint, "type"): tuple(dict.fromkeys(_E.JOINT_TYPES_3D + _E.JOINT_TYPES_2D)),
          (_E.Shape, "kind"): tuple(_E.SHAPE_KINDS), (_E.Graphic, "kind"): tuple(_E.GRAPHIC_KINDS),
          (_E.Contact, "law"): _E.CONTACT_LAWS, (_E.Contact, "friction"): _E.FRICTION_MODELS,
          (_E.Contact, "ramp"): _E.FRICTION_RAMPS, (_E.JointFriction, "friction"): _E.JOINT_FRICTION_MODELS,
          (_E.JointFriction, "ramp"): _E.FRICTION_RAMPS, (_E.PointLoad, "frame"): ("world", "marker")}
#: the inertia forms builder._inertia accepts: 3 principal moments, 6 values or a 3x3 matrix
_INERTIA_3D = {"oneOf": [dict(_NUMBERS, minItems=3, maxItems=3), dict(_NUMBERS, minItems=6, maxItems=6),
                         {"type": "array", "minItems": 3, "maxItems": 3,
                          "items": dict(_NUMBERS, minItems=3, maxItems=3)}]}


def _field_schema(f, cls=None) -> dict:
    name, hint = f.name, str(f.type)
    if (cls, name) in _ENUMS:
        return {"enum": list(_ENUMS[cls, name])}
    if name == "inertia":
        return _INERTIA_3D if cls is _E.RigidBody else {"type": "number", "minimum": 0}
    if name == "mass":
        return {"type": "number", "exclusiveMinimum": 0}
    if name == "orientation":
        return dict(_NUMBERS, minItems=4, maxItems=4)
    if name in ("position", "velocity", "gravity") and hint.startswith("Vec"):
        return dict(_NUMBERS, minItems=2, maxItems=3)
    if name == "color":
        return {"type": "string", "pattern": "^(#[0-9a-fA-F]{6})?$"}
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
    if hint.startswith("tuple[int"):
        return {"type": "array", "items": {"type": "integer"}}
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
    return {"type": "string"}


def _object(cls, tag: str | None) -> dict:
    props: dict = {"name": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"}}
    required = ["name"]
    if tag is not None:
        props["type"] = {"const": tag}
        required.append("type")
    for f in fields(cls):
        if f.name == "name":
            continue
        schema = _field_schema(f, cls)
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
            "graphics": {"type": "array", "items": _object(elements.Graphic, None)},
            "beams": {"type": "array", "items": _object(GeometricallyExactBeam, None),
                      "description": "geometrically exact beams, expanded on loading into node bodies, node "
                                     "markers and beam elements"},
            "exposed": {"type": "array", "items": {"type": "string", "pattern": r"^\w+\.\w+$"},
                        "description": "parameters FMUs expose, '<element>.<field>'"},
            "fmu_outputs": {"type": "array", "items": {"type": "string"},
                            "description": "FMU outputs: channel names, '<element>.<quantity>', element names or "
                                           "'default' (the default set); absent: the default set"},
        },
        "$defs": {"time_function": {"oneOf": fn_defs}},
    }


def _plain_type(hint: str) -> str:
    hint = hint.replace("tuple[Vec, Vec, Vec]", "3x3 matrix").replace("Vec", "vector").replace("Curve", "curve")
    hint = hint.replace("TimeFunction", "function").replace("tuple[function, ...]", "list of functions")
    hint = hint.replace("tuple[str, ...]", "list of names").replace("tuple[tuple[int, ...], ...]", "index lists")
    hint = hint.replace("tuple[int, ...]", "index list")
    hint = hint.replace("tuple[vector, ...]", "list of vectors")
    return hint.replace("tuple[float, ...]", "vector").replace(" | None", " (optional)")


def markdown_tables() -> str:
    """The output channels of every element kind, then one Markdown table per element kind: field, type, unit,
    default, meaning."""
    out = ["### Output channels per element (CSV columns, FMU outputs; `fmu-mbs channels MODEL` lists a model's)\n",
           "Vectors are in world axes; `[1..3]` are x, y, z (planar models: z = 0), quaternions `[w, x, y, z]`; "
           "joint reactions act on marker_j's body about marker_j's origin.\n", channel_table(), ""]
    groups = [("Bodies (`bodies`, field `type`)", BODY_KINDS),
              ("Markers, joints and drivers", {"markers": elements.Marker, "joints": elements.Joint,
                                               "drivers": elements.Driver}),
              ("Force elements (`forces`, field `type`)", FORCE_KINDS),
              ("Contact shapes (`shapes`)", {"shapes": elements.Shape}),
              ("Body graphics (`graphics`, drawn by `fmu-mbs animate`)", {"graphics": elements.Graphic}),
              ("Geometrically exact beams (`beams`; expanded on loading, docs/flexible-bodies.md §8)",
               {"beams": GeometricallyExactBeam}),
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
                unit = (f.metadata.get("unit", "") if f.metadata else "").replace("|", "\\|")   # m|rad in a table cell
                meaning = f.metadata.get("doc", "") if f.metadata else ""
                out.append(f"| `{f.name}` | {_plain_type(str(f.type))} | {unit} | {default} | {meaning} |")
            out.append("")
    return "\n".join(out)


def channel_table() -> str:
    """The output channels of every element kind (model/names.py), one row per quantity, as a Markdown table."""
    from .elements import Driver, Joint, Marker, Model
    from .names import channels, signal_channels
    e = elements
    examples = {"marker": (Marker("m"),), "joint (revolute, prismatic)": (Joint("j", "revolute", "m", "m"),),
                "joint (cylindrical)": (Joint("j", "cylindrical", "m", "m"),),
                "joint (other types)": (Joint("j", "spherical", "m", "m"),)}
    forces = {tag: cls.OUTPUTS for tag, cls in FORCE_KINDS.items() if tag not in ("joint_friction", "belt")}
    forces["belt (with one ring)"] = FORCE_KINDS["belt"]("b", "m", "m", 1.0, rings=("r",)).outputs(None)
    forces["joint_friction (revolute)"] = e.JointFriction("f", "j").outputs(
        Model("x", 3, (0.0, 0.0, 0.0), joints=(Joint("j", "revolute", "m", "m"),)))
    rows = ["| element | channel | unit | meaning |", "|---|---|---|---|"]

    def add(kind: str, chans, prefix: str) -> None:
        seen: dict[str, list] = {}
        for c in chans:
            if c.element == prefix:
                seen.setdefault(c.quantity, []).append(c)
        for qty, group in seen.items():
            index = f"[1..{len(group)}]" if group[0].index else ""
            what = group[0].description.rsplit(f" of {group[0].kind.replace('_', ' ')}", 1)[0]
            rows.append(f"| {kind} | `<name>.{qty}{index}` | {group[0].unit} | {what} |")
        if not seen:
            rows.append(f"| {kind} | (none) | | |")

    joint = Joint("j", "revolute", "m", "m")
    for kind, els in examples.items():
        model = Model("x", 3, (0.0, 0.0, 0.0), markers=(Marker("m"),), joints=els[-1:] if "joint" in kind else ())
        add(kind, channels(model), els[0].name)
        if kind == "marker":
            planar = Model("x", 2, (0.0, 0.0), markers=(Marker("m", position=(0.0, 0.0)),))
            add("marker (planar model)", channels(planar), "m")
        if kind == "joint (revolute, prismatic)":
            planar = Model("x", 2, (0.0, 0.0), markers=(Marker("m", position=(0.0, 0.0)),), joints=els)
            add("joint (planar model)", [c for c in channels(planar) if c.quantity in ("F", "T")], "j")
    model = Model("x", 3, (0.0, 0.0, 0.0), markers=(Marker("m"),), joints=(joint,), drivers=(Driver("d", "j"),))
    add("driver (N on a translation, N.m on a rotation)", channels(model), "d")
    for kind, signals in forces.items():
        add(kind, signal_channels("f", signals, kind.split(" ")[0]), "f")
    for group in ("energy", "solver"):
        for c in channels(Model("x", 3, (0.0, 0.0, 0.0))):
            if c.element == group:
                rows.append(f"| model | `{c.name}` | {c.unit} | {c.description} |")
    return "\n".join(rows)


if __name__ == "__main__":
    if "--markdown" in sys.argv:
        print(markdown_tables())
    else:
        print(json.dumps(json_schema(), indent=2))
