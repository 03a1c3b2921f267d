"""Hysteretic crush spring between two marker origins (crash structures: a rail, a crush can, a barrier face).

Compression d = l0 - l (m), d' its rate. Loading follows the force-deflection table L(d) (a piecewise-linear curve
through (0, 0), extrapolated linearly), scaled on loading by the Cowper-Symonds rate factor 1 + (d'/D)^(1/p) when
D > 0. The largest compression d_m and its static force F_m = L(d_m) are states; below d_m the element unloads and
reloads along the line of the unloading stiffness k_u, F = min(L(d), F_m - k_u (d_m - d)), down to zero at the
permanent set d_p = d_m - F_m / k_u; it carries no tension. The force pushes the marker origins apart.

Closed forms (a mass m at V0 into a rigid wall through a linear curve L = k d): d_m = V0 sqrt(m/k) at t = pi/2
sqrt(m/k), rebound speed V0 sqrt(k/k_u) (restitution e = sqrt(k/k_u)), permanent set d_m (1 - k/k_u).

Energy: the potential is the elastic energy the element would give back by unloading, E = F_u^2 / (2 k_u) with
F_u = max(F_m - k_u (d_m - d), 0) the unloading line's force (on loading F_u = L(d)): zero once the element has
sprung back to its permanent set or the structure has separated; the rest of the work done on it is dissipated.
MODE_CONSERVATIVE returns dE/dd along the path, F_u below d_m and L(d) L'(d) / k_u on loading (d_m moves with d),
so the energy split counts (F - dE/dd) d' as dissipated: the plastic work, the hysteresis loop and the rate
factor's work. The absorbed energy output integrates F dd over the evaluations along the path (trapezoidal, a
state).
Outputs: deflection (m), force (N), absorbed energy (J). States per element: d_m, F_m, d and F of the last
committed evaluation, absorbed energy.
"""

from __future__ import annotations

from ..functions import eval_curve
from ..inner import inner_kernel
from ..marker_loads import add_marker_force, line
from ..model_arrays import MODE_CONSERVATIVE, arrays_type

Arrays = arrays_type("CrushSpringArrays", ["mi", "mj", "l0", "curve", "k_unload", "rate_d", "rate_p", "z_adr",
                                           "out_adr"], __name__, "Arrays")
N_OUT = 3
N_STATES = 5
Z_D_MAX = 0        # largest compression reached (m)
Z_F_MAX = 1        # static loading force there (N)
Z_D_LAST = 2       # compression of the last committed evaluation (m)
Z_F_LAST = 3       # its force (N)
Z_ABSORBED = 4     # work done on the element (J)
ON_CURVE = 1e-6    # relative distance below the largest compression still taken as loading by the energy split


@inner_kernel(_nrt=False)
def crush_force(curve_par, curve, ku, rate_d, rate_p, d, dd, d_max, f_max, mode):
    """(force N, static loading force N, recoverable elastic energy J, new d_max, new F_max) at compression d and
    rate dd with the history (d_max, f_max); MODE_CONSERVATIVE: the force is dE/dd along the path."""
    if d <= 0.0:
        return 0.0, 0.0, 0.0, d_max, f_max
    fl, slope, _ = eval_curve(curve_par, curve[0], curve[1], d)
    loading = d >= d_max
    if mode == MODE_CONSERVATIVE and dd > 0.0 and d_max - d <= ON_CURVE * d_max + 1e-12:
        loading = True      # on the curve up to the solver's last correction (< tol), moving on: still loading
    if loading:                                           # loading: on the curve, with the rate factor
        energy = fl * fl / (2.0 * ku)
        if mode == MODE_CONSERVATIVE:
            return fl * slope / ku, fl, energy, d, fl
        f = fl
        if rate_d > 0.0 and dd > 0.0:
            f *= 1.0 + (dd / rate_d) ** (1.0 / rate_p)
        return f, fl, energy, d, fl
    fu = max(f_max - ku * (d_max - d), 0.0)               # unloading and reloading line
    energy = fu * fu / (2.0 * ku)
    if mode == MODE_CONSERVATIVE:
        return fu, fl, energy, d_max, f_max
    return max(min(fl, fu), 0.0), fl, energy, d_max, f_max


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, q, zs, zn, mode, Q, out):
    """Q += the crush forces; the history goes to zn; writes the output blocks; returns the recoverable elastic
    energy (J)."""
    V = 0.0
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        e, l, ld = line(sv, mi, mj)
        d = a.l0[k] - l
        z = a.z_adr[k]
        f, _, energy, d_max, f_max = crush_force(sv.curve_par, a.curve[k], a.k_unload[k], a.rate_d[k], a.rate_p[k], d,
                                               -ld, zs[z + Z_D_MAX], zs[z + Z_F_MAX], mode)
        V += energy
        absorbed = zs[z + Z_ABSORBED] + 0.5 * (zs[z + Z_F_LAST] + f) * (d - zs[z + Z_D_LAST])
        if mode != MODE_CONSERVATIVE:
            zn[z + Z_D_MAX] = d_max
            zn[z + Z_F_MAX] = f_max
            zn[z + Z_D_LAST] = d
            zn[z + Z_F_LAST] = f
            zn[z + Z_ABSORBED] = absorbed
        add_marker_force(sv, q, mj, f * e[0], f * e[1], f * e[2], 1.0, Q)
        add_marker_force(sv, q, mi, f * e[0], f * e[1], f * e[2], -1.0, Q)
        o = a.out_adr[k]
        out[o] = d
        out[o + 1] = f
        out[o + 2] = absorbed
    return V
