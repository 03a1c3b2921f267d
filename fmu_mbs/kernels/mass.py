"""Generalized mass matrix, velocity-dependent inertia forces and kinetic energy.

Rigid bodies (r-p, seed 004): M = diag(m I3, 4 G^T Jbar G) and the quadratic velocity force on p is
8 G'^T Jbar G' p = -4 G(p')^T Jbar wbar with wbar = 2 G(p) p' (Haug; derivation in docs/design.md).
The p block is singular along p; the normalisation row completes it.
"""

from __future__ import annotations

from numba import njit

from .model_arrays import PLANAR, POINT_MASS


@njit(cache=True, _nrt=False)
def _rigid_pp_block(J, e0, e1, e2, e3, out, a):
    # G(p) rows
    G = ((-e1, e0, e3, -e2), (-e2, -e3, e0, e1), (-e3, e2, -e1, e0))
    for r in range(4):
        for c in range(4):
            s = 0.0
            for i in range(3):
                for j in range(3):
                    s += G[i][r] * J[i, j] * G[j][c]
            out[a + r, a + c] = 4.0 * s


@njit(cache=True, _nrt=False)
def eval_mass(m, q, M):
    """Dense generalized mass matrix M(q) (n_q x n_q) into ``M``."""
    M[:, :] = 0.0
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        kind = m.body_kind[b]
        mass = m.body_mass[b]
        if kind == POINT_MASS:
            for i in range(m.dim):
                M[a + i, a + i] = mass
        elif kind == PLANAR:
            M[a, a] = mass
            M[a + 1, a + 1] = mass
            M[a + 2, a + 2] = m.body_inertia[b, 2, 2]
        else:
            for i in range(3):
                M[a + i, a + i] = mass
            _rigid_pp_block(m.body_inertia[b], q[a + 3], q[a + 4], q[a + 5], q[a + 6], M, a + 3)


@njit(cache=True, _nrt=False)
def add_inertia_forces(m, q, qd, Q):
    """Q += velocity-dependent inertia forces (rigid bodies: -4 G(p')^T Jbar wbar)."""
    for b in range(m.body_kind.shape[0]):
        if m.body_kind[b] <= PLANAR:
            continue
        a = m.body_q_adr[b] + 3
        e0, e1, e2, e3 = q[a], q[a + 1], q[a + 2], q[a + 3]
        d0, d1, d2, d3 = qd[a], qd[a + 1], qd[a + 2], qd[a + 3]
        wb0 = 2.0 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3)
        wb1 = 2.0 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3)
        wb2 = 2.0 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3)
        J = m.body_inertia[b]
        h0 = J[0, 0] * wb0 + J[0, 1] * wb1 + J[0, 2] * wb2
        h1 = J[1, 0] * wb0 + J[1, 1] * wb1 + J[1, 2] * wb2
        h2 = J[2, 0] * wb0 + J[2, 1] * wb1 + J[2, 2] * wb2
        # G(p')^T h
        Q[a] += -4.0 * (-d1 * h0 - d2 * h1 - d3 * h2)
        Q[a + 1] += -4.0 * (d0 * h0 - d3 * h1 + d2 * h2)
        Q[a + 2] += -4.0 * (d3 * h0 + d0 * h1 - d1 * h2)
        Q[a + 3] += -4.0 * (-d2 * h0 + d1 * h1 + d0 * h2)


@njit(cache=True, _nrt=False)
def kinetic_energy(m, q, qd):
    """T = sum 1/2 m v^2 + 1/2 wbar^T Jbar wbar (J)."""
    T = 0.0
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        kind = m.body_kind[b]
        mass = m.body_mass[b]
        if kind == POINT_MASS:
            for i in range(m.dim):
                T += 0.5 * mass * qd[a + i] * qd[a + i]
        elif kind == PLANAR:
            T += 0.5 * mass * (qd[a] * qd[a] + qd[a + 1] * qd[a + 1]) \
                + 0.5 * m.body_inertia[b, 2, 2] * qd[a + 2] * qd[a + 2]
        else:
            T += 0.5 * mass * (qd[a] * qd[a] + qd[a + 1] * qd[a + 1] + qd[a + 2] * qd[a + 2])
            e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
            d0, d1, d2, d3 = qd[a + 3], qd[a + 4], qd[a + 5], qd[a + 6]
            wb = (2.0 * (-e1 * d0 + e0 * d1 + e3 * d2 - e2 * d3),
                  2.0 * (-e2 * d0 - e3 * d1 + e0 * d2 + e1 * d3),
                  2.0 * (-e3 * d0 + e2 * d1 - e1 * d2 + e0 * d3))
            J = m.body_inertia[b]
            for i in range(3):
                for j in range(3):
                    T += 0.5 * wb[i] * J[i, j] * wb[j]
    return T


@njit(cache=True, _nrt=False)
def gravity_potential(m, q):
    """V_g = -sum m g . r_cm (J)."""
    V = 0.0
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        n = m.dim
        for i in range(n):
            V -= m.body_mass[b] * m.gravity[i] * q[a + i]
    return V
