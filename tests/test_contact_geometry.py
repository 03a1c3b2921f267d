"""Narrow phase (kernels/contact_geometry/) against closed forms and independent brute-force computations
(scipy minimisation over the surfaces written here), plus swap symmetry, rigid-motion invariance and continuity.
The broad phase has its own file (test_broad_phase.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial.transform import Rotation

from fmu_mbs.kernels.contact_geometry import (
    MAX_POINTS,
    N_SHAPE_KINDS,
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
    SUPPORTED_PAIRS,
    collide,
    pair_supported,
    sphere_plane,
    sphere_sphere,
)

I3 = np.eye(3)


# --- helpers ----------------------------------------------------------------------------------------------------

def shape(kind, par=(), o=(0.0, 0.0, 0.0), R=I3):
    p = np.zeros(4)
    p[:len(par)] = par
    return kind, p, np.array(o, dtype=float), np.ascontiguousarray(R, dtype=float)


def rot(rotvec):
    return np.ascontiguousarray(Rotation.from_rotvec(rotvec).as_matrix())


def random_rot(rng):
    return np.ascontiguousarray(Rotation.random(random_state=rng).as_matrix())


AXIS_X = rot([0.0, math.pi / 2, 0.0])      # shape z along world x
AXIS_Y = rot([-math.pi / 2, 0.0, 0.0])     # shape z along world y


def pack_meshes(*meshes):
    """(mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris) pools of a list of (verts, tris)."""
    vptr = [0]
    tptr = [0]
    for v, t in meshes:
        vptr.append(vptr[-1] + len(v))
        tptr.append(tptr[-1] + len(t))
    verts = np.ascontiguousarray(np.vstack([v for v, _ in meshes]) if meshes else np.zeros((0, 3)), dtype=float)
    tris = np.ascontiguousarray(np.vstack([t for _, t in meshes]) if meshes else np.zeros((0, 3)), dtype=np.int64)
    return np.array(vptr, dtype=np.int64), verts, np.array(tptr, dtype=np.int64), tris


NO_MESH = pack_meshes()


def contacts(a, b, mesh=NO_MESH):
    out = np.full((MAX_POINTS, 7), np.nan)
    n = collide(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], *mesh, out)
    return n, out[:max(n, 0)].copy()


def one(a, b, mesh=NO_MESH):
    n, c = contacts(a, b, mesh)
    assert n == 1, (n, c)
    return c[0, 0], c[0, 1:4], c[0, 4:7]


def grid_mesh(half=1.0, cells=4):
    """Flat square [-half, half]^2 in z = 0, two triangles per cell, counter-clockwise seen from +z."""
    xs = np.linspace(-half, half, cells + 1)
    verts = np.array([(x, y, 0.0) for y in xs for x in xs])
    tris = []
    for j in range(cells):
        for i in range(cells):
            v00 = j * (cells + 1) + i
            v10, v01, v11 = v00 + 1, v00 + cells + 1, v00 + cells + 2
            tris += [(v00, v10, v11), (v00, v11, v01)] if (i + j) % 2 else [(v00, v10, v01), (v10, v11, v01)]
    return verts, np.array(tris)


def box_mesh(hx, hy, hz):
    """Box as 12 triangles, counter-clockwise seen from outside; vertex i = (+-hx, +-hy, +-hz) by bits of i."""
    verts = np.array([((hx if i & 1 else -hx), (hy if i & 2 else -hy), (hz if i & 4 else -hz)) for i in range(8)])
    tris = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3      # e_u x e_v = e_axis
        for sign in (1, -1):
            def vid(su, sv, axis=axis, sign=sign, u=u, v=v):
                bits = {axis: sign > 0, u: su > 0, v: sv > 0}
                return sum(1 << k for k in range(3) if bits[k])
            quad = [vid(-1, -1), vid(1, -1), vid(1, 1), vid(-1, 1)]
            if sign < 0:
                quad = quad[::-1]
            tris += [(quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])]
    tris = np.array(tris)
    for t in tris:      # the helper's own check: outward normals
        a, b, c = verts[t]
        assert np.cross(b - a, c - a) @ (a + b + c) > 0
    return verts, tris


# --- sphere, plane ----------------------------------------------------------------------------------------------

def test_sphere_on_tilted_plane_at_height_h():
    rng = np.random.default_rng(1)
    Rp = random_rot(rng)
    m = Rp[:, 2]
    P = np.array([0.3, -0.2, 0.5])
    r, h = 0.5, 0.3
    c = P + h * m + 0.7 * Rp[:, 0] - 0.4 * Rp[:, 1]
    depth, n, p = one(shape(SHAPE_SPHERE, [r], c), shape(SHAPE_PLANE, [], P, Rp))
    assert depth == pytest.approx(r - h, abs=1e-14)
    assert n == pytest.approx(m, abs=1e-14)
    # midway between the sphere's lowest point c - r m and its projection on the plane c - h m
    assert p == pytest.approx(c - 0.5 * (r + h) * m, abs=1e-14)
    assert contacts(shape(SHAPE_SPHERE, [r], P + 0.51 * m), shape(SHAPE_PLANE, [], P, Rp))[0] == 0


def test_two_spheres():
    u = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    cb = np.array([0.1, 0.2, 0.3])
    ra, rb, dist = 0.5, 0.3, 0.7
    depth, n, p = one(shape(SHAPE_SPHERE, [ra], cb + dist * u), shape(SHAPE_SPHERE, [rb], cb))
    assert depth == pytest.approx(ra + rb - dist, abs=1e-14)
    assert n == pytest.approx(u, abs=1e-14)
    assert p == pytest.approx(cb + 0.5 * ((dist - ra) + rb) * u, abs=1e-14)
    assert contacts(shape(SHAPE_SPHERE, [ra], cb + 0.81 * u), shape(SHAPE_SPHERE, [rb], cb))[0] == 0


# --- box on plane -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("zc, n_expected", [(0.25, 2), (0.1, 4), (-0.5, 8)])
def test_box_tilted_on_plane_vertex_depths(zc, n_expected):
    """Box rotated by theta about world x: vertex (sx hx, sy hy, sz hz) sits at z = zc + sy hy sin + sz hz cos."""
    hx, hy, hz, th = 0.4, 0.3, 0.2, 0.3
    box = shape(SHAPE_BOX, [hx, hy, hz], (0.2, -0.1, zc), rot([th, 0.0, 0.0]))
    n, c = contacts(box, shape(SHAPE_PLANE))
    expected = []
    for sx, sy, sz in itertools.product((-1, 1), repeat=3):
        z = zc + sy * hy * math.sin(th) + sz * hz * math.cos(th)
        if z < 0:
            x = 0.2 + sx * hx
            y = -0.1 + sy * hy * math.cos(th) - sz * hz * math.sin(th)
            expected.append((-z, 0.0, 0.0, 1.0, x, y, z / 2))
    assert n == len(expected) == n_expected
    key = np.lexsort
    got = c[key((c[:, 5], c[:, 4]))]
    exp = np.array(expected)
    exp = exp[key((exp[:, 5], exp[:, 4]))]
    assert got == pytest.approx(exp, abs=1e-14)


# --- capsules ---------------------------------------------------------------------------------------------------

def _segment_distance_scipy(oa, za, ha, ob, zb, hb):
    """Minimum distance between two segments by bounded minimisation (convex in (s, t))."""
    def fun(st):
        d = oa + st[0] * za - ob - st[1] * zb
        return d @ d
    best = min((minimize(fun, x0, bounds=[(-ha, ha), (-hb, hb)], method="L-BFGS-B",
                         options={"ftol": 1e-15, "gtol": 1e-12}) for x0 in [(0, 0), (ha, -hb), (-ha, hb)]),
               key=lambda res: res.fun)
    return math.sqrt(max(best.fun, 0.0))


def test_capsules_crossing_at_an_angle():
    phi = 0.7
    ra, rb, gap = 0.2, 0.15, 0.3
    Rb = rot([0.0, 0.0, phi]) @ AXIS_X
    a = shape(SHAPE_CAPSULE, [ra, 1.0], (0, 0, 0), AXIS_X)
    for shift in (0.0, 0.5):   # b's centre moved along its own axis: the axes still cross at a's centre
        ob = np.array([0.0, 0.0, gap]) + shift * Rb[:, 2]
        depth, n, p = one(a, shape(SHAPE_CAPSULE, [rb, 0.8], ob, Rb))
        assert depth == pytest.approx(ra + rb - gap, abs=1e-14)
        assert n == pytest.approx([0, 0, -1], abs=1e-14)
        assert p == pytest.approx([0, 0, 0.5 * (ra + gap - rb)], abs=1e-14)
    # shifted beyond its half length: b's end is the closest feature; distance from a clamped minimisation
    ob = np.array([0.0, 0.0, gap]) + 1.0 * Rb[:, 2]
    depth, n, p = one(a, shape(SHAPE_CAPSULE, [rb, 0.8], ob, Rb))
    end = ob - 0.8 * Rb[:, 2]
    assert depth == pytest.approx(ra + rb - math.hypot(0.2 * math.sin(phi), gap), abs=1e-14)
    assert n == pytest.approx(-(end - [end[0], 0, 0]) / np.linalg.norm(end - [end[0], 0, 0]), abs=1e-14)


def test_capsule_pairs_against_bounded_minimisation():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(40):
        Ra, Rb = random_rot(rng), random_rot(rng)
        ha, hb = rng.uniform(0.2, 1.0, 2)
        oa = rng.uniform(-0.3, 0.3, 3)
        ob = rng.uniform(-0.3, 0.3, 3)
        dmin = _segment_distance_scipy(oa, Ra[:, 2], ha, ob, Rb[:, 2], hb)
        ra = rb = dmin / 2 + 0.05
        depth, n, p = one(shape(SHAPE_CAPSULE, [ra, ha], oa, Ra), shape(SHAPE_CAPSULE, [rb, hb], ob, Rb))
        assert depth == pytest.approx(ra + rb - dmin, abs=1e-7)
        # a moved by depth along n just touches: the segment distance becomes ra + rb
        assert _segment_distance_scipy(oa + depth * n, Ra[:, 2], ha, ob, Rb[:, 2], hb) == pytest.approx(
            ra + rb, abs=1e-7)
        checked += 1
    assert checked == 40


def test_parallel_capsules_take_the_middle_of_the_overlap_continuously():
    ra, rb, gap = 0.2, 0.15, 0.3
    a = shape(SHAPE_CAPSULE, [ra, 1.0], (0, 0, 0), AXIS_X)
    # b from x = -0.5 to 1.5: overlap [-0.5, 1], middle 0.25
    depth, n, p = one(a, shape(SHAPE_CAPSULE, [rb, 1.0], (0.5, 0, gap), AXIS_X))
    assert depth == pytest.approx(ra + rb - gap, abs=1e-14)
    assert n == pytest.approx([0, 0, -1], abs=1e-14)
    assert p == pytest.approx([0.25, 0, 0.5 * (ra + gap - rb)], abs=1e-14)
    # turning b about the vertical through that middle point: the closest points stay there (lines cross there)
    for ang in (1e-9, 1e-7, 1e-5, 1e-3, -1e-3):
        Rb = rot([0, 0, ang]) @ AXIS_X
        ob = np.array([0.25, 0, gap]) + 0.25 * Rb[:, 2]
        d2, n2, p2 = one(a, shape(SHAPE_CAPSULE, [rb, 1.0], ob, Rb))
        assert d2 == pytest.approx(depth, abs=1e-12)
        assert p2 == pytest.approx(p, abs=1e-6)


def test_capsule_on_plane_tilted_and_flat():
    r, h, al = 0.1, 0.5, 0.2
    R = rot([0, al, 0]) @ I3       # axis tilted by al from the vertical towards +x
    zc = h * math.cos(al) + r - 0.02
    n_c, c = contacts(shape(SHAPE_CAPSULE, [r, h], (0, 0, zc), R), shape(SHAPE_PLANE))
    assert n_c == 1
    end = np.array([-h * math.sin(al), 0, zc - h * math.cos(al)])
    assert c[0] == pytest.approx([0.02, 0, 0, 1, end[0], 0, (end[2] - r) / 2], abs=1e-14)
    n_c, c = contacts(shape(SHAPE_CAPSULE, [r, h], (0, 0, r - 0.01), AXIS_X), shape(SHAPE_PLANE))
    assert n_c == 2
    assert sorted(c[:, 4]) == pytest.approx([-h, h], abs=1e-14)
    assert c[:, 0] == pytest.approx([0.01, 0.01], abs=1e-14)


def test_sphere_against_capsule_side_and_end():
    cap = shape(SHAPE_CAPSULE, [0.2, 0.5], (0, 0, 0), AXIS_Y)
    depth, n, p = one(shape(SHAPE_SPHERE, [0.1], (0.25, 0.3, 0)), cap)
    assert (depth, *n) == pytest.approx((0.05, 1, 0, 0), abs=1e-14)
    assert p == pytest.approx([0.175, 0.3, 0], abs=1e-14)
    d = np.array([0.1, 0.2, -0.1])
    c = np.array([0, 0.5, 0]) + d
    depth, n, p = one(shape(SHAPE_SPHERE, [0.2], c), cap)
    assert depth == pytest.approx(0.4 - np.linalg.norm(d), abs=1e-14)
    assert n == pytest.approx(d / np.linalg.norm(d), abs=1e-14)


# --- sphere-box -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("local_c, depth, n_local, q_local", [
    ((0.0, 0.0, 0.45), 0.2 - 0.15, (0, 0, 1), (0.0, 0.0, 0.3)),                                  # +z face
    ((0.5, 0.0, 0.4), 0.2 - math.hypot(0.1, 0.1), (1 / math.sqrt(2), 0, 1 / math.sqrt(2)), (0.4, 0.0, 0.3)),  # edge
    ((0.45, -0.25, 0.32), 0.2 - math.sqrt(0.05 ** 2 + 0.05 ** 2 + 0.02 ** 2), None, (0.4, -0.2, 0.3)),  # corner
    ((0.1, 0.05, 0.25), 0.2 + 0.05, (0, 0, 1), (0.1, 0.05, 0.3)),          # centre inside, nearest face +z
])
def test_sphere_box_face_edge_corner_inside(local_c, depth, n_local, q_local):
    R = rot([0.3, -0.2, 0.9])
    o = np.array([1.0, 2.0, -0.5])
    r = 0.2
    c = o + R @ np.array(local_c)
    d, n, p = one(shape(SHAPE_SPHERE, [r], c), shape(SHAPE_BOX, [0.4, 0.2, 0.3], o, R))
    assert d == pytest.approx(depth, abs=1e-14)
    nl = np.array(n_local) if n_local is not None else (np.array(local_c) - q_local) / np.linalg.norm(
        np.array(local_c) - q_local)
    assert n == pytest.approx(R @ nl, abs=1e-14)
    assert p == pytest.approx(o + R @ (0.5 * (np.array(q_local) + np.array(local_c) - r * nl)), abs=1e-14)


# --- cylinder on plane ------------------------------------------------------------------------------------------

def test_cylinder_lying_on_its_side_rests_on_two_rim_points():
    r, h, dep = 0.3, 0.5, 0.01
    n_c, c = contacts(shape(SHAPE_CYLINDER, [r, h], (0.1, 0.2, r - dep), AXIS_X), shape(SHAPE_PLANE))
    assert n_c == 2
    c = c[np.argsort(c[:, 4])]
    expected = np.array([[dep, 0, 0, 1, 0.1 - h, 0.2, -dep / 2], [dep, 0, 0, 1, 0.1 + h, 0.2, -dep / 2]])
    assert c == pytest.approx(expected, abs=1e-14)


def test_cylinder_standing_on_a_cap_rests_on_four_rim_points():
    r, h, dep = 0.3, 0.5, 0.01
    n_c, c = contacts(shape(SHAPE_CYLINDER, [r, h], (0, 0, h - dep), rot([0, 0, 0.4])), shape(SHAPE_PLANE))
    assert n_c == 4
    assert c[:, 0] == pytest.approx([dep] * 4, abs=1e-14)
    assert np.hypot(c[:, 4], c[:, 5]) == pytest.approx([r] * 4, abs=1e-14)
    assert c[:, 4:6].sum(axis=0) == pytest.approx([0, 0], abs=1e-14)   # symmetric: resultant on the axis


def test_cylinder_tilted_on_its_rim():
    r, h, al, dep = 0.3, 0.5, 0.4, 0.02
    # axis z' = (sin al, 0, cos al); the lowest rim point of the lower cap is e + r (cos al, 0, -sin al)
    zc = h * math.cos(al) + r * math.sin(al) - dep
    n_c, c = contacts(shape(SHAPE_CYLINDER, [r, h], (0, 0, zc), rot([0, al, 0])), shape(SHAPE_PLANE))
    assert n_c == 1
    x = -h * math.sin(al) + r * math.cos(al)
    assert c[0] == pytest.approx([dep, 0, 0, 1, x, 0, -dep / 2], abs=1e-14)


# --- ellipsoids -------------------------------------------------------------------------------------------------

def _ellipsoid_surface(o, R, axes, ang):
    th, ph = ang
    return o + R @ (np.asarray(axes) * [math.sin(th) * math.cos(ph), math.sin(th) * math.sin(ph), math.cos(th)])


def _min_over_surface(fun, starts=24, seed=0):
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(starts):
        res = minimize(fun, rng.uniform([0, -math.pi], [math.pi, math.pi]), method="BFGS",
                       options={"gtol": 1e-12})
        if best is None or res.fun < best.fun:
            best = res
    return best


def test_ellipsoid_on_plane_matches_surface_minimisation():
    rng = np.random.default_rng(3)
    for _ in range(5):
        axes = rng.uniform(0.2, 0.9, 3)
        Re, Rp = random_rot(rng), random_rot(rng)
        P = rng.uniform(-1, 1, 3)
        m = Rp[:, 2]
        o = P + 0.8 * min(axes) * m + rng.uniform(-1, 1) * Rp[:, 0]
        res = _min_over_surface(lambda ang, o=o, Re=Re, axes=axes, m=m, P=P:
                                m @ (_ellipsoid_surface(o, Re, axes, ang) - P))
        depth, n, p = one(shape(SHAPE_ELLIPSOID, axes, o, Re), shape(SHAPE_PLANE, [], P, Rp))
        assert depth == pytest.approx(-res.fun, abs=1e-10)
        assert n == pytest.approx(m, abs=1e-14)
        x = _ellipsoid_surface(o, Re, axes, res.x)
        assert p == pytest.approx(x + 0.5 * depth * m, abs=1e-6)


def test_ellipsoids_with_equal_axes_are_spheres():
    rng = np.random.default_rng(4)
    for _ in range(10):
        ra, rb = rng.uniform(0.2, 0.8, 2)
        oa = rng.uniform(-1, 1, 3)
        u = rng.standard_normal(3)
        ob = oa + (ra + rb) * rng.uniform(0.3, 0.99) * u / np.linalg.norm(u)
        ref = one(shape(SHAPE_SPHERE, [ra], oa), shape(SHAPE_SPHERE, [rb], ob))
        for a, b in [(shape(SHAPE_ELLIPSOID, [ra] * 3, oa, random_rot(rng)), shape(SHAPE_ELLIPSOID, [rb] * 3, ob,
                                                                                   random_rot(rng))),
                     (shape(SHAPE_ELLIPSOID, [ra] * 3, oa, random_rot(rng)), shape(SHAPE_SPHERE, [rb], ob)),
                     (shape(SHAPE_SPHERE, [ra], oa), shape(SHAPE_ELLIPSOID, [rb] * 3, ob, random_rot(rng)))]:
            got = one(a, b)
            for g, e in zip(got, ref):
                assert g == pytest.approx(e, abs=1e-12)


def _support(o, R, axes, d):
    """Support point of an ellipsoid in direction d: o + M d / sqrt(d' M d), M = R diag(axes^2) R'."""
    M = R @ np.diag(np.asarray(axes) ** 2) @ R.T
    return o + M @ d / math.sqrt(d @ M @ d)


def _unit(ang):
    th, ph = ang
    return np.array([math.sin(th) * math.cos(ph), math.sin(th) * math.sin(ph), math.cos(th)])


def _mtd_brute_force(A, B, starts=30):
    """Minimum translation distance of two overlapping ellipsoids (o, R, axes): the distance from the origin
    to the boundary of the Minkowski difference A - B, whose point with outward normal u is
    s_A(u) - s_B(-u); minimised over u with multi-start BFGS. Returns (depth, normal from B to A)."""
    res = _min_over_surface(lambda ang: np.linalg.norm(_support(*A, _unit(ang)) - _support(*B, -_unit(ang))),
                            starts=starts)
    x = _support(*A, _unit(res.x)) - _support(*B, -_unit(res.x))
    return np.linalg.norm(x), -x / np.linalg.norm(x)


def _overlap_measure(A, B):
    """min over B's surface of A's quadratic form |E_A^-1 R_A' (y - o_A)|^2: < 1 iff B reaches into A."""
    oa, Ra, axa = A
    return _min_over_surface(lambda ang: float(np.sum((Ra.T @ (_ellipsoid_surface(*B, ang) - oa) / axa) ** 2)),
                             starts=16).fun


ELLIPSOID_CASES = [   # (axes a, axes b, relative overlap of the centre distance, seed)
    ([0.3, 0.5, 0.8], [0.4, 0.25, 0.6], 0.8, 11),
    ([0.2, 0.2, 0.9], [0.6, 0.3, 0.3], 0.6, 12),
    ([0.5, 0.45, 0.4], [0.15, 0.7, 0.35], 0.6, 13),
    ([1.0, 0.15, 0.5], [0.3, 0.3, 0.3], 0.6, 14),
]


def _ellipsoid_scene(axa, axb, frac, seed):
    """Two rotated ellipsoids whose centres are frac times the touching distance apart along a random line."""
    rng = np.random.default_rng(seed)
    Ra, Rb = random_rot(rng), random_rot(rng)
    u = rng.standard_normal(3)
    u /= np.linalg.norm(u)
    oa = rng.uniform(-1, 1, 3)
    # touching distance along u: h_A(-u) + h_B(u) with both centres at the origin
    touch = (-u) @ _support(np.zeros(3), Ra, axa, -u) + u @ _support(np.zeros(3), Rb, axb, u)
    ob = oa - frac * touch * u
    return (oa, Ra, np.array(axa)), (ob, Rb, np.array(axb))


@pytest.mark.parametrize("axa, axb, frac, seed", ELLIPSOID_CASES)
def test_ellipsoid_pair_is_the_minimum_translation_distance(axa, axb, frac, seed):
    A, B = _ellipsoid_scene(axa, axb, frac, seed)
    depth, n, p = one(shape(SHAPE_ELLIPSOID, A[2], A[0], A[1]), shape(SHAPE_ELLIPSOID, B[2], B[0], B[1]))
    ref_depth, ref_n = _mtd_brute_force(A, B)
    assert depth == pytest.approx(ref_depth, rel=1e-8, abs=1e-10)
    assert n == pytest.approx(ref_n, abs=1e-6)
    # independent of support functions: a moved by depth -+ 1e-6 along n still overlaps / no longer does
    eps = 1e-6
    assert _overlap_measure((A[0] + (depth - eps) * n, A[1], A[2]), B) < 1.0
    assert _overlap_measure((A[0] + (depth + eps) * n, A[1], A[2]), B) > 1.0
    # the point is midway between a surface point of each: p -+ depth/2 n lie on a and on b
    for (o, R, ax), x in ((A, p - 0.5 * depth * n), (B, p + 0.5 * depth * n)):
        assert np.sum((R.T @ (x - o) / ax) ** 2) == pytest.approx(1.0, abs=1e-10)


def test_ellipsoid_pair_accuracy_over_penetration_depth():
    """Same brute force over a sweep from grazing (depth 0.006) to deep (0.34, beyond the smallest semi-axis)."""
    worst = 0.0
    for frac in (0.92, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5):
        A, B = _ellipsoid_scene([0.3, 0.5, 0.8], [0.4, 0.25, 0.6], frac, 21)
        depth = one(shape(SHAPE_ELLIPSOID, A[2], A[0], A[1]), shape(SHAPE_ELLIPSOID, B[2], B[0], B[1]))[0]
        ref = _mtd_brute_force(A, B)[0]
        worst = max(worst, abs(depth - ref) / ref)
    assert worst < 1e-8


def test_random_ellipsoid_pairs_with_moderate_penetration():
    """Random axes (0.1-1 m), poses and overlaps; every case with depth below the smallest semi-axis (the
    moderate range the kernel's docstring states) must be the global minimum translation distance."""
    rng = np.random.default_rng(8)
    checked = 0
    for k in range(30):
        axa, axb = rng.uniform(0.1, 1.0, 3), rng.uniform(0.1, 1.0, 3)
        A, B = _ellipsoid_scene(axa, axb, rng.uniform(0.5, 0.95), 500 + k)
        n, c = contacts(shape(SHAPE_ELLIPSOID, A[2], A[0], A[1]), shape(SHAPE_ELLIPSOID, B[2], B[0], B[1]))
        if n == 0 or c[0, 0] > min(axa.min(), axb.min()):
            continue
        ref_depth, ref_n = _mtd_brute_force(A, B, starts=12)
        assert c[0, 0] == pytest.approx(ref_depth, rel=1e-9)
        assert c[0, 1:4] == pytest.approx(ref_n, abs=1e-6)
        checked += 1
    assert checked >= 8


def test_separated_ellipsoids_give_no_contact():
    for frac in (1.001, 1.05, 2.0):
        A, B = _ellipsoid_scene([0.3, 0.5, 0.8], [0.4, 0.25, 0.6], frac, 11)
        assert contacts(shape(SHAPE_ELLIPSOID, A[2], A[0], A[1]), shape(SHAPE_ELLIPSOID, B[2], B[0], B[1]))[0] == 0


def test_concentric_ellipsoids_do_not_give_nan():
    n, c = contacts(shape(SHAPE_ELLIPSOID, [0.3, 0.5, 0.8]), shape(SHAPE_ELLIPSOID, [0.4, 0.25, 0.6]))
    assert n == 1 and np.all(np.isfinite(c))
    assert c[0, 0] > 0.5


# --- meshes -----------------------------------------------------------------------------------------------------

def test_sphere_on_flat_mesh_gives_one_contact_everywhere():
    """Over faces, edges and vertices of a tessellated plane: one contact, depth r - h, normal +z, no jumps."""
    mesh = pack_meshes(grid_mesh())
    R = rot([0.2, -0.3, 0.5])
    o = np.array([0.5, 0.1, -0.2])
    r, h = 0.3, 0.25
    m = shape(SHAPE_MESH, [0], o, R)
    for x, y in [(0, 0), (0.5, 0), (0.5, 0.5), (0.25, 0.25), (0.1, 0.37), (-0.5, 0.75), *zip(
            np.linspace(-0.8, 0.8, 97), np.linspace(-0.6, 0.7, 97))]:
        c = o + R @ np.array([x, y, h])
        depth, n, p = one(shape(SHAPE_SPHERE, [r], c), m, mesh)
        assert depth == pytest.approx(r - h, abs=1e-13)
        assert n == pytest.approx(R[:, 2], abs=1e-12)
        assert p == pytest.approx(o + R @ np.array([x, y, -(r - h) / 2]), abs=1e-13)


def test_sphere_against_box_mesh_equals_sphere_box():
    """A convex mesh (a box) must give exactly the sphere-box contact for a centre outside it: the shared-edge
    and shared-vertex rule leaves one point, at the face, edge or vertex nearest to the centre."""
    rng = np.random.default_rng(5)
    hx, hy, hz = 0.4, 0.3, 0.2
    mesh = pack_meshes(box_mesh(hx, hy, hz))
    R, o = random_rot(rng), rng.uniform(-1, 1, 3)
    r = 0.15
    seen = 0
    for _ in range(400):
        local = rng.uniform(-1, 1, 3) * [hx + r, hy + r, hz + r]
        if np.all(np.abs(local) < [hx, hy, hz]):
            continue
        c = o + R @ local
        ref = contacts(shape(SHAPE_SPHERE, [r], c), shape(SHAPE_BOX, [hx, hy, hz], o, R))
        got = contacts(shape(SHAPE_SPHERE, [r], c), shape(SHAPE_MESH, [0], o, R), mesh)
        assert got[0] == ref[0]
        assert got[1] == pytest.approx(ref[1], abs=1e-12)
        seen += ref[0]
    assert seen > 100


def test_sphere_in_a_concave_corner_touches_both_faces():
    floor = (np.array([[0, -1, 0], [1, -1, 0], [1, 1, 0], [0, 1, 0]], float), np.array([[0, 1, 2], [0, 2, 3]]))
    wall = (np.array([[0, -1, 0], [0, 1, 0], [0, 1, 1], [0, -1, 1]], float), np.array([[0, 1, 2], [0, 2, 3]]))
    verts = np.vstack([floor[0], wall[0]])
    mesh = pack_meshes((verts, np.vstack([floor[1], wall[1] + 4])))
    n, c = contacts(shape(SHAPE_SPHERE, [0.3], (0.25, 0.1, 0.25)), shape(SHAPE_MESH, [0]), mesh)
    assert n == 2
    c = c[np.argsort(c[:, 1])]
    assert c == pytest.approx(np.array([[0.05, 0, 0, 1, 0.25, 0.1, -0.025], [0.05, 1, 0, 0, -0.025, 0.1, 0.25]]),
                              abs=1e-14)


def test_mesh_box_on_plane_equals_box_on_plane():
    mesh = pack_meshes(grid_mesh(), box_mesh(0.4, 0.3, 0.2))
    for zc in (0.25, 0.1, -0.5):
        R = rot([0.3, 0.05, 0.2])
        o = (0.2, -0.1, zc)
        ref = contacts(shape(SHAPE_BOX, [0.4, 0.3, 0.2], o, R), shape(SHAPE_PLANE))
        got = contacts(shape(SHAPE_MESH, [1], o, R), shape(SHAPE_PLANE), mesh)
        assert got[0] == ref[0] > 0
        assert got[1] == pytest.approx(ref[1], abs=1e-14)


def test_mesh_plane_keeps_the_eight_deepest_vertices():
    verts, tris = grid_mesh(cells=4)     # 25 vertices
    mesh = pack_meshes((verts, tris))
    R = rot([0.0, 0.1, 0.0])             # tilted about y: vertex depth grows with x
    n, c = contacts(shape(SHAPE_MESH, [0], (0, 0, 0.02), R), shape(SHAPE_PLANE), mesh)
    z = (R @ verts.T)[2] + 0.02
    assert n == MAX_POINTS
    assert sorted(c[:, 0]) == pytest.approx(sorted(-z[z < 0])[-MAX_POINTS:], abs=1e-14)


# --- the contract: dispatch, symmetry, rigid motion, continuity ----------------------------------------------

def polygon_mesh(xy):
    """A flat polygon (vertices counter-clockwise in z = 0) as the compiler stores it: vertices and a fan."""
    v = np.array([[x, y, 0.0] for x, y in xy])
    return v, np.array([[0, i, i + 1] for i in range(1, len(xy) - 1)], dtype=np.int64)


PENTAGON = [(0.4 * math.cos(2 * math.pi * i / 5), 0.4 * math.sin(2 * math.pi * i / 5)) for i in range(5)]
MESHES = pack_meshes(grid_mesh(), box_mesh(0.4, 0.3, 0.2), polygon_mesh(PENTAGON))
MESH_INDEX = {SHAPE_MESH: 1, SHAPE_POLYGON: 2}

SCENES = {   # name: (shape a, shape b), each in moderate contact
    "sphere-plane": (shape(SHAPE_SPHERE, [0.3], (0.1, 0.2, 0.25)),
                     shape(SHAPE_PLANE, [], (0, 0, 0), rot([0.1, 0.2, 0]))),
    "sphere-sphere": (shape(SHAPE_SPHERE, [0.3], (0.1, 0.2, 0.25)), shape(SHAPE_SPHERE, [0.2], (0.2, 0.1, -0.2))),
    "sphere-box": (shape(SHAPE_SPHERE, [0.2], (0.45, 0.3, 0.1)), shape(SHAPE_BOX, [0.4, 0.3, 0.2], (0, 0.05, 0),
                                                                         rot([0.1, 0.2, 0.3]))),
    "sphere-capsule": (shape(SHAPE_SPHERE, [0.2], (0.2, 0.15, 0.1)), shape(SHAPE_CAPSULE, [0.15, 0.5], (0, 0, 0),
                                                                             rot([0.4, 0.2, 0]))),
    "capsule-capsule": (shape(SHAPE_CAPSULE, [0.2, 0.6], (0.05, 0.1, 0.3), rot([0.3, 1.2, 0.1])),
                        shape(SHAPE_CAPSULE, [0.15, 0.5], (0, 0, 0), rot([0.4, 0.2, 0]))),
    "capsule-plane": (shape(SHAPE_CAPSULE, [0.2, 0.6], (0.05, 0.1, 0.3), rot([0.3, 0.2, 0.1])), shape(SHAPE_PLANE)),
    "box-plane": (shape(SHAPE_BOX, [0.4, 0.3, 0.2], (0.05, 0.1, 0.2), rot([0.3, 0.2, 0.1])), shape(SHAPE_PLANE)),
    "cylinder-plane": (shape(SHAPE_CYLINDER, [0.3, 0.4], (0.05, 0.1, 0.45), rot([0.3, 0.2, 0.1])), shape(SHAPE_PLANE)),
    "ellipsoid-plane": (shape(SHAPE_ELLIPSOID, [0.3, 0.5, 0.4], (0.05, 0.1, 0.3), rot([0.3, 0.2, 0.1])),
                        shape(SHAPE_PLANE)),
    "ellipsoid-sphere": (shape(SHAPE_ELLIPSOID, [0.3, 0.5, 0.4], (0.05, 0.1, 0.3), rot([0.3, 0.2, 0.1])),
                         shape(SHAPE_SPHERE, [0.25], (0.1, -0.2, -0.2))),
    "ellipsoid-ellipsoid": (shape(SHAPE_ELLIPSOID, [0.3, 0.5, 0.4], (0.05, 0.1, 0.3), rot([0.3, 0.2, 0.1])),
                            shape(SHAPE_ELLIPSOID, [0.4, 0.2, 0.3], (0.1, -0.2, -0.2), rot([-0.5, 0.7, 0.2]))),
    "sphere-mesh": (shape(SHAPE_SPHERE, [0.2], (0.45, 0.3, 0.1)), shape(SHAPE_MESH, [1], (0, 0.05, 0),
                                                                          rot([0.1, 0.2, 0.3]))),
    "mesh-plane": (shape(SHAPE_MESH, [1], (0.05, 0.1, 0.2), rot([0.3, 0.2, 0.1])), shape(SHAPE_PLANE)),
    # planar kinds (x-y plane)
    "circle-line": (shape(SHAPE_SPHERE, [0.3], (0.1, 0.25, 0.0)), shape(SHAPE_LINE, [], (0, 0, 0), rot([0, 0, 0.2]))),
    "capsule-line": (shape(SHAPE_PLANAR_CAPSULE, [0.2, 0.6], (0.05, 0.3, 0.0), rot([0, 0, 0.3])), shape(SHAPE_LINE)),
    "polygon-line": (shape(SHAPE_POLYGON, [2], (0.05, 0.3, 0.0), rot([0, 0, 0.3])), shape(SHAPE_LINE)),
    "circle-capsule": (shape(SHAPE_SPHERE, [0.2], (0.2, 0.25, 0.0)),
                       shape(SHAPE_PLANAR_CAPSULE, [0.15, 0.5], (0, 0, 0), rot([0, 0, 0.4]))),
    "capsule-capsule planar": (shape(SHAPE_PLANAR_CAPSULE, [0.2, 0.6], (0.05, 0.3, 0.0), rot([0, 0, 1.2])),
                               shape(SHAPE_PLANAR_CAPSULE, [0.15, 0.5], (0, 0, 0), rot([0, 0, 0.4]))),
    "circle-polygon": (shape(SHAPE_SPHERE, [0.2], (0.45, 0.2, 0.0)), shape(SHAPE_POLYGON, [2], (0, 0.05, 0),
                                                                             rot([0, 0, 0.3]))),
}


def test_every_supported_pair_has_a_scene_and_unsupported_pairs_return_minus_one():
    assert {tuple(sorted((a[0], b[0]))) for a, b in SCENES.values()} == set(SUPPORTED_PAIRS)
    for ka, kb in itertools.product(range(N_SHAPE_KINDS), repeat=2):
        a = shape(ka, [MESH_INDEX[ka]] if ka in MESH_INDEX else [0.3, 0.3, 0.3], (0, 0, 0.1))
        b = shape(kb, [MESH_INDEX[kb]] if kb in MESH_INDEX else [0.3, 0.3, 0.3], (0, 0, -0.1))
        n, _ = contacts(a, b, MESHES)
        assert (n >= 0) == pair_supported(ka, kb), (ka, kb, n)


@pytest.mark.parametrize("name", list(SCENES))
def test_swapping_a_and_b_flips_the_normal_only(name):
    a, b = SCENES[name]
    n1, c1 = contacts(a, b, MESHES)
    n2, c2 = contacts(b, a, MESHES)
    assert n1 == n2 > 0
    c2 = c2.copy()
    c2[:, 1:4] *= -1
    assert c2 == pytest.approx(c1, abs=1e-12)


@pytest.mark.parametrize("name", list(SCENES))
def test_rigid_motion_of_the_scene_moves_the_results(name):
    a, b = SCENES[name]
    n1, c1 = contacts(a, b, MESHES)
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(3):
        Q, t = random_rot(rng), rng.uniform(-2, 2, 3)
        moved = [(k, p, Q @ o + t, np.ascontiguousarray(Q @ R)) for k, p, o, R in (a, b)]
        n2, c2 = contacts(*moved, MESHES)
        assert n2 == n1 > 0
        assert c2[:, 0] == pytest.approx(c1[:, 0], abs=1e-12)
        assert c2[:, 1:4] == pytest.approx(c1[:, 1:4] @ Q.T, abs=1e-10)
        assert c2[:, 4:7] == pytest.approx(c1[:, 4:7] @ Q.T + t, abs=1e-10)


def _sweep(make, s_values, mesh=NO_MESH):
    """Deepest contact (depth, normal, point) along a pose parameter."""
    rows = []
    for s in s_values:
        n, c = contacts(*make(s), mesh)
        assert n > 0, s
        rows.append(c[np.argmax(c[:, 0])])
    return np.array(rows)


@pytest.mark.parametrize("name, make, lever", [
    ("ellipsoid pair sliding and turning", lambda s: (
        shape(SHAPE_ELLIPSOID, [0.3, 0.5, 0.8], (0.45 * math.cos(s), 0.45 * math.sin(s), 0.1), rot([0.2, s, 0.3 * s])),
        shape(SHAPE_ELLIPSOID, [0.4, 0.25, 0.6], (0, 0, 0), rot([-0.4, 0.1, 0.6]))), 3.0),
    ("capsule turning through parallel about the middle of the overlap", lambda s: (
        shape(SHAPE_CAPSULE, [0.2, 1.0], (0, 0, 0), AXIS_X),
        shape(SHAPE_CAPSULE, [0.15, 1.0], (0.25 + 0.25 * math.cos(0.02 * s), 0.25 * math.sin(0.02 * s), 0.3),
              rot([0, 0, 0.02 * s]) @ AXIS_X)), 3.0),
    ("sphere around a box corner", lambda s: (
        shape(SHAPE_SPHERE, [0.2], (0.4 + 0.15 * math.cos(s), 0.3 + 0.15 * math.sin(s), 0.25)),
        shape(SHAPE_BOX, [0.4, 0.3, 0.2])), 1.0),
    ("sphere over a mesh box edge", lambda s: (
        shape(SHAPE_SPHERE, [0.2], (0.4 + 0.15 * math.cos(s), 0.0, 0.2 + 0.15 * math.sin(s))),
        shape(SHAPE_MESH, [1])), 1.0),
    ("ellipsoid rolling on a plane", lambda s: (
        shape(SHAPE_ELLIPSOID, [0.3, 0.5, 0.8], (0, 0, 0.28), rot([s, 0.3 * s, 0])), shape(SHAPE_PLANE)), 2.0),
])
def test_continuity_of_the_deepest_contact(name, make, lever):
    s = np.linspace(-1.0, 1.0, 801)
    rows = _sweep(make, s, MESHES)
    jump = np.abs(np.diff(rows, axis=0)).max(axis=0)
    ds = s[1] - s[0]
    assert jump[0] < lever * ds, name
    assert jump[4:].max() < lever * ds, name
    assert jump[1:4].max() < 2 * lever * ds, name
    assert np.isfinite(rows).all()


def _sums(make, s_values):
    """Sum of depths and depth-weighted sum of points: what a linear penalty force and its moment see."""
    rows = []
    for s in s_values:
        n, c = contacts(*make(s), MESHES)
        rows.append(np.concatenate([[c[:, 0].sum()], c[:, 0] @ c[:, 4:7]]) if n > 0 else np.zeros(4))
    return np.array(rows)


@pytest.mark.parametrize("name, make", [
    ("cylinder tilting through upright", lambda s: (
        shape(SHAPE_CYLINDER, [0.3, 0.5], (0, 0, 0.49), rot([0.05 * s, 0.02 * s, 0.3])), shape(SHAPE_PLANE))),
    ("box rolling over an edge", lambda s: (
        shape(SHAPE_BOX, [0.4, 0.3, 0.2], (0, 0, 0.18), rot([0.4 * s, 0, 0])), shape(SHAPE_PLANE))),
    ("capsule tilting through flat", lambda s: (
        shape(SHAPE_CAPSULE, [0.1, 0.5], (0, 0, 0.09), rot([0, math.pi / 2 + 0.05 * s, 0])), shape(SHAPE_PLANE))),
    ("sphere across a tessellated plane", lambda s: (
        shape(SHAPE_SPHERE, [0.3], (0.9 * s, 0.37 * s, 0.25)), shape(SHAPE_MESH, [0]))),
])
def test_continuity_of_multi_point_contacts(name, make):
    """Points appear and vanish at zero depth, so the sums a penalty force sees never jump."""
    s = np.linspace(-1.0, 1.0, 801)
    sums = _sums(make, s)
    assert np.abs(np.diff(sums, axis=0)).max() < 2.0 * (s[1] - s[0]), name
    assert sums[:, 0].min() > 0


def test_collide_allocates_nothing():
    """numba's runtime counts its allocations; a call in contact allocates exactly what the argument unboxing
    of a call that returns at once (spheres far apart) does."""
    from numba.core.runtime import _nrt_python

    def allocations(a, b):
        out = np.zeros((MAX_POINTS, 7))
        collide(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], *MESHES, out)   # warm
        before = _nrt_python.memsys_get_stats_alloc()
        collide(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], *MESHES, out)
        return _nrt_python.memsys_get_stats_alloc() - before

    enabled = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        floor = allocations(shape(SHAPE_SPHERE, [0.1]), shape(SHAPE_SPHERE, [0.1], (5.0, 0.0, 0.0)))
        for name, (a, b) in SCENES.items():
            assert allocations(a, b) == floor, name
    finally:
        if not enabled:
            _nrt_python.memsys_disable_stats()


