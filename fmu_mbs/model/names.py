"""Interface names: the one place that names every output channel and input of a model.

CSV columns and FMU variables both come from here, so they are the same names. Names are dotted
and 1-based like Modelica (``crank.r[1]``, ``pin_O2.sd``, ``energy.total``); every value is SI and its
unit string is usable in an FMI 2.0 UnitDefinition (``UNITS`` gives the base-unit exponents).

Outputs, in this order:

- every marker ``m``: ``m.r[1..3]`` origin position (m), ``m.v[1..3]`` origin velocity (m/s),
  ``m.a[1..3]`` origin acceleration (m/s2), ``m.q[1..4]`` orientation quaternion of the marker frame
  [w, x, y, z] (1), ``m.w[1..3]`` angular velocity (rad/s); world axes. Planar models have no z, quaternion
  or 3D angular velocity: ``m.r[1..2]``, ``m.v[1..2]``, ``m.a[1..2]``, ``m.phi`` the frame angle about z
  (rad, continuous over turns) and ``m.w`` the angular velocity about z (rad/s).
- every joint ``j``: ``j.s``, ``j.sd`` for revolute and prismatic joints (rad, rad/s or m, m/s),
  ``j.s[1..2]``, ``j.sd[1..2]`` for cylindrical joints (translation, rotation); then the reaction
  ``j.F[1..3]`` (N) and ``j.T[1..3]`` (N.m) on marker_j's body about marker_j's origin (analyses/reactions.py).
- every driver ``d``: ``d.f`` effort along the driven coordinate (N or N.m).
- force elements: spring_damper ``length, speed, f``; rotational_spring_damper ``angle, speed, T``;
  bushing ``F[1..3], T[1..3]`` (on marker_j); actuator ``length, speed, force`` (``force`` rather than
  ``f``, because ``<actuator>.f`` is the actuator's input and an FMU needs unique names);
  hydraulic_cylinder ``length, speed, force, p1, p2, U, Q1, Q2`` (m, m/s, N, Pa, Pa, 1, m3/s, m3/s); contact ``fn``
  (sum of the normal forces of its contact points, N), ``ft[1..3]`` (resultant friction force on the
  shapes_a side, world axes, N), ``depth`` (largest penetration, m); passive_cylinder ``length, speed, force``
  (m, m/s, N: marker distance, its rate, drive force positive extending), ``fi[1..3]``, ``fj[1..3]`` (N) and
  ``ti[1..3]`` (N.m): the force the element exerts on marker_i's / marker_j's body at the marker origin and the
  universal joint's torque on marker_i's body, world axes; joint_friction ``torque`` (revolute, N.m)
  or ``force`` (prismatic, N): the friction on marker_j's body along the joint axis, ``slip`` (sliding speed at
  the friction surface, m/s), ``load`` (normal load from the reaction and preload, N).
- every modal body: ``b.eta[k]``, ``b.etad[k]``, chosen nodes' ``b.node<n>.u[k]`` and ``.r[k]``, stress points'
  ``b.stress[k]`` and ``b.strain[k]`` (model/modal_outputs.py).
- ``energy.kinetic``, ``energy.potential`` (gravity and springs), ``energy.total`` (J);
  ``solver.iterations``, ``solver.residual`` (1); ``energy.dissipated`` (work removed by dampers, friction and
  contact hysteresis since the start) and ``energy.input`` (work of loads, inputs, actuators and drivers) (J), as
  the integrator sums them (0 where no integrator ran, as in statics): a passive model keeps kinetic + potential +
  dissipated - input constant.

Inputs (``input_channels``), in the order of CompiledModel.input_names: ``<actuator>.f`` (N), then
``<cylinder>.Uref`` (1, valve reference) of every hydraulic cylinder, then ``<passive>.f`` (N) of every
force-driven passive cylinder, then for every marker ``<m>.F[1..3]``
(N) and ``<m>.T[1..3]`` (N.m), world axes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .elements import FORCE_KINDS, JOINT_COORDINATES, ModalBody, Model
from .functions import External
from .interface import Signal
from .modal_outputs import modal_body_channels

#: FMI 2.0 BaseUnit exponents of every unit used by a channel
UNITS: dict[str, dict[str, int]] = {
    "m": {"m": 1},
    "m/s": {"m": 1, "s": -1},
    "1/s": {"s": -1},
    "m/s2": {"m": 1, "s": -2},
    "rad": {"rad": 1},
    "rad/s": {"rad": 1, "s": -1},
    "rad/s2": {"rad": 1, "s": -2},
    "N": {"kg": 1, "m": 1, "s": -2},
    "N.m": {"kg": 1, "m": 2, "s": -2},
    "J": {"kg": 1, "m": 2, "s": -2},
    "s": {"s": 1},
    "kg": {"kg": 1},
    "kg.m2": {"kg": 1, "m": 2},
    "N/m": {"kg": 1, "s": -2},
    "N.s/m": {"kg": 1, "s": -1},
    "N.m/rad": {"kg": 1, "m": 2, "s": -2, "rad": -1},
    "N.m.s/rad": {"kg": 1, "m": 2, "s": -1, "rad": -1},
    "Pa": {"kg": 1, "m": -1, "s": -2},
    "m3/s": {"m": 3, "s": -1},
    "1": {},
}

_FORCE_TAG = {cls: tag for tag, cls in FORCE_KINDS.items()}

#: (position, velocity, effort) units of a joint coordinate kind
_COORDINATE_UNITS = {"rotation": ("rad", "rad/s", "N.m"), "translation": ("m", "m/s", "N")}

_DESCRIPTIONS = {
    "r": "origin position", "v": "origin velocity", "a": "origin acceleration", "q": "orientation quaternion",
    "w": "angular velocity", "phi": "frame angle about z", "s": "joint coordinate", "sd": "joint coordinate rate",
    "F": "force", "T": "torque",
    "f": "force", "length": "length", "speed": "rate of length", "angle": "angle", "force": "force",
    "kinetic": "kinetic energy", "potential": "potential energy (gravity and springs)",
    "total": "total mechanical energy",
    "dissipated": "energy dissipated since the start (integrator sum)",
    "input": "work input since the start (integrator sum)",
    "fn": "normal force", "ft": "friction force", "depth": "penetration",
    "torque": "torque", "slip": "sliding speed", "load": "normal load",
    "p1": "chamber 1 (piston side) pressure", "p2": "chamber 2 (rod side) pressure", "U": "spool position",
    "Q1": "flow into chamber 1", "Q2": "flow into chamber 2", "fi": "force on marker_i's body",
    "fj": "force on marker_j's body", "ti": "universal joint torque on marker_i's body",
    "iterations": "solver iterations", "residual": "solver residual",
}


@dataclass(frozen=True)
class Channel:
    """One named scalar: ``element.quantity[index]`` (index 1-based; 0 for a scalar quantity).
    ``kind`` is the element family: marker, joint, driver, spring_damper, rotational_spring_damper,
    bushing, actuator, contact, energy or solver."""

    name: str
    unit: str
    element: str
    quantity: str
    index: int = 0
    kind: str = ""
    doc: str = field(default="", compare=False)     # the declared meaning (model/interface.Signal.doc), if any

    @property
    def description(self) -> str:
        """A short human description (for FMU variable descriptions and plot legends)."""
        what = self.doc or _DESCRIPTIONS.get(self.quantity, self.quantity)
        if self.kind in ("energy", "solver"):
            return what
        comp = f", component {self.index}" if self.index else ""
        return f"{what} of {self.kind.replace('_', ' ')} '{self.element}'{comp}"


def _vector(element: str, quantity: str, unit: str, n: int, kind: str) -> list[Channel]:
    return [Channel(f"{element}.{quantity}[{k}]", unit, element, quantity, k, kind) for k in range(1, n + 1)]


def _scalar(element: str, quantity: str, unit: str, kind: str) -> Channel:
    return Channel(f"{element}.{quantity}", unit, element, quantity, 0, kind)


def marker_channels(name: str, planar: bool = False) -> list[Channel]:
    """r, v, a, q, w of one marker (16 channels); of a planar model's marker r, v, a in x-y, phi and w (8)."""
    if planar:
        return (_vector(name, "r", "m", 2, "marker") + _vector(name, "v", "m/s", 2, "marker")
                + _vector(name, "a", "m/s2", 2, "marker") + [_scalar(name, "phi", "rad", "marker"),
                                                             _scalar(name, "w", "rad/s", "marker")])
    return (_vector(name, "r", "m", 3, "marker") + _vector(name, "v", "m/s", 3, "marker")
            + _vector(name, "a", "m/s2", 3, "marker") + _vector(name, "q", "1", 4, "marker")
            + _vector(name, "w", "rad/s", 3, "marker"))


