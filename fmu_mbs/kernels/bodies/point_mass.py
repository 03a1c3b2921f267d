"""Point mass: q = (x, y[, z]) (m), the model's dimension; no rotation (A = I, w = 0). M = m I, T = 1/2 m v.v,
gravity m g at the point; a wrench (F, n) at the point maps to Q = F (the torque does no work)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def body_frame(a, dim, q, qd, b, r, v):
    """Position r and velocity v (world) of the point mass b whose coordinates start at q[a]."""
    for i in range(3):
        r[b, i] = q[a + i] if i < dim else 0.0
        v[b, i] = qd[a + i] if i < dim else 0.0


@njit(cache=True, inline="always")
def add_wrench(a, dim, q, F0, F1, F2, n0, n1, n2, scale, Q):
    """Q += scale * F (N): a force at the point; the torque n has no coordinate to act on."""
    Q[a] += scale * F0
    Q[a + 1] += scale * F1
    if dim == 3:
        Q[a + 2] += scale * F2


@njit(cache=True, inline="always")
def twist_to_q(a, dim, q, jv0, jv1, jv2, jw0, jw1, jw2, out, off):
    """Coordinate row of the twist-space row (jv, jw): J_v."""
    out[off] = jv0
    out[off + 1] = jv1
    if dim == 3:
        out[off + 2] = jv2


@njit(cache=True, inline="always")
def body_acceleration(a, dim, q, qdd):
    """(acceleration (m/s^2), angular acceleration 0), world."""
    return (qdd[a], qdd[a + 1], qdd[a + 2] if dim == 3 else 0.0), (0.0, 0.0, 0.0)


@njit(cache=True, inline="always")
def mass_block(n, mass, out, off):
    """out[off:off+n, off:off+n] = m I (kg) (the caller zeroed the block)."""
    for i in range(n):
        out[off + i, off + i] = mass


@njit(cache=True, inline="always")
def kinetic_energy(T, a, dim, mass, qd):
    """T + 1/2 m v.v (J)."""
    for i in range(dim):
        T += 0.5 * mass * qd[a + i] * qd[a + i]
    return T
