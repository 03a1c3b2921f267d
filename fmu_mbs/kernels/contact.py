"""Compliant contact and friction forces (elements.Contact) into Q, with their outputs and elastic energy.

Per force evaluation (``add_contact_forces``): world AABBs of all shapes inflated by a margin, the broad phase
(broad_phase.candidate_pairs_ws, its sorted order kept between calls), for each candidate pair (s, t) on two
bodies the contact element of their signatures (compiler/contacts.py) in O(1), the narrow phase
(contact_geometry.collide) and the forces below. Nothing allocates: the contact workspace ``cw`` (built once by
``new_contact_workspace``) holds every buffer. A pair buffer too short for the candidates sets
ST_PAIR_OVERFLOW (no pair is dropped silently: the caller grows the buffer and evaluates again).

Per shape pair (a, b) of a contact element and contact point (depth d > 0, unit normal n from b towards a, point p):
closing speed d' = -(v_a(p) - v_b(p)) . n, tangential slip velocity v_t = (v_a - v_b) - ((v_a - v_b) . n) n.

Normal force fn >= 0 (no attraction), applied +fn n on a and -fn n on b at p:
  linear / hertz      fn = k d^n + c s(d / d_c) d',  s(x) = x^2 (3 - 2x) for x < 1, else 1 (no jump at touch)
  hunt_crossley       fn = k d^n (1 + chi d'/d'-),  chi = 3 (1 - e) / 2              (Hunt & Crossley 1975)
  lankarani_nikravesh                               chi = 3 (1 - e^2) / 4            (seed 001 P3 eq. 20)
  flores                                            chi = 8 (1 - e) / (5 e)          (Flores et al. 2011)
  table               loading curve L(d); on unloading from the largest depth d_m the unloading curve U
                      shifted to pass through (d_m, L(d_m)): fn = min(L(d), U(d - d_m + U^-1(L(d_m))))
d'- is the closing speed at first touch (a state, floored at min_impact_speed).

Friction force f_t on a (-f_t on b), at p:
  coulomb    f_t = -mu_k r(|v_t| / v_eps) fn t,  t = v_t / |v_t|, ramp r linear min(x, 1) or smooth s(x)
  stribeck   f_t = -(mu_k + (mu_s - mu_k) exp(-(|v_t|/v_s)^2)) r(|v_t| / v_eps) fn t - c_v v_t
  bristle    elastic displacement s (a state; the anchor is p - s): s = P_t s- + h v_t (implicit update from
             the committed s- rotated into the current tangent plane), f = -(k_t s + c_t v_t); if
             k_t |s| > mu(|v_t|) fn the anchor slides: s is scaled back to |k_t s| = mu fn, f = -k_t s
             (elasto-plastic, Dahl-like; it sticks exactly: no creep below the friction limit); then -c_v v_t.

States per contact point [d'-, s (3), d_m] live in one hash table inside z (Z_RECORD values per record, keyed
by (shape a, shape b, point)): each evaluation looks a point up in the committed table zs and writes its
candidate record into zn, which holds records only for the points in contact at that evaluation (the records
of the previous evaluation are cleared first, through the ``used`` list). A full table sets
ST_STATE_OVERFLOW: the caller fails with an error naming the compile option ``contact_state_capacity``.
``m.cont_dissipative[0] == 0`` keeps only the elastic normal force (the energy split's conservative variant):
damping, hysteresis and friction off.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .broad_phase import candidate_pairs_ws, shape_aabb
from .contact_geometry import MAX_POINTS, SHAPE_PLANE, SHAPE_SPHERE, collide, sphere_plane, sphere_sphere
from .frames import add_body_wrench
from .functions import eval_curve

# normal laws
LAW_LINEAR = 0
LAW_HERTZ = 1
LAW_HUNT_CROSSLEY = 2
LAW_LANKARANI_NIKRAVESH = 3
LAW_FLORES = 4
LAW_TABLE = 5
# friction models
FRICTION_NONE = 0
FRICTION_COULOMB = 1
FRICTION_STRIBECK = 2
FRICTION_BRISTLE = 3
# cont_par columns
CP_EXPONENT = 0
CP_CHI = 1            # hysteresis factor of the hunt_crossley / LN / flores laws
CP_DAMPING = 2
CP_DAMPING_DEPTH = 3
CP_MIN_SPEED = 4
CP_MU = 5
CP_MU_STATIC = 6
CP_STRIBECK_SPEED = 7
CP_VISCOUS = 8
CP_V_EPS = 9
CP_SMOOTH_RAMP = 10   # 1: smooth ramp, 0: linear
CP_KT = 11
CP_CT = 12
CP_STIFFNESS = 13     # given stiffness k, or 0: Hertz from the shapes' compliance and curvature
N_CPAR = 14
# contact state table (z[cont_state[0]:], cont_state[1] records of Z_RECORD values, open addressing):
# [shape a + 1 (0 = empty slot), shape b + 1, point, d'-, s (3), d_m]
Z_RECORD = 8
R_S_KEY = 0
R_T_KEY = 1
R_POINT = 2
R_V0 = 3
R_S = 4
R_DM = 7
MAX_LOAD_NUM = 3      # a table is full at 3/4 of its records (linear probing stays short)
MAX_LOAD_DEN = 4
# contact workspace cw = (lo, hi, order, pairs, out, col, box, cursor, stat, used, fpar, bptr, bidx, mark); the
# last three are scratch of the finite-difference colouring (system.contact_colors)
ST_NEEDED = 0         # stat: candidate pairs found by the last evaluation (may exceed the pair buffer)
ST_PAIR_OVERFLOW = 1  # 1: the pair buffer was too short at some evaluation since the flag was cleared
ST_STATE_OVERFLOW = 2  # 1: the state table was full at some evaluation since the flag was cleared
ST_USED = 3           # records written into zn by the last evaluation (their slots in ``used``)
ST_ACTIVE = 4         # candidate pairs of the last evaluation (valid in pairs[:count])
N_STAT = 5
FP_MARGIN = 0         # fpar: AABB inflation (m)
# outputs per contact: fn, ft (3), depth
N_CONT_OUT = 5


@njit(cache=True, _nrt=False)
def smooth_step(x):
    """0 for x <= 0, 1 for x >= 1, x^2 (3 - 2x) between (C1)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * (3.0 - 2.0 * x)


