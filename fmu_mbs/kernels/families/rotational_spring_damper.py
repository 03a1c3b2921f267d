"""Rotational spring-damper-actuator (RSDA; seed 004, Haug p. 448): torque n = k (theta - theta0) + c theta' + h(t)
about z_i, theta the angle from x_i to x_j about z_i with turns counted (the angle is the element's state, so the
count survives a step), reducing theta on marker_j's body and oppositely on marker_i's. Curves as for the TSDA.
Outputs: angle (rad), speed (rad/s), T (N m). Energy: the spring's (J)."""

from __future__ import annotations

import math

from ..constraints import angle_about_z
from ..inner import inner_kernel
from ..marker_loads import add_marker_torque, time_function
from ..model_arrays import MODE_FULL, arrays_type
from ..rotation import cross_v, dot_v
from .spring_damper import damper_force, spring_force

Arrays = arrays_type("RotationalSpringDamperArrays", ["mi", "mj", "k", "theta0", "c", "fn", "spring", "damper",
                                                      "z_adr", "out_adr"], __name__, "Arrays")
N_OUT = 3
N_STATES = 1


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, t, q, zs, zn, mode, Q, out):
    """Q += the RSDA torques; the counted angle goes to zn; writes the output blocks; returns the spring energy."""
    V = 0.0
    R = sv.R
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        raw, _, _ = angle_about_z(R[mi], R[mj])
        ref = zs[a.z_adr[k]]
        dth = raw - ref
        theta = ref + math.atan2(math.sin(dth), math.cos(dth))
        zn[a.z_adr[k]] = theta
        thd, ds, dc, s, c = rotation_rate_about_z(R, sv.wm, mi, mj)
        ns, Vs = spring_force(sv.curve_par, a.spring[k], a.k[k], theta - a.theta0[k])
        nd = damper_force(sv.curve_par, a.damper[k], a.c[k], thd, mode)
        ht = time_function(sv, a.fn[k], t) if mode == MODE_FULL else 0.0
        n = ns + nd + ht
        V += Vs
        r2 = s * s + c * c
        gw = ((c * ds[0] - s * dc[0]) / r2, (c * ds[1] - s * dc[1]) / r2, (c * ds[2] - s * dc[2]) / r2)
        # dtheta = w_i . gw - w_j . gw ; Q = -n dtheta/dq
        add_marker_torque(sv, q, mi, gw[0], gw[1], gw[2], -n, Q)
        add_marker_torque(sv, q, mj, gw[0], gw[1], gw[2], n, Q)
        o = a.out_adr[k]
        out[o] = theta
        out[o + 1] = thd
        out[o + 2] = n
    return V
