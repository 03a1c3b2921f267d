"""Compliant contact and friction forces (elements.Contact) into Q, with their outputs and elastic energy.

Per compiled shape pair (a, b) and contact point (depth d > 0, unit normal n from b towards a, point p):
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

States per contact point (Z_POINT values, at cpair_z_adr + Z_POINT * point): [d'-, s (3), d_m]; zero when the
point is not in contact. ``m.cont_dissipative[0] == 0`` keeps only the elastic normal force (the energy split's
conservative variant): damping, hysteresis and friction off.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .contact_geometry import MAX_POINTS, collide
from .frames import add_wrench
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
N_CPAR = 13
# states per contact point
Z_POINT = 5
# outputs per contact: fn, ft (3), depth
N_CONT_OUT = 5


@njit(cache=True)
def smooth_step(x):
    """0 for x <= 0, 1 for x >= 1, x^2 (3 - 2x) between (C1)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * (3.0 - 2.0 * x)


@njit(cache=True)
def candidate_pairs_all(pair_a, pair_b, group, mask, pairs):
    """Every compiled shape pair whose group/mask bits match, as rows (s, t) with s < t (the broad phase's
    output format, contact_geometry contract); returns the count. Replaced by broad_phase.candidate_pairs."""
    n = 0
    for p in range(pair_a.shape[0]):
        s = pair_a[p]
        t = pair_b[p]
        if (group[s] & mask[t]) == 0 or (group[t] & mask[s]) == 0:
            continue
        if s > t:
            s, t = t, s
        pairs[n, 0] = s
        pairs[n, 1] = t
        n += 1
    return n


