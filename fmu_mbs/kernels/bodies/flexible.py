"""Linear flexible body: a small-displacement finite-element substructure whose frame is fixed in the world.

Coordinates u (n of them, any number): the nodal displacements (m) and rotations (rad) that are not fixed.
Node j sits at X_j (world) and has the coordinate indices ``node_dof[j] = (x, y, z, rx, ry, rz)`` of its
translation and rotation (-1 = fixed, zero). Constant matrices (pool at ``mat_adr[b]``, row-major):
M (n x n, kg), K (n x n, N/m), C (n x n, N s/m), and MT (n x 3, kg), the weight per unit gravity: M T with T
the rigid-translation map (T[i, c] = 1 where coordinate i is a translation along axis c) unless the model gives
it (with fixed DOFs the exact load also holds the mass coupling to the supports, M_full T_full), so that

    M u'' = -K u - C u' + MT g + (loads at the markers),
    T_kin = 1/2 u'^T M u',  V = 1/2 u^T K u - (MT g) . u,  P_damping = u'^T C u'.

A marker sits at a node: origin o = X + u_t, axes R = rot(theta) R0 (theta the node's rotation vector, R0 the
marker's axes at rest, Rodrigues' formula), o' = u_t', w = theta' (small rotations: the linear theory's angular
velocity). Its Jacobian is the node's DOF map: a constraint row's derivatives (g_v at the origin, g_w in rotation)
go to the node's translation and rotation coordinates; a force F at a world point p with torque T loads the node
with F and (p - o) x F + T. The origin's acceleration is u_t'' (no quadratic part).
The body's frame (r, A, v, w) is the world frame at rest: r = 0, A = I, v = w = 0.
"""

from __future__ import annotations

import math

from numba import njit

from ..inner import inner_kernel
from ..model_arrays import arrays_type

#: flexible-body tables: per body ``mat_adr`` (address of M, K, C, MT in ``pool``; -1 for other kinds) and
#: ``node_ptr`` (nb + 1: body b's nodes are node_ptr[b]..node_ptr[b+1]); per node ``node_pos`` (N, 3, m) and
#: ``node_dof`` (N, 6) (body-local coordinate index or -1); per marker ``marker_node`` (index into the node tables,
#: -1 unless the marker is on a flexible body); ``modal``: the floating modal bodies' tables
#: (kernels/bodies/modal.ModalArrays)
FlexArrays = arrays_type("FlexArrays", ["mat_adr", "pool", "node_ptr", "node_pos", "node_dof", "marker_node",
                                        "modal"], __name__)


@njit(cache=True, inline="always")
def node_value(fx, j, i, a, x):
    """x at DOF i (0-2 translation, 3-5 rotation) of node j of the body whose coordinates start at x[a]; 0 if
    fixed."""
    d = fx.node_dof[j, i]
    return x[a + d] if d >= 0 else 0.0


@inner_kernel(_nrt=False)
def marker_frame(fx, a, k, q, qd, marker_rot, o, R, vo, wm):
    """Origin o (m), axes R, origin velocity vo (m/s) and angular velocity wm (rad/s) of marker k, world axes."""
    j = fx.marker_node[k]
    for i in range(3):
        o[k, i] = fx.node_pos[j, i] + node_value(fx, j, i, a, q)
        vo[k, i] = node_value(fx, j, i, a, qd)
        wm[k, i] = node_value(fx, j, 3 + i, a, qd)
    x, y, z = node_value(fx, j, 3, a, q), node_value(fx, j, 4, a, q), node_value(fx, j, 5, a, q)
    # Rodrigues: rot(theta) = I + s [theta]x + c2 [theta]x^2, s = sin|theta|/|theta|, c2 = (1 - cos|theta|)/|theta|^2
    t2 = x * x + y * y + z * z
    if t2 < 1e-12:
        s = 1.0 - t2 / 6.0
        c2 = 0.5 - t2 / 24.0
    else:
        t = math.sqrt(t2)
        s = math.sin(t) / t
        c2 = (1.0 - math.cos(t)) / t2
    rot = ((1.0 - c2 * (y * y + z * z), -s * z + c2 * x * y, s * y + c2 * x * z),
           (s * z + c2 * x * y, 1.0 - c2 * (x * x + z * z), -s * x + c2 * y * z),
           (-s * y + c2 * x * z, s * x + c2 * y * z, 1.0 - c2 * (x * x + y * y)))
    for i in range(3):
        for c in range(3):
            R[k, i, c] = rot[i][0] * marker_rot[k, 0, c] + rot[i][1] * marker_rot[k, 1, c] \
                + rot[i][2] * marker_rot[k, 2, c]