def test_sphere_fast_paths_equal_collide():
    """The contact kernel's scalar-argument fast paths (sphere-sphere, sphere-plane in both orders) give the same
    rows as ``collide``, bit for bit, on random poses: overlapping, touching-near and separated, any plane tilt."""
    rng = np.random.default_rng(7)
    touching = 0
    for _ in range(400):
        ra, rb = rng.uniform(0.01, 0.5, 2)
        ca = rng.normal(0.0, 0.3, 3)
        cb = ca + rng.normal(0.0, 1.0, 3) * rng.uniform(0.0, 0.6)
        a = shape(SHAPE_SPHERE, [ra], ca)
        b = shape(SHAPE_SPHERE, [rb], cb)
        n, ref = contacts(a, b)
        out = np.full((MAX_POINTS, 7), np.nan)
        assert sphere_sphere(ra, *ca, rb, *cb, out) == n
        assert np.array_equal(out[:n], ref)
        touching += n
        plane = shape(SHAPE_PLANE, (), rng.normal(0.0, 0.3, 3), random_rot(rng))
        m = plane[3][:, 2]
        for sign, first, second in ((1.0, a, plane), (-1.0, plane, a)):
            n, ref = contacts(first, second)
            out = np.full((MAX_POINTS, 7), np.nan)
            assert sphere_plane(ra, *ca, *plane[2], *m, sign, out) == n
            assert np.array_equal(out[:n], ref)
            touching += n
    assert 200 < touching < 1000      # both outcomes occur


