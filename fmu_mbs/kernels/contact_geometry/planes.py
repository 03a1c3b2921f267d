"""Narrow phase: convex shapes and meshes against a plane (method: the package docstring)."""

from __future__ import annotations

from ..inner import inner_kernel
from .vec import (
    X_AXIS,
    Y_AXIS,
    Z_AXIS,
    _add,
    _axpy,
    _col,
    _cross,
    _dot,
    _norm,
    _point_below_plane,
    _rot,
    _rot_t,
    _scale,
)

# --- pairs against a plane ---------------------------------------------------------------------------------------

@inner_kernel
def _sphere_plane(r, c, P, m, out, k):
    return _point_below_plane(c, r, m, P, out, k)


@inner_kernel
def _capsule_plane(r, h, o, R, P, m, out, k):
    return _capsule_axis_plane(r, h, o, _col(R, Z_AXIS), P, m, out, k)


@inner_kernel
def _capsule_axis_plane(r, h, o, z, P, m, out, k):
    """The capsule of radius r about the segment o + s z, |s| <= h, against the plane (P, m): its two ends."""
    k = _point_below_plane(_axpy(h, z, o), r, m, P, out, k)
    return _point_below_plane(_axpy(-h, z, o), r, m, P, out, k)


@inner_kernel
def _box_plane(hx, hy, hz, o, R, P, m, out, k):
    x = _col(R, X_AXIS)
    y = _col(R, Y_AXIS)
    z = _col(R, Z_AXIS)
    for i in range(8):
        sx = hx if (i & 1) else -hx
        sy = hy if (i & 2) else -hy
        sz = hz if (i & 4) else -hz
        v = _axpy(sx, x, _axpy(sy, y, _axpy(sz, z, o)))
        k = _point_below_plane(v, 0.0, m, P, out, k)
    return k


@inner_kernel
def _cylinder_plane(r, h, o, R, P, m, out, k):
    z = _col(R, Z_AXIS)
    w = _axpy(-_dot(m, z), z, m)       # component of m normal to the axis
    wn = _norm(w)
    if wn > 1e-12:
        u = _scale(-1.0 / wn, w)
    else:
        u = _col(R, X_AXIS)
    v = _cross(z, u)
    for cap in range(2):
        e = _axpy(h if cap == 0 else -h, z, o)
        k = _point_below_plane(_axpy(r, u, e), 0.0, m, P, out, k)
        k = _point_below_plane(_axpy(r, v, e), 0.0, m, P, out, k)
        k = _point_below_plane(_axpy(-r, u, e), 0.0, m, P, out, k)
        k = _point_below_plane(_axpy(-r, v, e), 0.0, m, P, out, k)
    return k


@inner_kernel
def _ellipsoid_plane(a, b, c, o, R, P, m, out, k):
    ml = _rot_t(R, m)
    em = (a * ml[0], b * ml[1], c * ml[2])
    s = _norm(em)
    if s <= 0.0:
        return k
    x_loc = (-a * em[0] / s, -b * em[1] / s, -c * em[2] / s)   # -E^2 m / |E m|
    x = _add(o, _rot(R, x_loc))
    return _point_below_plane(x, 0.0, m, P, out, k)


@inner_kernel
def _mesh_plane(mi, o, R, mesh_ptr, mesh_verts, P, m, out, k):
    for iv in range(mesh_ptr[mi], mesh_ptr[mi + 1]):
        x = _add(o, _rot(R, (mesh_verts[iv, 0], mesh_verts[iv, 1], mesh_verts[iv, 2])))
        k = _point_below_plane(x, 0.0, m, P, out, k)
    return k
