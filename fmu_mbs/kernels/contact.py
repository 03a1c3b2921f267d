"""Compliant contact and friction: the laws, the contact state table and the workspace (elements.Contact).

Per force evaluation (``add_forces`` of kernels/families/contact.py): world AABBs of all shapes inflated by a
margin, the broad phase (broad_phase.candidate_pairs_ws, its sorted order kept between calls), for each candidate
pair (s, t) on two bodies the contact element of their signatures (compiler/contacts.py) in O(1), the narrow phase
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
                      shifted to pass through (d_m, L(d_m)): fn = min(L(d), U(d - d_m + U^-1(L(d_m)))); its zero
                      is the permanent set, kept after the shapes separate (the record of d_m outlives the
                      contact); the potential is the recoverable energy under the shifted U (zero when separated)
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
of the previous evaluation are cleared first, through the ``used`` list), except that the records of table-law
contacts with an unloading curve are carried over while the shapes are apart (their d_m: the permanent set). A
full table sets ST_STATE_OVERFLOW: the caller fails with an error naming the compile option ``contact_state_capacity``.
MODE_CONSERVATIVE keeps only the elastic normal force (the energy split's conservative variant): damping,
hysteresis and friction off; for the table law with an unloading curve, the derivative of its recoverable energy
along the path.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .contact_geometry import MAX_POINTS, SHAPE_PLANE
from .functions import eval_curve
from .inner import inner_kernel
from .model_arrays import arrays_type

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
ON_CURVE = 1e-6       # table law: relative distance below the largest depth still taken as loading by the energy split
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

#: the contact workspace, allocated once per evaluator / integrator (new_contact_workspace): shape AABBs (lo, hi),
#: the broad phase's sorted order, candidate pair buffer, narrow-phase output rows, sweep columns and boxes, cursor,
#: status counters (ST_*), used state records, fpar (FP_*), and the contact-graph CSR of the colouring (bptr,
#: bidx, mark)
ContactWork = arrays_type("ContactWork", ["lo", "hi", "order", "pairs", "out", "col", "box", "cursor", "stat", "used",
                                          "fpar", "bptr", "bidx", "mark"], __name__)
# outputs per contact: fn, ft (3), depth
N_CONT_OUT = 5


@inner_kernel(_nrt=False)
def smooth_step(x):
    """0 for x <= 0, 1 for x >= 1, x^2 (3 - 2x) between (C1)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return x * x * (3.0 - 2.0 * x)


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
def _table_force(curve_par, curves, d, dd, zs, zn, zr, zw, full):
    """(fn, recoverable elastic energy) of the table law (curves = [loading adr, n, unloading adr, n]); not
    ``full`` (MODE_CONSERVATIVE): (dE/dd along the path, E) instead, so the energy split dissipates the rest.

    Without an unloading curve the law is elastic: E = integral of L. With one, E is the area under the shifted
    unloading curve from the permanent set to d: what the contact gives back on separating, zero once separated."""
    fl, sl, al = eval_curve(curve_par, curves[0], curves[1], d)
    dm = d
    if zr >= 0:
        dm = max(zs[zr + R_DM], d)
    if zw >= 0:
        zn[zw + R_DM] = dm
    ua, un = curves[2], curves[3]
    if un == 0:
        return max(fl, 0.0), al
    x0 = _curve_inverse(curve_par, ua, un, 0.0)             # the unloading curve's zero (before the shift)
    _, _, a0 = eval_curve(curve_par, ua, un, x0)
    loading = d >= dm
    if not full and dd > 0.0 and dm - d <= ON_CURVE * dm + 1e-12:
        loading = True      # on the curve up to the solver's last correction (< tol), moving on: still loading
    if loading:                                              # loading: E(d) = area of U up to U^-1(L(d))
        xs = _curve_inverse(curve_par, ua, un, fl)
        _, su, ax = eval_curve(curve_par, ua, un, xs)
        energy = max(ax - a0, 0.0)
        if not full:
            return (fl * sl / su if su > 0.0 else fl), energy
        return max(fl, 0.0), energy
    fm, _, _ = eval_curve(curve_par, curves[0], curves[1], dm)
    x = d + _curve_inverse(curve_par, ua, un, fm) - dm      # on U shifted through (d_m, L(d_m))
    if x <= x0:
        return 0.0, 0.0                                      # below the permanent set
    fu, _, ax = eval_curve(curve_par, ua, un, x)
    energy = max(ax - a0, 0.0)
    if not full:
        return max(fu, 0.0), energy
    return max(min(fl, fu), 0.0), energy