# --- planar kinds: closed forms --------------------------------------------------------------------------------

SQUARE = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
PLANAR_MESHES = pack_meshes(polygon_mesh(SQUARE))


@pytest.mark.parametrize("theta", [0.0, 0.7, -2.0])
def test_circle_against_a_square_edge_corner_and_inside(theta):
    Rz = rot([0.0, 0.0, theta])
    sq = shape(SHAPE_POLYGON, [0], (0.3, -0.2, 0.0), Rz)

    def world(x, y):
        return Rz @ np.array([x, y, 0.0]) + np.array([0.3, -0.2, 0.0])
    # beside the +x edge: depth r - (x - 0.5), normal the edge's outward normal
    d, n, p = one(shape(SHAPE_SPHERE, [0.2], world(0.6, 0.1)), sq, PLANAR_MESHES)
    assert d == pytest.approx(0.1, abs=1e-12)
    assert n == pytest.approx(Rz[:, 0], abs=1e-12)
    assert p == pytest.approx(world(0.45, 0.1), abs=1e-12)     # midway between the edge and the circle's deepest point
    # off the (+x, +y) corner along the diagonal: depth r - |c - corner|
    c = 0.5 + 0.1 / math.sqrt(2.0)
    d, n, _ = one(shape(SHAPE_SPHERE, [0.2], world(c, c)), sq, PLANAR_MESHES)
    assert d == pytest.approx(0.1, abs=1e-12)
    assert n == pytest.approx(Rz @ np.array([1.0, 1.0, 0.0]) / math.sqrt(2.0), abs=1e-12)
    # centre inside, nearest the -y edge: out through it, depth r + distance to it
    d, n, _ = one(shape(SHAPE_SPHERE, [0.2], world(0.1, -0.4)), sq, PLANAR_MESHES)
    assert d == pytest.approx(0.3, abs=1e-12)
    assert n == pytest.approx(-Rz[:, 1], abs=1e-12)
    # clear of the square
    assert contacts(shape(SHAPE_SPHERE, [0.2], world(0.75, 0.0)), sq, PLANAR_MESHES)[0] == 0