@njit(cache=True, _nrt=False)
def _curve_inverse(curve_par, adr, n, y):
    """x with U(x) = y on a non-decreasing piecewise-linear curve (linear extrapolation at the ends)."""
    xs = curve_par[adr:adr + n]
    ys = curve_par[adr + n:adr + 2 * n]
    i = 0
    while i < n - 2 and ys[i + 1] < y:
        i += 1
    dy = ys[i + 1] - ys[i]
    if dy <= 0.0:
        return xs[i + 1]
    return xs[i] + (y - ys[i]) * (xs[i + 1] - xs[i]) / dy


@njit(cache=True, _nrt=False)
def _table_force(curve_par, curves, d, zs, zn, zr, zw, full):
    """(fn, elastic potential) of the table law (curves = [loading adr, n, unloading adr, n])."""
    fl, _, V = eval_curve(curve_par, curves[0], curves[1], d)
    f = fl
    dm = d
    if zr >= 0:
        dm = max(zs[zr + R_DM], d)
    if zw >= 0:
        zn[zw + R_DM] = dm
    if full and curves[3] > 0 and d < dm:
        fm, _, _ = eval_curve(curve_par, curves[0], curves[1], dm)
        shift = _curve_inverse(curve_par, curves[2], curves[3], fm) - dm
        fu, _, _ = eval_curve(curve_par, curves[2], curves[3], d + shift)
        f = min(fl, fu)
    return max(f, 0.0), V


