"""Translational spring-damper-actuator (TSDA; seed 004, Haug p. 445): f = k (l - l0) + c l' + h(t), positive in
tension, along the line between two marker origins; a spring curve (deflection -> force) replaces k and a damper
curve (l' -> force) replaces c. Outputs: length (m), speed (m/s), f (N). Energy: the spring's (J)."""

from __future__ import annotations

from ..functions import eval_curve
from ..inner import inner_kernel
from ..marker_loads import add_marker_force, line, time_function
from ..model_arrays import MODE_CONSERVATIVE, MODE_FULL, arrays_type

Arrays = arrays_type("SpringDamperArrays", ["mi", "mj", "k", "l0", "c", "fn", "spring", "damper", "out_adr"],
                     __name__, "Arrays")
N_OUT = 3
N_STATES = 0


@inner_kernel(_nrt=False)
def spring_force(curve_par, curve, k, x):
    """(force, elastic energy) of a linear spring k x or of a curve (address, points; points = 0: none)."""
    if curve[1] > 0:
        f, _, V = eval_curve(curve_par, curve[0], curve[1], x)
        return f, V
    return k * x, 0.5 * k * x * x


@inner_kernel(_nrt=False)
def damper_force(curve_par, curve, c, v, mode):
    """Force of a linear damper c v or of a damper curve; 0 in MODE_CONSERVATIVE."""
    if mode == MODE_CONSERVATIVE:
        return 0.0
    if curve[1] > 0:
        f, _, _ = eval_curve(curve_par, curve[0], curve[1], v)
        return f
    return c * v


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, t, q, mode, Q, out):
    """Q += the TSDA forces; writes the output blocks; returns the spring energy (J)."""
    V = 0.0
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        e, l, ld = line(sv, mi, mj)
        fs, Vs = spring_force(sv.curve_par, a.spring[k], a.k[k], l - a.l0[k])
        fdmp = damper_force(sv.curve_par, a.damper[k], a.c[k], ld, mode)
        ht = time_function(sv, a.fn[k], t) if mode == MODE_FULL else 0.0
        f = fs + fdmp + ht
        V += Vs
        add_marker_force(sv, q, mi, f * e[0], f * e[1], f * e[2], 1.0, Q)
        add_marker_force(sv, q, mj, f * e[0], f * e[1], f * e[2], -1.0, Q)
        o = a.out_adr[k]
        out[o] = l
        out[o + 1] = ld
        out[o + 2] = f
    return V
