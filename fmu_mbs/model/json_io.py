"""Versioned JSON <-> Model. Loading goes through ModelBuilder, so a loaded model and a built model
are the same structure; ``model_to_dict`` writes every field, so save -> load is an exact round trip.
The format is documented in docs/model-format.md."""

from __future__ import annotations

import json
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from .builder import ModelBuilder
from .elements import BODY_KINDS, FORCE_KINDS, FORMAT_VERSION, Model
from .exact_beam import GeometricallyExactBeam, add_geometrically_exact_beam
from .functions import TimeFunction, function_from_dict, function_to_dict
from .validate import model_problems

FORMAT_TAG = "fmu-mbs-model"
_TOP_FIELDS = {"format", "format_version", "name", "description", "dimension", "gravity", "bodies", "markers",
               "joints", "drivers", "forces", "exposed", "shapes",
               "graphics", "fmu_outputs", "beams"}
_BODY_TAG = {cls: tag for tag, cls in BODY_KINDS.items()}
_FORCE_TAG = {cls: tag for tag, cls in FORCE_KINDS.items()}


def _is_function_field(f) -> bool:
    """A field holds time functions (one, an optional one or a tuple) when its type annotation names
    TimeFunction: decided from the class, so a new function field is serialised without a list to update."""
    return "TimeFunction" in str(f.type)


# --- writing ------------------------------------------------------------------------------------

def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _element_dict(el, tag: str | None, skip: tuple[str, ...] = ()) -> dict:
    out: dict = {"name": el.name}
    if tag is not None:
        out["type"] = tag
    for f in fields(el):
        if f.name in ("name",) + skip:
            continue
        value = getattr(el, f.name)
        if value is None:
            continue
        if _is_function_field(f):
            value = [function_to_dict(v) for v in value] if isinstance(value, tuple) else function_to_dict(value)
        out[f.name] = _plain(value)
    return out


def model_to_dict(model: Model) -> dict:
    """The JSON structure of ``model`` (every field written, defaults included; ``shapes``, ``graphics``,
    ``fmu_outputs`` and a marker's ``port`` only if any)."""
    marker_skip = ("orientation",) if model.planar else ("angle",)
    out = {
        "format": FORMAT_TAG,
        "format_version": FORMAT_VERSION,
        "name": model.name,
        "description": model.description,
        "dimension": model.dimension,
        "gravity": list(model.gravity),
        "bodies": [_element_dict(b, _BODY_TAG[type(b)], ("source_dir",) if hasattr(b, "source_dir") else ())
                   for b in model.bodies],
        "markers": [_element_dict(m, None, marker_skip + (() if m.port else ("port",))) for m in model.markers],
        "joints": [_element_dict(j, None) for j in model.joints],
        "drivers": [_element_dict(d, None) for d in model.drivers],
        "forces": [_element_dict(f, _FORCE_TAG[type(f)]) for f in model.forces],
        "exposed": list(model.exposed),
    }
    if model.shapes:
        out["shapes"] = [_element_dict(s, None) for s in model.shapes]
    if model.graphics:
        out["graphics"] = [_element_dict(g, None) for g in model.graphics]
    if model.fmu_outputs:
        out["fmu_outputs"] = list(model.fmu_outputs)
    return out


def save_model(model: Model, path: str | Path) -> None:
    """Write ``model`` as JSON (UTF-8, 2-space indent)."""
    Path(path).write_text(json.dumps(model_to_dict(model), indent=2) + "\n", encoding="utf-8")


# --- reading ------------------------------------------------------------------------------------

def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _kwargs(cls, data: dict, where: str, problems: list[str], ignore=("name", "type")) -> dict | None:
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known) - set(ignore))
    if unknown:
        problems.append(f"{where}: unknown field(s) {unknown} (known: {sorted(set(known) - {'name'})})")
        return None
    missing = [n for n, f in known.items() if n not in data and f.default is MISSING
               and f.default_factory is MISSING and n not in ignore]
    if missing:
        problems.append(f"{where}: missing field(s) {missing}")
        return None
    kwargs = {}
    for k, v in data.items():
        if k in ignore:
            continue
        hint = str(known[k].type)
        if hint == "float" and not _is_number(v) or hint == "Vec" and not (
                isinstance(v, (list, tuple)) and all(_is_number(x) for x in v)):
            problems.append(f"{where}: '{k}' must be {'a number' if hint == 'float' else 'a list of numbers'}, "
                            f"got {json.dumps(v)}")
            return None
        if _is_function_field(known[k]):
            v = [function_from_dict(x, f"{where} '{k}'") for x in v] if isinstance(v, list) else \
                function_from_dict(v, f"{where} '{k}'")
        kwargs[k] = v
    return kwargs


