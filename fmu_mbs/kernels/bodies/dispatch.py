"""The one body-kind dispatcher: every kernel reaches a body's coordinates through these functions.

Each function branches on the body kind code (kernels/model_arrays.py) to the kind's module and raises on any
other code: there is no default kind. ``bd`` is any named tuple with the model's body and marker tables
(ModelArrays or the System view of kernels/marker_loads.py: dim, body_kind, body_q_adr, marker_body, flex);
frames (world axes): body reference point r (the CM of the rigid kinds), rotation A, velocity v, angular velocity
w; marker origin o, axes R (columns), origin velocity vo, angular velocity wm.

Protocol of a kind (module docstrings give its equations): the body and marker frames; a load at a marker (force
F at a world point p carried by the marker's body, torque T) to generalized forces; a constraint row's derivative
with respect to a marker's origin velocity (g_v) and angular velocity (g_w) to a coordinate row; the marker
origin's quadratic acceleration (at zero coordinate accelerations; gamma and marker accelerations); the mass
block; velocity-dependent inertia and internal (elastic, damping) forces; kinetic energy; gravity force and
potential (with the elastic energy).

The functions called per constraint row, per load, per body or per marker (``row_to_q``, ``quad_acc``,
``add_load``, ``mass_block`` and every function of the rigid kinds' modules) are inlined: a call that is not
passes every array of its tuple arguments one by one (about 1 us per call for ModelArrays). Before they were
inlined the ALF step of the pendulum chains cost 5-12 % more than with the old kernels/frames.py.
"""

from __future__ import annotations

import math

from numba import njit

from ..inner import inner_kernel
from ..model_arrays import FLEXIBLE, MODAL, PLANAR, POINT_MASS, RIGID, ZERO
from ..rotation import cross_v
from . import flexible, lever, modal, modal_inertia, planar, point_mass, rigid


@inner_kernel(_nrt=False)
def unknown_kind(kind):
    """Raise for a body kind code no module provides (a compiler bug or a corrupt model)."""
    raise ValueError("unknown body kind code: no module in kernels/bodies provides it")


# --- kinematics ---------------------------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def eval_body_frames(m, q, qd, r, A, v, w):
    """Reference point r (m), rotation A, velocity v (m/s) and angular velocity w (rad/s), world, of every body."""
    dim = m.dim
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        kind = m.body_kind[b]
        for i in range(3):
            w[b, i] = 0.0
            for j in range(3):
                A[b, i, j] = 1.0 if i == j else 0.0
        if kind == RIGID or kind == MODAL:
            rigid.body_frame(a, q, qd, b, r, A, v, w)
        elif kind == PLANAR:
            planar.body_frame(a, q, qd, b, r, A, v, w)
        elif kind == POINT_MASS:
            point_mass.body_frame(a, dim, q, qd, b, r, v)
        elif kind == FLEXIBLE:
            for i in range(3):
                r[b, i] = 0.0
                v[b, i] = 0.0
        else:
            unknown_kind(kind)


@njit(cache=True, _nrt=False)
def eval_marker_frames(m, q, qd, r, A, v, w, o, R, vo, wm):
    """Marker origin o, axes R (columns x, y, z), origin velocity vo and angular velocity wm (world) at the body
    frames (r, A, v, w) of (q, qd)."""
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
        kind = m.body_kind[b]
        if kind == RIGID or kind == PLANAR or kind == POINT_MASS:
            lever.marker_frame(m.marker_pos, m.marker_rot, k, b, r, A, v, w, o, R, vo, wm)
        elif kind == FLEXIBLE:
            flexible.marker_frame(m.flex, m.body_q_adr[b], k, q, qd, m.marker_rot, o, R, vo, wm)
        elif kind == MODAL:
            modal.marker_frame(m.flex.modal, m.body_q_adr[b], b, k, q, qd, m.marker_pos, m.marker_rot, r, A, v, w,
                               o, R, vo, wm)
        else:
            unknown_kind(kind)


@njit(cache=True, inline="always")
def add_load(bd, r, o, q, k, p0, p1, p2, F0, F1, F2, T0, T1, T2, scale, Q):
    """Q += scale * (force F (N) at the world point p, carried by the body of marker k, and torque T (N m) on
    it), world axes; nothing for a marker on ground."""
    b = bd.marker_body[k]
    if b < 0:
        return
    kind = bd.body_kind[b]
    a = bd.body_q_adr[b]
    if kind == FLEXIBLE:
        flexible.add_load(bd.flex, a, o, k, p0, p1, p2, F0, F1, F2, T0, T1, T2, scale, Q)
        return
    if kind == MODAL:
        modal.add_load(bd.flex.modal, a, b, k, q, r, o, p0, p1, p2, F0, F1, F2, T0, T1, T2, scale, Q)
        return
    s = lever.arm(r, b, p0, p1, p2)
    n = cross_v(s, (F0, F1, F2))
    if kind == RIGID:
        rigid.add_wrench(a, q, F0, F1, F2, n[0] + T0, n[1] + T1, n[2] + T2, scale, Q)
    elif kind == PLANAR:
        planar.add_wrench(a, q, F0, F1, F2, n[0] + T0, n[1] + T1, n[2] + T2, scale, Q)
    elif kind == POINT_MASS:
        point_mass.add_wrench(a, bd.dim, q, F0, F1, F2, n[0] + T0, n[1] + T1, n[2] + T2, scale, Q)
    else:
        unknown_kind(kind)