@njit(cache=True)
def find_pair(ptr, other, index, s, t):
    """Compiled pair of shapes s < t (CSR rows by s, sorted t), or -1."""
    lo = ptr[s]
    hi = ptr[s + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if other[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    if lo < ptr[s + 1] and other[lo] == t:
        return index[lo]
    return -1


@njit(cache=True)
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


@njit(cache=True)
def normal_force(m, c, k, d, dd, h, zs, zn, z, full):
    """(fn, elastic potential) of one contact point of contact c; z: state address or -1."""
    law = m.cont_law[c]
    par = m.cont_par[c]
    if law == LAW_TABLE:
        fl, _, V = eval_curve(m.curve_par, m.cont_curves[c, 0], m.cont_curves[c, 1], d)
        f = fl
        dm = d
        if z >= 0:
            dm = max(zs[z + 4], d)
            zn[z + 4] = dm
            if full and m.cont_curves[c, 3] > 0 and d < dm:
                fm, _, _ = eval_curve(m.curve_par, m.cont_curves[c, 0], m.cont_curves[c, 1], dm)
                shift = _curve_inverse(m.curve_par, m.cont_curves[c, 2], m.cont_curves[c, 3], fm) - dm
                fu, _, _ = eval_curve(m.curve_par, m.cont_curves[c, 2], m.cont_curves[c, 3], d + shift)
                f = min(fl, fu)
        return max(f, 0.0), V
    ex = par[CP_EXPONENT]
    fe = k * d ** ex
    V = k * d ** (ex + 1.0) / (ex + 1.0)
    fd = 0.0
    if law == LAW_LINEAR or law == LAW_HERTZ:
        if full:
            fd = par[CP_DAMPING] * smooth_step(d / par[CP_DAMPING_DEPTH]) * dd
    else:
        v0 = zs[z] if zs[z] > 0.0 else max(dd, par[CP_MIN_SPEED])
        zn[z] = v0
        if full:
            fd = fe * par[CP_CHI] * dd / v0
    return max(fe + fd, 0.0), V


@njit(cache=True)
def friction_law(model, par, fn, n0, n1, n2, vt0, vt1, vt2, h, zs, zn, z):
    """Friction force (3) opposing the slip velocity vt (tangent to the unit normal n) under the normal load fn,
    by the law ``model`` (FRICTION_*) with the parameters ``par`` (CP_* columns; see the module docstring);
    bristle: its elastic displacement s is zs[z:z + 3] (committed), zn[z:z + 3] (candidate). Shared by contact
    points and joint friction (kernels/joint_friction.py)."""
    vts = math.sqrt(vt0 * vt0 + vt1 * vt1 + vt2 * vt2)
    mu_k = par[CP_MU]
    mu = mu_k
    if model != FRICTION_COULOMB:
        vs = par[CP_STRIBECK_SPEED]
        mu = mu_k + (par[CP_MU_STATIC] - mu_k) * math.exp(-(vts / vs) * (vts / vs))
    cv = par[CP_VISCOUS]
    if model == FRICTION_BRISTLE:
        s0, s1, s2 = zs[z], zs[z + 1], zs[z + 2]
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
        zn[z] = s0
        zn[z + 1] = s1
        zn[z + 2] = s2
        return f0 - cv * vt0, f1 - cv * vt1, f2 - cv * vt2
    if vts == 0.0:
        return 0.0, 0.0, 0.0
    x = vts / par[CP_V_EPS]
    ramp = smooth_step(x) if par[CP_SMOOTH_RAMP] > 0.0 else min(x, 1.0)
    g = mu * ramp * fn / vts
    if model == FRICTION_COULOMB:
        return -g * vt0, -g * vt1, -g * vt2
    return -(g + cv) * vt0, -(g + cv) * vt1, -(g + cv) * vt2


@njit(cache=True)
def friction_force(m, c, fn, n0, n1, n2, vt0, vt1, vt2, h, zs, zn, z):
    """Friction force (3) on the a side of one contact point of contact c (state address z, or -1)."""
    return friction_law(m.cont_friction[c], m.cont_par[c], fn, n0, n1, n2, vt0, vt1, vt2, h, zs, zn,
                        z + 1 if z >= 0 else -1)


@njit(cache=True)
def _wrench_at(m, mk, q, r, p0, p1, p2, F0, F1, F2, scale, Q):
    """Q += scale * (force F at the world point p on the body of marker mk)."""
    b = m.marker_body[mk]
    if b < 0:
        return
    s0, s1, s2 = p0 - r[b, 0], p1 - r[b, 1], p2 - r[b, 2]
    add_wrench(m, b, q, F0, F1, F2, s1 * F2 - s2 * F1, s2 * F0 - s0 * F2, s0 * F1 - s1 * F0, scale, Q)


@njit(cache=True)
def pair_forces(m, p, q, r, o, R, vo, wm, h, zs, zn, Q, cont_out, out):
    """Q += the forces of compiled pair p; returns its elastic energy (J)."""
    sa = m.cpair_a[p]
    sb = m.cpair_b[p]
    c = m.cpair_contact[p]
    ka = m.shape_marker[sa]
    kb = m.shape_marker[sb]
    n = collide(m.shape_kind[sa], m.shape_par[sa], o[ka], R[ka], m.shape_kind[sb], m.shape_par[sb], o[kb], R[kb],
                m.mesh_ptr, m.mesh_verts, m.mesh_tri_ptr, m.mesh_tris, out)
    full = m.cont_dissipative[0] != 0
    k = m.cpair_k[p]
    z0 = m.cpair_z_adr[p]
    V = 0.0
    for i in range(min(n, MAX_POINTS)):
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
        z = z0 + Z_POINT * i if z0 >= 0 else -1
        fn, Ve = normal_force(m, c, k, d, -vn, h, zs, zn, z, full)
        V += Ve
        f0, f1, f2 = 0.0, 0.0, 0.0
        if full and m.cont_friction[c] != FRICTION_NONE:
            f0, f1, f2 = friction_force(m, c, fn, n0, n1, n2, v0 - vn * n0, v1 - vn * n1, v2 - vn * n2, h, zs, zn, z)
        F0, F1, F2 = fn * n0 + f0, fn * n1 + f1, fn * n2 + f2
        _wrench_at(m, ka, q, r, p0, p1, p2, F0, F1, F2, 1.0, Q)
        _wrench_at(m, kb, q, r, p0, p1, p2, F0, F1, F2, -1.0, Q)
        cont_out[c, 0] += fn
        cont_out[c, 1] += f0
        cont_out[c, 2] += f1
        cont_out[c, 3] += f2
        if d > cont_out[c, 4]:
            cont_out[c, 4] = d
    return V


@njit(cache=True)
def add_contact_forces(m, q, r, o, R, vo, wm, h, zs, zn, Q, cont_out):
    """Q += every contact force at the marker frames (o, R, vo, wm) and body positions r; returns the elastic
    energy of the normal forces (J). Writes the candidate contact states zn (zero for points out of contact)
    and cont_out (n_contacts, 5) = [fn, ft (3), depth]."""
    for c in range(cont_out.shape[0]):
        for j in range(N_CONT_OUT):
            cont_out[c, j] = 0.0
    n_pairs = m.cpair_a.shape[0]
    if n_pairs == 0:
        return 0.0
    for p in range(n_pairs):
        z = m.cpair_z_adr[p]
        if z >= 0:
            for j in range(Z_POINT * MAX_POINTS):
                zn[z + j] = 0.0
    pairs = np.empty((n_pairs, 2), dtype=np.int64)
    out = np.empty((MAX_POINTS, 7))
    n = candidate_pairs_all(m.cpair_a, m.cpair_b, m.shape_group, m.shape_mask, pairs)
    V = 0.0
    for k in range(n):
        p = find_pair(m.cpair_ptr, m.cpair_other, m.cpair_index, pairs[k, 0], pairs[k, 1])
        if p >= 0:
            V += pair_forces(m, p, q, r, o, R, vo, wm, h, zs, zn, Q, cont_out, out)
    return V
