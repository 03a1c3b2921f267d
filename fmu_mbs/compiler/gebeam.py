"""Lowering of geometrically exact beam elements (kernels/families/gebeam.py): node markers, reference length,
section stiffness and the reference strains of the initial configuration (the stress-free state), computed here
from the initial poses of the node bodies (rigid or planar bodies, or ground) and of the markers on them."""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..kernels.families import gebeam
from ..model.elements import GROUND, PlanarBody, RigidBody
from ..model.gebeam import SECTION_FIELDS
from .lowering import LoweringContext, initial_body_position, initial_body_rotation


def rotation_vector(Q: np.ndarray) -> np.ndarray:
    """log of the rotation matrix Q as a rotation vector (rad), |psi| <= pi (numpy twin of kernels' log_so3)."""
    w = math.sqrt(max(1.0 + np.trace(Q), 0.0)) / 2.0
    v = 0.5 * np.array([Q[2, 1] - Q[1, 2], Q[0, 2] - Q[2, 0], Q[1, 0] - Q[0, 1]])     # sin(t) axis
    s = np.linalg.norm(v)
    if s < 1e-300:
        if w > 0.5:
            return np.zeros(3)
        raise ModelError("a beam element's nodes are turned by pi relative to each other")
    return math.atan2(s, 2.0 * w * w - 1.0) * v / s


def _exp(v: np.ndarray) -> np.ndarray:
    t = np.linalg.norm(v)
    if t < 1e-12:
        return np.eye(3)
    k = v / t
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(t) * K + (1.0 - math.cos(t)) * K @ K


def initial_marker_frame(ctx: LoweringContext, name: str, where: str) -> tuple[np.ndarray, np.ndarray]:
    """World origin and axes of marker ``name`` at the model's initial body poses (rigid bodies and ground)."""
    k = ctx.midx[name]
    mk = ctx.model.markers[k]
    if mk.body == GROUND:
        return ctx.marker_pos[k].copy(), ctx.marker_rot[k].copy()
    body = next(b for b in ctx.model.bodies if b.name == mk.body)
    if not isinstance(body, (RigidBody, PlanarBody)):
        raise ModelError(f"{where}: marker '{name}' is on body '{body.name}' of kind {type(body).__name__}; beam "
                         f"elements join markers on rigid or planar bodies (the beam's nodes) or ground")
    A = initial_body_rotation(body)
    return initial_body_position(body) + A @ ctx.marker_pos[k], A @ ctx.marker_rot[k]


def reference_strains(x1, R1, x2, R2, length: float) -> np.ndarray:
    """(Gamma0, kappa0) of a configuration, as the kernel measures them (kernels/families/gebeam.strains)."""
    psi = rotation_vector(R1.T @ R2)
    Rm = R1 @ _exp(0.5 * psi)
    return np.concatenate([Rm.T @ (x2 - x1) / length, psi / length])


def lower(items, ctx: LoweringContext):
    """The family's Arrays."""
    n = len(items)
    lengths, strain0 = np.zeros(n), np.zeros((n, 6))
    for k, f in enumerate(items):
        where = f"beam element '{f.name}'"
        x1, R1 = initial_marker_frame(ctx, f.marker_i, where)
        x2, R2 = initial_marker_frame(ctx, f.marker_j, where)
        lengths[k] = f.length or float(np.linalg.norm(x2 - x1))
        if not lengths[k] > 0.0:
            raise ModelError(f"{where}: its markers coincide at the start and no 'length' is given")
        strain0[k] = reference_strains(x1, R1, x2, R2, lengths[k])
    return gebeam.Arrays(
        mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"), length=lengths,
        stiffness=np.array([[getattr(f, s) for s in SECTION_FIELDS] for f in items], dtype=float).reshape(n, 6),
        beta=np.array([f.damping for f in items], dtype=float), strain0=strain0, out_adr=ctx.outputs(items))


def damped(a) -> bool:
    """The family does non-conservative work when some element is damped."""
    return bool((a.beta > 0.0).any())
