"""Body and marker kinematics in the world frame, and the map between body twists and coordinates.

Body coordinates: point mass (x, y[, z]); planar (x, y, theta); rigid (r, p) with Euler parameters.
Every body's twist is (v, w): CM velocity and angular velocity, world axes. For rigid bodies
w = 2 E(p) p' (seed 004), so a twist-space row J maps to coordinates as [J_v, 2 J_w E(p)], and a
wrench (F, n) at the CM maps to generalized forces [F, 2 E(p)^T n] = [F, 2 G^T n_body].
"""

from __future__ import annotations

import math

from numba import njit

from .model_arrays import PLANAR, POINT_MASS
from .rotation import cross_v, quat_to_matrix


@njit(cache=True, _nrt=False)
def eval_body_frames(m, q, qd, r, A, v, w):
    """CM position r, rotation A, CM velocity v and angular velocity w (world) of every body."""
    dim = m.dim
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        kind = m.body_kind[b]
        for i in range(3):
            w[b, i] = 0.0
            for j in range(3):
                A[b, i, j] = 1.0 if i == j else 0.0
        if kind == POINT_MASS:
            for i in range(3):
                r[b, i] = q[a + i] if i < dim else 0.0
                v[b, i] = qd[a + i] if i < dim else 0.0
        elif kind == PLANAR:
            r[b, 0] = q[a]
            r[b, 1] = q[a + 1]
            r[b, 2] = 0.0
            v[b, 0] = qd[a]
            v[b, 1] = qd[a + 1]
            v[b, 2] = 0.0
            c = math.cos(q[a + 2])
            s = math.sin(q[a + 2])
            A[b, 0, 0] = c
            A[b, 0, 1] = -s
            A[b, 1, 0] = s
            A[b, 1, 1] = c
            w[b, 2] = qd[a + 2]
        else:
            for i in range(3):
                r[b, i] = q[a + i]
                v[b, i] = qd[a + i]
            quat_to_matrix(q[a + 3:a + 7], A[b])
            e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
            d0, d1, d2, d3 = qd[a + 3], qd[a + 4], qd[a + 5], qd[a + 6]
            w[b, 0] = 2.0 * (-e1 * d0 + e0 * d1 - e3 * d2 + e2 * d3)
            w[b, 1] = 2.0 * (-e2 * d0 + e3 * d1 + e0 * d2 - e1 * d3)
            w[b, 2] = 2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3)


@njit(cache=True, _nrt=False)
def eval_marker_frames(m, r, A, v, w, o, R, vo, wm):
    """Marker origin o, axes R (columns x, y, z), origin velocity vo and angular velocity wm (world)."""
    for k in range(m.marker_body.shape[0]):
        b = m.marker_body[k]
        if b < 0:
            for i in range(3):
                o[k, i] = m.marker_pos[k, i]
                vo[k, i] = 0.0
                wm[k, i] = 0.0
                for j in range(3):
                    R[k, i, j] = m.marker_rot[k, i, j]
            continue
        s0 = A[b, 0, 0] * m.marker_pos[k, 0] + A[b, 0, 1] * m.marker_pos[k, 1] + A[b, 0, 2] * m.marker_pos[k, 2]
        s1 = A[b, 1, 0] * m.marker_pos[k, 0] + A[b, 1, 1] * m.marker_pos[k, 1] + A[b, 1, 2] * m.marker_pos[k, 2]
        s2 = A[b, 2, 0] * m.marker_pos[k, 0] + A[b, 2, 1] * m.marker_pos[k, 1] + A[b, 2, 2] * m.marker_pos[k, 2]
        o[k, 0] = r[b, 0] + s0
        o[k, 1] = r[b, 1] + s1
        o[k, 2] = r[b, 2] + s2
        w0, w1, w2 = w[b, 0], w[b, 1], w[b, 2]
        vo[k, 0] = v[b, 0] + w1 * s2 - w2 * s1
        vo[k, 1] = v[b, 1] + w2 * s0 - w0 * s2
        vo[k, 2] = v[b, 2] + w0 * s1 - w1 * s0
        wm[k, 0] = w0
        wm[k, 1] = w1
        wm[k, 2] = w2
        for i in range(3):
            for j in range(3):
                R[k, i, j] = A[b, i, 0] * m.marker_rot[k, 0, j] + A[b, i, 1] * m.marker_rot[k, 1, j] \
                    + A[b, i, 2] * m.marker_rot[k, 2, j]


@njit(cache=True, _nrt=False)
def twist_row_to_q(m, b, q, jv0, jv1, jv2, jw0, jw1, jw2, out, off):
    """Write the coordinate-space row of twist-space row (jv, jw) of body b into out[off:off+n_q(b)]."""
    kind = m.body_kind[b]
    if kind == POINT_MASS:
        out[off] = jv0
        out[off + 1] = jv1
        if m.dim == 3:
            out[off + 2] = jv2
    elif kind == PLANAR:
        out[off] = jv0
        out[off + 1] = jv1
        out[off + 2] = jw2
    else:
        a = m.body_q_adr[b] + 3
        e0, e1, e2, e3 = q[a], q[a + 1], q[a + 2], q[a + 3]
        out[off] = jv0
        out[off + 1] = jv1
        out[off + 2] = jv2
        out[off + 3] = 2.0 * (-jw0 * e1 - jw1 * e2 - jw2 * e3)
        out[off + 4] = 2.0 * (jw0 * e0 + jw1 * e3 - jw2 * e2)
        out[off + 5] = 2.0 * (-jw0 * e3 + jw1 * e0 + jw2 * e1)
        out[off + 6] = 2.0 * (jw0 * e2 - jw1 * e1 + jw2 * e0)


