"""Euler-parameter and small-vector algebra (seed 004 r-p formulation; Haug ch. 9 / 11).

p = [e0, e1, e2, e3] (w, x, y, z), A(p) = (2 e0^2 - 1) I + 2 (e e^T + e0 e~), evaluated on p/|p|.
E(p) = [-e, e~ + e0 I], G(p) = [-e, -e~ + e0 I] (3x4); omega = 2 E p', omega_body = 2 G p' (written out
in kernels/bodies/rigid.py, where they are used).
Small vectors are passed as 3-tuples of floats so that kernels allocate nothing.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, inline="always")
def cross(a0, a1, a2, b0, b1, b2):
    """a x b for scalar components; returns a 3-tuple."""
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True, inline="always")
def cross_v(a, b):
    """a x b for 3-tuples or length-3 arrays; returns a 3-tuple."""
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@njit(cache=True, inline="always")
def dot_v(a, b):
    """a . b for 3-tuples or length-3 arrays."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, inline="always")
def wxwxs(w, s):
    """Centripetal term w x (w x s) as a 3-tuple."""
    return cross_v(w, cross_v(w, s))


@njit(cache=True, _nrt=False)
def quat_to_matrix(p, out):
    """Rotation matrix A(p/|p|) of Euler parameters p = [w, x, y, z] into ``out`` (3x3)."""
    n = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3])
    e0 = p[0] / n
    e1 = p[1] / n
    e2 = p[2] / n
    e3 = p[3] / n
    out[0, 0] = 2.0 * (e0 * e0 + e1 * e1) - 1.0
    out[0, 1] = 2.0 * (e1 * e2 - e0 * e3)
    out[0, 2] = 2.0 * (e1 * e3 + e0 * e2)
    out[1, 0] = 2.0 * (e1 * e2 + e0 * e3)
    out[1, 1] = 2.0 * (e0 * e0 + e2 * e2) - 1.0
    out[1, 2] = 2.0 * (e2 * e3 - e0 * e1)
    out[2, 0] = 2.0 * (e1 * e3 - e0 * e2)
    out[2, 1] = 2.0 * (e2 * e3 + e0 * e1)
    out[2, 2] = 2.0 * (e0 * e0 + e3 * e3) - 1.0
