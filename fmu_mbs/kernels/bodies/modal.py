"""Floating modal body (floating frame of reference, FFRF): q = (r, p, eta), r the frame origin (world, m), p its
Euler parameters, eta the m modal coordinates of the small elastic deformation u = Psi eta measured in the frame.

Equations (docs/flexible-bodies.md §3, §6; Zwoelfer & Gerstmayr, Multibody Syst. Dyn. 49 (2020) 291-313; Shabana,
*Dynamics of Multibody Systems* 4th ed. §5.5-5.6; seed 000 §11.2): body-frame velocities s = B q' = [v, w, eta'],
B = diag(A^T, 2 Gbar(p), I) (w = 2 Gbar p', Nikravesh 1988); kinetic energy 1/2 s^T M(eta) s with M(eta) from the
inertia invariants (fe.invariants; M_tr = -C, C = m skew(c) + mPhitTPsiTilde (eta x I3)); the Boltzmann-Hamel
equations give

    M_q = B^T M(eta) B,    Q_q = B^T (Q_v - [0, 0, K_ff eta + D_ff eta'] - M(eta) B' q'),   B' q' = [-w x v, 0, 0]
    Q_v = -M'(eta, eta') s - [w x p_t, w x p_r + v x p_t, -1/2 s^T (dM/deta_k) s],   p = M(eta) s

(fe.ffrf.rp_equations is the numpy reference). Geometric stiffening (fe.stiffening), when on:
-K_geo(w, -A^T g) eta on the modal coordinates; the frame origin's own acceleration is left out of the prestress
(the force kernels see no accelerations), exact for a frame at a fixed pivot. Gravity: B^T M(eta)[:, :3] A^T g;
V = -g . (m r + A (m c + mPhitTPsi eta)) + 1/2 eta^T K_ff eta.

A marker sits at an FE node: rest position x (the marker's position in the body frame), rows Psi_t (3 x m),
Psi_r (3 x m) of the basis at the node, u_t = Psi_t eta, theta = Psi_r eta:

    o = r + A (x + u_t),   R = A rot(theta) R0,
    o' = v + w x A (x + u_t) + A Psi_t eta',   w_m = w + A dexp(theta) Psi_r eta'

(world v, w; rot: Rodrigues, dexp(theta) = I + c2 [theta]x + c3 [theta]x^2, c2 = (1 - cos t)/t^2,
c3 = (t - sin t)/t^3, t = |theta|; fe.ffrf.node_frame). The marker Jacobian is the map (r', p', eta') -> (o', w_m):
a constraint row (g_v, g_w) goes to the rigid r-p columns through the frame twist and to eta through
Psi_t^T A^T g_v + Psi_r^T dexp^T A^T g_w; a load is its transpose. Quadratic accelerations (at zero coordinate
accelerations): origin w x (w x rho) + 2 w x A Psi_t eta', rho = o - r; rotation w x (A dexp theta') + A dexp' theta'.

The dynamics (mass block, forces, energies) are in modal_inertia.py. No function allocates; the per-marker and
per-row ones are inlined into the dispatcher (kernels/bodies/dispatch.py).
"""

from __future__ import annotations

import math

from numba import njit

from ..model_arrays import arrays_type
from ..rotation import cross_v, dot_v
from . import rigid

#: modal-body tables (inside kernels/bodies/flexible.FlexArrays as ``flex.modal``): per body ``n_modes`` (0 for
#: other kinds), ``com`` (nb, 3; m, body frame), ``j0`` (nb, 3, 3; kg m^2 about the frame origin), ``stiffening``
#: (1 = on) and the pool addresses of the row-major invariants (fe.invariants names): ``phit_psi`` (3 x m),
#: ``phit_psit`` (3 x 3m), ``x_psi`` (3 x m), ``x_psit`` (3 x 3m), ``psit_psi`` (3m x m), ``psit_psit`` (3m x 3m),
#: ``m_ff``, ``k_ff``, ``d_ff`` (m x m), ``k_geo`` (9 m x m matrices: w_i w_j for fe.stiffening.PAIRS, then the
#: three acceleration cases); per marker ``marker_rows``: address of its node's basis rows (6 x m: Psi_t, Psi_r),
#: -1 off modal bodies
ModalArrays = arrays_type("ModalArrays", ["n_modes", "com", "j0", "stiffening", "phit_psi", "phit_psit", "x_psi",
                                          "x_psit", "psit_psi", "psit_psit", "m_ff", "k_ff", "d_ff", "k_geo",
                                          "marker_rows", "pool"], __name__)


