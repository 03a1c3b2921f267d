"""Applied generalized forces Q(t, q, q', u): gravity, TSDA, RSDA, bushings, point loads, actuators,
marker loads from the input vector ``u`` and contacts (kernels/contact.py); also element outputs and the spring
potential energy.

Sign conventions: TSDA force f = k (l - l0) + c l' + h(t) is positive in tension (seed 004, Haug p. 445)
and enters Q = -f dl/dq; an actuator's f > 0 extends (Q = +f dl/dq); RSDA n = k (theta - theta0) +
c theta' + h(t) enters Q = -n dtheta/dq (Haug p. 448). Forces are accumulated as wrenches per body.
"""

from __future__ import annotations

import math

from numba import njit

from .constraints import angle_about_z
from .contact import add_contact_forces
from .frames import add_wrench
from .functions import eval_curve, eval_time_function
from .hydraulics import HP_L_RETRACTED, advance_states, cylinder_force
from .passive_cylinder import add_passive_cylinder_forces
from .rotation import cross_v, dot_v


@njit(cache=True, _nrt=False)
def _point_force(m, k, q, r, o, F0, F1, F2, scale, Q):
    """Q += scale * (force F applied at the origin of marker k)."""
    b = m.marker_body[k]
    if b < 0:
        return
    s = (o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2])
    n = cross_v(s, (F0, F1, F2))
    add_wrench(m, b, q, F0, F1, F2, n[0], n[1], n[2], scale, Q)


@njit(cache=True, _nrt=False)
def _torque(m, k, q, n0, n1, n2, scale, Q):
    b = m.marker_body[k]
    if b >= 0:
        add_wrench(m, b, q, 0.0, 0.0, 0.0, n0, n1, n2, scale, Q)


@njit(cache=True, inline="always")
def _to_world(R, k, x0, x1, x2):
    """World components of a vector given in the axes of marker k (R[k] holds the axes as columns)."""
    return (R[k, 0, 0] * x0 + R[k, 0, 1] * x1 + R[k, 0, 2] * x2,
            R[k, 1, 0] * x0 + R[k, 1, 1] * x1 + R[k, 1, 2] * x2,
            R[k, 2, 0] * x0 + R[k, 2, 1] * x1 + R[k, 2, 2] * x2)


@njit(cache=True, _nrt=False)
def _line(o, vo, mi, mj):
    """Unit vector e from origin_i to origin_j, length l and its rate l'."""
    d = (o[mj, 0] - o[mi, 0], o[mj, 1] - o[mi, 1], o[mj, 2] - o[mi, 2])
    l = math.sqrt(dot_v(d, d))
    if l == 0.0:
        return (0.0, 0.0, 0.0), 0.0, 0.0
    e = (d[0] / l, d[1] / l, d[2] / l)
    ld = e[0] * (vo[mj, 0] - vo[mi, 0]) + e[1] * (vo[mj, 1] - vo[mi, 1]) + e[2] * (vo[mj, 2] - vo[mi, 2])
    return e, l, ld


@njit(cache=True, _nrt=False)
def rotation_rate_about_z(R, wm, mi, mj):
    """d(angle from x_i to x_j about z_i)/dt (rad/s), exact for any z_j (see constraints ROW_ANGLE);
    also returns the pieces of its twist row: ds = y_i x x_j, dc = x_i x x_j, s, c."""
    _, s, c = angle_about_z(R[mi], R[mj])
    xi = (R[mi, 0, 0], R[mi, 1, 0], R[mi, 2, 0])
    yi = (R[mi, 0, 1], R[mi, 1, 1], R[mi, 2, 1])
    xj = (R[mj, 0, 0], R[mj, 1, 0], R[mj, 2, 0])
    ds = cross_v(yi, xj)
    dc = cross_v(xi, xj)
    wrel = (wm[mi, 0] - wm[mj, 0], wm[mi, 1] - wm[mj, 1], wm[mi, 2] - wm[mj, 2])
    return (c * dot_v(wrel, ds) - s * dot_v(wrel, dc)) / (s * s + c * c), ds, dc, s, c