@njit(cache=True, _nrt=False)
def normal_force(law, par, curve_par, curves, k, d, dd, h, zs, zn, zr, zw, full):
    """(fn, elastic potential) of one contact point of a contact element with the normal law ``law``, its
    parameters ``par`` (CP_* columns) and curve addresses ``curves``; zr / zw: its state record in the committed
    table zs / the candidate table zn, or -1 (none committed / not stored)."""
    if law == LAW_TABLE:
        return _table_force(curve_par, curves, d, zs, zn, zr, zw, full)
    ex = par[CP_EXPONENT]
    if ex == 1.0:       # the linear law without pow (two calls cost ~1/3 of a point's forces): pow(d, 1) = d
        fe = k * d
        V = k * (d * d) / 2.0
    else:
        fe = k * d ** ex
        V = k * d ** (ex + 1.0) / (ex + 1.0)
    fd = 0.0
    if law == LAW_LINEAR or law == LAW_HERTZ:
        if full:
            fd = par[CP_DAMPING] * smooth_step(d / par[CP_DAMPING_DEPTH]) * dd
    else:
        v_prev = zs[zr + R_V0] if zr >= 0 else 0.0
        v0 = v_prev if v_prev > 0.0 else max(dd, par[CP_MIN_SPEED])
        if zw >= 0:
            zn[zw + R_V0] = v0
        if full:
            fd = fe * par[CP_CHI] * dd / v0
    return max(fe + fd, 0.0), V


@njit(cache=True, _nrt=False)
def friction_law(model, par, fn, n0, n1, n2, vt0, vt1, vt2, h, zs, zn, zr, zw):
    """Friction force (3) opposing the slip velocity vt (tangent to the unit normal n) under the normal load fn,
    by the law ``model`` (FRICTION_*) with the parameters ``par`` (CP_* columns; see the module docstring);
    bristle: its elastic displacement s is read from zs[zr:zr + 3] (committed; zr = -1: none yet) and written to
    zn[zw:zw + 3] (candidate; zw = -1: nowhere). Shared by contact points and joint friction
    (kernels/joint_friction.py)."""
    vts = math.sqrt(vt0 * vt0 + vt1 * vt1 + vt2 * vt2)
    mu_k = par[CP_MU]
    mu = mu_k
    if model != FRICTION_COULOMB:
        vs = par[CP_STRIBECK_SPEED]
        mu = mu_k + (par[CP_MU_STATIC] - mu_k) * math.exp(-(vts / vs) * (vts / vs))
    cv = par[CP_VISCOUS]
    if model == FRICTION_BRISTLE:
        s0, s1, s2 = 0.0, 0.0, 0.0
        if zr >= 0:
            s0, s1, s2 = zs[zr], zs[zr + 1], zs[zr + 2]
        s_len = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
        sn = s0 * n0 + s1 * n1 + s2 * n2
        s0, s1, s2 = s0 - sn * n0, s1 - sn * n1, s2 - sn * n2      # into the current tangent plane
        t_len = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
        if t_len > 0.0:
            g = s_len / t_len
            s0, s1, s2 = s0 * g, s1 * g, s2 * g
        s0, s1, s2 = s0 + h * vt0, s1 + h * vt1, s2 + h * vt2
        kt = par[CP_KT]
        ct = par[CP_CT]
        lim = mu * fn
        ks = kt * math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
        if ks > lim:                      # slip: the anchor follows
            g = lim / ks
            s0, s1, s2 = s0 * g, s1 * g, s2 * g
            f0, f1, f2 = -kt * s0, -kt * s1, -kt * s2
        else:
            f0, f1, f2 = -kt * s0 - ct * vt0, -kt * s1 - ct * vt1, -kt * s2 - ct * vt2
            fl = math.sqrt(f0 * f0 + f1 * f1 + f2 * f2)
            if fl > lim:
                g = lim / fl
                f0, f1, f2 = f0 * g, f1 * g, f2 * g
        if zw >= 0:
            zn[zw] = s0
            zn[zw + 1] = s1
            zn[zw + 2] = s2
        return f0 - cv * vt0, f1 - cv * vt1, f2 - cv * vt2
    if vts == 0.0:
        return 0.0, 0.0, 0.0
    x = vts / par[CP_V_EPS]
    ramp = smooth_step(x) if par[CP_SMOOTH_RAMP] > 0.0 else min(x, 1.0)
    g = mu * ramp * fn / vts
    if model == FRICTION_COULOMB:
        return -g * vt0, -g * vt1, -g * vt2
    return -(g + cv) * vt0, -(g + cv) * vt1, -(g + cv) * vt2