# --- frame helpers ------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def rotation(q, a):
    """A(p/|p|) as a row-major 9-tuple."""
    n = math.sqrt(q[a + 3] ** 2 + q[a + 4] ** 2 + q[a + 5] ** 2 + q[a + 6] ** 2)
    e0, e1, e2, e3 = q[a + 3] / n, q[a + 4] / n, q[a + 5] / n, q[a + 6] / n
    return (2.0 * (e0 * e0 + e1 * e1) - 1.0, 2.0 * (e1 * e2 - e0 * e3), 2.0 * (e1 * e3 + e0 * e2),
            2.0 * (e1 * e2 + e0 * e3), 2.0 * (e0 * e0 + e2 * e2) - 1.0, 2.0 * (e2 * e3 - e0 * e1),
            2.0 * (e1 * e3 - e0 * e2), 2.0 * (e2 * e3 + e0 * e1), 2.0 * (e0 * e0 + e3 * e3) - 1.0)


@njit(cache=True, inline="always")
def gbar(q, a):
    """Gbar(p) = [-e, -skew(e) + e0 I] (3 x 4) as a row-major 12-tuple (body angular velocity w = 2 Gbar p')."""
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    return (-e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0)


@njit(cache=True, inline="always")
def mv(A, x):
    """A x for a row-major 9-tuple A."""
    return (A[0] * x[0] + A[1] * x[1] + A[2] * x[2], A[3] * x[0] + A[4] * x[1] + A[5] * x[2],
            A[6] * x[0] + A[7] * x[1] + A[8] * x[2])


@njit(cache=True, inline="always")
def mtv(A, x):
    """A^T x for a row-major 9-tuple A."""
    return (A[0] * x[0] + A[3] * x[1] + A[6] * x[2], A[1] * x[0] + A[4] * x[1] + A[7] * x[2],
            A[2] * x[0] + A[5] * x[1] + A[8] * x[2])


@njit(cache=True, inline="always")
def body_velocities(q, qd, a):
    """(A, v, w): rotation, frame-origin velocity A^T r' and angular velocity 2 Gbar p', body axes."""
    A = rotation(q, a)
    G = gbar(q, a)
    w = (2.0 * (G[0] * qd[a + 3] + G[1] * qd[a + 4] + G[2] * qd[a + 5] + G[3] * qd[a + 6]),
         2.0 * (G[4] * qd[a + 3] + G[5] * qd[a + 4] + G[6] * qd[a + 5] + G[7] * qd[a + 6]),
         2.0 * (G[8] * qd[a + 3] + G[9] * qd[a + 4] + G[10] * qd[a + 5] + G[11] * qd[a + 6]))
    return A, mtv(A, (qd[a], qd[a + 1], qd[a + 2])), w


@njit(cache=True, inline="always")
def add_rotational(q, a, f0, f1, f2, scale, Q):
    """Q[p] += scale * 2 Gbar^T f for a body-frame moment f (N m)."""
    G = gbar(q, a)
    for c in range(4):
        Q[a + 3 + c] += scale * 2.0 * (G[c] * f0 + G[4 + c] * f1 + G[8 + c] * f2)