@njit(cache=True, inline="always")
def row_to_q(m, q, r, o, k, gv0, gv1, gv2, gw0, gw1, gw2, out, off):
    """out[off:off + n_q(b)] = the coordinate row of a constraint row whose derivatives with respect to marker k's
    origin velocity and angular velocity are g_v and g_w (k on body b; the caller zeroed the row). The rigid kinds
    go through the body twist (v: g_v, w: g_w + s x g_v), s = o_k - r_b."""
    b = m.marker_body[k]
    kind = m.body_kind[b]
    a = m.body_q_adr[b]
    if kind == FLEXIBLE:
        flexible.row_to_q(m.flex, k, gv0, gv1, gv2, gw0, gw1, gw2, out, off)
        return
    if kind == MODAL:
        modal.row_to_q(m.flex.modal, a, b, k, q, r, o, gv0, gv1, gv2, gw0, gw1, gw2, out, off)
        return
    s = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    t = cross_v(s, (gv0, gv1, gv2))
    if kind == RIGID:
        rigid.twist_to_q(a, q, gv0, gv1, gv2, gw0 + t[0], gw1 + t[1], gw2 + t[2], out, off)
    elif kind == PLANAR:
        planar.twist_to_q(a, q, gv0, gv1, gv2, gw0 + t[0], gw1 + t[1], gw2 + t[2], out, off)
    elif kind == POINT_MASS:
        point_mass.twist_to_q(a, m.dim, q, gv0, gv1, gv2, gw0 + t[0], gw1 + t[1], gw2 + t[2], out, off)
    else:
        unknown_kind(kind)


@njit(cache=True, inline="always")
def quad_acc(bd, r, o, wm, q, qd, k):
    """Acceleration of marker k's origin at zero coordinate accelerations (m/s^2), world: w x (w x s) for the
    rigid kinds, w x (w x s) + 2 w x (A Psi_t eta') on a modal body, 0 for a flexible body's node and on ground."""
    b = bd.marker_body[k]
    if b < 0:
        return 0.0, 0.0, 0.0
    kind = bd.body_kind[b]
    if kind == RIGID or kind == PLANAR or kind == POINT_MASS:
        return lever.quad_acc(r, o, wm, k, b)
    if kind == MODAL:
        return modal.quad_acc(bd.flex.modal, bd.body_q_adr[b], b, k, q, qd, r, o)
    if kind != FLEXIBLE:
        unknown_kind(kind)
    return 0.0, 0.0, 0.0


@njit(cache=True, inline="always")
def quad_alpha(bd, q, qd, k):
    """Angular acceleration of marker k at zero coordinate accelerations (rad/s^2), world: 0 for the rigid kinds
    (alpha = 2 E(p) p'' exactly), a flexible body's node and ground; on a modal body the terms of the node's
    rotation rate (kernels/bodies/modal.quad_alpha)."""
    b = bd.marker_body[k]
    if b < 0 or bd.body_kind[b] != MODAL:
        return 0.0, 0.0, 0.0
    return modal.quad_alpha(bd.flex.modal, bd.body_q_adr[b], b, k, q, qd)


@inner_kernel(_nrt=False)
def marker_acceleration(bd, r, o, wm, q, qdd, k):
    """(origin acceleration (m/s^2), angular acceleration (rad/s^2)), world, of marker k from qdd at the frames
    r, o, wm; rigid kinds a + alpha x s + w x (w x s); zeros on ground."""
    b = bd.marker_body[k]
    if b < 0:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    kind = bd.body_kind[b]
    a = bd.body_q_adr[b]
    if kind == FLEXIBLE:
        return flexible.marker_acceleration(bd.flex, a, k, qdd)
    if kind == MODAL:
        return modal.marker_acceleration(bd.flex.modal, a, b, k, q, qdd, r, o, wm)
    if kind == RIGID:
        acc, alpha = rigid.body_acceleration(a, q, qdd)
    elif kind == PLANAR:
        acc, alpha = planar.body_acceleration(a, q, qdd)
    elif kind == POINT_MASS:
        acc, alpha = point_mass.body_acceleration(a, bd.dim, q, qdd)
    else:
        unknown_kind(kind)
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    s = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    axs = cross_v(alpha, s)
    wws = lever.quad_acc(r, o, wm, k, b)
    return (acc[0] + axs[0] + wws[0], acc[1] + axs[1] + wws[1], acc[2] + axs[2] + wws[2]), alpha