def test_line_normal_is_the_marker_y_axis_and_polygon_corners_rest_on_it():
    a = 0.3                                      # the line tilted by a about z
    line = shape(SHAPE_LINE, [], (0.0, 0.0, 0.0), rot([0.0, 0.0, a]))
    normal = np.array([-math.sin(a), math.cos(a), 0.0])
    d, n, _ = one(shape(SHAPE_SPHERE, [0.2], 0.15 * normal + np.array([math.cos(a), math.sin(a), 0.0])), line)
    assert d == pytest.approx(0.05, abs=1e-12)
    assert n == pytest.approx(normal, abs=1e-12)
    # the square sunk 1 mm into the line, aligned with it: its two lower corners, 1 mm deep each
    sq = shape(SHAPE_POLYGON, [0], (0.5 - 1e-3) * normal, rot([0.0, 0.0, a]))
    k, c = contacts(sq, line, PLANAR_MESHES)
    assert k == 2
    assert c[:, 0] == pytest.approx([1e-3, 1e-3], abs=1e-12)
    assert c[:, 1:4] == pytest.approx(np.array([normal, normal]), abs=1e-12)
    # a planar capsule lies along its marker's x axis: both ends touch when it lies flat
    cap = shape(SHAPE_PLANAR_CAPSULE, [0.1, 0.4], (0.1 - 2e-3) * normal, rot([0.0, 0.0, a]))
    k, c = contacts(cap, line)
    assert k == 2 and c[:, 0] == pytest.approx([2e-3, 2e-3], abs=1e-12)