def joint_coordinate_channels(name: str, joint_type: str) -> list[Channel]:
    """s and sd of a joint: scalars for one coordinate, 1-based vectors for two; none for other types."""
    coords = JOINT_COORDINATES.get(joint_type, ())
    if len(coords) == 1:
        pos, vel, _ = _COORDINATE_UNITS[coords[0]]
        return [_scalar(name, "s", pos, "joint"), _scalar(name, "sd", vel, "joint")]
    s = [Channel(f"{name}.s[{k}]", _COORDINATE_UNITS[c][0], name, "s", k, "joint") for k, c in enumerate(coords, 1)]
    sd = [Channel(f"{name}.sd[{k}]", _COORDINATE_UNITS[c][1], name, "sd", k, "joint")
          for k, c in enumerate(coords, 1)]
    return s + sd


def joint_reaction_channels(name: str, planar: bool = False) -> list[Channel]:
    """The reaction of a joint on marker_j's body about marker_j's origin, world axes: F[1..3], T[1..3]; in a
    planar model F[1..2] (x, y) and the scalar T (about z), the only components a planar reaction has."""
    if planar:
        return _vector(name, "F", "N", 2, "joint") + [_scalar(name, "T", "N.m", "joint")]
    return _vector(name, "F", "N", 3, "joint") + _vector(name, "T", "N.m", 3, "joint")


