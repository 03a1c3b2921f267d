"""``fmu-mbs animate``: a self-contained HTML viewer of a result (three.js inlined, no network at view time).

The scene is the model's graphics (model/graphics.py) placed by the marker poses of a result: the channels
``<marker>.r[1..3]`` (m) and ``<marker>.q[1..4]`` ([w, x, y, z]) of a CSV written by the command line, by
``write_csv`` from Python or by fmpy from an FMU run (same channel names). Optional force vectors (joint reactions
``<joint>.F[k]`` at marker_j, contact forces ``<contact>.fn`` / ``.ft[k]``) and traces of chosen markers.
"""

from __future__ import annotations

import base64
import csv
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from ..model.elements import GROUND, Contact, Model
from ..model.graphics import BODY_PREFIX, GROUND_COLOR, PALETTE, default_graphics, read_mesh
from ..model.rotations import quat_matrix

ASSETS = "viewer_assets"
THREE_FILE = "three.module.min.js"


class ViewerError(ValueError):
    """A result cannot be shown: missing pose channels, unknown trace marker, unreadable mesh file."""


@dataclass
class Result:
    """Columns of a result by channel name (SI units); ``units`` from a units row, if the file has one."""

    columns: dict[str, np.ndarray]
    units: dict[str, str] = field(default_factory=dict)
    source: str = "result"

    @property
    def t(self) -> np.ndarray:
        return self.columns["time"]


def read_result(path: str | Path) -> Result:
    """Read a result CSV: ``time`` then channels; header names may be quoted (fmpy); a second row of units
    (``--units``) is recognised and skipped."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.reader(fh) if r]
    if not rows or "time" not in rows[0]:
        raise ViewerError(f"result '{path}' has no 'time' column (is it a result CSV?)")
    header, body, units = [h.strip() for h in rows[0]], rows[1:], {}

    def numeric(row) -> bool:
        try:
            [float(x) for x in row]
            return True
        except ValueError:
            return False
    if body and not numeric(body[0]):
        units = dict(zip(header, body[0]))
        body = body[1:]
    if not body:
        raise ViewerError(f"result '{path}' has no rows")
    bad = next((k for k, r in enumerate(body) if len(r) != len(header) or not numeric(r)), None)
    if bad is not None:
        raise ViewerError(f"result '{path}': row {bad + 2} is not {len(header)} numbers")
    data = np.array(body, dtype=float)
    return Result({n: data[:, k] for k, n in enumerate(header)}, units, str(path))


def _matrix_quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternions [w, x, y, z] of rotation matrices R (N x 3 x 3)."""
    w = 0.5 * np.sqrt(np.maximum(1.0 + R[:, 0, 0] + R[:, 1, 1] + R[:, 2, 2], 0.0))
    x = 0.5 * np.sqrt(np.maximum(1.0 + R[:, 0, 0] - R[:, 1, 1] - R[:, 2, 2], 0.0))
    y = 0.5 * np.sqrt(np.maximum(1.0 - R[:, 0, 0] + R[:, 1, 1] - R[:, 2, 2], 0.0))
    z = 0.5 * np.sqrt(np.maximum(1.0 - R[:, 0, 0] - R[:, 1, 1] + R[:, 2, 2], 0.0))
    x = np.copysign(x, R[:, 2, 1] - R[:, 1, 2])
    y = np.copysign(y, R[:, 0, 2] - R[:, 2, 0])
    z = np.copysign(z, R[:, 1, 0] - R[:, 0, 1])
    return np.stack([w, x, y, z], axis=1)


def _rotations(q: np.ndarray) -> np.ndarray:
    return np.array([quat_matrix(row) for row in q])


