"""Friction in revolute and prismatic joints, loaded by the joint's reaction (elements.JointFriction).

Per element on a joint with axis a (z_i; x_i for a planar prismatic joint), markers i and j:

  reaction    w = -sum_k jtw[k]^T lam[k] over the joint's rows k (the wrench of the joint on marker_j's body,
              as analyses/reactions.py), as force F and torque T about origin_j, world axes
  split       F_a = F.a, F_r = |F - F_a a|, T_a = T.a, T_b = |T - T_a a|
  normal load revolute   N = preload + F_r + T_b / bending_arm + |F_a| friction_arm / r_pin
              prismatic  N = preload + F_r + T_b / bending_arm + |T_a| / friction_arm     (zero arm: term off)
  slip        revolute   v = r_pin (w_j - w_i).a;   prismatic  v = a.(vo_j - vo_i - w_i x (o_j - o_i))
  friction    f = kernels.contact.friction_law(N, v) (coulomb, stribeck or the elasto-plastic bristle, whose
              deflection is a state at jf_z_adr), opposing v
  load        revolute: torque r_pin f a on marker_j's body, -r_pin f a on marker_i's body;
              prismatic: force f a at origin_j on marker_j's body, -f a at the same point on marker_i's body
              (so its power is f v, and no spurious moment appears)

The multipliers ``lam`` and twist rows ``jtw`` are the caller's: the ALF Newton passes its current multiplier
estimate, the energy split and the channels the step's final multipliers, the reference integrator a fixed-point
iterate (analyses.assembly.solve_dynamics). MODE_CONSERVATIVE (the energy split) switches the friction off.
Output block: [friction torque N m (revolute) or force N (prismatic) on marker_j's body along a, slip v m/s,
normal load N N].
"""

from __future__ import annotations

import math

from ..contact import friction_law
from ..inner import inner_kernel
from ..marker_loads import add_marker_torque, add_point_force
from ..model_arrays import MODE_CONSERVATIVE, arrays_type

Arrays = arrays_type("JointFrictionArrays", ["type", "mi", "mj", "rows", "model", "par", "geo", "z_adr", "out_adr"],
                     __name__, "Arrays")

JF_REVOLUTE = 0
JF_PRISMATIC = 1
# jf_geo columns
JG_PIN_RADIUS = 0
JG_FRICTION_ARM = 1
JG_BENDING_ARM = 2
JG_PRELOAD = 3
N_JG = 4
N_JF_STATES = 3      # bristle deflection (the law's 3-vector; only its first component is used)
N_JF_OUT = 3
N_OUT = N_JF_OUT
JF_MAX_ROWS = 6


@inner_kernel(_nrt=False)
def joint_reaction(a, sv, k, jtw, lam):
    """(F, T) of friction element k's joint on marker_j's body about origin_j, world axes (N, N m); with marker_j
    on ground, minus the reaction on marker_i's body (as analyses/reactions.py)."""
    mi = a.mi[k]
    mj = a.mj[k]
    bj = sv.marker_body[mj]
    side = 6 if bj >= 0 else 0
    body = bj if bj >= 0 else sv.marker_body[mi]
    F0, F1, F2, n0, n1, n2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for c in range(a.rows.shape[1]):
        row = a.rows[k, c]
        if row < 0:
            continue
        x = lam[row]
        F0 -= jtw[row, side] * x
        F1 -= jtw[row, side + 1] * x
        F2 -= jtw[row, side + 2] * x
        n0 -= jtw[row, side + 3] * x
        n1 -= jtw[row, side + 4] * x
        n2 -= jtw[row, side + 5] * x
    o, r = sv.o, sv.r
    s0, s1, s2 = o[mj, 0] - r[body, 0], o[mj, 1] - r[body, 1], o[mj, 2] - r[body, 2]
    T0 = n0 - (s1 * F2 - s2 * F1)
    T1 = n1 - (s2 * F0 - s0 * F2)
    T2 = n2 - (s0 * F1 - s1 * F0)
    if bj < 0:
        return -F0, -F1, -F2, -T0, -T1, -T2
    return F0, F1, F2, T0, T1, T2