@inner_kernel(_nrt=False)
def marker_angle(bd, q, k, local):
    """Angle of marker k's x axis from the world x axis (rad) in a planar model, ``local`` its angle on its body."""
    b = bd.marker_body[k]
    if b < 0:
        return local
    kind = bd.body_kind[b]
    if kind == PLANAR:
        return local + q[bd.body_q_adr[b] + 2]
    if kind != POINT_MASS:
        unknown_kind(kind)      # only point masses and planar bodies live in planar models
    return local


@inner_kernel(_nrt=False)
def marker_quaternion(bd, q, k, l0, l1, l2, l3):
    """Orientation quaternion [w, x, y, z] of marker k, world, from l, its orientation on its body: p (x) l with
    p = p/|p| of a rigid body, the node rotation's quaternion on a flexible body, l itself on ground and on a point
    mass."""
    b = bd.marker_body[k]
    if b < 0:
        return l0, l1, l2, l3
    kind = bd.body_kind[b]
    a = bd.body_q_adr[b]
    if kind == RIGID:
        n = math.sqrt(q[a + 3] ** 2 + q[a + 4] ** 2 + q[a + 5] ** 2 + q[a + 6] ** 2)
        p0, p1, p2, p3 = q[a + 3] / n, q[a + 4] / n, q[a + 5] / n, q[a + 6] / n
    elif kind == FLEXIBLE:
        x, y, z = flexible.marker_rotation_vector(bd.flex, a, k, q)
        t = math.sqrt(x * x + y * y + z * z)
        f = 0.5 if t == 0.0 else math.sin(0.5 * t) / t
        p0, p1, p2, p3 = math.cos(0.5 * t), f * x, f * y, f * z
    elif kind == MODAL:
        p0, p1, p2, p3 = modal.marker_quaternion(bd.flex.modal, a, b, k, q)
    elif kind == POINT_MASS or kind == PLANAR:
        return l0, l1, l2, l3
    else:
        unknown_kind(kind)
        return l0, l1, l2, l3
    # Hamilton product p (x) l
    return (p0 * l0 - p1 * l1 - p2 * l2 - p3 * l3, p0 * l1 + l0 * p1 + p2 * l3 - p3 * l2,
            p0 * l2 + l0 * p2 + p3 * l1 - p1 * l3, p0 * l3 + l0 * p3 + p1 * l2 - p2 * l1)


# --- dynamics -----------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def mass_block(kind, a, n, mass, J, fx, b, q, out, off, full):
    """out[off:off+n, off:off+n] = the mass block of body b (n coordinates from q[a]; kg, kg m, kg m^2); the
    caller zeroed it. ``full``: the rigid p block summed in full (dense M) instead of its mirrored upper
    triangle."""
    if kind == RIGID:
        rigid.mass_block(a, mass, J, q, out, off, full)
    elif kind == PLANAR:
        planar.mass_block(mass, J[2, 2], out, off)
    elif kind == POINT_MASS:
        point_mass.mass_block(n, mass, out, off)
    elif kind == FLEXIBLE:
        flexible.mass_block(fx, b, n, out, off)
    elif kind == MODAL:
        modal_inertia.mass_block(fx.modal, b, a, mass, q, out, off)
    else:
        unknown_kind(kind)


@njit(cache=True, _nrt=False)
def eval_mass(m, q, M):
    """Dense generalized mass matrix M(q) (n_q x n_q) into ``M``."""
    M[:, :] = 0.0
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        mass_block(m.body_kind[b], a, m.body_q_num[b], m.body_mass[b], m.body_inertia[b], m.flex, b, q, M, a, True)


@inner_kernel(_nrt=False)
def mass_blocks(bv, q, mb):
    """Per-body mass blocks mb[b, :n_b, :n_b] at q, n_b = q_num[b] (``bv``: kernels/solver_data.BodyView)."""
    for b in range(bv.kind.shape[0]):
        nb = bv.q_num[b]
        blk = mb[b]
        for i in range(nb):
            for j in range(nb):
                blk[i, j] = 0.0
        mass_block(bv.kind[b], bv.q_adr[b], nb, bv.mass[b], bv.inertia[b], bv.flex, b, q, blk, ZERO, False)


