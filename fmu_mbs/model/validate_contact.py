"""Problems of contact shapes and contact elements, each naming the element, the field and the problem."""

from __future__ import annotations

import math

from .attachments import placement_problems
from .elements import CONTACT_LAWS, FRICTION_MODELS, FRICTION_RAMPS, SHAPE_KINDS, Contact, Model
from .force_elements import PLANAR_SHAPE_KINDS

#: shape kinds with a finite curvature radius for Hertz stiffness: the radius is dimensions[0]
#: (ellipsoid: its smallest semi-axis); the other kinds are flat (infinite radius)
CURVED_KINDS = ("sphere", "capsule", "cylinder", "ellipsoid", "circle")


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
        planar_kinds = PLANAR_SHAPE_KINDS if model.dimension == 2 else tuple(k for k in SHAPE_KINDS if k not in
                                                                              PLANAR_SHAPE_KINDS or k == "capsule")
        if s.kind not in planar_kinds:
            p.append(f"{w}: a {'planar' if model.dimension == 2 else 'spatial'} model takes the shape kinds "
                     f"{', '.join(planar_kinds)}, got {s.kind!r}")
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
        elif s.kind == "polygon":
            p += _polygon_problems(w, s.vertices, s.triangles)
        elif s.vertices is not None or s.triangles is not None:
            p.append(f"{w}: 'vertices' and 'triangles' apply to meshes (and 'vertices' to polygons) only")
    return p


def polygon_area(vertices) -> float:
    """Signed area of a polygon [[x, y], ...] (m^2; > 0 for counter-clockwise vertices; shoelace formula)."""
    n = len(vertices)
    return 0.5 * sum(vertices[i][0] * vertices[(i + 1) % n][1] - vertices[(i + 1) % n][0] * vertices[i][1]
                     for i in range(n))


def _polygon_problems(w: str, vertices, triangles) -> list[str]:
    """A polygon needs >= 3 finite [x, y] vertices of a convex polygon with area (either orientation)."""
    if triangles is not None:
        return [f"{w}: a polygon takes 'vertices' only (no 'triangles')"]
    if not vertices or len(vertices) < 3 or not all(len(v) == 2 and all(_number(x) for x in v) for v in vertices):
        return [f"{w}: a polygon needs 'vertices' [[x, y], ...]: at least 3 finite points in the marker's x-y plane"]
    n = len(vertices)
    area = polygon_area(vertices)
    edges = [(vertices[(i + 1) % n][0] - vertices[i][0], vertices[(i + 1) % n][1] - vertices[i][1]) for i in range(n)]
    turns = [math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1])
             for a, b in zip(edges, edges[1:] + edges[:1])]
    # convex: every turn one way and once around in all (a star polygon turns the same way but twice around)
    if abs(area) <= 0.0 or any(t * area < 0.0 for t in turns) or abs(abs(sum(turns)) - 2 * math.pi) > 1e-6:
        return [f"{w}: the polygon must be convex with a non-zero area (vertices in order around it)"]
    return []


def contact_problems(model: Model, c: Contact) -> list[str]:
    """Problems of one contact element."""
    w = f"contact '{c.name}'"
    p: list[str] = []
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


def contact_warnings(model: Model) -> list[str]:
    """Pairs of shapes of a contact element that can never fire (``check`` prints them; not errors): shapes on
    one body (or both on ground), and shapes on bodies joined by a joint when ``include_joined`` is false. One
    message per contact and reason, naming the first such pair (and how many more there are)."""
    body = {m.name: m.body for m in model.markers}
    shape_body = {s.name: body.get(s.marker) for s in model.shapes}
    joined = {}
    for j in model.joints:
        a, b = body.get(j.marker_i), body.get(j.marker_j)
        if a is not None and b is not None and a != b:
            joined[(a, b)] = joined[(b, a)] = j.name
    out = []
    for c in model.forces:
        if not isinstance(c, Contact):
            continue
        found: dict[str, list[tuple[str, str]]] = {"same": [], "joined": []}
        for sa in c.shapes_a:
            for sb in c.shapes_b:
                ba, bb = shape_body.get(sa), shape_body.get(sb)
                if sa == sb or ba is None or bb is None:
                    continue
                if ba == bb:
                    found["same"].append((sa, sb))
                elif not c.include_joined and (ba, bb) in joined:
                    found["joined"].append((sa, sb))
        for reason, pairs in found.items():
            if not pairs:
                continue
            sa, sb = pairs[0]
            n = len(pairs) - 1
            more = f" (and {n} more such pair{'s' if n > 1 else ''})" if n else ""
            if reason == "same":
                out.append(f"contact '{c.name}': shapes '{sa}' and '{sb}' are both on body '{shape_body[sa]}': "
                           f"shapes on one body never collide{more}")
            else:
                out.append(f"contact '{c.name}': shapes '{sa}' and '{sb}' are on bodies joined by a joint "
                           f"('{shape_body[sa]}' and '{shape_body[sb]}') and include_joined is false: they never "
                           f"collide{more}")
    return out
