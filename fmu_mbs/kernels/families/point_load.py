"""Point load: a force at a marker origin and a torque on its body, each component a time function, in world or
marker axes (``frame`` 1: marker). Applied in MODE_FULL only (an input of work). No outputs."""

from __future__ import annotations

from ..inner import inner_kernel
from ..marker_loads import add_marker_force, add_marker_torque, time_function, to_world
from ..model_arrays import MODE_FULL, arrays_type

Arrays = arrays_type("PointLoadArrays", ["marker", "fn", "frame"], __name__, "Arrays")
N_OUT = 0
N_STATES = 0


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, t, q, mode, Q):
    """Q += the point loads (fn: (n, 6) time functions of the force and torque components, -1 = none)."""
    if mode != MODE_FULL:
        return 0.0
    for k in range(a.marker.shape[0]):
        mk = a.marker[k]
        fn = a.fn[k]
        v0 = time_function(sv, fn[0], t)
        v1 = time_function(sv, fn[1], t)
        v2 = time_function(sv, fn[2], t)
        v3 = time_function(sv, fn[3], t)
        v4 = time_function(sv, fn[4], t)
        v5 = time_function(sv, fn[5], t)
        if a.frame[k] == 1:
            F = to_world(sv.R, mk, v0, v1, v2)
            T = to_world(sv.R, mk, v3, v4, v5)
        else:
            F = (v0, v1, v2)
            T = (v3, v4, v5)
        add_marker_force(sv, q, mk, F[0], F[1], F[2], 1.0, Q)
        add_marker_torque(sv, q, mk, T[0], T[1], T[2], 1.0, Q)
    return 0.0
