"""Lowering of belts (kernels/families/belt.py): the marker path, webbing stiffness, friction, load limit, the
pretensioner's time function and input, and the states (unstretched lengths from the model's initial marker
positions, zero slips, zero pay-out and pull-in)."""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..kernels.families import belt
from ..model.elements import GROUND, PlanarBody, PointMass
from ..model.rotations import quat_matrix
from .lowering import LoweringContext


def initial_marker_position(model, name: str) -> np.ndarray:
    """World position (m, 3 components) of marker ``name`` in the model's initial positions (before assembly)."""
    mk = next(m for m in model.markers if m.name == name)
    local = np.zeros(3)
    local[:len(mk.position)] = mk.position
    if mk.body == GROUND:
        return local
    body = next(b for b in model.bodies if b.name == mk.body)
    r = np.zeros(3)
    r[:len(body.position)] = body.position
    if isinstance(body, PointMass):
        return r + local
    if isinstance(body, PlanarBody):
        c, s = math.cos(body.angle), math.sin(body.angle)
        return r + np.array([c * local[0] - s * local[1], s * local[0] + c * local[1], local[2]])
    return r + quat_matrix(body.orientation) @ local


def lower(items, ctx: LoweringContext):
    """The family's Arrays."""
    starts, counts, pts, z_adr = [], [], [], []
    for f in items:
        path = [f.marker_i, *f.rings, f.marker_j]
        starts.append(len(pts))
        counts.append(len(path) - 1)
        pts += [ctx.midx[m] for m in path]
        xyz = [initial_marker_position(ctx.model, m) for m in path]
        lengths = [float(np.linalg.norm(b - a)) for a, b in zip(xyz[:-1], xyz[1:])]
        lengths[0] += f.slack
        if min(lengths) <= 0.0:
            raise ModelError(f"belt '{f.name}': a segment has no webbing (unstretched lengths {lengths} m); give "
                             "the markers distinct positions or less negative slack", ctx.model.name)
        n = len(lengths)
        fire = f.fire_time if f.fire_time >= 0.0 else -1.0
        z_adr.append(ctx.layout.states(lengths + [0.0] * (n - 1) + [0.0, 0.0, fire], f.name))
    return belt.Arrays(
        p_start=np.array(starts, dtype=np.int64), n_seg=np.array(counts, dtype=np.int64),
        pts=np.array(pts, dtype=np.int64),
        ea=np.array([f.stiffness for f in items], dtype=float), mu=np.array([f.mu for f in items], dtype=float),
        limit=np.array([f.load_limit for f in items], dtype=float),
        fn=np.array([ctx.pool.add(f.pull_in) for f in items], dtype=np.int64),
        stroke=np.array([ctx.pool.add_curve(f.pretensioner_stroke) for f in items],
                        dtype=np.int64).reshape(len(items), 2),
        input_adr=np.array([ctx.input(f) for f in items], dtype=np.int64),
        z_adr=np.array(z_adr, dtype=np.int64), out_adr=ctx.outputs(items))


def coupled_markers(a) -> list[tuple[int, int]]:
    """Every pair of markers on one belt path: the slip rings pass force along the whole path."""
    pairs = []
    for start, n in zip(a.p_start.tolist(), a.n_seg.tolist()):
        path = a.pts[start:start + n + 1].tolist()
        pairs += [(path[i], path[j]) for i in range(len(path)) for j in range(i + 1, len(path))]
    return pairs
