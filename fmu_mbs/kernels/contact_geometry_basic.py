"""Narrow phase for the basic pairs: sphere-plane, sphere-sphere, box-plane (interim: the full narrow phase
``contact_geometry.collide`` has the same signature and constants, and replaces this module's import in
kernels/contact.py).

A shape's pose is its marker frame: origin ``o`` and rotation ``R`` (columns = the frame's axes, world).
``collide`` writes rows (depth, nx, ny, nz, px, py, pz) into ``out``: depth > 0 (m), the unit normal pointing
from b towards a (the force on a is +fn n), and the world point midway between the deepest points of the two
surfaces along n. It returns the number of points, or -1 for a pair it does not implement.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

SHAPE_SPHERE = 0      # params[0] = radius
SHAPE_PLANE = 1       # half-space z < 0 of the shape frame, normal +z
SHAPE_BOX = 2         # params[0:3] = half extents
SHAPE_CAPSULE = 3     # params[0] = radius, params[1] = half length along z
SHAPE_CYLINDER = 4    # params[0] = radius, params[1] = half length along z
SHAPE_ELLIPSOID = 5   # params[0:3] = semi-axes
SHAPE_MESH = 6        # params[0] = index of the mesh in the mesh pools
N_SHAPE_PARAMS = 4
MAX_POINTS = 8

#: (kind_a, kind_b) pairs this module implements, in either order
SUPPORTED_PAIRS = frozenset({(SHAPE_SPHERE, SHAPE_PLANE), (SHAPE_SPHERE, SHAPE_SPHERE), (SHAPE_BOX, SHAPE_PLANE)})


def pair_supported(kind_a: int, kind_b: int) -> bool:
    """Whether ``collide`` implements the pair (in either order)."""
    return (kind_a, kind_b) in SUPPORTED_PAIRS or (kind_b, kind_a) in SUPPORTED_PAIRS


@njit(cache=True)
def _row(out, i, depth, n0, n1, n2, p0, p1, p2):
    out[i, 0] = depth
    out[i, 1] = n0
    out[i, 2] = n1
    out[i, 3] = n2
    out[i, 4] = p0
    out[i, 5] = p1
    out[i, 6] = p2


@njit(cache=True)
def sphere_plane(par_s, o_s, o_p, R_p, out):
    """Sphere (a) against the half-space z < 0 of frame (o_p, R_p) (b); normal +z_p."""
    n0, n1, n2 = R_p[0, 2], R_p[1, 2], R_p[2, 2]
    dist = (o_s[0] - o_p[0]) * n0 + (o_s[1] - o_p[1]) * n1 + (o_s[2] - o_p[2]) * n2
    r = par_s[0]
    depth = r - dist
    if depth <= 0.0:
        return 0
    back = 0.5 * (r + dist)        # from the centre to the midpoint of the deepest points
    _row(out, 0, depth, n0, n1, n2, o_s[0] - back * n0, o_s[1] - back * n1, o_s[2] - back * n2)
    return 1


@njit(cache=True)
def sphere_sphere(par_a, o_a, par_b, o_b, out):
    """Two spheres; the normal points from b's centre to a's (+z if the centres coincide)."""
    d0, d1, d2 = o_a[0] - o_b[0], o_a[1] - o_b[1], o_a[2] - o_b[2]
    dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    ra, rb = par_a[0], par_b[0]
    depth = ra + rb - dist
    if depth <= 0.0:
        return 0
    if dist > 0.0:
        n0, n1, n2 = d0 / dist, d1 / dist, d2 / dist
    else:
        n0, n1, n2 = 0.0, 0.0, 1.0
    s = 0.5 * (rb - ra + dist)    # b's centre + s n is the midpoint of a's deepest and b's deepest points
    _row(out, 0, depth, n0, n1, n2, o_b[0] + s * n0, o_b[1] + s * n1, o_b[2] + s * n2)
    return 1


@njit(cache=True)
def box_plane(par_b, o_b, R_b, o_p, R_p, out):
    """Box (a) against a half-space (b): every vertex below the plane, in vertex order (x fastest)."""
    n0, n1, n2 = R_p[0, 2], R_p[1, 2], R_p[2, 2]
    k = 0
    for v in range(8):
        sx = par_b[0] if (v & 1) else -par_b[0]
        sy = par_b[1] if (v & 2) else -par_b[1]
        sz = par_b[2] if (v & 4) else -par_b[2]
        x0 = o_b[0] + R_b[0, 0] * sx + R_b[0, 1] * sy + R_b[0, 2] * sz
        x1 = o_b[1] + R_b[1, 0] * sx + R_b[1, 1] * sy + R_b[1, 2] * sz
        x2 = o_b[2] + R_b[2, 0] * sx + R_b[2, 1] * sy + R_b[2, 2] * sz
        dist = (x0 - o_p[0]) * n0 + (x1 - o_p[1]) * n1 + (x2 - o_p[2]) * n2
        if dist < 0.0:
            h = 0.5 * dist
            _row(out, k, -dist, n0, n1, n2, x0 - h * n0, x1 - h * n1, x2 - h * n2)
            k += 1
    return k


@njit(cache=True)
def _flip(out, n):
    for i in range(n):
        for c in range(1, 4):
            out[i, c] = -out[i, c]


@njit(cache=True)
def collide(kind_a, par_a, o_a, R_a, kind_b, par_b, o_b, R_b, mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris, out):
    """Contact points of shape a against shape b into ``out`` (MAX_POINTS, 7); returns their number, or -1 for
    an unsupported pair (see the module docstring)."""
    if kind_a == SHAPE_SPHERE and kind_b == SHAPE_PLANE:
        return sphere_plane(par_a, o_a, o_b, R_b, out)
    if kind_a == SHAPE_PLANE and kind_b == SHAPE_SPHERE:
        n = sphere_plane(par_b, o_b, o_a, R_a, out)
        _flip(out, n)
        return n
    if kind_a == SHAPE_SPHERE and kind_b == SHAPE_SPHERE:
        return sphere_sphere(par_a, o_a, par_b, o_b, out)
    if kind_a == SHAPE_BOX and kind_b == SHAPE_PLANE:
        return box_plane(par_a, o_a, R_a, o_b, R_b, out)
    if kind_a == SHAPE_PLANE and kind_b == SHAPE_BOX:
        n = box_plane(par_b, o_b, R_b, o_a, R_a, out)
        _flip(out, n)
        return n
    return -1


def empty_mesh_pools() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris) of a model without meshes."""
    return (np.zeros(1, dtype=np.int64), np.zeros((0, 3)), np.zeros(1, dtype=np.int64),
            np.zeros((0, 3), dtype=np.int64))
