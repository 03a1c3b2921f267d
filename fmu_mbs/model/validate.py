"""Collects every problem of a model, each naming the element, the field and the problem."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from dataclasses import field as dc_field

import numpy as np

from .elements import (
    BODY_KINDS,
    EXPOSABLE,
    FRICTION_JOINT_TYPES,
    GROUND,
    JOINT_COORDINATES,
    JOINT_FRICTION_MODELS,
    JOINT_TYPES_2D,
    JOINT_TYPES_3D,
    ORIENTING_JOINTS,
    Actuator,
    Bushing,
    Contact,
    FlexibleBody,
    HydraulicCylinder,
    JointFriction,
    ModalBody,
    Model,
    PassiveCylinder,
    PlanarBody,
    PointLoad,
    PointMass,
    RigidBody,
    RotationalSpringDamper,
    SpringDamper,
)
from .force_elements import Belt
from .functions import function_problems
from .graphics import graphic_problems
from .validate_contact import all_contact_problems, friction_law_problems
from .validate_flexible import flexible_body_problems, flexible_marker_problems
from .validate_modal import modal_body_problems, modal_marker_problems

UNIT_TOL = 1e-6  # allowed | |q| - 1 | of a quaternion
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _finite(values) -> bool:
    try:
        return bool(np.all(np.isfinite(np.asarray(values, dtype=float))))
    except (TypeError, ValueError):
        return False


def _vector_problems(where: str, field: str, value, n: int) -> list[str]:
    if len(value) != n:
        return [f"{where}: '{field}' needs {n} components, got {len(value)}"]
    if not _finite(value):
        return [f"{where}: '{field}' has a non-finite component"]
    return []


def _quaternion_problems(where: str, field: str, q) -> list[str]:
    problems = _vector_problems(where, field, q, 4)
    if not problems and abs(math.sqrt(sum(x * x for x in q)) - 1.0) > UNIT_TOL:
        problems.append(f"{where}: '{field}' must be a unit quaternion [w, x, y, z], |q| = "
                        f"{math.sqrt(sum(x * x for x in q)):.9g}")
    return problems


def _inertia_problems(where: str, inertia) -> list[str]:
    try:
        J = np.asarray(inertia, dtype=float)
    except (TypeError, ValueError):
        return [f"{where}: 'inertia' must be a 3x3 matrix of numbers"]
    if J.shape != (3, 3) or not np.all(np.isfinite(J)):
        return [f"{where}: 'inertia' must be a finite 3x3 matrix, got shape {J.shape}"]
    scale = max(np.abs(J).max(), 1e-300)
    if np.abs(J - J.T).max() > 1e-9 * scale:
        return [f"{where}: 'inertia' is not symmetric"]
    moments = np.linalg.eigvalsh(J)
    if moments[0] <= 0.0:
        return [f"{where}: 'inertia' is not positive definite (principal moments {moments.round(12).tolist()})"]
    a, b, c = moments
    if a + b < c * (1.0 - 1e-9):
        return [f"{where}: 'inertia' violates the triangle inequality: principal moments {a:.6g} + {b:.6g} "
                f"< {c:.6g}"]
    return []


def _curve_problems(where: str, field: str, curve) -> list[str]:
    if curve is None:
        return []
    if len(curve) < 2:
        return [f"{where}: '{field}' needs at least 2 points"]
    if not _finite(curve):
        return [f"{where}: '{field}' has a non-finite value"]
    xs = [p[0] for p in curve]
    if any(b <= a for a, b in zip(xs, xs[1:])):
        return [f"{where}: '{field}' abscissae must be strictly increasing"]
    return []


@dataclass
class _Scope:
    """What the checks of one model share: the model, its dimension, the element tables and the problem list."""

    model: Model
    dim: int
    bodies: dict
    markers: dict
    joints: dict
    p: list[str] = dc_field(default_factory=list)

    def body_of(self, marker_name: str) -> str | None:
        m = self.markers.get(marker_name)
        return None if m is None else m.body

    def check_pair(self, w: str, mi: str, mj: str) -> bool:
        """True if both markers exist and sit on different bodies; otherwise the problem is recorded."""
        ok = True
        for name, mk in (("marker_i", mi), ("marker_j", mj)):
            if mk not in self.markers:
                self.p.append(f"{w}: '{name}' refers to marker '{mk}', which is not defined")
                ok = False
        if ok and self.body_of(mi) == self.body_of(mj):
            self.p.append(f"{w}: markers '{mi}' and '{mj}' are on the same body '{self.body_of(mi)}'")
            ok = False
        return ok


def model_problems(model: Model) -> list[str]:
    """Every problem of ``model`` as a list of messages (empty if the model is valid)."""
    dim = model.dimension
    if dim not in (2, 3):
        return [f"model '{model.name}': 'dimension' must be 2 (planar) or 3 (spatial), got {dim}"]
    s = _Scope(model, dim, {b.name: b for b in model.bodies}, {m.name: m for m in model.markers},
               {j.name: j for j in model.joints})
    if not model.name:
        s.p.append("model: 'name' must not be empty")
    s.p += _vector_problems("model", "gravity", model.gravity, dim)
    for check in (_name_problems, _body_problems, _marker_problems, _joint_problems, _driver_problems,
                  _exposed_problems, _force_problems):
        check(s)
    s.p += all_contact_problems(model) + graphic_problems(model)
    if model.fmu_outputs and not s.p:   # names the channels of a model that is otherwise valid
        from .fmu_interface import fmu_output_problems
        s.p += fmu_output_problems(model)
    return s.p


def _name_problems(s: _Scope) -> None:
    """One namespace: every element name prefixes its output channels."""
    p, model = s.p, s.model
    seen: dict[str, str] = {}
    groups = (("body", model.bodies), ("marker", model.markers), ("joint", model.joints),
              ("driver", model.drivers), ("force element", model.forces), ("shape", model.shapes),
              ("graphic", model.graphics))
    for kind, group in groups:
        for el in group:
            name = el.name
            if not name or not isinstance(name, str):
                p.append(f"{kind} {name!r}: names must be non-empty strings")
            elif name == GROUND or name in ("energy", "solver", "time"):
                p.append(f"{kind} '{name}': the name '{name}' is reserved")
            elif name in seen:
                p.append(f"{kind} '{name}': duplicate name (already used by a {seen[name]})")
            elif not _IDENTIFIER.fullmatch(name):
                p.append(f"{kind} '{name}': names must be identifiers (letters, digits, '_'; not starting with a "
                         f"digit), since they prefix FMU variable and CSV column names")
            else:
                seen[name] = kind


def _body_problems(s: _Scope) -> None:
    """Mass, inertia and initial state of every body, by kind."""
    p, model, dim = s.p, s.model, s.dim
    for b in model.bodies:
        w = f"body '{b.name}'"
        if isinstance(b, FlexibleBody):
            p += flexible_body_problems(w, b, dim)
            continue
        if isinstance(b, ModalBody):
            p += modal_body_problems(w, b, dim)
            continue
        if not isinstance(b, (RigidBody, PlanarBody, PointMass)):
            p.append(f"{w}: unknown body kind {type(b).__name__} (body kinds: {sorted(BODY_KINDS)})")
            continue
        if not (isinstance(b.mass, float) and math.isfinite(b.mass) and b.mass > 0.0):
            p.append(f"{w}: 'mass' must be positive and finite, got {b.mass}")
        if isinstance(b, RigidBody):
            if dim != 3:
                p.append(f"{w}: a rigid (spatial) body is not allowed in a planar model; use a planar body")
                continue
            p += _inertia_problems(w, b.inertia)
            p += _vector_problems(w, "position", b.position, 3)
            p += _quaternion_problems(w, "orientation", b.orientation)
            p += _vector_problems(w, "velocity", b.velocity, 3)
            p += _vector_problems(w, "angular_velocity", b.angular_velocity, 3)
        elif isinstance(b, PlanarBody):
            if dim != 2:
                p.append(f"{w}: a planar body is not allowed in a spatial model; use a rigid body")
                continue
            # zero is allowed: a point mass at the frame origin whose rotation joints determine
            if not (math.isfinite(b.inertia) and b.inertia >= 0.0):
                p.append(f"{w}: 'inertia' must be finite and >= 0, got {b.inertia}")
            p += _vector_problems(w, "position", b.position, 2)
            p += _vector_problems(w, "velocity", b.velocity, 2)
            if not (math.isfinite(b.angle) and math.isfinite(b.angular_velocity)):
                p.append(f"{w}: 'angle' and 'angular_velocity' must be finite")
        elif isinstance(b, PointMass):
            p += _vector_problems(w, "position", b.position, dim)
            p += _vector_problems(w, "velocity", b.velocity, dim)


def _marker_problems(s: _Scope) -> None:
    """Every marker: its body exists, its pose fits the dimension."""
    p, model, dim = s.p, s.model, s.dim
    bodies = s.bodies
    for m in model.markers:
        w = f"marker '{m.name}'"
        if m.body != GROUND and m.body not in bodies:
            p.append(f"{w}: body '{m.body}' is not defined")
        elif isinstance(bodies.get(m.body), FlexibleBody):
            p += flexible_marker_problems(w, m, bodies[m.body])
        elif isinstance(bodies.get(m.body), ModalBody):
            p += modal_marker_problems(w, m, bodies[m.body])
        p += _vector_problems(w, "position", m.position, dim)
        if dim == 3:
            p += _quaternion_problems(w, "orientation", m.orientation)
            if m.angle != 0.0:
                p.append(f"{w}: 'angle' is for planar models; use 'orientation' in a spatial model")
        else:
            if tuple(m.orientation) != (1.0, 0.0, 0.0, 0.0):
                p.append(f"{w}: 'orientation' is for spatial models; use 'angle' in a planar model")
            if not math.isfinite(m.angle):
                p.append(f"{w}: 'angle' must be finite")


def _joint_problems(s: _Scope) -> None:
    """Joint types, marker pairs and the fields each type needs."""
    p, model, dim = s.p, s.model, s.dim
    bodies = s.bodies
    allowed = JOINT_TYPES_2D if dim == 2 else JOINT_TYPES_3D
    for j in model.joints:
        w = f"joint '{j.name}'"
        if j.type not in allowed:
            p.append(f"{w}: type '{j.type}' is not a {'planar' if dim == 2 else 'spatial'} joint type "
                     f"(known: {', '.join(allowed)})")
            continue
        if not s.check_pair(w, j.marker_i, j.marker_j):
            continue
        if j.type == "distance":
            if j.length is None or not (math.isfinite(j.length) and j.length > 0.0):
                p.append(f"{w}: a distance joint needs a positive 'length', got {j.length}")
        elif j.length is not None:
            p.append(f"{w}: 'length' applies to distance joints only")
        for name in ("s_start", "sd_start"):
            value = getattr(j, name)
            if value is None:
                continue
            if len(JOINT_COORDINATES.get(j.type, ())) != 1:
                p.append(f"{w}: '{name}' needs a joint with one coordinate (revolute or prismatic), not {j.type}")
            elif not math.isfinite(value):
                p.append(f"{w}: '{name}' must be finite, got {value}")
        if j.type in ORIENTING_JOINTS and not (dim == 2 and j.type == "revolute"):
            for mk in (j.marker_i, j.marker_j):
                if isinstance(bodies.get(s.body_of(mk)), PointMass):
                    p.append(f"{w}: a {j.type} joint constrains orientation, but marker '{mk}' is on point "
                             f"mass '{s.body_of(mk)}', which has none")


def _driver_problems(s: _Scope) -> None:
    """Each driver drives an existing coordinate of a joint, once."""
    p, model = s.p, s.model
    joints = s.joints
    driven: dict[tuple[str, int], str] = {}
    for d in model.drivers:
        w = f"driver '{d.name}'"
        j = joints.get(d.joint)
        if j is None:
            p.append(f"{w}: joint '{d.joint}' is not defined")
            continue
        coords = JOINT_COORDINATES.get(j.type, ())
        if not 1 <= d.coordinate <= len(coords):
            have = f"coordinates 1..{len(coords)}" if coords else "no coordinate"
            p.append(f"{w}: joint '{d.joint}' of type '{j.type}' has {have}; cannot drive coordinate "
                     f"{d.coordinate}")
            continue
        key = (d.joint, d.coordinate)
        if key in driven:
            p.append(f"{w}: coordinate {d.coordinate} of joint '{d.joint}' is already driven by '{driven[key]}'")
        driven[key] = d.name
        p += function_problems(d.function, w)
        if j.s_start is not None or j.sd_start is not None:
            p.append(f"{w}: joint '{d.joint}' has an initial coordinate or rate (s_start, sd_start); its driver "
                     f"sets both, remove one of them")


def _exposed_problems(s: _Scope) -> None:
    """Parameters exposed as FMU parameters exist and can be exposed."""
    p, model = s.p, s.model
    elements = {el.name: el for group in (model.bodies, model.joints, model.forces) for el in group}
    for entry in model.exposed:
        element, _, field = entry.partition(".")
        el = elements.get(element)
        if el is None:
            p.append(f"exposed parameter '{entry}': element '{element}' is not a body, joint or force element")
        elif field not in EXPOSABLE.get(type(el), ()):
            p.append(f"exposed parameter '{entry}': '{field}' cannot be exposed on a {type(el).__name__} "
                     f"(exposable: {', '.join(EXPOSABLE.get(type(el), ())) or 'nothing'})")
        elif field == "length" and el.type != "distance":
            p.append(f"exposed parameter '{entry}': only distance joints have a length")
        elif field in ("s_start", "sd_start") and len(JOINT_COORDINATES.get(el.type, ())) != 1:
            p.append(f"exposed parameter '{entry}': {field} needs a joint with one coordinate "
                     f"(revolute or prismatic), '{element}' is {el.type}")
    if len(set(model.exposed)) != len(model.exposed):
        p.append("model: 'exposed' lists a parameter twice")


def _force_problems(s: _Scope) -> None:
    """Force elements by family (contacts: validate_contact; self-checking families: problems())."""
    p, model, dim = s.p, s.model, s.dim
    bodies, markers, joints = s.bodies, s.markers, s.joints
    for f in model.forces:
        w = f"force element '{f.name}'"
        if isinstance(f, PointLoad):
            if f.marker not in markers:
                p.append(f"{w}: 'marker' refers to marker '{f.marker}', which is not defined")
            nf, nt = (2, 1) if dim == 2 else (3, 3)
            if len(f.force) != nf:
                p.append(f"{w}: 'force' needs {nf} components, got {len(f.force)}")
            if len(f.torque) != nt:
                p.append(f"{w}: 'torque' needs {nt} component(s), got {len(f.torque)}")
            for k, fn in enumerate(f.force + f.torque):
                p += function_problems(fn, f"{w} component {k + 1}")
            if f.frame not in ("world", "marker"):
                p.append(f"{w}: 'frame' must be 'world' or 'marker', got {f.frame!r}")
            continue
        if isinstance(f, Contact):
            continue                       # validate_contact
        if isinstance(f, JointFriction):
            p += _joint_friction_problems(w, f, joints.get(f.joint), bodies, s.body_of)
            continue
        if isinstance(f, Belt):                # anchors may share a body (a car's retractor and buckle)
            for name, mk in [("marker_i", f.marker_i), ("marker_j", f.marker_j)] + [("rings", r) for r in f.rings]:
                if mk not in markers:
                    p.append(f"{w}: '{name}' refers to marker '{mk}', which is not defined")
            p += f.problems(w) + function_problems(f.pull_in, w)
            continue
        s.check_pair(w, f.marker_i, f.marker_j)
        if isinstance(f, (SpringDamper, RotationalSpringDamper)):
            for field in ("stiffness", "damping"):
                v = getattr(f, field)
                if not (math.isfinite(v) and v >= 0.0):
                    p.append(f"{w}: '{field}' must be finite and >= 0, got {v}")
            if isinstance(f, SpringDamper) and not (math.isfinite(f.free_length) and f.free_length >= 0.0):
                p.append(f"{w}: 'free_length' must be finite and >= 0, got {f.free_length}")
            if isinstance(f, RotationalSpringDamper) and dim == 3:
                for mk in (f.marker_i, f.marker_j):
                    if isinstance(bodies.get(s.body_of(mk)), PointMass):
                        p.append(f"{w}: marker '{mk}' is on a point mass, which cannot take a torque")
            p += _curve_problems(w, "spring_curve", f.spring_curve)
            p += _curve_problems(w, "damper_curve", f.damper_curve)
            p += function_problems(f.force if isinstance(f, SpringDamper) else f.torque, w)
        elif isinstance(f, Bushing):
            for field in ("stiffness", "damping", "rotational_stiffness", "rotational_damping"):
                v = getattr(f, field)
                p += _vector_problems(w, field, v, 3)
                if len(v) == 3 and _finite(v) and min(v) < 0.0:
                    p.append(f"{w}: '{field}' must be >= 0, got {list(v)}")
        elif isinstance(f, Actuator):
            p += function_problems(f.force, w)
        elif isinstance(f, HydraulicCylinder):
            p += _hydraulic_problems(w, f)
        elif hasattr(f, "problems"):          # a family that checks its own fields
            p += f.problems(w)
        elif isinstance(f, PassiveCylinder):
            p += _passive_problems(w, f)
            if dim == 3 and isinstance(bodies.get(s.body_of(f.marker_i)), PointMass):
                p.append(f"{w}: marker_i '{f.marker_i}' is on a point mass, which cannot take the universal "
                         f"joint's torque")


def _hydraulic_problems(w: str, f: HydraulicCylinder) -> list[str]:
    p = []
    positive = ("stroke", "piston_diameter", "rod_diameter", "hose_volume_1", "hose_volume_2", "bulk_modulus_oil",
                "bulk_modulus_hose", "bulk_modulus_cylinder", "nominal_flow", "nominal_pressure_drop",
                "laminar_pressure_drop", "spool_bandwidth")
    for field in positive:
        v = getattr(f, field)
        if not (math.isfinite(v) and v > 0.0):
            p.append(f"{w}: '{field}' must be finite and > 0, got {v}")
    for field in ("length_retracted", "damping", "end_stop_stiffness", "end_stop_damping", "end_stop_length",
                  "tank_pressure"):
        v = getattr(f, field)
        if not (math.isfinite(v) and v >= 0.0):
            p.append(f"{w}: '{field}' must be finite and >= 0, got {v}")
    for field in ("pump_pressure", "p1_start", "p2_start", "spool_start"):
        if not math.isfinite(getattr(f, field)):
            p.append(f"{w}: '{field}' must be finite, got {getattr(f, field)}")
    if math.isfinite(f.rod_diameter) and math.isfinite(f.piston_diameter) and f.rod_diameter >= f.piston_diameter:
        p.append(f"{w}: 'rod_diameter' ({f.rod_diameter}) must be smaller than 'piston_diameter' "
                 f"({f.piston_diameter})")
    if math.isfinite(f.pump_pressure) and math.isfinite(f.tank_pressure) and f.pump_pressure <= f.tank_pressure:
        p.append(f"{w}: 'pump_pressure' ({f.pump_pressure}) must exceed 'tank_pressure' ({f.tank_pressure})")
    if abs(f.spool_start) > 1.0:
        p.append(f"{w}: 'spool_start' must be in [-1, 1], got {f.spool_start}")
    p += function_problems(f.valve, w)
    return p


def _passive_problems(w: str, f: PassiveCylinder) -> list[str]:
    from .functions import Constant, External, Linear, Polynomial
    p = []
    for field in ("cylinder_mass", "cylinder_cm", "rod_mass", "rod_cm"):
        v = getattr(f, field)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0.0):
            p.append(f"{w}: '{field}' must be finite and >= 0, got {v}")
    for field in ("cylinder_inertia", "rod_inertia"):
        v = getattr(f, field)
        p += _vector_problems(w, field, v, 2)
        if len(v) == 2 and _finite(v) and min(v) < 0.0:
            p.append(f"{w}: '{field}' [transverse, axial] must be >= 0, got {list(v)}")
    p += function_problems(f.force, w)
    if f.stroke is not None:
        if not (isinstance(f.force, Constant) and f.force.value == 0.0 and not isinstance(f.force, External)):
            p.append(f"{w}: give either 'force' or 'stroke', not both")
        if isinstance(f.stroke, External) or not isinstance(f.stroke, (Constant, Linear, Polynomial)):
            p.append(f"{w}: 'stroke' must be a constant, linear or polynomial function of time (its square enters "
                     f"the distance constraint), got {type(f.stroke).__name__}")
        else:
            p += function_problems(f.stroke, w)
            if isinstance(f.stroke, Constant) and not (math.isfinite(f.stroke.value) and f.stroke.value > 0.0):
                p.append(f"{w}: 'stroke' must be > 0, got {f.stroke.value}")
    return p


def _joint_friction_problems(w: str, f: JointFriction, joint, bodies: dict, body_of) -> list[str]:
    """Problems of a JointFriction on ``joint`` (None: not defined)."""
    p = []
    if joint is None:
        p.append(f"{w}: joint '{f.joint}' is not defined")
    elif joint.type not in FRICTION_JOINT_TYPES:
        p.append(f"{w}: joint '{f.joint}' is a {joint.type} joint; friction acts in "
                 f"{' and '.join(FRICTION_JOINT_TYPES)} joints only")
    elif joint.type == "revolute":
        if f.pin_radius is None or not (math.isfinite(f.pin_radius) and f.pin_radius > 0.0):
            p.append(f"{w}: friction in revolute joint '{f.joint}' needs a positive 'pin_radius' (m), got "
                     f"{f.pin_radius}")
        for mk in (joint.marker_i, joint.marker_j):
            if isinstance(bodies.get(body_of(mk)), PointMass):
                p.append(f"{w}: marker '{mk}' of joint '{f.joint}' is on a point mass, which cannot take the "
                         f"friction torque")
    elif f.pin_radius is not None:
        p.append(f"{w}: 'pin_radius' applies to revolute joints only ('{f.joint}' is prismatic)")
    for field in ("mu", "viscous", "bristle_stiffness", "bristle_damping", "friction_arm", "bending_arm", "preload"):
        v = getattr(f, field)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0.0):
            p.append(f"{w}: '{field}' must be finite and >= 0, got {v}")
    for field in ("stribeck_speed", "velocity_threshold"):
        v = getattr(f, field)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0.0):
            p.append(f"{w}: '{field}' must be positive, got {v}")
    p += friction_law_problems(w, f.friction, JOINT_FRICTION_MODELS, f.ramp, f.mu, f.mu_static, "bristle_stiffness",
                               f.bristle_stiffness)
    return p