@njit(cache=True, inline="always")
def _slot0(s, t, i, cap):
    return ((s * 73856093) ^ (t * 19349663) ^ (i * 83492791)) & (cap - 1)


@njit(cache=True, _nrt=False)
def state_find(z, adr, cap, s, t, i):
    """Address of the record of point i of shapes (s, t) in the table at z[adr:], or -1."""
    if cap == 0:
        return -1
    k = _slot0(s, t, i, cap)
    for _ in range(cap):
        base = adr + Z_RECORD * k
        if z[base + R_S_KEY] == 0.0:
            return -1
        if z[base + R_S_KEY] == s + 1.0 and z[base + R_T_KEY] == t + 1.0 and z[base + R_POINT] == i:
            return base
        k = (k + 1) & (cap - 1)
    return -1


@njit(cache=True, _nrt=False)
def state_insert(z, adr, cap, s, t, i, used, stat):
    """Address of a fresh (zeroed) or existing record of point i of shapes (s, t) in the table at z[adr:];
    -1 and ST_STATE_OVERFLOW set if the table is full (3/4 of its records)."""
    if cap == 0 or MAX_LOAD_DEN * (stat[ST_USED] + 1) > MAX_LOAD_NUM * cap:
        stat[ST_STATE_OVERFLOW] = 1
        return -1
    k = _slot0(s, t, i, cap)
    for _ in range(cap):
        base = adr + Z_RECORD * k
        if z[base + R_S_KEY] == 0.0:
            z[base + R_S_KEY] = s + 1.0
            z[base + R_T_KEY] = t + 1.0
            z[base + R_POINT] = i
            for j in range(R_V0, Z_RECORD):
                z[base + j] = 0.0
            used[stat[ST_USED]] = k
            stat[ST_USED] += 1
            return base
        if z[base + R_S_KEY] == s + 1.0 and z[base + R_T_KEY] == t + 1.0 and z[base + R_POINT] == i:
            return base
        k = (k + 1) & (cap - 1)
    stat[ST_STATE_OVERFLOW] = 1
    return -1


@njit(cache=True, _nrt=False)
def _wrench_at(marker_body, body_kind, body_q_adr, dim, mk, q, r, p0, p1, p2, F0, F1, F2, scale, Q):
    """Q += scale * (force F at the world point p on the body of marker mk)."""
    b = marker_body[mk]
    if b < 0:
        return
    s0, s1, s2 = p0 - r[b, 0], p1 - r[b, 1], p2 - r[b, 2]
    add_body_wrench(body_kind[b], body_q_adr[b], dim, q, F0, F1, F2, s1 * F2 - s2 * F1, s2 * F0 - s0 * F2,
                    s0 * F1 - s1 * F0, scale, Q)


@njit(cache=True, _nrt=False)
def pair_stiffness(cont_par, cont_law, shape_compliance, shape_inv_radius, c, sa, sb):
    """k of contact c between shapes sa and sb: the given stiffness, or Hertz 4/3 E* sqrt(R*) (N/m^n)."""
    k = cont_par[c, CP_STIFFNESS]
    if k > 0.0 or cont_law[c] == LAW_TABLE:
        return k
    e_star = 1.0 / (shape_compliance[sa] + shape_compliance[sb])
    inv_r = shape_inv_radius[sa] + shape_inv_radius[sb]
    return 4.0 / 3.0 * e_star * math.sqrt(1.0 / inv_r)