@njit(cache=True, inline="always")
def rodrigues(t2):
    """(s, c2, c3, d2, d3) of |theta|^2 = t2: s = sin t/t, c2 = (1 - cos t)/t^2, c3 = (t - sin t)/t^3 and
    d2 = c2'(t)/t, d3 = c3'(t)/t (series below t = 0.05, error < 1e-11)."""
    if t2 < 2.5e-3:
        return (1.0 - t2 / 6.0 + t2 * t2 / 120.0, 0.5 - t2 / 24.0 + t2 * t2 / 720.0,
                1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0, -1.0 / 12.0 + t2 / 180.0, -1.0 / 60.0 + t2 / 1260.0)
    t = math.sqrt(t2)
    st, ct = math.sin(t), math.cos(t)
    return (st / t, (1.0 - ct) / t2, (t - st) / (t2 * t), (t * st - 2.0 * (1.0 - ct)) / (t2 * t2),
            (t * (1.0 - ct) - 3.0 * (t - st)) / (t2 * t2 * t))


@njit(cache=True, inline="always")
def rows_dot(md, adr, m, row, x, xa):
    """sum_j Psi[row, j] x[xa + j] for the marker rows at ``adr``."""
    s = 0.0
    for j in range(m):
        s += md.pool[adr + row * m + j] * x[xa + j]
    return s


@njit(cache=True, inline="always")
def node_translation(md, k, m, x, xa):
    """Psi_t x of marker k's node for modal values x[xa:xa+m]."""
    adr = md.marker_rows[k]
    return rows_dot(md, adr, m, 0, x, xa), rows_dot(md, adr, m, 1, x, xa), rows_dot(md, adr, m, 2, x, xa)


@njit(cache=True, inline="always")
def node_rotation(md, k, m, x, xa):
    """Psi_r x of marker k's node for modal values x[xa:xa+m]."""
    adr = md.marker_rows[k]
    return rows_dot(md, adr, m, 3, x, xa), rows_dot(md, adr, m, 4, x, xa), rows_dot(md, adr, m, 5, x, xa)


@njit(cache=True, inline="always")
def node_motion(md, k, m, x, xa):
    """(Psi_t x, Psi_r x) of marker k's node for modal values x[xa:xa+m]."""
    return node_translation(md, k, m, x, xa), node_rotation(md, k, m, x, xa)


@njit(cache=True, inline="always")
def dexp(th, y):
    """dexp(theta) y = y + c2 theta x y + c3 theta x (theta x y)."""
    _, c2, c3, _, _ = rodrigues(dot_v(th, th))
    t1 = cross_v(th, y)
    t2 = cross_v(th, t1)
    return (y[0] + c2 * t1[0] + c3 * t2[0], y[1] + c2 * t1[1] + c3 * t2[1], y[2] + c2 * t1[2] + c3 * t2[2])


@njit(cache=True, inline="always")
def dexp_t(th, y):
    """dexp(theta)^T y = y - c2 theta x y + c3 theta x (theta x y)."""
    _, c2, c3, _, _ = rodrigues(dot_v(th, th))
    t1 = cross_v(th, y)
    t2 = cross_v(th, t1)
    return (y[0] - c2 * t1[0] + c3 * t2[0], y[1] - c2 * t1[1] + c3 * t2[1], y[2] - c2 * t1[2] + c3 * t2[2])


# --- markers ------------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def marker_frame(md, a, b, k, q, qd, marker_pos, marker_rot, r, A, v, w, o, R, vo, wm):
    """Origin o, axes R, origin velocity vo and angular velocity wm (world) of marker k on modal body b, from the
    body frames (r, A, v, w; world) of eval_body_frames."""
    m = md.n_modes[b]
    e = a + 7
    ut, th = node_motion(md, k, m, q, e)
    utd, thd = node_motion(md, k, m, qd, e)
    x = (marker_pos[k, 0] + ut[0], marker_pos[k, 1] + ut[1], marker_pos[k, 2] + ut[2])
    Ab = (A[b, 0, 0], A[b, 0, 1], A[b, 0, 2], A[b, 1, 0], A[b, 1, 1], A[b, 1, 2], A[b, 2, 0], A[b, 2, 1], A[b, 2, 2])
    rho = mv(Ab, x)
    wb = (w[b, 0], w[b, 1], w[b, 2])
    wr = cross_v(wb, rho)
    au = mv(Ab, utd)
    wn = mv(Ab, dexp(th, thd))
    for i in range(3):
        o[k, i] = r[b, i] + rho[i]
        vo[k, i] = v[b, i] + wr[i] + au[i]
        wm[k, i] = wb[i] + wn[i]
    s, c2, _, _, _ = rodrigues(dot_v(th, th))
    # R = A rot(theta) R0, rot(theta) y = y + s theta x y + c2 theta x (theta x y), column by column
    for c in range(3):
        y = (marker_rot[k, 0, c], marker_rot[k, 1, c], marker_rot[k, 2, c])
        t1 = cross_v(th, y)
        t2 = cross_v(th, t1)
        z = mv(Ab, (y[0] + s * t1[0] + c2 * t2[0], y[1] + s * t1[1] + c2 * t2[1], y[2] + s * t1[2] + c2 * t2[2]))
        for i in range(3):
            R[k, i, c] = z[i]


