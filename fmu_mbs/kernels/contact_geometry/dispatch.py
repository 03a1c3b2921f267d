"""``collide``: the implemented pairs in either order, and the scalar fast paths of the commonest pairs."""

from __future__ import annotations

from numba import njit

from ..inner import inner_kernel
from ..model_arrays import ZERO
from .convex import (
    _capsule_capsule,
    _capsule_capsule_axes,
    _sphere_box,
    _sphere_capsule,
    _sphere_capsule_axis,
    _sphere_sphere,
)
from .ellipsoids import _ellipsoid_ellipsoid, _shape_matrix
from .mesh import _sphere_mesh
from .planar import _circle_polygon
from .planes import (
    _box_plane,
    _capsule_axis_plane,
    _capsule_plane,
    _cylinder_plane,
    _ellipsoid_plane,
    _mesh_plane,
    _sphere_plane,
)
from .shapes import (
    SHAPE_BOX,
    SHAPE_CAPSULE,
    SHAPE_CYLINDER,
    SHAPE_ELLIPSOID,
    SHAPE_LINE,
    SHAPE_MESH,
    SHAPE_PLANAR_CAPSULE,
    SHAPE_PLANE,
    SHAPE_POLYGON,
    SHAPE_SPHERE,
)
from .vec import X_AXIS, Y_AXIS, Z_AXIS, _col, _vec

# --- dispatch ---------------------------------------------------------------------------------------------------

@inner_kernel
def _collide_ordered(ka, pa, oa, Ra, kb, pb, ob, Rb, mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris, out):
    """The implemented pairs in their own order (a, b); -1 if (ka, kb) is not one of them."""
    ca = _vec(oa)
    cb = _vec(ob)
    if kb == SHAPE_PLANE:
        m = _col(Rb, Z_AXIS)
        if ka == SHAPE_SPHERE:
            return _sphere_plane(pa[0], ca, cb, m, out, ZERO)
        if ka == SHAPE_BOX:
            return _box_plane(pa[0], pa[1], pa[2], ca, Ra, cb, m, out, ZERO)
        if ka == SHAPE_CAPSULE:
            return _capsule_plane(pa[0], pa[1], ca, Ra, cb, m, out, ZERO)
        if ka == SHAPE_CYLINDER:
            return _cylinder_plane(pa[0], pa[1], ca, Ra, cb, m, out, ZERO)
        if ka == SHAPE_ELLIPSOID:
            return _ellipsoid_plane(pa[0], pa[1], pa[2], ca, Ra, cb, m, out, ZERO)
        if ka == SHAPE_MESH:
            return _mesh_plane(int(pa[0] + 0.5), ca, Ra, mesh_ptr, mesh_verts, cb, m, out, ZERO)
        return -1
    if kb == SHAPE_LINE:
        m = _col(Rb, Y_AXIS)           # a line's normal is its marker's y axis
        if ka == SHAPE_SPHERE:
            return _sphere_plane(pa[0], ca, cb, m, out, ZERO)
        if ka == SHAPE_PLANAR_CAPSULE:
            return _capsule_axis_plane(pa[0], pa[1], ca, _col(Ra, X_AXIS), cb, m, out, ZERO)
        if ka == SHAPE_POLYGON:
            return _mesh_plane(int(pa[0] + 0.5), ca, Ra, mesh_ptr, mesh_verts, cb, m, out, ZERO)
        return -1
    if ka == SHAPE_SPHERE:
        if kb == SHAPE_SPHERE:
            return _sphere_sphere(pa[0], ca, pb[0], cb, (0.0, 0.0, 1.0), out, ZERO)
        if kb == SHAPE_BOX:
            return _sphere_box(pa[0], ca, pb[0], pb[1], pb[2], cb, Rb, out, ZERO)
        if kb == SHAPE_CAPSULE:
            return _sphere_capsule(pa[0], ca, pb[0], pb[1], cb, Rb, out, ZERO)
        if kb == SHAPE_MESH:
            return _sphere_mesh(pa[0], ca, int(pb[0] + 0.5), cb, Rb, mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris,
                                out, ZERO)
        if kb == SHAPE_PLANAR_CAPSULE:
            return _sphere_capsule_axis(pa[0], ca, pb[0], pb[1], cb, _col(Rb, X_AXIS), out, ZERO)
        if kb == SHAPE_POLYGON:
            return _circle_polygon(pa[0], ca, int(pb[0] + 0.5), cb, Rb, mesh_ptr, mesh_verts, out, ZERO)
        if kb == SHAPE_ELLIPSOID:
            r2 = pa[0] * pa[0]
            return _ellipsoid_ellipsoid(ca, (r2, r2, r2, 0.0, 0.0, 0.0), cb,
                                        _shape_matrix(Rb, pb[0], pb[1], pb[2]), out, ZERO)
        return -1
    if ka == SHAPE_CAPSULE and kb == SHAPE_CAPSULE:
        return _capsule_capsule(pa[0], pa[1], ca, Ra, pb[0], pb[1], cb, Rb, out, ZERO)
    if ka == SHAPE_PLANAR_CAPSULE and kb == SHAPE_PLANAR_CAPSULE:
        return _capsule_capsule_axes(pa[0], pa[1], ca, _col(Ra, X_AXIS), pb[0], pb[1], cb, _col(Rb, X_AXIS), out, ZERO)
    if ka == SHAPE_ELLIPSOID and kb == SHAPE_ELLIPSOID:
        return _ellipsoid_ellipsoid(ca, _shape_matrix(Ra, pa[0], pa[1], pa[2]), cb,
                                    _shape_matrix(Rb, pb[0], pb[1], pb[2]), out, ZERO)
    return -1