@njit(cache=True, _nrt=False)
def contact_candidates(m, o, R, cw):
    """Broad phase at the marker frames (o, R): candidate pairs into cw's pair buffer; returns their count
    (ST_NEEDED, and ST_PAIR_OVERFLOW if the buffer is too short: then only the count is valid)."""
    lo, hi, order, pairs, col, box, cursor, stat, fpar = cw[0], cw[1], cw[2], cw[3], cw[5], cw[6], cw[7], cw[8], cw[10]
    ns = m.shape_kind.shape[0]
    margin = fpar[FP_MARGIN]
    for s in range(ns):
        k = m.shape_marker[s]
        if m.shape_kind[s] == SHAPE_SPHERE:     # shape_aabb's sphere branch, without the call's array set-up
            e = m.shape_par[s, 0]
            for i in range(3):
                lo[s, i] = o[k, i] - e - margin
                hi[s, i] = o[k, i] + e + margin
            continue
        shape_aabb(m.shape_kind[s], m.shape_par[s], o[k], R[k], m.mesh_ptr, m.mesh_verts, lo[s], hi[s])
        for i in range(3):
            lo[s, i] -= margin
            hi[s, i] += margin
    n = candidate_pairs_ws(lo, hi, m.shape_group, m.shape_mask, m.shape_excl_ptr, m.shape_excl_idx, order, pairs,
                           col, box, cursor)
    if n < 0:
        stat[ST_PAIR_OVERFLOW] = 1
        stat[ST_NEEDED] = -n
        stat[ST_ACTIVE] = 0
        return -n
    stat[ST_NEEDED] = n
    stat[ST_ACTIVE] = n
    return n


@njit(cache=True, _nrt=False)
def _pair_element(shape_body, shape_sig, sig_contact, sig_swap, s, t):
    """``pair_contact`` on plain arrays."""
    if shape_body[s] == shape_body[t]:
        return -1, s, t
    ss = shape_sig[s]
    st = shape_sig[t]
    c = sig_contact[ss, st]
    if c >= 0 and sig_swap[ss, st] != 0:
        return c, t, s
    return c, s, t


@njit(cache=True, _nrt=False)
def pair_contact(m, s, t):
    """(contact element, a-side shape, b-side shape) of a candidate pair, or (-1, s, t) if no contact pairs
    them or they sit on one body."""
    return _pair_element(m.shape_body, m.shape_sig, m.sig_contact, m.sig_swap, s, t)


