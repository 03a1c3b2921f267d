"""Passive hydraulic-cylinder element (seed 003, M. Omar, "Decoupling kinematic loops for real-time multibody
dynamic simulations"): a cylinder part and a rod part between two markers, removed from the system. They add
no coordinates and no mass-matrix entries; their joint reactions act on the two parent bodies as applied forces.

Geometry (world axes). P = origin of marker_i (universal joint), S = origin of marker_j (spherical joint),
d = S - P, L = |d|, u = d/L (the centreline, the seed's k axis, eq. 2), L' = u.d' (eq. 12), u' = (d' - L' u)/L.
The universal joint's cross axis fixed in marker_i is a = z_i (the seed's i axis, eq. 6); the other cross axis
is fixed in the element and normal to a and u (the seed's j), and cos phi = |a x u| (eq. 8-9). Both parts share
the angular velocity w_e (eq. 15). Vector form of eqs. (16)-(17) and (22)-(23), derived here instead of the
garbled print of seed 003:

- the relative rotation w_e - w_i of the element is about a and about the element's cross axis b = u x a/|u x a|,
  i.e. it has no component along n = u - a (a.u), the axis normal to both cross axes:
  (w_e - w_i) . n = 0;
- the part of w_e normal to u follows from the line, w_perp = u x u', so with w_e = w_perp + s u:
  s = (w_i.u - (a.u)(w_i.a) + (a.u)(w_perp.a)) / c2,  c2 = 1 - (a.u)^2 = cos^2 phi  (singular when u || a);
- accelerations: u'' = P_perp(d'' - 2 L' u')/L - |u'|^2 u, alpha_perp = u x u'' - s (u x w_e) and, from the time
  derivative of the joint condition, alpha_e.u = (alpha_i.n - (w_e - w_i).n' - alpha_perp.n)/c2 with
  n' = u' - (w_i x a)(a.u) - a((w_i x a).u + a.u'). d'' = a_S - a_P and alpha_i are the marker accelerations of
  the PREVIOUS step (seed 003 §2: "the parent marker accelerations from the previous time step will be used"),
  kept in the element's states (z, 12 per element: a_P, alpha_i, a_S, alpha_j; world axes) and committed with
  the other states on step acceptance (``after_step``, the family's after-step hook).

Loads (eqs. 24-32 re-derived as a whole-element balance). Part CMs x_c = P + c_c u, x_r = S - c_r u with
accelerations a_c = a_P + c_c u'', a_r = a_S - c_r u''; inertia about the CM J = J_t (I - u u^T) + J_a u u^T,
so J alpha_e = J_t alpha_perp + J_a (alpha_e.u) u and w_e x J w_e = (J_a - J_t) s (w_e x u). Unknowns: the force
F_P and torque T_P = tau n of the universal joint on the element, and the force F_S of the spherical joint
(no torque, eq. 28). With the required loads F_c = m_c (a_c - g), F_r = m_r (a_r - g) and the moment about P
M_P = c_c u x F_c + (L - c_r) u x F_r + sum(J alpha_e + w_e x J w_e):

- moment about P along u (eq. 29-30): tau (n.u) = u.M_P, n.u = c2;
- the rest of the moment: L u x F_S = M_P - T_P, so F_S,perp = (M_P - T_P) x u / L;
- axial balance of the rod part with the drive f (positive extending): u.F_S = m_r u.(a_r - g) - f;
- forces: F_P = F_c + F_r - F_S (eq. 31).

The parents receive -F_P at P with -T_P, and -F_S at S. With zero part masses this is exactly an actuator
(f u on marker_j's body, -f u on marker_i's). Planar models: a = z (both ends are pins), c2 = 1, all torques are
about z and tau = 0. A stroke-driven element has f = 0 here; its distance row (ROW_D, f = d(t)^2) carries the
drive force between the markers.
"""

from __future__ import annotations

import math

from numba import njit

from ..bodies.dispatch import marker_acceleration
from ..inner import inner_kernel
from ..marker_loads import add_marker_force, add_point_wrench, time_function
from ..model_arrays import MODE_FULL, arrays_type
from ..rotation import cross_v, dot_v

Arrays = arrays_type("PassiveCylinderArrays", ["mi", "mj", "par", "fn", "input_adr", "z_adr", "row", "out_adr"],
                     __name__, "Arrays")

