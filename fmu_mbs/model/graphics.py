"""Body graphics: their problems, the graphics of a model that has none, and mesh files (STL, OBJ).

Graphics are attached to markers, so a viewer needs only the marker poses of a result (``m.r[k]``, ``m.q[k]``).
"""

from __future__ import annotations

import math
import re
import struct
from pathlib import Path

from .attachments import placement_problems
from .elements import GRAPHIC_KINDS, GROUND, Graphic, Model, PointMass

_COLOR = re.compile(r"#[0-9a-fA-F]{6}")
#: colours given to bodies in turn when a graphic has none
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
GROUND_COLOR = "#8c8c8c"
#: default graphics may sit at a body's centre of mass: marker name BODY_PREFIX + body name (viewer only)
BODY_PREFIX = "@"
FORCE_LINK_COLOR = "#c8a000"


def _positive(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0.0


def graphic_problems(model: Model) -> list[str]:
    """Problems of the graphics of ``model``, each naming the graphic and the field."""
    p: list[str] = []
    markers = {m.name for m in model.markers}
    for g in model.graphics:
        w = f"graphic '{g.name}'"
        p += placement_problems(w, g.marker, g.kind, g.dimensions, GRAPHIC_KINDS, markers)
        if g.kind not in GRAPHIC_KINDS:
            continue
        if g.kind == "link":
            if g.to_marker is None:
                p.append(f"{w}: a link needs 'to_marker', the marker at its far end")
            elif g.to_marker not in markers:
                p.append(f"{w}: 'to_marker' refers to marker '{g.to_marker}', which is not defined")
        elif g.to_marker is not None:
            p.append(f"{w}: 'to_marker' applies to links only")
        if g.kind == "mesh":
            inline = g.vertices is not None or g.triangles is not None
            if (g.file is None) == (not inline):
                p.append(f"{w}: a mesh needs either 'file' or 'vertices' and 'triangles'")
            elif g.file is not None and Path(g.file).suffix.lower() not in (".stl", ".obj"):
                p.append(f"{w}: 'file' must be an .stl or .obj file, got '{g.file}'")
            elif inline and not (g.vertices and g.triangles and all(len(t) == 3 and all(
                    0 <= i < len(g.vertices) for i in t) for t in g.triangles)):
                p.append(f"{w}: 'triangles' must be [i, j, k] indices into 'vertices'")
        elif g.file is not None or g.vertices is not None or g.triangles is not None:
            p.append(f"{w}: 'file', 'vertices' and 'triangles' apply to meshes only")
        if not _positive(g.scale):
            p.append(f"{w}: 'scale' must be positive, got {g.scale}")
        if g.color and not _COLOR.fullmatch(g.color):
            p.append(f"{w}: 'color' must be '#rrggbb', got {g.color!r}")
        if not (_positive(g.opacity) and g.opacity <= 1.0):
            p.append(f"{w}: 'opacity' must lie in (0, 1], got {g.opacity}")
    return p


def _prism(outline, half: float) -> tuple[tuple, tuple]:
    """(vertices, triangles) of the prism z in [-half, half] over a convex outline [(x, y), ...] (either order)."""
    n = len(outline)
    area = sum(outline[i][0] * outline[(i + 1) % n][1] - outline[(i + 1) % n][0] * outline[i][1] for i in range(n))
    pts = list(outline) if area > 0.0 else list(reversed(outline))
    verts = tuple((x, y, half) for x, y in pts) + tuple((x, y, -half) for x, y in pts)
    tris = [(0, i, i + 1) for i in range(1, n - 1)] + [(n, n + i + 1, n + i) for i in range(1, n - 1)]
    for i in range(n):
        j = (i + 1) % n
        tris += [(i, n + i, n + j), (i, n + j, j)]
    return verts, tuple(tris)


def _planar_shape_graphic(s, size: float) -> Graphic:
    """A planar model's contact shape drawn in its marker's x-y plane: a circle as a thin cylinder along z, a line
    as a long thin box along its x axis, a polygon or capsule as a thin prism over its outline."""
    name, half = f"shape_{s.name}", 2.0 * size
    if s.kind == "circle":
        return Graphic(name, s.marker, "cylinder", (s.dimensions[0], half))
    if s.kind == "line":
        return Graphic(name, s.marker, "box", (100.0 * size, 0.2 * size, 4.0 * half), opacity=0.5)
    if s.kind == "capsule":
        r, h = s.dimensions
        arc = [(h + r * math.cos(a), r * math.sin(a)) for a in (math.pi * (k / 8.0 - 0.5) for k in range(9))]
        outline = arc + [(-x, -y) for x, y in arc]
    else:
        outline = [tuple(v) for v in s.vertices]
    verts, tris = _prism(outline, half)
    return Graphic(name, s.marker, "mesh", (), vertices=verts, triangles=tris)


def default_graphics(model: Model, size: float) -> tuple[Graphic, ...]:
    """The graphics drawn for ``model``: its own if it has any, else its contact shapes, links between the
    centre of mass of every body and its markers (``BODY_PREFIX`` + body name stands for the centre of mass), along
    every distance joint and two-marker force element, a sphere on every point mass and a small cube on every
    ground marker a joint uses. ``size`` (m) is the link radius scale."""
    if model.graphics:
        return model.graphics
    out: list[Graphic] = []
    body_of = {m.name: m.body for m in model.markers}
    for s in model.shapes:
        if model.dimension == 2:
            out.append(_planar_shape_graphic(s, size))
            continue
        dims = (4.0 * 25.0 * size,) if s.kind == "plane" else s.dimensions
        out.append(Graphic(f"shape_{s.name}", s.marker, s.kind, tuple(dims), vertices=s.vertices,
                           triangles=s.triangles, opacity=0.5 if s.kind == "plane" else 1.0))
    shaped = {body_of.get(s.marker) for s in model.shapes}
    for b in model.bodies:
        on_body = [m.name for m in model.markers if m.body == b.name]
        if isinstance(b, PointMass):
            if on_body:
                out.append(Graphic(f"mass_{b.name}", on_body[0], "sphere", (4.0 * size,)))
            continue
        centre = BODY_PREFIX + b.name
        if b.name not in shaped:
            out.append(Graphic(f"body_{b.name}", centre, "box", (2.0 * size,) * 3))
        for m in on_body:
            out.append(Graphic(f"link_{b.name}_{m}", centre, "link", (size,), to_marker=m))
    for j in model.joints:
        if j.type == "distance":
            out.append(Graphic(f"link_{j.name}", j.marker_i, "link", (0.5 * size,), to_marker=j.marker_j))
    for f in model.forces:
        if hasattr(f, "marker_i") and hasattr(f, "marker_j"):
            out.append(Graphic(f"link_{f.name}", f.marker_i, "link", (0.6 * size,), to_marker=f.marker_j,
                               color=FORCE_LINK_COLOR))
    for name in dict.fromkeys(mk for j in model.joints for mk in (j.marker_i, j.marker_j)):
        if body_of.get(name) == GROUND:
            out.append(Graphic(f"ground_{name}", name, "box", (2.0 * size,) * 3, color=GROUND_COLOR))
    return tuple(out)


def read_mesh(path: str | Path, scale: float = 1.0) -> tuple[list[list[float]], list[list[int]]]:
    """Vertices (m, after ``scale``) and 0-based triangles of an STL (ASCII or binary) or OBJ file; polygons of
    an OBJ file are fanned into triangles."""
    path = Path(path)
    data = path.read_bytes()
    if path.suffix.lower() == ".obj":
        verts: list[list[float]] = []
        tris: list[list[int]] = []
        for line in data.decode("utf-8", "replace").splitlines():
            parts = line.split()
            if parts[:1] == ["v"]:
                verts.append([float(x) * scale for x in parts[1:4]])
            elif parts[:1] == ["f"]:
                idx = [int(tok.split("/")[0]) for tok in parts[1:]]
                idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
                tris += [[idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1)]
        return verts, tris
    text = data[:80].lstrip().lower().startswith(b"solid") and b"facet" in data[:1000]
    points: list[tuple[float, ...]] = []
    if text:
        for line in data.decode("utf-8", "replace").splitlines():
            parts = line.split()
            if parts[:1] == ["vertex"]:
                points.append(tuple(float(x) * scale for x in parts[1:4]))
    else:
        if len(data) < 84:
            raise ValueError(f"mesh file '{path}' is too short for a binary STL")
        (n,) = struct.unpack_from("<I", data, 80)
        if len(data) < 84 + 50 * n:
            raise ValueError(f"mesh file '{path}' declares {n} triangles but holds fewer")
        for k in range(n):
            vals = struct.unpack_from("<12f", data, 84 + 50 * k)
            points += [tuple(x * scale for x in vals[3 + 3 * i:6 + 3 * i]) for i in range(3)]
    index: dict[tuple[float, ...], int] = {}
    tris = []
    for k in range(0, len(points) - 2, 3):
        tris.append([index.setdefault(pt, len(index)) for pt in points[k:k + 3]])
    return [list(v) for v in index], tris