@njit(cache=True, _nrt=False)
def add_contact_forces(m, q, r, o, R, vo, wm, h, zs, zn, Q, cont_out, cw):
    """Q += every contact force at the marker frames (o, R, vo, wm) and body positions r; returns the elastic
    energy of the normal forces (J). Writes the candidate contact states zn (records only for the points in
    contact) and cont_out (n_contacts, 5) = [fn, ft (3), depth]. ``cw``: the contact workspace.

    One loop over the candidate pairs with everything per pair and per point in its body: no call inside it
    passes ModelArrays (each such call cost ~0.1-0.2 us of argument set-up, measured ~0.3 us per pair in all),
    and sphere-sphere / sphere-plane pairs skip the general ``collide`` dispatch (contact_geometry fast paths)."""
    for c in range(cont_out.shape[0]):
        for j in range(N_CONT_OUT):
            cont_out[c, j] = 0.0
    if m.shape_kind.shape[0] < 2 or cont_out.shape[0] == 0:
        return 0.0
    pairs, out, stat, used = cw[3], cw[4], cw[8], cw[9]
    adr = m.cont_state[0]
    cap = m.cont_state[1]
    for k in range(stat[ST_USED]):             # the records of the last evaluation
        base = adr + Z_RECORD * used[k]
        for j in range(Z_RECORD):
            zn[base + j] = 0.0
    stat[ST_USED] = 0
    n = contact_candidates(m, o, R, cw)
    if n > pairs.shape[0]:
        return 0.0                             # ST_PAIR_OVERFLOW: the caller grows the buffer and evaluates again
    full = m.cont_dissipative[0] != 0
    shape_kind, shape_par, shape_marker = m.shape_kind, m.shape_par, m.shape_marker
    cont_law, cont_par, cont_friction = m.cont_law, m.cont_par, m.cont_friction
    marker_body, body_kind, body_q_adr, dim = m.marker_body, m.body_kind, m.body_q_adr, m.dim
    V = 0.0
    for kp in range(n):
        c, sa, sb = _pair_element(m.shape_body, m.shape_sig, m.sig_contact, m.sig_swap, pairs[kp, 0], pairs[kp, 1])
        if c < 0:
            continue
        ka = shape_marker[sa]
        kb = shape_marker[sb]
        kind_a = shape_kind[sa]
        kind_b = shape_kind[sb]
        if kind_a == SHAPE_SPHERE and kind_b == SHAPE_SPHERE:
            npt = sphere_sphere(shape_par[sa, 0], o[ka, 0], o[ka, 1], o[ka, 2],
                                shape_par[sb, 0], o[kb, 0], o[kb, 1], o[kb, 2], out)
        elif kind_a == SHAPE_SPHERE and kind_b == SHAPE_PLANE:
            npt = sphere_plane(shape_par[sa, 0], o[ka, 0], o[ka, 1], o[ka, 2], o[kb, 0], o[kb, 1], o[kb, 2],
                               R[kb, 0, 2], R[kb, 1, 2], R[kb, 2, 2], 1.0, out)
        elif kind_a == SHAPE_PLANE and kind_b == SHAPE_SPHERE:
            npt = sphere_plane(shape_par[sb, 0], o[kb, 0], o[kb, 1], o[kb, 2], o[ka, 0], o[ka, 1], o[ka, 2],
                               R[ka, 0, 2], R[ka, 1, 2], R[ka, 2, 2], -1.0, out)
        else:
            npt = collide(kind_a, shape_par[sa], o[ka], R[ka], kind_b, shape_par[sb], o[kb], R[kb],
                          m.mesh_ptr, m.mesh_verts, m.mesh_tri_ptr, m.mesh_tris, out)
        if npt <= 0:
            continue
        # per contact element
        law = cont_law[c]
        fmodel = cont_friction[c]
        k = pair_stiffness(cont_par, cont_law, m.shape_compliance, m.shape_inv_radius, c, sa, sb)
        stateful = law >= LAW_HUNT_CROSSLEY or fmodel == FRICTION_BRISTLE
        Vp = 0.0
        for i in range(min(npt, MAX_POINTS)):
            d = out[i, 0]
            n0, n1, n2 = out[i, 1], out[i, 2], out[i, 3]
            p0, p1, p2 = out[i, 4], out[i, 5], out[i, 6]
            # velocities of the material points at p: vo + w x (p - o) of each marker
            la0, la1, la2 = p0 - o[ka, 0], p1 - o[ka, 1], p2 - o[ka, 2]
            lb0, lb1, lb2 = p0 - o[kb, 0], p1 - o[kb, 1], p2 - o[kb, 2]
            v0 = (vo[ka, 0] + wm[ka, 1] * la2 - wm[ka, 2] * la1) - (vo[kb, 0] + wm[kb, 1] * lb2 - wm[kb, 2] * lb1)
            v1 = (vo[ka, 1] + wm[ka, 2] * la0 - wm[ka, 0] * la2) - (vo[kb, 1] + wm[kb, 2] * lb0 - wm[kb, 0] * lb2)
            v2 = (vo[ka, 2] + wm[ka, 0] * la1 - wm[ka, 1] * la0) - (vo[kb, 2] + wm[kb, 0] * lb1 - wm[kb, 1] * lb0)
            vn = v0 * n0 + v1 * n1 + v2 * n2
            zr = -1
            zw = -1
            if stateful:
                zr = state_find(zs, adr, cap, sa, sb, i)
                zw = state_insert(zn, adr, cap, sa, sb, i, used, stat)
            fn, Ve = normal_force(law, cont_par[c], m.curve_par, m.cont_curves[c], k, d, -vn, h, zs, zn, zr, zw,
                                  full)
            Vp += Ve
            f0, f1, f2 = 0.0, 0.0, 0.0
            if full and fmodel != FRICTION_NONE:
                f0, f1, f2 = friction_law(fmodel, cont_par[c], fn, n0, n1, n2, v0 - vn * n0, v1 - vn * n1,
                                          v2 - vn * n2, h, zs, zn, zr + R_S if zr >= 0 else -1,
                                          zw + R_S if zw >= 0 else -1)
            F0, F1, F2 = fn * n0 + f0, fn * n1 + f1, fn * n2 + f2
            _wrench_at(marker_body, body_kind, body_q_adr, dim, ka, q, r, p0, p1, p2, F0, F1, F2, 1.0, Q)
            _wrench_at(marker_body, body_kind, body_q_adr, dim, kb, q, r, p0, p1, p2, F0, F1, F2, -1.0, Q)
            cont_out[c, 0] += fn
            cont_out[c, 1] += f0
            cont_out[c, 2] += f1
            cont_out[c, 3] += f2
            if d > cont_out[c, 4]:
                cont_out[c, 4] = d
        V += Vp
    return V