# parameter row (Arrays.par)
PC_M_CYL = 0        # cylinder part: mass (kg), CM distance from P (m), inertia transverse and axial (kg m^2)
PC_CM_CYL = 1
PC_JT_CYL = 2
PC_JA_CYL = 3
PC_M_ROD = 4        # rod part: mass, CM distance from S, inertias
PC_CM_ROD = 5
PC_JT_ROD = 6
PC_JA_ROD = 7
N_PC_PAR = 8

N_PC_STATES = 12    # a_P (3), alpha_i (3), a_S (3), alpha_j (3), world axes
N_PC_OUT = 12       # length, speed, force, fi (3), fj (3), ti (3)
N_STATES = N_PC_STATES
N_OUT = N_PC_OUT


@inner_kernel(_nrt=False)
def _add(a, b, s):
    return (a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2])


@inner_kernel(_nrt=False)
def _scale(a, s):
    return (s * a[0], s * a[1], s * a[2])


@inner_kernel(_nrt=False)
def element_loads(L, u, ud, Ld, a, wi, alpha_i, acc_p, acc_s, g, par, f):
    """Joint loads on the element: (F_P, T_P, F_S) (N, N m, N; world) from the line (length L m, unit u, rate u'
    1/s, L' m/s), the U-joint cross axis a, marker_i's angular velocity wi and acceleration alpha_i, the end
    accelerations acc_p, acc_s (m/s^2), gravity g, the part data ``par`` (PC_*) and the drive f (N)."""
    uu = dot_v(ud, ud)
    wperp = cross_v(u, ud)
    au = dot_v(a, u)
    c2 = 1.0 - au * au
    s = (dot_v(wi, u) - au * dot_v(wi, a) + au * dot_v(wperp, a)) / c2
    we = _add(wperp, u, s)
    x = (acc_s[0] - acc_p[0] - 2.0 * Ld * ud[0], acc_s[1] - acc_p[1] - 2.0 * Ld * ud[1],
         acc_s[2] - acc_p[2] - 2.0 * Ld * ud[2])
    xu = dot_v(x, u)
    udd = ((x[0] - xu * u[0]) / L - uu * u[0], (x[1] - xu * u[1]) / L - uu * u[1], (x[2] - xu * u[2]) / L - uu * u[2])
    uxw = cross_v(u, we)
    al_perp = _add(cross_v(u, udd), uxw, -s)
    n = _add(u, a, -au)
    adot = cross_v(wi, a)
    ndot = _add(_add(ud, adot, -au), a, -(dot_v(adot, u) + dot_v(a, ud)))
    rel = _add(we, wi, -1.0)
    sigma = (dot_v(alpha_i, n) - dot_v(rel, ndot) - dot_v(al_perp, n)) / c2
    # required net loads of the parts (m (a - g)) and the moment about P
    mc, cc, jtc, jac = par[PC_M_CYL], par[PC_CM_CYL], par[PC_JT_CYL], par[PC_JA_CYL]
    mr, cr, jtr, jar = par[PC_M_ROD], par[PC_CM_ROD], par[PC_JT_ROD], par[PC_JA_ROD]
    ac = _add(acc_p, udd, cc)
    ar = _add(acc_s, udd, -cr)
    Fc = (mc * (ac[0] - g[0]), mc * (ac[1] - g[1]), mc * (ac[2] - g[2]))
    Fr = (mr * (ar[0] - g[0]), mr * (ar[1] - g[1]), mr * (ar[2] - g[2]))
    jt = jtc + jtr
    ja = jac + jar
    wxu = cross_v(we, u)
    uFc = cross_v(u, Fc)
    uFr = cross_v(u, Fr)
    lr = L - cr
    MP = (cc * uFc[0] + lr * uFr[0] + jt * al_perp[0] + ja * sigma * u[0] + (ja - jt) * s * wxu[0],
          cc * uFc[1] + lr * uFr[1] + jt * al_perp[1] + ja * sigma * u[1] + (ja - jt) * s * wxu[1],
          cc * uFc[2] + lr * uFr[2] + jt * al_perp[2] + ja * sigma * u[2] + (ja - jt) * s * wxu[2])
    tau = dot_v(u, MP) / c2
    TP = _scale(n, tau)
    Fs_perp = _scale(cross_v(_add(MP, TP, -1.0), u), 1.0 / L)
    Fs_ax = mr * (ar[0] - g[0]) * u[0] + mr * (ar[1] - g[1]) * u[1] + mr * (ar[2] - g[2]) * u[2] - f
    FS = _add(Fs_perp, u, Fs_ax)
    FP = (Fc[0] + Fr[0] - FS[0], Fc[1] + Fr[1] - FS[1], Fc[2] + Fr[2] - FS[2])
    return FP, TP, FS


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, t, q, u, zs, zn, mode, Q, out):
    """Q += the loads of every passive cylinder on its parent bodies (module docstring), in MODE_FULL only (a power
    port); zn keeps the committed end accelerations (they change only on step acceptance). Output block:
    [length m, speed m/s, drive force N, fi (3) N, fj (3) N, ti (3) N m]: the force on marker_i's and marker_j's
    body at the marker origins and the universal joint's torque on marker_i's body, world axes."""
    if mode != MODE_FULL:
        return 0.0
    o, vo, R, wm = sv.o, sv.vo, sv.R, sv.wm
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        za = a.z_adr[k]
        for i in range(N_PC_STATES):
            zn[za + i] = zs[za + i]
        d = (o[mj, 0] - o[mi, 0], o[mj, 1] - o[mi, 1], o[mj, 2] - o[mi, 2])
        L = math.sqrt(dot_v(d, d))
        e = (d[0] / L, d[1] / L, d[2] / L)
        dv = (vo[mj, 0] - vo[mi, 0], vo[mj, 1] - vo[mi, 1], vo[mj, 2] - vo[mi, 2])
        Ld = dot_v(e, dv)
        ud = ((dv[0] - Ld * e[0]) / L, (dv[1] - Ld * e[1]) / L, (dv[2] - Ld * e[2]) / L)
        f = time_function(sv, a.fn[k], t)
        if a.input_adr[k] >= 0:
            f += u[a.input_adr[k]]
        ax = (R[mi, 0, 2], R[mi, 1, 2], R[mi, 2, 2])
        wi = (wm[mi, 0], wm[mi, 1], wm[mi, 2])
        FP, TP, FS = element_loads(L, e, ud, Ld, ax, wi, (zs[za + 3], zs[za + 4], zs[za + 5]),
                                   (zs[za], zs[za + 1], zs[za + 2]), (zs[za + 6], zs[za + 7], zs[za + 8]),
                                   (sv.gravity[0], sv.gravity[1], sv.gravity[2]), a.par[k], f)
        fi = (-FP[0], -FP[1], -FP[2])
        ti = (-TP[0], -TP[1], -TP[2])
        fj = (-FS[0], -FS[1], -FS[2])
        add_point_wrench(sv, q, mi, o[mi, 0], o[mi, 1], o[mi, 2], fi[0], fi[1], fi[2], ti[0], ti[1], ti[2], 1.0, Q)
        add_marker_force(sv, q, mj, fj[0], fj[1], fj[2], 1.0, Q)
        base = a.out_adr[k]
        out[base] = L
        out[base + 1] = Ld
        out[base + 2] = f
        for i in range(3):
            out[base + 3 + i] = fi[i]
            out[base + 6 + i] = fj[i]
            out[base + 9 + i] = ti[i]
    return 0.0