def channels(model: Model) -> list[Channel]:
    """Every output channel of ``model``, in the documented order (see the module docstring)."""
    out: list[Channel] = []
    for mk in model.markers:
        out += marker_channels(mk.name, model.planar)
    joint_types = {}
    for j in model.joints:
        joint_types[j.name] = j.type
        out += joint_coordinate_channels(j.name, j.type)
        out += joint_reaction_channels(j.name, model.planar)
    for d in model.drivers:
        coord = JOINT_COORDINATES[joint_types[d.joint]][d.coordinate - 1]
        out.append(_scalar(d.name, "f", _COORDINATE_UNITS[coord][2], "driver"))
    for f in model.forces:
        out += signal_channels(f.name, f.outputs(model), _FORCE_TAG[type(f)])
    for b in model.bodies:
        if isinstance(b, ModalBody):
            out += modal_body_channels(b)
    out += [_scalar("energy", q, "J", "energy") for q in ("kinetic", "potential", "total")]
    out += [_scalar("solver", "iterations", "1", "solver"), _scalar("solver", "residual", "1", "solver")]
    out += [_scalar("energy", q, "J", "energy") for q in ("dissipated", "input")]
    return out


def signal_channels(element: str, signals: tuple[Signal, ...], kind: str) -> list[Channel]:
    """The channels of an element's declared signals (model/interface.py), in order."""
    out: list[Channel] = []
    for sig in signals:
        chans = (_vector(element, sig.quantity, sig.unit, sig.width, kind) if sig.width
                 else [_scalar(element, sig.quantity, sig.unit, kind)])
        out += [replace(c, doc=sig.doc) for c in chans] if sig.doc else chans
    return out


def input_channels(model: Model) -> list[Channel]:
    """Every input of ``model``: the declared inputs of the force elements, family by family in the order of
    FORCE_KINDS (the compiler lays out the input vector in that order), then a force and a torque per marker
    (world axes)."""
    out: list[Channel] = []
    for tag, cls in FORCE_KINDS.items():
        for f in model.forces:
            if type(f) is cls:
                out += signal_channels(f.name, f.inputs(), tag)
    for mk in model.markers:
        out += _vector(mk.name, "F", "N", 3, "marker") + _vector(mk.name, "T", "N.m", 3, "marker")
    return out


def driver_input_channels(model: Model) -> list[Channel]:
    """Inputs of drivers whose function is ``external``: ``<d>.s``, ``<d>.sd``, ``<d>.sdd`` (coordinate, rate,
    acceleration; rad or m). FMUs follow their Taylor polynomial over each communication step."""
    joints = {j.name: j for j in model.joints}
    out = []
    for d in model.drivers:
        if isinstance(d.function, External):
            kind = JOINT_COORDINATES[joints[d.joint].type][d.coordinate - 1]
            unit = "rad" if kind == "rotation" else "m"
            out += [_scalar(d.name, "s", unit, "driver"), _scalar(d.name, "sd", f"{unit}/s", "driver"),
                    _scalar(d.name, "sdd", f"{unit}/s2", "driver")]
    return out


def channel_names(model: Model) -> list[str]:
    """Names of ``channels(model)``."""
    return [c.name for c in channels(model)]
