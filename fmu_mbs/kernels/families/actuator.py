"""Translational actuator between two marker origins: f(t) + u[input] > 0 pushes them apart (a power port: its
work counts as input, so it acts in MODE_FULL only). Outputs: length (m), speed (m/s), force (N)."""

from __future__ import annotations

from ..inner import inner_kernel
from ..marker_loads import add_marker_force, line, time_function
from ..model_arrays import MODE_FULL, arrays_type

Arrays = arrays_type("ActuatorArrays", ["mi", "mj", "fn", "input_adr", "out_adr"], __name__, "Arrays")
N_OUT = 3
N_STATES = 0


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, t, q, u, mode, Q, out):
    """Q += the actuator forces; writes the output blocks."""
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        e, l, ld = line(sv, mi, mj)
        f = 0.0
        if mode == MODE_FULL:
            f = time_function(sv, a.fn[k], t)
            if a.input_adr[k] >= 0:
                f += u[a.input_adr[k]]
            add_marker_force(sv, q, mj, f * e[0], f * e[1], f * e[2], 1.0, Q)
            add_marker_force(sv, q, mi, f * e[0], f * e[1], f * e[2], -1.0, Q)
        o = a.out_adr[k]
        out[o] = l
        out[o + 1] = ld
        out[o + 2] = f
    return 0.0