@njit(cache=True, _nrt=False)
def add_body_forces(m, q, qd, Q):
    """Q += the bodies' own forces: velocity-dependent inertia forces (rigid: -4 G(p')^T Jbar wbar) and the
    internal elastic and damping forces (flexible: -K u - C u')."""
    for b in range(m.body_kind.shape[0]):
        kind = m.body_kind[b]
        if kind == RIGID:
            rigid.add_inertia_forces(m.body_q_adr[b], m.body_inertia[b], q, qd, Q)
        elif kind == FLEXIBLE:
            flexible.add_internal_forces(m.flex, b, m.body_q_adr[b], m.body_q_num[b], q, qd, Q)
        elif kind == MODAL:
            modal_inertia.add_internal_forces(m.flex.modal, b, m.body_q_adr[b], m.body_mass[b], m.gravity, q, qd, Q)
        elif kind != PLANAR and kind != POINT_MASS:
            unknown_kind(kind)


@inner_kernel(_nrt=False)
def add_gravity(m, q, Q):
    """Q += the weight of every body (N): m g at the CM of the rigid kinds, M T g on a flexible body, B^T M(eta)
    [:, :3] A^T g on a modal body."""
    g = m.gravity
    for b in range(m.body_kind.shape[0]):
        kind = m.body_kind[b]
        a = m.body_q_adr[b]
        ms = m.body_mass[b]
        if kind == RIGID:
            rigid.add_wrench(a, q, ms * g[0], ms * g[1], ms * g[2], 0.0, 0.0, 0.0, 1.0, Q)
        elif kind == PLANAR:
            planar.add_wrench(a, q, ms * g[0], ms * g[1], ms * g[2], 0.0, 0.0, 0.0, 1.0, Q)
        elif kind == POINT_MASS:
            point_mass.add_wrench(a, m.dim, q, ms * g[0], ms * g[1], ms * g[2], 0.0, 0.0, 0.0, 1.0, Q)
        elif kind == FLEXIBLE:
            flexible.add_gravity(m.flex, b, a, m.body_q_num[b], g, Q)
        elif kind == MODAL:
            modal_inertia.add_gravity(m.flex.modal, b, a, ms, g, q, Q)
        else:
            unknown_kind(kind)


@njit(cache=True, _nrt=False)
def kinetic_energy(m, q, qd):
    """T = sum over bodies (J): 1/2 m v.v (+ 1/2 wbar^T Jbar wbar, + 1/2 J_zz theta'^2; flexible 1/2 u'^T M u')."""
    T = 0.0
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        kind = m.body_kind[b]
        mass = m.body_mass[b]
        if kind == RIGID:
            T = rigid.kinetic_energy(T, a, mass, m.body_inertia[b], q, qd)
        elif kind == PLANAR:
            T = planar.kinetic_energy(T, a, mass, m.body_inertia[b, 2, 2], qd)
        elif kind == POINT_MASS:
            T = point_mass.kinetic_energy(T, a, m.dim, mass, qd)
        elif kind == FLEXIBLE:
            T += flexible.kinetic_energy(m.flex, b, a, m.body_q_num[b], qd)
        elif kind == MODAL:
            T += modal_inertia.kinetic_energy(m.flex.modal, b, a, mass, q, qd)
        else:
            unknown_kind(kind)
    return T


@njit(cache=True, _nrt=False)
def body_potential(m, q):
    """V = the bodies' potential energy (J): gravity -m g . r_cm of the rigid kinds; a flexible body's
    1/2 u^T K u - (M T g) . u (elastic and gravity)."""
    V = 0.0
    for b in range(m.body_kind.shape[0]):
        a = m.body_q_adr[b]
        kind = m.body_kind[b]
        if kind == RIGID or kind == PLANAR or kind == POINT_MASS:
            for i in range(m.dim):
                V -= m.body_mass[b] * m.gravity[i] * q[a + i]
        elif kind == FLEXIBLE:
            V += flexible.potential_energy(m.flex, b, a, m.body_q_num[b], m.gravity, q)
        elif kind == MODAL:
            V += modal_inertia.potential_energy(m.flex.modal, b, a, m.body_mass[b], m.gravity, q)
        else:
            unknown_kind(kind)
    return V


@inner_kernel(_nrt=False)
def damping_power(m, qd):
    """Power removed by the bodies' internal damping (W): sum of u'^T C u' over the flexible bodies."""
    P = 0.0
    for b in range(m.body_kind.shape[0]):
        if m.body_kind[b] == FLEXIBLE:
            P += flexible.damping_power(m.flex, b, m.body_q_adr[b], m.body_q_num[b], qd)
        elif m.body_kind[b] == MODAL:
            P += modal_inertia.damping_power(m.flex.modal, b, m.body_q_adr[b], qd)
    return P
