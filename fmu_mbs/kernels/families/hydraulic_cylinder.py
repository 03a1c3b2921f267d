"""Hydraulic cylinder with its 4/3 valve between two marker origins (the equations: kernels/hydraulics.py): the
chamber pressures and the spool are states advanced over the step inside the evaluation; the force is positive
extending. A power port: all its power counts as input, so it acts in MODE_FULL only. Outputs: length (m), speed
(m/s), force (N), p1, p2 (Pa), spool U (1), flows Q1, Q2 (m^3/s)."""

from __future__ import annotations

from ..hydraulics import HP_L_RETRACTED, N_HYD_OUT, N_HYD_STATES, advance_states, cylinder_force
from ..inner import inner_kernel
from ..marker_loads import add_marker_force, line, time_function
from ..model_arrays import MODE_FULL, arrays_type

Arrays = arrays_type("HydraulicCylinderArrays", ["mi", "mj", "par", "fn", "input_adr", "z_adr", "out_adr"],
                     __name__, "Arrays")
N_OUT = N_HYD_OUT
N_STATES = N_HYD_STATES


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, t, q, u, h, zs, zn, mode, Q, out):
    """Q += the cylinder forces with the states advanced over h from zs into zn; writes the output blocks."""
    if mode != MODE_FULL:
        return 0.0
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        e, l, ld = line(sv, mi, mj)
        par = a.par[k]
        uref = time_function(sv, a.fn[k], t)
        if a.input_adr[k] >= 0:
            uref += u[a.input_adr[k]]
        z = a.z_adr[k]
        x = l - par[HP_L_RETRACTED]
        q1, q2 = advance_states(par, zs, z, x, ld, uref, h, zn)
        f = cylinder_force(par, zn[z], zn[z + 1], x, ld)
        add_marker_force(sv, q, mj, f * e[0], f * e[1], f * e[2], 1.0, Q)
        add_marker_force(sv, q, mi, f * e[0], f * e[1], f * e[2], -1.0, Q)
        o = a.out_adr[k]
        out[o] = l
        out[o + 1] = ld
        out[o + 2] = f
        out[o + 3] = zn[z]
        out[o + 4] = zn[z + 1]
        out[o + 5] = zn[z + 2]
        out[o + 6] = q1
        out[o + 7] = q2
    return 0.0