@njit(cache=True, _nrt=False)
def add_element_forces(m, t, q, r, o, R, vo, wm, u, h, zs, zn, Q, tsda_out, rsda_out, bush_out, act_out, hyd_out,
                       pc_out):
    """Q += every applied force but contact (add_applied_forces adds that); returns the spring potential energy (J).
    Without NRT: an NRT kernel increments and decrements the count of every array of ``m`` on entry (~0.7 us).

    Element states (model_arrays): ``zs`` committed at the step start (read only), ``zn`` the candidates at
    this (t, q, qd), written here; ``h`` the step (s), 0 for a static evaluation. An RSDA's state is its
    angle, for turn counting; a hydraulic cylinder's are its pressures and spool (kernels.hydraulics). Element
    outputs: tsda_out/act_out [length m, speed m/s, force N], rsda_out [angle rad, rate rad/s, torque N m],
    bush_out [force on marker_j (3) N, torque on marker_j (3) N m], world axes, hyd_out [length m, speed m/s,
    force N, p1 Pa, p2 Pa, spool 1, Q1 m^3/s, Q2 m^3/s]; cont_out as in kernels.contact; pc_out as in
    kernels.passive_cylinder."""
    V = 0.0
    fa = m.fn_type
    # gravity
    for b in range(m.body_kind.shape[0]):
        g = m.gravity
        ms = m.body_mass[b]
        add_wrench(m, b, q, ms * g[0], ms * g[1], ms * g[2], 0.0, 0.0, 0.0, 1.0, Q)

    # translational spring-damper-actuators
    for k in range(m.tsda_mi.shape[0]):
        mi = m.tsda_mi[k]
        mj = m.tsda_mj[k]
        e, l, ld = _line(o, vo, mi, mj)
        x = l - m.tsda_l0[k]
        if m.tsda_spring[k, 1] > 0:
            fs, _, Vs = eval_curve(m.curve_par, m.tsda_spring[k, 0], m.tsda_spring[k, 1], x)
        else:
            fs = m.tsda_k[k] * x
            Vs = 0.5 * m.tsda_k[k] * x * x
        if m.tsda_damper[k, 1] > 0:
            fdmp, _, _ = eval_curve(m.curve_par, m.tsda_damper[k, 0], m.tsda_damper[k, 1], ld)
        else:
            fdmp = m.tsda_c[k] * ld
        ht, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, m.tsda_fn[k], t)
        f = fs + fdmp + ht
        V += Vs
        _point_force(m, mi, q, r, o, f * e[0], f * e[1], f * e[2], 1.0, Q)
        _point_force(m, mj, q, r, o, f * e[0], f * e[1], f * e[2], -1.0, Q)
        tsda_out[k, 0] = l
        tsda_out[k, 1] = ld
        tsda_out[k, 2] = f

    # rotational spring-damper-actuators about z_i
    for k in range(m.rsda_mi.shape[0]):
        mi = m.rsda_mi[k]
        mj = m.rsda_mj[k]
        raw, _, _ = angle_about_z(R[mi], R[mj])
        ref = zs[m.rsda_z_adr[k]]
        dth = raw - ref
        theta = ref + math.atan2(math.sin(dth), math.cos(dth))
        zn[m.rsda_z_adr[k]] = theta
        thd, ds, dc, s, c = rotation_rate_about_z(R, wm, mi, mj)
        x = theta - m.rsda_theta0[k]
        if m.rsda_spring[k, 1] > 0:
            ns, _, Vs = eval_curve(m.curve_par, m.rsda_spring[k, 0], m.rsda_spring[k, 1], x)
        else:
            ns = m.rsda_k[k] * x
            Vs = 0.5 * m.rsda_k[k] * x * x
        if m.rsda_damper[k, 1] > 0:
            nd, _, _ = eval_curve(m.curve_par, m.rsda_damper[k, 0], m.rsda_damper[k, 1], thd)
        else:
            nd = m.rsda_c[k] * thd
        ht, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, m.rsda_fn[k], t)
        n = ns + nd + ht
        V += Vs
        r2 = s * s + c * c
        gw = ((c * ds[0] - s * dc[0]) / r2, (c * ds[1] - s * dc[1]) / r2, (c * ds[2] - s * dc[2]) / r2)
        # dtheta = w_i . gw - w_j . gw ; Q = -n dtheta/dq
        _torque(m, mi, q, gw[0], gw[1], gw[2], -n, Q)
        _torque(m, mj, q, gw[0], gw[1], gw[2], n, Q)
        rsda_out[k, 0] = theta
        rsda_out[k, 1] = thd
        rsda_out[k, 2] = n

    # bushings: small-angle 6-DOF spring-damper in marker_i axes
    for k in range(m.bush_mi.shape[0]):
        mi = m.bush_mi[k]
        mj = m.bush_mj[k]
        d = (o[mj, 0] - o[mi, 0], o[mj, 1] - o[mi, 1], o[mj, 2] - o[mi, 2])
        wi = (wm[mi, 0], wm[mi, 1], wm[mi, 2])
        wixd = cross_v(wi, d)
        dd = (vo[mj, 0] - vo[mi, 0] - wixd[0], vo[mj, 1] - vo[mi, 1] - wixd[1], vo[mj, 2] - vo[mi, 2] - wixd[2])
        wr = (wm[mj, 0] - wi[0], wm[mj, 1] - wi[1], wm[mj, 2] - wi[2])
        Fl0, Fl1, Fl2, Tl0, Tl1, Tl2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for a in range(3):
            da = R[mi, 0, a] * d[0] + R[mi, 1, a] * d[1] + R[mi, 2, a] * d[2]
            dda = R[mi, 0, a] * dd[0] + R[mi, 1, a] * dd[1] + R[mi, 2, a] * dd[2]
            wa = R[mi, 0, a] * wr[0] + R[mi, 1, a] * wr[1] + R[mi, 2, a] * wr[2]
            # small-angle rotation of marker_j in marker_i axes: 1/2 vee(Rrel - Rrel^T)
            b1 = (a + 1) % 3
            b2 = (a + 2) % 3
            rel_b2b1 = 0.0
            rel_b1b2 = 0.0
            for i in range(3):
                rel_b2b1 += R[mi, i, b2] * R[mj, i, b1]
                rel_b1b2 += R[mi, i, b1] * R[mj, i, b2]
            phia = 0.5 * (rel_b2b1 - rel_b1b2)
            fa_ = -m.bush_k[k, a] * da - m.bush_c[k, a] * dda
            ta_ = -m.bush_kr[k, a] * phia - m.bush_cr[k, a] * wa
            if a == 0:
                Fl0, Tl0 = fa_, ta_
            elif a == 1:
                Fl1, Tl1 = fa_, ta_
            else:
                Fl2, Tl2 = fa_, ta_
            V += 0.5 * m.bush_k[k, a] * da * da + 0.5 * m.bush_kr[k, a] * phia * phia
        F = _to_world(R, mi, Fl0, Fl1, Fl2)
        T = _to_world(R, mi, Tl0, Tl1, Tl2)
        _point_force(m, mj, q, r, o, F[0], F[1], F[2], 1.0, Q)
        _torque(m, mj, q, T[0], T[1], T[2], 1.0, Q)
        # reaction on body i: -F at the point o_j, and -T
        bi = m.marker_body[mi]
        if bi >= 0:
            lever = (o[mj, 0] - r[bi, 0], o[mj, 1] - r[bi, 1], o[mj, 2] - r[bi, 2])
            nF = cross_v(lever, F)
            add_wrench(m, bi, q, F[0], F[1], F[2], nF[0] + T[0], nF[1] + T[1], nF[2] + T[2], -1.0, Q)
        for a in range(3):
            bush_out[k, a] = F[a]
            bush_out[k, 3 + a] = T[a]

    # point loads (time functions), world or marker axes
    for k in range(m.load_marker.shape[0]):
        mk = m.load_marker[k]
        fn = m.load_fn[k]
        v0, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, fn[0], t)
        v1, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, fn[1], t)
        v2, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, fn[2], t)
        v3, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, fn[3], t)
        v4, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, fn[4], t)
        v5, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, fn[5], t)
        if m.load_frame[k] == 1:
            F = _to_world(R, mk, v0, v1, v2)
            T = _to_world(R, mk, v3, v4, v5)
        else:
            F = (v0, v1, v2)
            T = (v3, v4, v5)
        _point_force(m, mk, q, r, o, F[0], F[1], F[2], 1.0, Q)
        _torque(m, mk, q, T[0], T[1], T[2], 1.0, Q)

    # marker loads from the input vector u (world axes): u[adr:adr+3] force, u[adr+3:adr+6] torque
    for k in range(m.marker_body.shape[0]):
        adr = m.marker_input_adr[k]
        if adr < 0:
            continue
        if u[adr] == 0.0 and u[adr + 1] == 0.0 and u[adr + 2] == 0.0 and u[adr + 3] == 0.0 \
                and u[adr + 4] == 0.0 and u[adr + 5] == 0.0:
            continue   # most markers carry no load: skip the frame arithmetic
        _point_force(m, k, q, r, o, u[adr], u[adr + 1], u[adr + 2], 1.0, Q)
        _torque(m, k, q, u[adr + 3], u[adr + 4], u[adr + 5], 1.0, Q)

    # actuators: f(t) + u[slot] > 0 pushes the markers apart
    for k in range(m.act_mi.shape[0]):
        mi = m.act_mi[k]
        mj = m.act_mj[k]
        e, l, ld = _line(o, vo, mi, mj)
        f, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, m.act_fn[k], t)
        if m.act_input_adr[k] >= 0:
            f += u[m.act_input_adr[k]]
        _point_force(m, mj, q, r, o, f * e[0], f * e[1], f * e[2], 1.0, Q)
        _point_force(m, mi, q, r, o, f * e[0], f * e[1], f * e[2], -1.0, Q)
        act_out[k, 0] = l
        act_out[k, 1] = ld
        act_out[k, 2] = f

    # hydraulic cylinders: states advanced over h inside the evaluation, force positive extending
    for k in range(m.hyd_mi.shape[0]):
        mi = m.hyd_mi[k]
        mj = m.hyd_mj[k]
        e, l, ld = _line(o, vo, mi, mj)
        par = m.hyd_par[k]
        uref, _, _ = eval_time_function(fa, m.fn_adr, m.fn_len, m.fn_par, m.hyd_fn[k], t)
        if m.hyd_input_adr[k] >= 0:
            uref += u[m.hyd_input_adr[k]]
        a = m.hyd_z_adr[k]
        x = l - par[HP_L_RETRACTED]
        q1, q2 = advance_states(par, zs, a, x, ld, uref, h, zn)
        f = cylinder_force(par, zn[a], zn[a + 1], x, ld)
        _point_force(m, mj, q, r, o, f * e[0], f * e[1], f * e[2], 1.0, Q)
        _point_force(m, mi, q, r, o, f * e[0], f * e[1], f * e[2], -1.0, Q)
        hyd_out[k, 0] = l
        hyd_out[k, 1] = ld
        hyd_out[k, 2] = f
        hyd_out[k, 3] = zn[a]
        hyd_out[k, 4] = zn[a + 1]
        hyd_out[k, 5] = zn[a + 2]
        hyd_out[k, 6] = q1
        hyd_out[k, 7] = q2
    add_passive_cylinder_forces(m, t, q, r, o, R, vo, wm, u, zs, zn, Q, pc_out)
    return V


@njit(cache=True, _nrt=False)
def add_applied_forces(m, t, q, r, o, R, vo, wm, u, h, zs, zn, Q, tsda_out, rsda_out, bush_out, act_out, hyd_out,
                       cont_out, pc_out, cw):
    """Q += all applied forces (add_element_forces, then contact); returns the spring and contact potential energy
    (J). Element states and outputs as in add_element_forces; cont_out and the contact workspace cw as in
    kernels.contact."""
    V = add_element_forces(m, t, q, r, o, R, vo, wm, u, h, zs, zn, Q, tsda_out, rsda_out, bush_out, act_out, hyd_out,
                           pc_out)
    return V + add_contact_forces(m, q, r, o, R, vo, wm, h, zs, zn, Q, cont_out, cw)