@njit(cache=True, _nrt=False)
def add_wrench(m, b, q, F0, F1, F2, n0, n1, n2, scale, Q):
    """Q += scale * (generalized force of a wrench: force F at the CM of body b and torque n, world)."""
    add_body_wrench(m.body_kind[b], m.body_q_adr[b], m.dim, q, F0, F1, F2, n0, n1, n2, scale, Q)


@njit(cache=True, _nrt=False)
def add_body_wrench(kind, a, dim, q, F0, F1, F2, n0, n1, n2, scale, Q):
    """``add_wrench`` for a body of kind ``kind`` whose coordinates start at q[a] (model dimension ``dim``), without
    the model arrays: the contact kernel's per-point call (passing ModelArrays costs ~0.1 us a call)."""
    if kind == POINT_MASS:
        Q[a] += scale * F0
        Q[a + 1] += scale * F1
        if dim == 3:
            Q[a + 2] += scale * F2
    elif kind == PLANAR:
        Q[a] += scale * F0
        Q[a + 1] += scale * F1
        Q[a + 2] += scale * n2
    else:
        e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
        Q[a] += scale * F0
        Q[a + 1] += scale * F1
        Q[a + 2] += scale * F2
        Q[a + 3] += scale * 2.0 * (-n0 * e1 - n1 * e2 - n2 * e3)
        Q[a + 4] += scale * 2.0 * (n0 * e0 + n1 * e3 - n2 * e2)
        Q[a + 5] += scale * 2.0 * (-n0 * e3 + n1 * e0 + n2 * e1)
        Q[a + 6] += scale * 2.0 * (n0 * e2 - n1 * e1 + n2 * e0)


@njit(cache=True, _nrt=False)
def body_accelerations(m, q, qd, qdd, acc, alpha):
    """CM acceleration acc and angular acceleration alpha (world) of every body from qdd.
    For rigid bodies alpha = 2 E(p) p'' exactly, because E(p') p' = 0."""
    dim = m.dim
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        kind = m.body_kind[b]
        for i in range(3):
            alpha[b, i] = 0.0
        if kind == POINT_MASS:
            for i in range(3):
                acc[b, i] = qdd[a + i] if i < dim else 0.0
        elif kind == PLANAR:
            acc[b, 0] = qdd[a]
            acc[b, 1] = qdd[a + 1]
            acc[b, 2] = 0.0
            alpha[b, 2] = qdd[a + 2]
        else:
            for i in range(3):
                acc[b, i] = qdd[a + i]
            e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
            d0, d1, d2, d3 = qdd[a + 3], qdd[a + 4], qdd[a + 5], qdd[a + 6]
            alpha[b, 0] = 2.0 * (-e1 * d0 + e0 * d1 - e3 * d2 + e2 * d3)
            alpha[b, 1] = 2.0 * (-e2 * d0 + e3 * d1 + e0 * d2 - e1 * d3)
            alpha[b, 2] = 2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3)


@njit(cache=True, _nrt=False)
def body_acceleration(kind, a, dim, q, qdd):
    """(CM acceleration, angular acceleration), world, of a body of kind ``kind`` whose coordinates start at q[a],
    from qdd (alpha = 2 E(p) p'' for r-p bodies, exact because E(p') p' = 0)."""
    if kind == POINT_MASS:
        return ((qdd[a], qdd[a + 1], qdd[a + 2] if dim == 3 else 0.0), (0.0, 0.0, 0.0))
    if kind == PLANAR:
        return (qdd[a], qdd[a + 1], 0.0), (0.0, 0.0, qdd[a + 2])
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    d0, d1, d2, d3 = qdd[a + 3], qdd[a + 4], qdd[a + 5], qdd[a + 6]
    return ((qdd[a], qdd[a + 1], qdd[a + 2]),
            (2.0 * (-e1 * d0 + e0 * d1 - e3 * d2 + e2 * d3), 2.0 * (-e2 * d0 + e3 * d1 + e0 * d2 - e1 * d3),
             2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3)))


@njit(cache=True, _nrt=False)
def marker_acceleration(body_kind, body_q_adr, dim, marker_body, r, o, wm, q, qdd, k):
    """(origin acceleration a + alpha x s + w x (w x s), angular acceleration), world (m/s^2, rad/s^2), of marker k
    from qdd, at the frames r (body CMs), o (marker origins) and wm (marker angular velocities); zeros on ground."""
    b = marker_body[k]
    if b < 0:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    acc, alpha = body_acceleration(body_kind[b], body_q_adr[b], dim, q, qdd)
    w = (wm[k, 0], wm[k, 1], wm[k, 2])
    s = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    axs = cross_v(alpha, s)
    wws = cross_v(w, cross_v(w, s))
    return (acc[0] + axs[0] + wws[0], acc[1] + axs[1] + wws[1], acc[2] + axs[2] + wws[2]), alpha
