"""Joint stop: a tabulated, hysteretic joint characteristic with a stiff stop at the range-of-motion limits (occupant
joints, MADYMO-style), about z_i between marker_i and marker_j.

phi = theta - theta0, theta the angle from x_i to x_j about z_i with turns counted (a state, as in the RSDA,
kernels/families/rotational_spring_damper.py). The resisting torque is T = T_h(phi) + k_s e + c phi', e the
excursion past the range [lower, upper] (0 inside), acting to reduce theta on marker_j's body and oppositely on
marker_i's (the RSDA's sign convention). T_h follows the loading table L(phi) (non-decreasing through (0, 0), both
signs) while |phi| grows past its largest excursion on that side (phi_+ >= 0 and phi_- <= 0, with their torques,
are states); below it, it unloads and reloads along the line of slope k_u through (phi_+, L(phi_+)),
T_h = max(min(L(phi), T_+ - k_u (phi_+ - phi)), 0) (mirrored on the negative side), down to zero at the side's
permanent set; k_u = 0 makes the table elastic. The same law as the crush spring (kernels/families/crush_spring.py)
on each side.

Energy: the stop's 1/2 k_s e^2 and the table's recoverable energy (elastic table: its integral; hysteretic:
T_u^2 / (2 k_u), T_u the unloading line's torque, L(phi) on loading); MODE_CONSERVATIVE returns the derivative of
that energy along the path (L L' / k_u on loading), so the energy split dissipates the hysteresis loop and the
damping. Outputs: angle phi (rad), speed phi' (rad/s), T (N m). States: theta, phi_+, T_+, phi_-, T_-.
"""

from __future__ import annotations

import math

from ..constraints import angle_about_z
from ..functions import eval_curve
from ..inner import inner_kernel
from ..marker_loads import add_marker_torque
from ..model_arrays import MODE_CONSERVATIVE, arrays_type
from .rotational_spring_damper import rotation_rate_about_z

Arrays = arrays_type("JointStopArrays", ["mi", "mj", "theta0", "curve", "k_unload", "lower", "upper", "k_stop",
                                         "c", "z_adr", "out_adr"], __name__, "Arrays")
N_OUT = 3
N_STATES = 5
Z_THETA = 0        # counted angle (rad)
Z_POS = 1          # largest positive excursion phi_+ (rad)
Z_POS_T = 2        # its loading torque (N m)
Z_NEG = 3          # largest negative excursion phi_- (rad, <= 0)
Z_NEG_T = 4        # its loading torque (N m, <= 0)
ON_CURVE = 1e-6    # relative distance inside the largest excursion still taken as loading by the energy split


@inner_kernel(_nrt=False)
def table_torque(curve_par, curve, ku, phi, rate, p_max, t_pmax, n_max, t_nmax, conservative):
    """(T_h N m, recoverable energy J, phi_+, T_+, phi_-, T_-) of the hysteretic table at phi (rate phi') with the
    history; ``conservative``: T_h is dE/dphi along the path (a point within ON_CURVE below the largest excursion
    and moving outwards counts as loading: the solver's last correction may leave it there)."""
    fl, sl, area = eval_curve(curve_par, curve[0], curve[1], phi)
    if ku <= 0.0:
        return fl, area, max(p_max, phi), t_pmax, min(n_max, phi), t_nmax
    if phi >= 0.0:
        if phi >= p_max or (conservative and rate > 0.0 and p_max - phi <= ON_CURVE * p_max + 1e-12):
            energy = fl * fl / (2.0 * ku)
            return (fl * sl / ku if conservative else fl), energy, phi, fl, n_max, t_nmax
        tu = max(t_pmax - ku * (p_max - phi), 0.0)
        energy = tu * tu / (2.0 * ku)
        return (tu if conservative else max(min(fl, tu), 0.0)), energy, p_max, t_pmax, n_max, t_nmax
    if phi <= n_max or (conservative and rate < 0.0 and phi - n_max <= -ON_CURVE * n_max + 1e-12):
        energy = fl * fl / (2.0 * ku)
        return (fl * sl / ku if conservative else fl), energy, p_max, t_pmax, phi, fl
    tu = min(t_nmax + ku * (phi - n_max), 0.0)
    energy = tu * tu / (2.0 * ku)
    return (tu if conservative else min(max(fl, tu), 0.0)), energy, p_max, t_pmax, n_max, t_nmax


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, q, zs, zn, mode, Q, out):
    """Q += the joint-stop torques; the counted angle and the history go to zn; writes the output blocks; returns
    the elastic energy (J)."""
    V = 0.0
    R = sv.R
    conservative = mode == MODE_CONSERVATIVE
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        z = a.z_adr[k]
        raw, _, _ = angle_about_z(R[mi], R[mj])
        ref = zs[z + Z_THETA]
        dth = raw - ref
        theta = ref + math.atan2(math.sin(dth), math.cos(dth))
        phi = theta - a.theta0[k]
        thd, ds, dc, s, c = rotation_rate_about_z(R, sv.wm, mi, mj)
        th, Vh, pm, tp, nm, tn = table_torque(sv.curve_par, a.curve[k], a.k_unload[k], phi, thd, zs[z + Z_POS],
                                              zs[z + Z_POS_T], zs[z + Z_NEG], zs[z + Z_NEG_T], conservative)
        e = 0.0
        if phi > a.upper[k]:
            e = phi - a.upper[k]
        elif phi < a.lower[k]:
            e = phi - a.lower[k]
        n = th + a.k_stop[k] * e
        if not conservative:
            n += a.c[k] * thd
        V += Vh + 0.5 * a.k_stop[k] * e * e
        zn[z + Z_THETA] = theta
        if not conservative:
            zn[z + Z_POS] = pm
            zn[z + Z_POS_T] = tp
            zn[z + Z_NEG] = nm
            zn[z + Z_NEG_T] = tn
        r2 = s * s + c * c
        gw = ((c * ds[0] - s * dc[0]) / r2, (c * ds[1] - s * dc[1]) / r2, (c * ds[2] - s * dc[2]) / r2)
        add_marker_torque(sv, q, mi, gw[0], gw[1], gw[2], -n, Q)
        add_marker_torque(sv, q, mj, gw[0], gw[1], gw[2], n, Q)
        o = a.out_adr[k]
        out[o] = phi
        out[o + 1] = thd
        out[o + 2] = n
    return V