@njit(cache=True)
def collide(kind_a, par_a, o_a, R_a, kind_b, par_b, o_b, R_b, mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris, out):
    """Contact points of shape a against shape b into ``out`` (float64[MAX_POINTS, 7] rows (depth, n, p), n from
    b towards a); returns their number, 0 when separated, -1 for an unsupported pair (see the module docstring)."""
    n = _collide_ordered(kind_a, par_a, o_a, R_a, kind_b, par_b, o_b, R_b,
                         mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris, out)
    if n >= 0:
        return n
    n = _collide_ordered(kind_b, par_b, o_b, R_b, kind_a, par_a, o_a, R_a,
                         mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris, out)
    for i in range(n):
        out[i, 1] = -out[i, 1]
        out[i, 2] = -out[i, 2]
        out[i, 3] = -out[i, 3]
    return n


# --- fast paths: the commonest pairs with scalar arguments (no array set-up per call; same arithmetic) ----------

@njit(cache=True, _nrt=False)
def sphere_sphere(ra, a0, a1, a2, rb, b0, b1, b2, out):
    """``collide`` of sphere a (radius ra, centre a) against sphere b: 0 or 1 point in ``out``, the same rows."""
    return _sphere_sphere(ra, (a0, a1, a2), rb, (b0, b1, b2), (0.0, 0.0, 1.0), out, ZERO)


@njit(cache=True, _nrt=False)
def sphere_plane(r, c0, c1, c2, p0, p1, p2, m0, m1, m2, sign, out):
    """``collide`` of a sphere (radius r, centre c) and a plane (point p, unit normal m): 0 or 1 point in ``out``;
    sign = 1 with the sphere as side a, -1 with the plane as side a (the normal flipped, as collide does)."""
    n = _sphere_plane(r, (c0, c1, c2), (p0, p1, p2), (m0, m1, m2), out, ZERO)
    if sign < 0.0:
        for i in range(n):
            out[i, 1] = -out[i, 1]
            out[i, 2] = -out[i, 2]
            out[i, 3] = -out[i, 3]
    return n
