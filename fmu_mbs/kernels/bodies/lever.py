"""Markers carried rigidly by a body: the part the point-mass, planar and rigid kinds share.

A marker k on body b has the constant position ``marker_pos[k]`` and axes ``marker_rot[k]`` in the body frame
(r the body's CM, A its rotation matrix, v and w its CM velocity and angular velocity, world axes):

    o = r + s,  s = A marker_pos,  R = A marker_rot,  vo = v + w x s,  wm = w,
    quadratic part of the origin acceleration (at zero accelerations): w x (w x s)  (m/s^2).

A point derivative g_v of a constraint row at the marker origin and a rotation derivative g_w act on the body's
twist (v, w) as (v: g_v, w: g_w + s x g_v); a force F at a world point p with torque T is the wrench
(F, (p - r) x F + T) at the CM.
"""

from __future__ import annotations

from numba import njit

from ..rotation import wxwxs


@njit(cache=True, inline="always")
def marker_frame(marker_pos, marker_rot, k, b, r, A, v, w, o, R, vo, wm):
    """Origin o (m), axes R (columns), origin velocity vo (m/s) and angular velocity wm (rad/s) of marker k,
    world axes, from the frame of its body b."""
    s0 = A[b, 0, 0] * marker_pos[k, 0] + A[b, 0, 1] * marker_pos[k, 1] + A[b, 0, 2] * marker_pos[k, 2]
    s1 = A[b, 1, 0] * marker_pos[k, 0] + A[b, 1, 1] * marker_pos[k, 1] + A[b, 1, 2] * marker_pos[k, 2]
    s2 = A[b, 2, 0] * marker_pos[k, 0] + A[b, 2, 1] * marker_pos[k, 1] + A[b, 2, 2] * marker_pos[k, 2]
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
            R[k, i, j] = A[b, i, 0] * marker_rot[k, 0, j] + A[b, i, 1] * marker_rot[k, 1, j] \
                + A[b, i, 2] * marker_rot[k, 2, j]


@njit(cache=True, inline="always")
def arm(r, b, p0, p1, p2):
    """Lever s = p - r_b (m) of the world point p from the CM of body b."""
    return p0 - r[b, 0], p1 - r[b, 1], p2 - r[b, 2]


@njit(cache=True, inline="always")
def quad_acc(r, o, wm, k, b):
    """w x (w x s), s = o_k - r_b: the marker origin's acceleration at zero coordinate accelerations (m/s^2)."""
    s = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    return wxwxs(wm[k], s)
