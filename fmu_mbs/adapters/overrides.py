"""``--set NAME=VALUE`` on the command line: the values an FMU of the model could expose, named as the FMU names
them (``<element>.<field>``, ``g[k]``, ``<joint>.s_start``, ``solver.<option>``), applied to a loaded model.

- ``<element>.<field>``: any field that ``EXPOSABLE`` lists for the element's kind (masses, stiffnesses, dampings,
  free lengths, friction coefficients...), whether or not the model file exposes it; SI units;
- ``g[k]``: gravity component k (1-based, m/s2);
- ``<joint>.s_start``: the initial coordinate of a revolute or prismatic joint (rad or m); the model is assembled
  with the joint held there, as an FMU does;
- ``<joint>.sd_start``: its initial rate (rad/s or m/s), kept exactly by assembly (the joint's ``sd_start`` field);
- ``solver.integrator`` (alf, galpha, explicit, reference), ``solver.scheme`` (ali3p, energy), ``solver.rho_inf``,
  ``solver.tolerance`` (Newton tolerance), ``solver.penalty`` (augmented-Lagrangian penalty), ``solver.accept_first``
  (1/0: end a step after a first Newton correction below the tolerance), ``solver.tangent_every`` (a positive whole
  number of steps), ``solver.project_accelerations`` (1/0): ``simulate`` only.

``build`` takes the model values and gravity only (built into the FMU).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

import numpy as np

from ..model.builder import ModelBuilder
from ..model.elements import EXPOSABLE, EXPOSED_UNITS, JOINT_COORDINATES, Joint, Model

#: solver options of ``--set solver.<name>``: (integrator keyword, value type, meaning)
SOLVER_OPTIONS = {"integrator": ("integrator", str, "alf, galpha, explicit, variable or reference"),
                  "rtol": ("rtol", float, "variable, reference: relative tolerance on positions and velocities"),
                  "scheme": ("scheme", str, "alf: ali3p or energy"),
                  "rho_inf": ("rho_inf", float, "galpha: spectral radius at infinite frequency, in [0, 1]"),
                  "tolerance": ("tol", float, "Newton tolerance of the implicit integrators"),
                  "penalty": ("penalty", float, "augmented-Lagrangian penalty factor"),
                  "accept_first": ("accept_first", bool, "alf, galpha: 1 ends a step whose first Newton correction is "
                                   "below the tolerance without a checking evaluation (smooth models, small steps)"),
                  "tangent_every": ("tangent_every", int, "alf, galpha: steps between refreshes of the force "
                                    "tangent (refreshed earlier where Newton stalls)"),
                  "project_accelerations": ("project_accelerations", bool, "alf, galpha: 0 keeps the scheme's "
                                            "accelerations and multipliers (first order) and, with "
                                            "--no-energy-balance, skips the end-state evaluation of each step")}


@dataclass
class Settings:
    """What ``--set`` asked for: the model with its values changed, joints to hold at t = 0 and solver options."""

    model: Model
    holds: dict[str, float] = field(default_factory=dict)
    solver: dict[str, object] = field(default_factory=dict)


def _unit(el, name: str) -> str:
    return EXPOSED_UNITS.get((name, type(el)), EXPOSED_UNITS.get(name, ""))


def settable(model: Model) -> dict[str, tuple[str, str]]:
    """Every name ``--set`` takes for ``model``: (unit, meaning)."""
    out = {f"g[{k + 1}]": ("m/s2", f"gravity component {k + 1}") for k in range(model.dimension)}
    for el in (*model.bodies, *model.joints, *model.forces):
        for name in EXPOSABLE.get(type(el), ()):
            if name == "length" and getattr(el, "type", "") != "distance":
                continue
            if name in ("s_start", "sd_start"):
                coords = JOINT_COORDINATES.get(el.type, ())
                if len(coords) == 1:
                    unit = "rad" if coords[0] == "rotation" else "m"
                    out[f"{el.name}.{name}"] = (
                        (unit, "initial coordinate (assembled with the joint held there)") if name == "s_start" else
                        (f"{unit}/s", "initial rate (kept exactly; the other rates follow from the constraints)"))
                continue
            if getattr(el, name) is None and name != "mu_static":
                continue
            out[f"{el.name}.{name}"] = (_unit(el, name), f"{name.replace('_', ' ')} of {type(el).__name__} '{el.name}'")
    out.update({f"solver.{k}": ("", f"simulate: {v[2]}") for k, v in SOLVER_OPTIONS.items()})
    return out


def _hint(name: str, names) -> str:
    close = difflib.get_close_matches(name, list(names), n=3, cutoff=0.5)
    return f"; did you mean {', '.join(close)}?" if close else ""


def apply_settings(model: Model, items: list[str] | None) -> Settings:
    """The model with ``items`` ("NAME=VALUE") applied; ValueError naming the item and the problem."""
    if not items:
        return Settings(model)
    known = settable(model)
    b = ModelBuilder.from_model(model)
    out = Settings(model)
    gravity = list(model.gravity)
    for item in items:
        name, sep, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name or not text:
            raise ValueError(f"--set '{item}': write NAME=VALUE, e.g. --set g[2]=-1.62")
        if name not in known:
            raise ValueError(f"--set '{item}': model '{model.name}' has no settable value '{name}'{_hint(name, known)}"
                             f" ('fmu-mbs channels MODEL' lists them)")
        head, _, tail = name.partition(".")
        if head == "solver":
            keyword, kind, _ = SOLVER_OPTIONS[tail]
            out.solver[keyword] = (text if kind is str else _switch(item, text) if kind is bool else
                                   _count(item, text) if kind is int else _number(item, text))
            continue
        value = _number(item, text)
        if name.startswith("g["):
            gravity[int(name[2:-1]) - 1] = value
        elif tail == "s_start":
            out.holds[head] = value
        else:
            b.set_value(head, tail, value)
    b.gravity = tuple(gravity)
    out.model = b.build()
    return out


def _switch(item: str, text: str) -> bool:
    value = {"1": True, "true": True, "0": False, "false": False}.get(text.lower())
    if value is None:
        raise ValueError(f"--set '{item}': '{text}' is not a switch (1, 0, true or false)")
    return value


def _count(item: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"--set '{item}': '{text}' is not a positive whole number")
    return value


def _number(item: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--set '{item}': '{text}' is not a number") from None
    if not np.isfinite(value):
        raise ValueError(f"--set '{item}': the value must be finite")
    return value


def held_positions(model: Model, holds: dict[str, float], t: float = 0.0) -> np.ndarray | None:
    """Assembled positions with each joint of ``holds`` held at its coordinate (rad or m), or None."""
    if not holds:
        return None
    from ..analyses.assembly import assemble
    from ..compiler import compile_model
    b = ModelBuilder.from_model(model)
    joints = {j.name: j for j in model.joints if isinstance(j, Joint)}
    for joint, value in holds.items():
        if any(d.joint == joint for d in model.drivers):
            raise ValueError(f"--set '{joint}.s_start': joint '{joint}' is driven; its driver sets the coordinate")
        b.set_value(joint, "s_start", None)          # the hold's driver sets the coordinate; rates come later
        b.set_value(joint, "sd_start", None)
        b.add_driver(f"__s_start_{joint}", joints[joint].name, value)
    return assemble(compile_model(b.build()), t=t).q