@njit(cache=True, inline="always")
def add_modal_load(md, a, b, k, q, f, t, scale, Q):
    """Q[eta] += scale * (Psi_t^T A^T f + Psi_r^T dexp^T A^T t): world force f at the node and moment t (N m)."""
    m = md.n_modes[b]
    e = a + 7
    A = rotation(q, a)
    th = node_rotation(md, k, m, q, e)
    lf = mtv(A, f)
    lt = dexp_t(th, mtv(A, t))
    adr = md.marker_rows[k]
    for j in range(m):
        s = 0.0
        for i in range(3):
            s += md.pool[adr + i * m + j] * lf[i] + md.pool[adr + (3 + i) * m + j] * lt[i]
        Q[e + j] += scale * s


@njit(cache=True, inline="always")
def add_load(md, a, b, k, q, r, o, p0, p1, p2, F0, F1, F2, T0, T1, T2, scale, Q):
    """Q += scale * (force F (N) at the world point p carried by marker k's node, and torque T (N m))."""
    s = (p0 - r[b, 0], p1 - r[b, 1], p2 - r[b, 2])
    n = cross_v(s, (F0, F1, F2))
    rigid.add_wrench(a, q, F0, F1, F2, n[0] + T0, n[1] + T1, n[2] + T2, scale, Q)
    d = (p0 - o[k, 0], p1 - o[k, 1], p2 - o[k, 2])
    nd = cross_v(d, (F0, F1, F2))
    add_modal_load(md, a, b, k, q, (F0, F1, F2), (nd[0] + T0, nd[1] + T1, nd[2] + T2), scale, Q)


@njit(cache=True, inline="always")
def row_to_q(md, a, b, k, q, r, o, gv0, gv1, gv2, gw0, gw1, gw2, out, off):
    """out[off:off+7+m] = the coordinate row of (g_v, g_w) at marker k (the transpose of add_load's map)."""
    s = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    t = cross_v(s, (gv0, gv1, gv2))
    rigid.twist_to_q(a, q, gv0, gv1, gv2, gw0 + t[0], gw1 + t[1], gw2 + t[2], out, off)
    m = md.n_modes[b]
    A = rotation(q, a)
    th = node_rotation(md, k, m, q, a + 7)
    lf = mtv(A, (gv0, gv1, gv2))
    lt = dexp_t(th, mtv(A, (gw0, gw1, gw2)))
    adr = md.marker_rows[k]
    for j in range(m):
        v = 0.0
        for i in range(3):
            v += md.pool[adr + i * m + j] * lf[i] + md.pool[adr + (3 + i) * m + j] * lt[i]
        out[off + 7 + j] = v


@njit(cache=True, inline="always")
def quad_acc(md, a, b, k, q, qd, r, o):
    """Origin acceleration of marker k at zero coordinate accelerations (m/s^2, world):
    w x (w x rho) + 2 w x A Psi_t eta'."""
    A, _, wb = body_velocities(q, qd, a)
    w = mv(A, wb)
    utd = node_translation(md, k, md.n_modes[b], qd, a + 7)
    au = mv(A, utd)
    rho = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    c1 = cross_v(w, cross_v(w, rho))
    c2 = cross_v(w, au)
    return c1[0] + 2.0 * c2[0], c1[1] + 2.0 * c2[1], c1[2] + 2.0 * c2[2]


