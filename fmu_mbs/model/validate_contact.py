"""Problems of contact shapes and contact elements, each naming the element, the field and the problem."""

from __future__ import annotations

import math

from .attachments import placement_problems
from .elements import CONTACT_LAWS, FRICTION_MODELS, FRICTION_RAMPS, SHAPE_KINDS, Contact, Model

#: shape kinds with a finite curvature radius for Hertz stiffness: the radius is dimensions[0]
#: (ellipsoid: its smallest semi-axis); the other kinds are flat (infinite radius)
CURVED_KINDS = ("sphere", "capsule", "cylinder", "ellipsoid")


def friction_law_problems(w: str, friction: str, models, ramp: str, mu: float, mu_static: float | None,
                          stiffness_field: str, stiffness: float) -> list[str]:
    """Problems of the friction-law fields that contacts and joint friction share (``w`` names the element; the
    bristle law needs a positive ``stiffness_field``, N/m)."""
    p = []
    if friction not in models:
        p.append(f"{w}: 'friction' must be one of {', '.join(models)}, got {friction!r}")
    if ramp not in FRICTION_RAMPS:
        p.append(f"{w}: 'ramp' must be one of {', '.join(FRICTION_RAMPS)}, got {ramp!r}")
    if mu_static is not None and not (_number(mu_static) and mu_static >= mu):
        p.append(f"{w}: 'mu_static' must be >= mu ({mu}), got {mu_static}")
    if friction == "bristle" and not stiffness > 0.0:
        p.append(f"{w}: bristle friction needs a positive '{stiffness_field}' (N/m)")
    return p


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _curve_problems(where: str, field: str, curve) -> list[str]:
    if curve is None:
        return []
    if len(curve) < 2 or not all(len(p) == 2 and _number(p[0]) and _number(p[1]) for p in curve):
        return [f"{where}: '{field}' needs at least 2 finite points [d, f]"]
    xs = [p[0] for p in curve]
    ys = [p[1] for p in curve]
    if any(b <= a for a, b in zip(xs, xs[1:])):
        return [f"{where}: '{field}' depths must be strictly increasing"]
    if any(b < a for a, b in zip(ys, ys[1:])):
        return [f"{where}: '{field}' forces must not decrease with depth"]
    return []


def shape_problems(model: Model) -> list[str]:
    """Problems of the shapes of ``model``."""
    p: list[str] = []
    markers = {m.name for m in model.markers}
    for s in model.shapes:
        w = f"shape '{s.name}'"
        p += placement_problems(w, s.marker, s.kind, s.dimensions, SHAPE_KINDS, markers)
        if s.kind not in SHAPE_KINDS:
            continue
        if s.young is not None and not (_number(s.young) and s.young > 0.0):
            p.append(f"{w}: 'young' must be positive, got {s.young}")
        if s.poisson is not None and not (_number(s.poisson) and -1.0 < s.poisson < 0.5):
            p.append(f"{w}: 'poisson' must lie in (-1, 0.5), got {s.poisson}")
        if s.kind == "mesh":
            if not s.vertices or not s.triangles:
                p.append(f"{w}: a mesh needs 'vertices' and 'triangles'")
            elif not all(len(v) == 3 and all(_number(x) for x in v) for v in s.vertices):
                p.append(f"{w}: 'vertices' must be finite [x, y, z] points")
            elif not all(len(t) == 3 and all(0 <= i < len(s.vertices) for i in t) for t in s.triangles):
                p.append(f"{w}: 'triangles' must be [i, j, k] vertex indices in 0..{len(s.vertices) - 1}")
        elif s.vertices is not None or s.triangles is not None:
            p.append(f"{w}: 'vertices' and 'triangles' apply to meshes only")
    return p


def contact_problems(model: Model, c: Contact) -> list[str]:
    """Problems of one contact element."""
    w = f"contact '{c.name}'"
    p: list[str] = []
    if model.dimension != 3:
        return [f"{w}: contacts need a spatial model (dimension 3)"]
    shapes = {s.name: s for s in model.shapes}
    for side in ("shapes_a", "shapes_b"):
        names = getattr(c, side)
        if not names:
            p.append(f"{w}: '{side}' must name at least one shape")
        for n in names:
            if n not in shapes:
                p.append(f"{w}: '{side}' refers to shape '{n}', which is not defined")
    if c.law not in CONTACT_LAWS:
        p.append(f"{w}: 'law' must be one of {', '.join(CONTACT_LAWS)}, got {c.law!r}")
    if c.stiffness is not None and not (_number(c.stiffness) and c.stiffness > 0.0):
        p.append(f"{w}: 'stiffness' must be positive and finite, got {c.stiffness}")
    if c.exponent is not None and not (_number(c.exponent) and c.exponent >= 1.0):
        p.append(f"{w}: 'exponent' must be >= 1, got {c.exponent}")
    if c.law == "linear" and c.exponent not in (None, 1.0):
        p.append(f"{w}: the linear law has exponent 1, got {c.exponent}")
    if not (_number(c.restitution) and 0.0 < c.restitution <= 1.0):
        p.append(f"{w}: 'restitution' must lie in (0, 1], got {c.restitution}")
    for field in ("damping", "viscous", "mu", "tangential_stiffness", "tangential_damping"):
        v = getattr(c, field)
        if not (_number(v) and v >= 0.0):
            p.append(f"{w}: '{field}' must be finite and >= 0, got {v}")
    for field in ("damping_depth", "min_impact_speed", "stribeck_speed", "velocity_threshold"):
        v = getattr(c, field)
        if not (_number(v) and v > 0.0):
            p.append(f"{w}: '{field}' must be positive, got {v}")
    if c.law == "table":
        if c.loading_curve is None:
            p.append(f"{w}: the table law needs a 'loading_curve'")
        p += _curve_problems(w, "loading_curve", c.loading_curve)
        p += _curve_problems(w, "unloading_curve", c.unloading_curve)
    elif c.loading_curve is not None or c.unloading_curve is not None:
        p.append(f"{w}: 'loading_curve' and 'unloading_curve' apply to the table law only")
    if c.law in CONTACT_LAWS and c.law != "table" and c.stiffness is None:
        if c.law == "linear":
            p.append(f"{w}: the linear law needs a 'stiffness' (N/m)")
        else:
            for n in c.shapes_a + c.shapes_b:
                s = shapes.get(n)
                if s is not None and (s.young is None or s.poisson is None):
                    p.append(f"{w}: no 'stiffness' given, so shape '{n}' needs 'young' and 'poisson' (Hertz "
                             f"stiffness from material data)")
    p += friction_law_problems(w, c.friction, FRICTION_MODELS, c.ramp, c.mu, c.mu_static, "tangential_stiffness",
                               c.tangential_stiffness)
    return p


def all_contact_problems(model: Model) -> list[str]:
    """Problems of every shape and contact element of ``model`` (and of exposed contact parameters)."""
    p = shape_problems(model)
    contacts = {f.name: f for f in model.forces if isinstance(f, Contact)}
    for c in contacts.values():
        p += contact_problems(model, c)
    for entry in model.exposed:
        element, _, field = entry.partition(".")
        c = contacts.get(element)
        if c is not None and getattr(c, field, 0.0) is None:
            p.append(f"exposed parameter '{entry}': contact '{element}' has no value for '{field}' to expose")
    return p