def default_margin(m) -> float:
    """AABB inflation of the broad phase (m): 5 % of the median size of the bounded shapes (1 mm if none), so
    the candidate pairs also list shapes about to touch (the finite-difference colouring uses them)."""
    sizes = [float(np.max(m.shape_par[s])) for s in range(len(m.shape_kind)) if m.shape_kind[s] != SHAPE_PLANE]
    return 0.05 * float(np.median(sizes)) if sizes else 1e-3


def new_contact_workspace(m, pair_capacity: int | None = None, margin: float | None = None) -> tuple:
    """Contact workspace of ModelArrays ``m``: (lo, hi, order, pairs, out, col, box, cursor, stat, used, fpar, bptr,
    bidx, mark), allocated once per evaluator / integrator; ``pair_capacity`` candidate pairs (default 4 per
    shape, >= 64)."""
    ns = len(m.shape_kind)
    cap = max(64, 4 * ns) if pair_capacity is None else int(pair_capacity)
    order = np.zeros(max(ns, 1), dtype=np.int64)[:ns].copy()
    if ns:
        order[0] = -1
    fpar = np.array([default_margin(m) if margin is None else float(margin)])
    nb = len(m.body_kind)
    return (np.zeros((ns, 3)), np.zeros((ns, 3)), order, np.zeros((cap, 2), dtype=np.int64),
            np.zeros((MAX_POINTS, 7)), np.zeros((ns, 2), dtype=np.int64), np.zeros((ns, 8)),
            np.zeros(4, dtype=np.int64), np.zeros(N_STAT, dtype=np.int64),
            np.zeros(max(int(m.cont_state[1]), 1), dtype=np.int64), fpar,
            np.zeros(nb + 1, dtype=np.int64), np.zeros(2 * cap, dtype=np.int64), np.zeros(nb + 1, dtype=np.int64))


def grown_contact_workspace(cw: tuple) -> tuple:
    """``cw`` with a pair buffer for 1.5 x the candidates its last evaluation found (overflow flag cleared)."""
    stat = cw[8]
    need = int(stat[ST_NEEDED])
    pairs = np.zeros((max(int(1.5 * need) + 16, 2 * cw[3].shape[0]), 2), dtype=np.int64)
    stat[ST_PAIR_OVERFLOW] = 0
    return (*cw[:3], pairs, *cw[4:12], np.zeros(2 * pairs.shape[0], dtype=np.int64), cw[13])
