"""How element forces reach the coordinates: through the markers they act on, never through a body directly.

Every element family kernel receives a ``System`` view (the model's dimension and gravity, the marker-to-body map,
the body-kind table, the function pools and the evaluated frames) and applies its loads with the functions here:
a force at a marker origin, a torque on a marker's body, a wrench at any world point carried by a marker's body.
Only these functions (through the body-kind dispatcher kernels/bodies/dispatch.add_load) know how a body kind maps
a load to its coordinates, so an element family never meets a body kind.

Frames (world axes): body CM r; marker origin o, axes R (columns), origin velocity vo, angular velocity wm.
"""

from __future__ import annotations

import math

from numba import njit

from .bodies.dispatch import add_load
from .functions import eval_time_function
from .inner import inner_kernel
from .model_arrays import arrays_type
from .rotation import dot_v

System = arrays_type("System", ["dim", "gravity", "marker_body", "body_kind", "body_q_adr", "flex", "fn_type",
                                "fn_adr", "fn_len", "fn_par", "curve_par", "r", "o", "R", "vo", "wm"], __name__)


@njit(cache=True, inline="always")
def system_view(m, fr):
    """The System view of model arrays ``m`` at the frames ``fr`` (kernels/solver_data.Frames). Inlined: a kernel
    compiled without NRT must not return arrays to one with NRT (the caller would release references it was never
    given, and free arrays Python still owns)."""
    return System(m.dim, m.gravity, m.marker_body, m.body_kind, m.body_q_adr, m.flex, m.fn_type, m.fn_adr, m.fn_len,
                  m.fn_par, m.curve_par, fr.r, fr.o, fr.R, fr.vo, fr.wm)


@inner_kernel(_nrt=False)
def time_function(sv, fn, t):
    """Value of time function ``fn`` at t (0 for fn = -1)."""
    v, _, _ = eval_time_function(sv.fn_type, sv.fn_adr, sv.fn_len, sv.fn_par, fn, t)
    return v


@inner_kernel(_nrt=False)
def add_marker_force(sv, q, k, F0, F1, F2, scale, Q):
    """Q += scale * (force F at the origin of marker k), world axes (N)."""
    add_load(sv, sv.r, sv.o, q, k, sv.o[k, 0], sv.o[k, 1], sv.o[k, 2], F0, F1, F2, 0.0, 0.0, 0.0, scale, Q)


@inner_kernel(_nrt=False)
def add_marker_torque(sv, q, k, T0, T1, T2, scale, Q):
    """Q += scale * (torque T on the body of marker k), world axes (N m)."""
    add_load(sv, sv.r, sv.o, q, k, sv.o[k, 0], sv.o[k, 1], sv.o[k, 2], 0.0, 0.0, 0.0, T0, T1, T2, scale, Q)


@inner_kernel(_nrt=False)
def add_marker_wrench_pair(sv, q, i, j, F0, F1, F2, Ti0, Ti1, Ti2, Tj0, Tj1, Tj2, Q):
    """Q += force F at the origin of marker i and -F at that of marker j, torque Ti on i's body and Tj on j's
    (N, N m; world): an element's loads on its two markers in one call (a call passes the whole System view,
    about a hundred words: four calls cost an element more than its own arithmetic)."""
    o = sv.o
    add_load(sv, sv.r, o, q, i, o[i, 0], o[i, 1], o[i, 2], F0, F1, F2, Ti0, Ti1, Ti2, 1.0, Q)
    add_load(sv, sv.r, o, q, j, o[j, 0], o[j, 1], o[j, 2], -F0, -F1, -F2, Tj0, Tj1, Tj2, 1.0, Q)


@inner_kernel(_nrt=False)
def add_point_force(sv, q, k, p0, p1, p2, F0, F1, F2, scale, Q):
    """Q += scale * (force F at the world point p, carried by the body of marker k)."""
    add_load(sv, sv.r, sv.o, q, k, p0, p1, p2, F0, F1, F2, 0.0, 0.0, 0.0, scale, Q)


@inner_kernel(_nrt=False)
def add_point_wrench(sv, q, k, p0, p1, p2, F0, F1, F2, T0, T1, T2, scale, Q):
    """Q += scale * (force F at the world point p and torque T, carried by the body of marker k)."""
    add_load(sv, sv.r, sv.o, q, k, p0, p1, p2, F0, F1, F2, T0, T1, T2, scale, Q)


@njit(cache=True, inline="always")
def to_world(R, k, x0, x1, x2):
    """World components of a vector given in the axes of marker k (R[k] holds the axes as columns)."""
    return (R[k, 0, 0] * x0 + R[k, 0, 1] * x1 + R[k, 0, 2] * x2,
            R[k, 1, 0] * x0 + R[k, 1, 1] * x1 + R[k, 1, 2] * x2,
            R[k, 2, 0] * x0 + R[k, 2, 1] * x1 + R[k, 2, 2] * x2)


@njit(cache=True, _nrt=False)
def line(sv, mi, mj):
    """Unit vector e from origin_i to origin_j, the length l (m) and its rate l' (m/s)."""
    o, vo = sv.o, sv.vo
    d = (o[mj, 0] - o[mi, 0], o[mj, 1] - o[mi, 1], o[mj, 2] - o[mi, 2])
    l = math.sqrt(dot_v(d, d))
    if l == 0.0:
        return (0.0, 0.0, 0.0), 0.0, 0.0
    e = (d[0] / l, d[1] / l, d[2] / l)
    ld = e[0] * (vo[mj, 0] - vo[mi, 0]) + e[1] * (vo[mj, 1] - vo[mi, 1]) + e[2] * (vo[mj, 2] - vo[mi, 2])
    return e, l, ld
