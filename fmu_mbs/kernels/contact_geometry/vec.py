"""Small vector algebra on 3-tuples (no allocation) and the contact output rows of the narrow phase."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..inner import inner_kernel
from .shapes import MAX_POINTS

# --- small vector algebra on 3-tuples (no allocation) -----------------------------------------------------------

@njit(cache=True)
def _vec(a):
    return a[0], a[1], a[2]


# column indices for _col: numpy integers, not the literals 0, 1, 2 (numba would compile _col once per literal)
X_AXIS, Y_AXIS, Z_AXIS = np.int64(0), np.int64(1), np.int64(2)


@inner_kernel
def _col(R, j):
    return R[0, j], R[1, j], R[2, j]


@njit(cache=True)
def _rot(R, v):
    """R v."""
    return (R[0, 0] * v[0] + R[0, 1] * v[1] + R[0, 2] * v[2],
            R[1, 0] * v[0] + R[1, 1] * v[1] + R[1, 2] * v[2],
            R[2, 0] * v[0] + R[2, 1] * v[1] + R[2, 2] * v[2])


@inner_kernel
def _rot_t(R, v):
    """R^T v."""
    return (R[0, 0] * v[0] + R[1, 0] * v[1] + R[2, 0] * v[2],
            R[0, 1] * v[0] + R[1, 1] * v[1] + R[2, 1] * v[2],
            R[0, 2] * v[0] + R[1, 2] * v[1] + R[2, 2] * v[2])


@inner_kernel
def _add(a, b):
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


@inner_kernel
def _sub(a, b):
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


@inner_kernel
def _axpy(s, a, b):
    """s a + b."""
    return s * a[0] + b[0], s * a[1] + b[1], s * a[2] + b[2]


@inner_kernel
def _scale(s, a):
    return s * a[0], s * a[1], s * a[2]


@inner_kernel
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@inner_kernel
def _cross(a, b):
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@inner_kernel
def _norm(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@inner_kernel
def _clamp(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


# --- output rows ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _write(out, i, depth, n, p):
    out[i, 0] = depth
    out[i, 1] = n[0]
    out[i, 2] = n[1]
    out[i, 3] = n[2]
    out[i, 4] = p[0]
    out[i, 5] = p[1]
    out[i, 6] = p[2]


@inner_kernel
def _push(out, k, depth, n, p):
    """Append a contact row; when all MAX_POINTS rows are used, replace the shallowest if this one is deeper."""
    if k < MAX_POINTS:
        _write(out, k, depth, n, p)
        return k + 1
    j = 0
    for i in range(1, MAX_POINTS):
        if out[i, 0] < out[j, 0]:
            j = i
    if depth > out[j, 0]:
        _write(out, j, depth, n, p)
    return k


@inner_kernel
def _point_below_plane(x, radius, m, P, out, k):
    """A point x (or a sphere of ``radius`` about it) against the plane (P, m): one row if it penetrates."""
    d = _dot(m, _sub(x, P))
    depth = radius - d
    if depth <= 0.0:
        return k
    # deepest point of the shape x - radius m, its projection on the plane lies depth further along m
    return _push(out, k, depth, m, _axpy(0.5 * depth - radius, m, x))
