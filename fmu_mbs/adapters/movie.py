"""``fmu-mbs animate --gif/--mp4``: a movie of the viewer's scene drawn by matplotlib (mplot3d), for reports.
GIF needs only matplotlib (Pillow); MP4 also needs the ffmpeg program. Graphics are triangulated coarsely."""

from __future__ import annotations

import base64
import math
from pathlib import Path

import numpy as np

from ..model.rotations import quat_matrix


def _dec(s: str, dtype=np.float32) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), dtype=dtype)


def _sphere(a: float, b: float, c: float, n: int = 12) -> tuple[np.ndarray, np.ndarray]:
    th, ph = np.meshgrid(np.linspace(0, math.pi, n // 2 + 1), np.linspace(0, 2 * math.pi, n + 1), indexing="ij")
    v = np.stack([a * np.sin(th) * np.cos(ph), b * np.sin(th) * np.sin(ph), c * np.cos(th)], -1).reshape(-1, 3)
    return v, _grid_triangles(n // 2 + 1, n + 1)


def _grid_triangles(rows: int, cols: int) -> np.ndarray:
    k = np.arange((rows - 1) * (cols - 1))
    i, j = k // (cols - 1), k % (cols - 1)
    a, b, c, d = i * cols + j, i * cols + j + 1, (i + 1) * cols + j, (i + 1) * cols + j + 1
    return np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)])


def _cylinder(r: float, h: float, n: int = 16) -> tuple[np.ndarray, np.ndarray]:
    ph = np.linspace(0, 2 * math.pi, n + 1)
    v = np.concatenate([np.stack([r * np.cos(ph), r * np.sin(ph), np.full(n + 1, z)], 1) for z in (-h, h)])
    return v, _grid_triangles(2, n + 1)


def _box(a: float, b: float, c: float) -> tuple[np.ndarray, np.ndarray]:
    v = np.array([[x, y, z] for x in (-a, a) for y in (-b, b) for z in (-c, c)])
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return v, np.array([t for f in faces for t in ((f[0], f[1], f[2]), (f[0], f[2], f[3]))])


def triangles(g: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """Vertices (marker frame, m) and triangles of a viewer graphic; None for links (drawn as lines)."""
    d = g["dims"]
    kind = g["kind"]
    if kind == "box":
        return _box(*d)
    if kind == "sphere":
        return _sphere(d[0], d[0], d[0])
    if kind == "ellipsoid":
        return _sphere(*d)
    if kind == "cylinder":
        return _cylinder(d[0], d[1])
    if kind == "capsule":
        v1, t1 = _cylinder(d[0], d[1])
        parts = [(v1, t1)] + [(v + [0, 0, s * d[1]], t) for s in (-1, 1) for v, t in [_sphere(d[0], d[0], d[0], 8)]]
        verts, tris, base = [], [], 0
        for v, t in parts:
            verts.append(v)
            tris.append(t + base)
            base += len(v)
        return np.concatenate(verts), np.concatenate(tris)
    if kind == "plane":
        a = d[0]
        return np.array([[-a, -a, 0], [a, -a, 0], [a, a, 0], [-a, a, 0]]), np.array([[0, 1, 2], [0, 2, 3]])
    if kind == "mesh":
        return _dec(g["vertices"]).reshape(-1, 3).astype(float), _dec(g["triangles"], np.uint32).reshape(-1, 3)
    return None


def write_movie(path: str | Path, data: dict, fps: float = 25.0, speed: float = 1.0, dpi: int = 80,
                kind: str | None = None) -> int:
    """Write a GIF or MP4 (``kind`` "gif" or "mp4"; default by the suffix of ``path``) of the scene ``data``
    (viewer.scene); ``speed``: simulated seconds per movie second. Returns the number of movie frames."""
    from .plot import _figure_classes
    Figure, FigureCanvasAgg = _figure_classes()
    from matplotlib import animation
    from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection
    suffix = "." + kind if kind else Path(path).suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ValueError(f"movie file '{path}': the format must be gif or mp4")
    if suffix == ".mp4" and not animation.writers.is_available("ffmpeg"):
        raise RuntimeError("an MP4 movie needs the ffmpeg program on the PATH; write a GIF (--gif) instead")
    t = _dec(data["t"], np.float64)
    poses = {k: (_dec(v["r"]).reshape(-1, 3), _dec(v["q"]).reshape(-1, 4)) for k, v in data["markers"].items()}
    n_movie = min(int(math.floor((t[-1] - t[0]) / speed * fps)) + 1, 2000) if len(t) > 1 else 1
    rows = np.searchsorted(t, t[0] + np.arange(n_movie) * speed / fps, side="right") - 1
    meshes = [(g, triangles(g)) for g in data["graphics"]]
    pts = np.concatenate([p for p, _ in poses.values()])
    centre, half = 0.5 * (pts.max(0) + pts.min(0)), 0.6 * max(float(np.ptp(pts, 0).max()), 0.1)
    fig = Figure(figsize=(6.4, 4.8))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(projection="3d")

    def draw(i: int) -> None:
        ax.clear()
        for g, mesh in meshes:
            p, q = poses[g["marker"]][0][i], poses[g["marker"]][1][i]
            if mesh is None:
                p2 = poses[g["to"]][0][i]
                ax.add_collection3d(Line3DCollection([[p, p2]], colors=g["color"], linewidths=3))
                continue
            v = mesh[0] @ quat_matrix(q).T + p
            ax.add_collection3d(Poly3DCollection(v[mesh[1]], facecolors=g["color"], linewidths=0,
                                                 alpha=g["opacity"], shade=True))
        for k, (lo, hi) in enumerate(zip(centre - half, centre + half)):
            (ax.set_xlim, ax.set_ylim, ax.set_zlim)[k](lo, hi)
        ax.set_box_aspect((1, 1, 1))
        if data["planar"]:
            ax.view_init(elev=90, azim=-90)
            ax.set_zticks([])
        ax.set_title(f"{data['title']}   t = {t[i]:.3f} s", fontsize=9)

    anim = animation.FuncAnimation(fig, lambda k: draw(rows[k]), frames=n_movie)
    writer = animation.PillowWriter(fps=fps) if suffix == ".gif" else animation.FFMpegWriter(fps=fps)
    anim.save(str(path), writer=writer, dpi=dpi)
    return n_movie