def model_from_dict(data: dict) -> Model:
    """Build a Model from its JSON structure; raises ModelError listing every problem."""
    if not isinstance(data, dict):
        raise ModelError("the top level of a model file must be a JSON object")
    name = data.get("name", "")
    problems: list[str] = []
    if data.get("format", FORMAT_TAG) != FORMAT_TAG:
        problems.append(f"model: 'format' must be {FORMAT_TAG!r}, got {data.get('format')!r}")
    version = data.get("format_version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        problems.append(f"model: format_version {version!r} is not supported (this release reads {FORMAT_VERSION})")
    unknown = sorted(set(data) - _TOP_FIELDS)
    if unknown:
        problems.append(f"model: unknown top-level field(s) {unknown}")
    for req in ("name", "dimension"):
        if req not in data:
            problems.append(f"model: missing field '{req}'")
    if problems:
        raise ModelError(problems, name)

    b = ModelBuilder(name, int(data["dimension"]), data.get("gravity"), data.get("description", ""))
    exposed = data.get("exposed", [])
    if not (isinstance(exposed, list) and all(isinstance(x, str) for x in exposed)):
        problems.append("model: 'exposed' must be a list of strings '<element>.<field>'")
    else:
        b.expose(*exposed)
    declared = data.get("fmu_outputs", [])
    if not (isinstance(declared, list) and all(isinstance(x, str) for x in declared)):
        problems.append("model: 'fmu_outputs' must be a list of strings (channels, '<element>.<quantity>', "
                        "elements or 'default')")
    else:
        b.fmu_output(*declared)

    def each(section: str):
        items = data.get(section, [])
        if not isinstance(items, list):
            problems.append(f"model: '{section}' must be a list")
            return
        for k, item in enumerate(items):
            if not isinstance(item, dict) or "name" not in item:
                problems.append(f"{section}[{k}]: must be an object with a 'name'")
                continue
            yield item

    calls = []
    for item in each("bodies"):
        where = f"body '{item['name']}'"
        cls = BODY_KINDS.get(item.get("type"))
        if cls is None:
            problems.append(f"{where}: 'type' must be one of {sorted(BODY_KINDS)}, got {item.get('type')!r}")
            continue
        kw = _kwargs(cls, item, where, problems)
        if kw is not None:
            adder = {"rigid": b.add_rigid_body, "planar": b.add_planar_body, "point_mass": b.add_point_mass,
                     "flexible": b.add_flexible_body, "modal": b.add_modal_body}
            calls.append((where, adder[item["type"]], item["name"], kw))
    for item in each("beams"):                 # expanded into node bodies, markers and beam elements
        where = f"beam '{item['name']}'"
        kw = _kwargs(GeometricallyExactBeam, item, where, problems)
        if kw is not None:
            calls.append((where, lambda name, **kw: _add_beam(b, GeometricallyExactBeam(name, **kw)), item["name"],
                          kw))
    for section, adder, cls_name in (("markers", b.add_marker, "Marker"), ("joints", b.add_joint, "Joint"),
                                     ("drivers", b.add_driver, "Driver"), ("shapes", b.add_shape, "Shape"),
                                     ("graphics", b.add_graphic, "Graphic")):
        from . import elements
        cls = getattr(elements, cls_name)
        for item in each(section):
            where = f"{section[:-1]} '{item['name']}'"
            ignore = ("name",) if section == "joints" else ("name", "type")
            kw = _kwargs(cls, item, where, problems, ignore=ignore)
            if kw is not None:
                calls.append((where, adder, item["name"], kw))
    force_adders = {"spring_damper": b.add_spring_damper, "rotational_spring_damper": b.add_rotational_spring_damper,
                    "bushing": b.add_bushing, "point_load": b.add_point_load, "actuator": b.add_actuator,
                    "hydraulic_cylinder": b.add_hydraulic_cylinder, "contact": b.add_contact,
                    "passive_cylinder": b.add_passive_cylinder, "joint_friction": b.add_joint_friction}
    for item in each("forces"):
        where = f"force element '{item['name']}'"
        cls = FORCE_KINDS.get(item.get("type"))
        if cls is None:
            problems.append(f"{where}: 'type' must be one of {sorted(FORCE_KINDS)}, got {item.get('type')!r}")
            continue
        kw = _kwargs(cls, item, where, problems)
        if kw is not None and item["type"] in force_adders:
            calls.append((where, force_adders[item["type"]], item["name"], kw))
        elif kw is not None:                   # a family without an adder of its own: the generic one
            calls.append((where, lambda name, cls=cls, **kw: b.add_force(cls(name, **kw)), item["name"], kw))

    for where, adder, el_name, kw in calls:
        try:
            adder(el_name, **kw)
        except (TypeError, ValueError) as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        # the elements that were read are checked too, so one run reports every problem of the file; problems
        # that name an element that could not be read are its consequences and left out
        failed = {str(item.get("name")) for section in ("bodies", "markers", "joints", "drivers", "forces", "shapes",
                                                        "graphics") for item in data.get(section, []) or []
                  if isinstance(item, dict) and any(p.startswith(f"{_where(section)} '{item.get('name')}'")
                                                    for p in problems)}
        try:
            more = model_problems(b.draft())
        except Exception:  # noqa: BLE001 - a draft with unreadable parts; the problems above stand
            more = []
        problems += [p for p in more if not any(f"'{n}'" in p for n in failed)]
        raise ModelError(problems, name)
    return b.build()


def _add_beam(b: ModelBuilder, beam: GeometricallyExactBeam) -> None:
    """A model file's beam (``beams``), expanded; its problems as one ValueError (the caller names the beam)."""
    problems = beam.problems(b.dimension)
    if problems:
        raise ValueError("; ".join(p.split(": ", 1)[1] for p in problems))
    add_geometrically_exact_beam(b, beam)


def _where(section: str) -> str:
    return {"bodies": "body", "forces": "force element"}.get(section, section[:-1])


def load_model(source: str | Path | dict) -> Model:
    """Load a model from a JSON file path or an already parsed dict."""
    if isinstance(source, dict):
        return model_from_dict(source)
    path = Path(source)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"model file '{path}' does not exist") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"model file '{path}' is not valid JSON: line {exc.lineno}, column {exc.colno}: "
                         f"{exc.msg}") from None
    for item in data.get("bodies", []) if isinstance(data, dict) and isinstance(data.get("bodies"), list) else []:
        if isinstance(item, dict) and item.get("type") == "modal" and item.get("fe_file"):
            item["source_dir"] = str(path.resolve().parent)      # FE files are relative to the model file
    return model_from_dict(data)


__all__ = ["load_model", "save_model", "model_to_dict", "model_from_dict", "TimeFunction"]