@njit(cache=True, _nrt=False)
def after_step(a, sv, q, qdd, zs):
    """After-step hook: write the accelerations of both end markers of every passive cylinder into its states in zs
    (origin acceleration a + alpha x s + w x (w x s) and angular acceleration, world), from the accepted (q, qdd)
    at the frames of sv."""
    for k in range(a.mi.shape[0]):
        za = a.z_adr[k]
        for end in range(2):
            mk = a.mi[k] if end == 0 else a.mj[k]
            base = za + 6 * end
            acc, alpha = marker_acceleration(sv, sv.r, sv.o, sv.wm, q, qdd, mk)
            for i in range(3):
                zs[base + i] = acc[i]
                zs[base + 3 + i] = alpha[i]


@inner_kernel(_nrt=False)
def stroke_outputs(a, sv, lam, out):
    """Multiplier hook of the outputs: a stroke-driven element's drive force is its distance row's force -lam d on
    marker_j (ROW_D, d = L e), so force = -lam L and the parent forces take -/+ force e."""
    for k in range(a.mi.shape[0]):
        row = a.row[k]
        if row < 0:
            continue
        base = a.out_adr[k]
        L = out[base]
        f = -lam[row] * L
        out[base + 2] = f
        for i in range(3):
            e = (sv.o[a.mj[k], i] - sv.o[a.mi[k], i]) / L
            out[base + 3 + i] -= f * e
            out[base + 6 + i] += f * e