@inner_kernel(_nrt=False)
def add_load(fx, a, o, k, p0, p1, p2, F0, F1, F2, T0, T1, T2, scale, Q):
    """Q += scale * (force F (N) at the world point p and torque T (N m), carried by marker k's node)."""
    j = fx.marker_node[k]
    s0, s1, s2 = p0 - o[k, 0], p1 - o[k, 1], p2 - o[k, 2]
    load = (F0, F1, F2, s1 * F2 - s2 * F1 + T0, s2 * F0 - s0 * F2 + T1, s0 * F1 - s1 * F0 + T2)
    for i in range(6):
        d = fx.node_dof[j, i]
        if d >= 0:
            Q[a + d] += scale * load[i]


@inner_kernel(_nrt=False)
def row_to_q(fx, k, gv0, gv1, gv2, gw0, gw1, gw2, out, off):
    """Coordinate row of a constraint row with derivatives g_v (origin velocity) and g_w (angular velocity) at
    marker k: the node's DOF map (the caller zeroed the row)."""
    j = fx.marker_node[k]
    g = (gv0, gv1, gv2, gw0, gw1, gw2)
    for i in range(6):
        d = fx.node_dof[j, i]
        if d >= 0:
            out[off + d] = g[i]


@inner_kernel(_nrt=False)
def marker_acceleration(fx, a, k, qdd):
    """(origin acceleration u_t'' (m/s^2), angular acceleration theta'' (rad/s^2)) of marker k, world."""
    j = fx.marker_node[k]
    return ((node_value(fx, j, 0, a, qdd), node_value(fx, j, 1, a, qdd), node_value(fx, j, 2, a, qdd)),
            (node_value(fx, j, 3, a, qdd), node_value(fx, j, 4, a, qdd), node_value(fx, j, 5, a, qdd)))


@njit(cache=True, _nrt=False)
def mass_block(fx, b, n, out, off):
    """out[off:off+n, off:off+n] = M (kg, kg m, kg m^2)."""
    adr = fx.mat_adr[b]
    for i in range(n):
        for j in range(n):
            out[off + i, off + j] = fx.pool[adr + i * n + j]


@inner_kernel(_nrt=False)
def add_internal_forces(fx, b, a, n, q, qd, Q):
    """Q += -K u - C u' (N, N m): the elastic and damping forces."""
    k0 = fx.mat_adr[b] + n * n
    c0 = k0 + n * n
    for i in range(n):
        f = 0.0
        for j in range(n):
            f += fx.pool[k0 + i * n + j] * q[a + j] + fx.pool[c0 + i * n + j] * qd[a + j]
        Q[a + i] -= f


@inner_kernel(_nrt=False)
def add_gravity(fx, b, a, n, g, Q):
    """Q += MT g (N, N m): the weight of the body's mass distribution."""
    t0 = fx.mat_adr[b] + 3 * n * n
    for i in range(n):
        Q[a + i] += fx.pool[t0 + 3 * i] * g[0] + fx.pool[t0 + 3 * i + 1] * g[1] + fx.pool[t0 + 3 * i + 2] * g[2]


@inner_kernel(_nrt=False)
def quadratic_form(fx, adr, n, x, a, y):
    """x[a:a+n]^T P y[a:a+n] for the n x n matrix P at pool[adr]."""
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += x[a + i] * fx.pool[adr + i * n + j] * y[a + j]
    return s


@njit(cache=True, _nrt=False)
def kinetic_energy(fx, b, a, n, qd):
    """1/2 u'^T M u' (J)."""
    return 0.5 * quadratic_form(fx, fx.mat_adr[b], n, qd, a, qd)


@inner_kernel(_nrt=False)
def potential_energy(fx, b, a, n, g, q):
    """1/2 u^T K u - (MT g) . u (J): elastic and gravity energy."""
    t0 = fx.mat_adr[b] + 3 * n * n
    V = 0.5 * quadratic_form(fx, fx.mat_adr[b] + n * n, n, q, a, q)
    for i in range(n):
        V -= q[a + i] * (fx.pool[t0 + 3 * i] * g[0] + fx.pool[t0 + 3 * i + 1] * g[1] + fx.pool[t0 + 3 * i + 2] * g[2])
    return V


@inner_kernel(_nrt=False)
def damping_power(fx, b, a, n, qd):
    """u'^T C u' (W): the power the damping matrix removes."""
    return quadratic_form(fx, fx.mat_adr[b] + 2 * n * n, n, qd, a, qd)


@inner_kernel(_nrt=False)
def marker_rotation_vector(fx, a, k, q):
    """The rotation vector theta (rad) of marker k's node."""
    j = fx.marker_node[k]
    return node_value(fx, j, 3, a, q), node_value(fx, j, 4, a, q), node_value(fx, j, 5, a, q)
