"""Planar rigid body: q = (x, y, theta) of its CM frame (m, m, rad); A = rot_z(theta), w = (0, 0, theta').
M = diag(m, m, J_zz), T = 1/2 m v.v + 1/2 J_zz theta'^2; a wrench (F, n) at the CM maps to Q = (F_x, F_y, n_z)."""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, inline="always")
def body_frame(a, q, qd, b, r, A, v, w):
    """CM position r, rotation A, CM velocity v and angular velocity w (world) of planar body b (A, w preset to
    I, 0)."""
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


@njit(cache=True, inline="always")
def add_wrench(a, q, F0, F1, F2, n0, n1, n2, scale, Q):
    """Q += scale * (F_x, F_y, n_z) (N, N, N m)."""
    Q[a] += scale * F0
    Q[a + 1] += scale * F1
    Q[a + 2] += scale * n2


@njit(cache=True, inline="always")
def twist_to_q(a, q, jv0, jv1, jv2, jw0, jw1, jw2, out, off):
    """Coordinate row of the twist-space row (jv, jw): (J_vx, J_vy, J_wz)."""
    out[off] = jv0
    out[off + 1] = jv1
    out[off + 2] = jw2


@njit(cache=True, inline="always")
def body_acceleration(a, q, qdd):
    """(CM acceleration (m/s^2), angular acceleration (rad/s^2)), world."""
    return (qdd[a], qdd[a + 1], 0.0), (0.0, 0.0, qdd[a + 2])


@njit(cache=True, inline="always")
def mass_block(mass, Jzz, out, off):
    """out[off:off+3, off:off+3] = diag(m, m, J_zz) (kg, kg m^2) (the caller zeroed the block)."""
    out[off, off] = mass
    out[off + 1, off + 1] = mass
    out[off + 2, off + 2] = Jzz


@njit(cache=True, inline="always")
def kinetic_energy(T, a, mass, Jzz, qd):
    """T + 1/2 m v.v + 1/2 J_zz theta'^2 (J)."""
    return T + (0.5 * mass * (qd[a] * qd[a] + qd[a + 1] * qd[a + 1]) + 0.5 * Jzz * qd[a + 2] * qd[a + 2])