def marker_poses(model: Model, res: Result, names) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Position (N x 3, m) and quaternion (N x 4) of each marker in ``names`` from the result's channels;
    ``@<body>`` is the centre of mass of a body, found from any of its markers. Ground markers without channels
    are fixed. Raises ViewerError naming every marker whose pose channels are missing."""
    markers = {m.name: m for m in model.markers}
    cols, n = res.columns, len(res.t)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    missing: list[str] = []

    def local(m) -> tuple[np.ndarray, np.ndarray]:
        p = np.zeros(3)
        p[:len(m.position)] = m.position
        q = np.array(m.orientation) if not model.planar else np.array(
            [np.cos(m.angle / 2), 0.0, 0.0, np.sin(m.angle / 2)])
        return p, quat_matrix(q)

    def read(name: str):
        r = [cols.get(f"{name}.r[{k}]") for k in (1, 2, 3)]
        q = [cols.get(f"{name}.q[{k}]") for k in (1, 2, 3, 4)]
        if model.planar and r[2] is None:
            r[2] = np.zeros(n)
        if model.planar and any(x is None for x in q):
            angle = next((cols[f"{name}.{a}"] for a in ("phi", "angle", "theta") if f"{name}.{a}" in cols), None)
            if angle is not None:
                q = [np.cos(angle / 2), np.zeros(n), np.zeros(n), np.sin(angle / 2)]
        if any(x is None for x in r + q):
            m = markers[name]
            if m.body != GROUND:
                return None
            p, R = local(m)
            return np.tile(p, (n, 1)), np.tile(_matrix_quat(R[None])[0], (n, 1))
        return np.stack(r, axis=1), np.stack(q, axis=1)

    for name in dict.fromkeys(names):
        if name.startswith(BODY_PREFIX):
            body = name[len(BODY_PREFIX):]
            pose = None
            for m in (m for m in model.markers if m.body == body):
                got = read(m.name)
                if got is not None:
                    p, R_local = local(m)
                    R = _rotations(got[1]) @ R_local.T
                    pose = (got[0] - R @ p, _matrix_quat(R))
                    break
            if pose is None:
                missing.append(f"body '{body}' (any of its markers)")
            else:
                out[name] = pose
            continue
        got = read(name)
        if got is None:
            missing.append(name)
        else:
            out[name] = got
    if missing:
        raise ViewerError(f"{res.source} has no pose channels (<marker>.r[1..3], <marker>.q[1..4]) for "
                          f"{', '.join(missing)}; the viewer places graphics by marker poses: write every channel "
                          f"(fmu-mbs simulate does), or record those outputs of the FMU")
    return out


def _b64(a: np.ndarray, dtype=np.float32) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype=dtype).tobytes()).decode("ascii")


def _graphic_dict(g, colors: dict[str, str], base: Path | None) -> dict:
    d = {"name": g.name, "kind": g.kind, "marker": g.marker, "dims": list(g.dimensions), "to": g.to_marker,
         "color": g.color or colors.get(g.marker, GROUND_COLOR), "opacity": g.opacity}
    if g.kind == "mesh":
        if g.file is not None:
            path = Path(g.file) if base is None or Path(g.file).is_absolute() else base / g.file
            try:
                v, t = read_mesh(path, g.scale)
            except OSError as exc:
                raise ViewerError(f"graphic '{g.name}': cannot read mesh file '{path}': {exc.strerror}") from None
        else:
            v, t = [[x * g.scale for x in p] for p in g.vertices], [list(x) for x in g.triangles]
        d["vertices"], d["triangles"] = _b64(np.array(v)), base64.b64encode(
            np.asarray(t, dtype=np.uint32).tobytes()).decode("ascii")
    return d


def scene(model: Model, res: Result, forces: bool = True, traces=(), max_frames: int = 2000,
          base: Path | None = None) -> dict:
    """The data the viewer page draws: frames (times, marker poses), graphics, force vectors, traces."""
    t = res.t
    idx = np.arange(len(t)) if len(t) <= max_frames else np.unique(
        np.round(np.linspace(0, len(t) - 1, max_frames)).astype(int))
    sub = Result({k: v[idx] for k, v in res.columns.items()}, res.units, res.source)
    unknown = [m for m in traces if m not in {mk.name for mk in model.markers}]
    if unknown:
        import difflib
        hints = {m: difflib.get_close_matches(m, [mk.name for mk in model.markers], n=3, cutoff=0.5) for m in unknown}
        raise ViewerError("unknown trace marker(s): " + "; ".join(
            f"'{m}'" + (f" (did you mean {', '.join(h)}?)" if h else "") for m, h in hints.items()))
    # a first pass with every marker (ground markers are fixed) gives the scene size
    real = [m.name for m in model.markers]
    poses = marker_poses(model, sub, real)
    pts = np.concatenate([p for p, _ in poses.values()]) if poses else np.zeros((1, 3))
    extent = float(np.max(np.ptp(pts, axis=0))) if len(pts) > 1 else 0.0
    size = 0.01 * max(extent, 0.1)
    graphics = default_graphics(model, size)
    need = list(dict.fromkeys(real + [g.marker for g in graphics] + [g.to_marker for g in graphics if g.to_marker]))
    poses = marker_poses(model, sub, need)
    body_of = {m.name: m.body for m in model.markers}
    order = {b.name: PALETTE[k % len(PALETTE)] for k, b in enumerate(model.bodies)}
    colors = {m: order.get(body_of.get(m, m[len(BODY_PREFIX):]), GROUND_COLOR) for m in need}
    vectors = _force_vectors(model, sub, poses) if forces else []
    g = np.asarray(model.gravity, dtype=float)
    g3 = np.zeros(3)
    g3[:len(g)] = g
    return {"title": f"{model.name}: {Path(res.source).name}", "planar": model.planar, "n": len(idx),
            "t": _b64(sub.t, np.float64), "size": size, "extent": max(extent, 0.1),
            "up": (-g3 / np.linalg.norm(g3)).tolist() if np.linalg.norm(g3) > 0 else [0.0, 0.0, 1.0],
            "markers": {m: {"r": _b64(p), "q": _b64(q)} for m, (p, q) in poses.items()},
            "frames": real, "graphics": [_graphic_dict(x, colors, base) for x in graphics],
            "vectors": vectors, "traces": list(traces)}


def _force_vectors(model: Model, res: Result, poses) -> list[dict]:
    """Joint reactions at marker_j and contact forces (normal along the plane normal or the line between the
    shapes' markers, plus friction) as arrows scaled so the largest is a quarter of the scene."""
    cols = res.columns
    out = []
    for j in model.joints:
        F = [cols.get(f"{j.name}.F[{k}]") for k in (1, 2, 3)]
        if model.planar and F[2] is None and F[0] is not None:      # planar reactions have F[1..2] only
            F[2] = np.zeros_like(F[0])
        if all(x is not None for x in F) and j.marker_j in poses:
            out.append({"name": f"{j.name}.F", "at": j.marker_j, "F": np.stack(F, axis=1), "color": "#ff7f0e"})
    shapes = {s.name: s for s in model.shapes}
    for c in (f for f in model.forces if isinstance(f, Contact)):
        fn = cols.get(f"{c.name}.fn")
        sa, sb = shapes.get(c.shapes_a[0]), shapes.get(c.shapes_b[0])
        if fn is None or sa is None or sb is None or sa.marker not in poses or sb.marker not in poses:
            continue
        pa, qa = poses[sa.marker]
        pb, qb = poses[sb.marker]
        if sb.kind == "plane" or sa.kind == "plane":
            plane_q, sign = (qb, 1.0) if sb.kind == "plane" else (qa, -1.0)
            normal = sign * _rotations(plane_q)[:, :, 2]
        else:
            d = pa - pb
            normal = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)
        F = fn[:, None] * normal
        ft = [cols.get(f"{c.name}.ft[{k}]") for k in (1, 2, 3)]
        if all(x is not None for x in ft):
            F = F + np.stack(ft, axis=1)
        out.append({"name": f"{c.name} (on {sa.name})", "at": sa.marker, "F": F, "color": "#9467bd"})
    peak = max((float(np.max(np.linalg.norm(v["F"], axis=1))) for v in out), default=0.0)
    for v in out:
        v["scale"] = 0.0 if peak == 0.0 else 1.0 / peak
        v["peak"] = peak
        v["F"] = _b64(v["F"])
    return out


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(ASSETS, name).read_text(encoding="utf-8")


def write_viewer(path: str | Path, model: Model, res: Result, forces: bool = True, traces=(),
                 max_frames: int = 2000, base: Path | None = None) -> dict:
    """Write the HTML viewer of ``res`` to ``path``; returns the scene data. ``base``: folder of the model file
    (mesh files are relative to it)."""
    data = scene(model, res, forces, traces, max_frames, base)
    three = _asset(THREE_FILE).replace("</script", "<\\/script")
    page = _asset("viewer.html")
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = page.replace("TITLE", _html(data["title"])).replace("/*SCENE*/", blob).replace("/*THREE*/", three)
    Path(path).write_text(page, encoding="utf-8")
    return data


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["write_viewer", "read_result", "scene", "marker_poses", "Result", "ViewerError"]