@inner_kernel(_nrt=False)
def normal_force(law, par, curve_par, curves, k, d, dd, h, zs, zn, zr, zw, full):
    """(fn, elastic potential) of one contact point of a contact element with the normal law ``law``, its
    parameters ``par`` (CP_* columns) and curve addresses ``curves``; zr / zw: its state record in the committed
    table zs / the candidate table zn, or -1 (none committed / not stored)."""
    if law == LAW_TABLE:
        return _table_force(curve_par, curves, d, dd, zs, zn, zr, zw, full)
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


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
def pair_stiffness(cont_par, cont_law, shape_compliance, shape_inv_radius, c, sa, sb):
    """k of contact c between shapes sa and sb: the given stiffness, or Hertz 4/3 E* sqrt(R*) (N/m^n)."""
    k = cont_par[c, CP_STIFFNESS]
    if k > 0.0 or cont_law[c] == LAW_TABLE:
        return k
    e_star = 1.0 / (shape_compliance[sa] + shape_compliance[sb])
    inv_r = shape_inv_radius[sa] + shape_inv_radius[sb]
    return 4.0 / 3.0 * e_star * math.sqrt(1.0 / inv_r)


def default_margin(m) -> float:
    """AABB inflation of the broad phase (m): 5 % of the median size of the bounded shapes (1 mm if none), so
    the candidate pairs also list shapes about to touch (the finite-difference colouring uses them)."""
    sizes = [float(np.max(m.shape_par[s])) for s in range(len(m.shape_kind)) if m.shape_kind[s] != SHAPE_PLANE]
    return 0.05 * float(np.median(sizes)) if sizes else 1e-3


def new_contact_workspace(m, pair_capacity: int | None = None, margin: float | None = None):
    """ContactWork of ModelArrays ``m``, allocated once per evaluator / integrator; ``pair_capacity`` candidate pairs
    (default 4 per shape, >= 64)."""
    ns = len(m.shape_kind)
    cap = max(64, 4 * ns) if pair_capacity is None else int(pair_capacity)
    order = np.zeros(max(ns, 1), dtype=np.int64)[:ns].copy()
    if ns:
        order[0] = -1
    fpar = np.array([default_margin(m) if margin is None else float(margin)])
    nb = len(m.body_kind)
    return ContactWork(np.zeros((ns, 3)), np.zeros((ns, 3)), order, np.zeros((cap, 2), dtype=np.int64),
                       np.zeros((MAX_POINTS, 7)), np.zeros((ns, 2), dtype=np.int64), np.zeros((ns, 8)),
                       np.zeros(4, dtype=np.int64), np.zeros(N_STAT, dtype=np.int64),
                       np.zeros(max(int(m.cont_state[1]), 1), dtype=np.int64), fpar,
                       np.zeros(nb + 1, dtype=np.int64), np.zeros(2 * cap, dtype=np.int64),
                       np.zeros(nb + 1, dtype=np.int64))


def grown_contact_workspace(cw):
    """``cw`` with a pair buffer for 1.5 x the candidates its last evaluation found (overflow flag cleared)."""
    need = int(cw.stat[ST_NEEDED])
    pairs = np.zeros((max(int(1.5 * need) + 16, 2 * cw.pairs.shape[0]), 2), dtype=np.int64)
    cw.stat[ST_PAIR_OVERFLOW] = 0
    return cw._replace(pairs=pairs, bidx=np.zeros(2 * pairs.shape[0], dtype=np.int64))