@inner_kernel(_nrt=False)
def add_friction(a, sv, q, jtw, lam, h, zs, zn, mode, Q, out):
    """Multiplier hook: Q += the friction of every JointFriction (module docstring) loaded by the multipliers
    ``lam`` through the twist rows ``jtw``; writes the candidate bristle states zn and the output blocks. ``h``: the
    step (s; 0 = static evaluation, the bristle keeps its committed deflection)."""
    on = mode != MODE_CONSERVATIVE
    o, R, vo, wm = sv.o, sv.R, sv.vo, sv.wm
    for k in range(a.type.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        typ = a.type[k]
        ax = 0 if (typ == JF_PRISMATIC and sv.dim == 2) else 2
        a0, a1, a2 = R[mi, 0, ax], R[mi, 1, ax], R[mi, 2, ax]
        F0, F1, F2, T0, T1, T2 = joint_reaction(a, sv, k, jtw, lam)
        Fa = F0 * a0 + F1 * a1 + F2 * a2
        Ta = T0 * a0 + T1 * a1 + T2 * a2
        Fr = math.sqrt(max((F0 - Fa * a0) ** 2 + (F1 - Fa * a1) ** 2 + (F2 - Fa * a2) ** 2, 0.0))
        Tb = math.sqrt(max((T0 - Ta * a0) ** 2 + (T1 - Ta * a1) ** 2 + (T2 - Ta * a2) ** 2, 0.0))
        geo = a.geo[k]
        load = geo[JG_PRELOAD] + Fr
        if geo[JG_BENDING_ARM] > 0.0:
            load += Tb / geo[JG_BENDING_ARM]
        if typ == JF_REVOLUTE:
            rp = geo[JG_PIN_RADIUS]
            if geo[JG_FRICTION_ARM] > 0.0:
                load += abs(Fa) * geo[JG_FRICTION_ARM] / rp
            v = rp * ((wm[mj, 0] - wm[mi, 0]) * a0 + (wm[mj, 1] - wm[mi, 1]) * a1 + (wm[mj, 2] - wm[mi, 2]) * a2)
        else:
            rp = 1.0
            if geo[JG_FRICTION_ARM] > 0.0:
                load += abs(Ta) / geo[JG_FRICTION_ARM]
            d0, d1, d2 = o[mj, 0] - o[mi, 0], o[mj, 1] - o[mi, 1], o[mj, 2] - o[mi, 2]
            w0, w1, w2 = wm[mi, 0], wm[mi, 1], wm[mi, 2]
            v = (a0 * (vo[mj, 0] - vo[mi, 0] - (w1 * d2 - w2 * d1))
                 + a1 * (vo[mj, 1] - vo[mi, 1] - (w2 * d0 - w0 * d2))
                 + a2 * (vo[mj, 2] - vo[mi, 2] - (w0 * d1 - w1 * d0)))
        f = 0.0
        if on:
            f, _, _ = friction_law(a.model[k], a.par[k], load, 0.0, 0.0, 1.0, v, 0.0, 0.0, h, zs, zn, a.z_adr[k],
                                   a.z_adr[k])
        base = a.out_adr[k]
        out[base] = rp * f
        out[base + 1] = v
        out[base + 2] = load
        if f == 0.0:
            continue
        if typ == JF_REVOLUTE:
            tau = rp * f
            add_marker_torque(sv, q, mj, tau * a0, tau * a1, tau * a2, 1.0, Q)
            add_marker_torque(sv, q, mi, tau * a0, tau * a1, tau * a2, -1.0, Q)
        else:
            G0, G1, G2 = f * a0, f * a1, f * a2
            add_point_force(sv, q, mj, o[mj, 0], o[mj, 1], o[mj, 2], G0, G1, G2, 1.0, Q)
            add_point_force(sv, q, mi, o[mj, 0], o[mj, 1], o[mj, 2], G0, G1, G2, -1.0, Q)
