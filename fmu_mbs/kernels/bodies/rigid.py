"""Spatial rigid body in the r-p formulation (seed 004; Haug ch. 9, 11): q = (r, p), r the CM (m), p the Euler
parameters; A(p) evaluated on p/|p|; w = 2 E(p) p' (world), wbar = 2 G(p) p' (body).

M = diag(m I3, 4 G^T Jbar G); the velocity force on p is 8 G'^T Jbar G' p = -4 G(p')^T Jbar wbar (docs/design.md);
T = 1/2 m v.v + 1/2 wbar^T Jbar wbar. A twist-space row (J_v, J_w) maps to (J_v, 2 J_w E(p)) and a wrench (F, n) at
the CM to (F, 2 E(p)^T n); alpha = 2 E(p) p'' exactly, because E(p') p' = 0.
"""

from __future__ import annotations

from numba import njit

from ..rotation import quat_to_matrix


@njit(cache=True, inline="always")
def body_frame(a, q, qd, b, r, A, v, w):
    """CM position r, rotation A, CM velocity v and angular velocity w = 2 E(p) p' (world) of body b."""
    for i in range(3):
        r[b, i] = q[a + i]
        v[b, i] = qd[a + i]
    quat_to_matrix(q[a + 3:a + 7], A[b])
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    d0, d1, d2, d3 = qd[a + 3], qd[a + 4], qd[a + 5], qd[a + 6]
    w[b, 0] = 2.0 * (-e1 * d0 + e0 * d1 - e3 * d2 + e2 * d3)
    w[b, 1] = 2.0 * (-e2 * d0 + e3 * d1 + e0 * d2 - e1 * d3)
    w[b, 2] = 2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3)


@njit(cache=True, inline="always")
def add_wrench(a, q, F0, F1, F2, n0, n1, n2, scale, Q):
    """Q += scale * (F, 2 E(p)^T n): force F (N) at the CM and torque n (N m), world."""
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    Q[a] += scale * F0
    Q[a + 1] += scale * F1
    Q[a + 2] += scale * F2
    Q[a + 3] += scale * 2.0 * (-n0 * e1 - n1 * e2 - n2 * e3)
    Q[a + 4] += scale * 2.0 * (n0 * e0 + n1 * e3 - n2 * e2)
    Q[a + 5] += scale * 2.0 * (-n0 * e3 + n1 * e0 + n2 * e1)
    Q[a + 6] += scale * 2.0 * (n0 * e2 - n1 * e1 + n2 * e0)


@njit(cache=True, inline="always")
def twist_to_q(a, q, jv0, jv1, jv2, jw0, jw1, jw2, out, off):
    """Coordinate row of the twist-space row (jv, jw): (J_v, 2 J_w E(p))."""
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    out[off] = jv0
    out[off + 1] = jv1
    out[off + 2] = jv2
    out[off + 3] = 2.0 * (-jw0 * e1 - jw1 * e2 - jw2 * e3)
    out[off + 4] = 2.0 * (jw0 * e0 + jw1 * e3 - jw2 * e2)
    out[off + 5] = 2.0 * (-jw0 * e3 + jw1 * e0 + jw2 * e1)
    out[off + 6] = 2.0 * (jw0 * e2 - jw1 * e1 + jw2 * e0)


@njit(cache=True, inline="always")
def body_acceleration(a, q, qdd):
    """(CM acceleration (m/s^2), angular acceleration 2 E(p) p'' (rad/s^2)), world."""
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    d0, d1, d2, d3 = qdd[a + 3], qdd[a + 4], qdd[a + 5], qdd[a + 6]
    return ((qdd[a], qdd[a + 1], qdd[a + 2]),
            (2.0 * (-e1 * d0 + e0 * d1 - e3 * d2 + e2 * d3), 2.0 * (-e2 * d0 + e3 * d1 + e0 * d2 - e1 * d3),
             2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3)))


@njit(cache=True, inline="always")
def mass_block(a, mass, J, q, out, off, full):
    """out[off:off+7, off:off+7] = diag(m I3, 4 G(p)^T Jbar G(p)) (kg, kg m^2; the caller zeroed the block).
    ``full``: every entry of the p block summed in full (the dense M of analyses); else its upper triangle,
    mirrored (the per-step mass blocks)."""
    for i in range(3):
        out[off + i, off + i] = mass
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    G = ((-e1, e0, e3, -e2), (-e2, -e3, e0, e1), (-e3, e2, -e1, e0))
    p = off + 3
    if full:
        for r in range(4):
            for c in range(4):
                s = 0.0
                for i in range(3):
                    for j in range(3):
                        s += G[i][r] * J[i, j] * G[j][c]
                out[p + r, p + c] = 4.0 * s
        return
    for r in range(4):
        for c in range(r, 4):
            s = 0.0
            for i in range(3):
                gi = G[i][r]
                if gi == 0.0:
                    continue
                for j in range(3):
                    s += gi * J[i, j] * G[j][c]
            out[p + r, p + c] = 4.0 * s
            out[p + c, p + r] = 4.0 * s


@njit(cache=True, inline="always")
def add_inertia_forces(a, J, q, qd, Q):
    """Q += -4 G(p')^T Jbar wbar on the Euler parameters (N m), wbar = 2 G(p) p'."""
    a = a + 3
    e0, e1, e2, e3 = q[a], q[a + 1], q[a + 2], q[a + 3]
    d0, d1, d2, d3 = qd[a], qd[a + 1], qd[a + 2], qd[a + 3]
    wb0 = 2.0 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3)
    wb1 = 2.0 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3)
    wb2 = 2.0 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3)
    h0 = J[0, 0] * wb0 + J[0, 1] * wb1 + J[0, 2] * wb2
    h1 = J[1, 0] * wb0 + J[1, 1] * wb1 + J[1, 2] * wb2
    h2 = J[2, 0] * wb0 + J[2, 1] * wb1 + J[2, 2] * wb2
    # G(p')^T h
    Q[a] += -4.0 * (-d1 * h0 - d2 * h1 - d3 * h2)
    Q[a + 1] += -4.0 * (d0 * h0 - d3 * h1 + d2 * h2)
    Q[a + 2] += -4.0 * (d3 * h0 + d0 * h1 - d1 * h2)
    Q[a + 3] += -4.0 * (-d2 * h0 + d1 * h1 + d0 * h2)


@njit(cache=True, inline="always")
def kinetic_energy(T, a, mass, J, q, qd):
    """T + 1/2 m v.v + 1/2 wbar^T Jbar wbar (J)."""
    T += 0.5 * mass * (qd[a] * qd[a] + qd[a + 1] * qd[a + 1] + qd[a + 2] * qd[a + 2])
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    d0, d1, d2, d3 = qd[a + 3], qd[a + 4], qd[a + 5], qd[a + 6]
    wb = (2.0 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3),
          2.0 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3),
          2.0 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3))
    for i in range(3):
        for j in range(3):
            T += 0.5 * wb[i] * J[i, j] * wb[j]
    return T