@njit(cache=True, inline="always")
def quad_alpha(md, a, b, k, q, qd):
    """Angular acceleration of marker k at zero coordinate accelerations (rad/s^2, world):
    w x A dexp(theta) theta' + A (d/dt dexp(theta)) theta', theta' = Psi_r eta'."""
    A, _, wb = body_velocities(q, qd, a)
    m = md.n_modes[b]
    th = node_rotation(md, k, m, q, a + 7)
    thd = node_rotation(md, k, m, qd, a + 7)
    _, _, c3, d2, d3 = rodrigues(dot_v(th, th))
    tt = dot_v(th, thd)
    x1 = cross_v(th, thd)
    x2 = cross_v(th, x1)
    x3 = cross_v(thd, x1)
    ddt = (d2 * tt * x1[0] + d3 * tt * x2[0] + c3 * x3[0], d2 * tt * x1[1] + d3 * tt * x2[1] + c3 * x3[1],
           d2 * tt * x1[2] + d3 * tt * x2[2] + c3 * x3[2])
    wx = cross_v(wb, dexp(th, thd))
    return mv(A, (wx[0] + ddt[0], wx[1] + ddt[1], wx[2] + ddt[2]))


@njit(cache=True, inline="always")
def marker_acceleration(md, a, b, k, q, qdd, r, o, wm):
    """(origin acceleration, angular acceleration), world, of marker k from qdd; the velocity terms are those of
    a rigid motion at the marker's angular velocity, wm x (wm x rho): the elastic-rate (Coriolis) terms need the
    velocities, which this dispatcher function does not get."""
    A = rotation(q, a)
    e0, e1, e2, e3 = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
    d0, d1, d2, d3 = qdd[a + 3], qdd[a + 4], qdd[a + 5], qdd[a + 6]
    al = (2.0 * (-e1 * d0 + e0 * d1 - e3 * d2 + e2 * d3), 2.0 * (-e2 * d0 + e3 * d1 + e0 * d2 - e1 * d3),
          2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3))
    m = md.n_modes[b]
    th = node_rotation(md, k, m, q, a + 7)
    utdd, thdd = node_motion(md, k, m, qdd, a + 7)
    au = mv(A, utdd)
    an = mv(A, dexp(th, thdd))
    rho = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    axr = cross_v(al, rho)
    wk = (wm[k, 0], wm[k, 1], wm[k, 2])
    ww = cross_v(wk, cross_v(wk, rho))
    return ((qdd[a] + axr[0] + au[0] + ww[0], qdd[a + 1] + axr[1] + au[1] + ww[1],
             qdd[a + 2] + axr[2] + au[2] + ww[2]), (al[0] + an[0], al[1] + an[1], al[2] + an[2]))


@njit(cache=True, inline="always")
def marker_quaternion(md, a, b, k, q):
    """Quaternion [w, x, y, z] of A rot(theta) (the node's rotation), to be multiplied by the marker's own."""
    n = math.sqrt(q[a + 3] ** 2 + q[a + 4] ** 2 + q[a + 5] ** 2 + q[a + 6] ** 2)
    p0, p1, p2, p3 = q[a + 3] / n, q[a + 4] / n, q[a + 5] / n, q[a + 6] / n
    th = node_rotation(md, k, md.n_modes[b], q, a + 7)
    t = math.sqrt(dot_v(th, th))
    f = 0.5 if t == 0.0 else math.sin(0.5 * t) / t
    l0, l1, l2, l3 = math.cos(0.5 * t), f * th[0], f * th[1], f * th[2]
    return (p0 * l0 - p1 * l1 - p2 * l2 - p3 * l3, p0 * l1 + l0 * p1 + p2 * l3 - p3 * l2,
            p0 * l2 + l0 * p2 + p3 * l1 - p1 * l3, p0 * l3 + l0 * p3 + p1 * l2 - p2 * l1)
