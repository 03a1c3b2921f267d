"""Broad phase (kernels/broad_phase.py): shape AABBs against sampled or optimised surfaces, and sweep-and-prune
candidate pairs against the brute-force all-pairs AABB test with the same group/mask/exclusion filters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial.transform import Rotation

from fmu_mbs.kernels.broad_phase import UNBOUNDED, candidate_pairs, shape_aabb
from fmu_mbs.kernels.contact_geometry import (
    SHAPE_BOX,
    SHAPE_CAPSULE,
    SHAPE_CYLINDER,
    SHAPE_ELLIPSOID,
    SHAPE_MESH,
    SHAPE_PLANE,
    SHAPE_SPHERE,
)

RNG_ROT = Rotation.from_rotvec([0.4, -0.7, 1.1]).as_matrix()
O = np.array([0.3, -1.2, 2.0])
MESH_VERTS = np.random.default_rng(2).uniform(-0.5, 0.5, (30, 3))
MESH_PTR = np.array([0, 0, 30], dtype=np.int64)      # mesh 0 empty, mesh 1 a point cloud
MESH_V = np.ascontiguousarray(MESH_VERTS)


def aabb(kind, par, o=O, R=RNG_ROT):
    p = np.zeros(4)
    p[:len(par)] = par
    lo = np.zeros(3)
    hi = np.zeros(3)
    shape_aabb(kind, p, np.asarray(o, float), np.ascontiguousarray(R), MESH_PTR, MESH_V, lo, hi)
    return lo, hi


def _circle(center, u, v, r, n=4000):
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return center + r * (np.outer(np.cos(t), u) + np.outer(np.sin(t), v))


def test_aabb_of_sphere_box_capsule_mesh_are_exact():
    lo, hi = aabb(SHAPE_SPHERE, [0.3])
    assert np.allclose(lo, O - 0.3, atol=1e-15) and np.allclose(hi, O + 0.3, atol=1e-15)
    h = np.array([0.4, 0.2, 0.1])
    verts = np.array([O + RNG_ROT @ (h * s) for s in np.array(np.meshgrid(*[[-1, 1]] * 3)).reshape(3, -1).T])
    lo, hi = aabb(SHAPE_BOX, h)
    assert np.allclose(lo, verts.min(0), atol=1e-14) and np.allclose(hi, verts.max(0), atol=1e-14)
    ends = np.array([O + RNG_ROT[:, 2] * 0.6, O - RNG_ROT[:, 2] * 0.6])
    lo, hi = aabb(SHAPE_CAPSULE, [0.15, 0.6])
    assert np.allclose(lo, ends.min(0) - 0.15, atol=1e-14) and np.allclose(hi, ends.max(0) + 0.15, atol=1e-14)
    world = O + MESH_VERTS @ RNG_ROT.T
    lo, hi = aabb(SHAPE_MESH, [1])
    assert np.allclose(lo, world.min(0), atol=1e-14) and np.allclose(hi, world.max(0), atol=1e-14)


def test_aabb_of_cylinder_bounds_its_rims_tightly():
    r, h = 0.25, 0.5
    x, y, z = RNG_ROT.T
    pts = np.vstack([_circle(O + s * h * z, x, y, r) for s in (-1, 1)])
    lo, hi = aabb(SHAPE_CYLINDER, [r, h])
    assert np.all(pts >= lo - 1e-14) and np.all(pts <= hi + 1e-14)
    assert np.allclose(lo, pts.min(0), atol=1e-6 * r) and np.allclose(hi, pts.max(0), atol=1e-6 * r)


def test_aabb_of_ellipsoid_matches_the_extreme_surface_points():
    axes = np.array([0.3, 0.6, 0.2])

    def surface(ang):
        th, ph = ang
        return O + RNG_ROT @ (axes * [math.sin(th) * math.cos(ph), math.sin(th) * math.sin(ph), math.cos(th)])

    lo, hi = aabb(SHAPE_ELLIPSOID, axes)
    for i in range(3):
        for sign, bound in ((1, lo[i]), (-1, hi[i])):
            best = min((minimize(lambda a, sign=sign, i=i: sign * surface(a)[i], x0, method="BFGS",
                                 options={"gtol": 1e-12})
                        for x0 in [(0.5, 0.5), (2.5, -2.0), (1.5, 2.5), (1.0, -0.5)]), key=lambda res: res.fun)
            assert sign * best.fun == pytest.approx(bound, abs=1e-9)


def test_aabb_of_planes_is_unbounded_except_along_an_aligned_normal():
    lo, hi = aabb(SHAPE_PLANE, [], O, np.eye(3))          # normal +z: solid below z = O_z
    assert list(lo) == [-UNBOUNDED] * 3 and list(hi) == [UNBOUNDED, UNBOUNDED, O[2]]
    R = Rotation.from_rotvec([0.0, -math.pi / 2, 0.0]).as_matrix()  # normal -x: solid at x >= O_x
    lo, hi = aabb(SHAPE_PLANE, [], O, R)
    assert list(lo) == [O[0], -UNBOUNDED, -UNBOUNDED] and list(hi) == [UNBOUNDED] * 3
    lo, hi = aabb(SHAPE_PLANE, [], O, RNG_ROT)
    assert list(lo) == [-UNBOUNDED] * 3 and list(hi) == [UNBOUNDED] * 3


def _scene(n, seed):
    rng = np.random.default_rng(seed)
    side = (n / 1000) ** (1 / 3) * 10.0
    centres = rng.uniform(-side / 2, side / 2, (n, 3))
    radii = rng.uniform(0.1, 0.5, n)
    radii[1:6] = 3.0                    # a few shapes larger than a grid cell
    lo = centres - radii[:, None]
    hi = centres + radii[:, None]
    lo[0] = (-UNBOUNDED, -UNBOUNDED, -UNBOUNDED)    # a ground plane z <= 1
    hi[0] = (UNBOUNDED, UNBOUNDED, 1.0)
    group = rng.integers(1, 8, n).astype(np.int64)
    mask = rng.integers(0, 8, n).astype(np.int64)
    mask[rng.random(n) < 0.7] = 7
    # exclusions: each shape lists a few random others (not symmetric on purpose)
    lists = [np.unique(rng.integers(0, n, rng.integers(0, 4))) for _ in range(n)]
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(x) for x in lists])
    idx = np.concatenate(lists).astype(np.int64)
    return centres, radii, lo, hi, group, mask, ptr, idx, rng


def _brute_force(lo, hi, group, mask, ptr, idx):
    n = len(lo)
    overlap = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
    overlap &= ((group[:, None] & mask[None, :]) != 0) & ((group[None, :] & mask[:, None]) != 0)
    for s in range(n):
        listed = idx[ptr[s]:ptr[s + 1]]
        overlap[s, listed] = False
        overlap[listed, s] = False
    s, t = np.nonzero(np.triu(overlap, 1))
    return set(zip(s.tolist(), t.tolist()))


def test_candidate_pairs_equal_brute_force_on_a_random_scene_of_1000_spheres():
    centres, radii, lo, hi, group, mask, ptr, idx, rng = _scene(1000, 3)
    order = np.full(1000, -1, dtype=np.int64)
    pairs = np.zeros((20000, 2), dtype=np.int64)
    for _step in range(4):              # coherent motion: the kept order is re-sorted, results stay exact
        count = candidate_pairs(lo, hi, group, mask, ptr, idx, order, pairs)
        expected = _brute_force(lo, hi, group, mask, ptr, idx)
        assert count == len(expected) > 1000
        got = pairs[:count]
        assert np.all(got[:, 0] < got[:, 1])
        assert set(map(tuple, got.tolist())) == expected
        assert sum(1 for s, t in expected if s == 0) > 100       # the plane meets many spheres
        assert sum(1 for s, t in expected if s in (1, 2, 3) or t in (1, 2, 3)) > 100   # and so do the large ones
        assert sorted(order.tolist()) == list(range(1000))
        move = rng.normal(0, 0.2 if _step == 2 else 0.02, (1000, 3))     # one big jumble
        move[0] = 0
        lo += move
        hi += move


def test_candidate_pairs_reports_the_needed_buffer_size():
    _, _, lo, hi, group, mask, ptr, idx, _ = _scene(300, 4)
    order = np.arange(300, dtype=np.int64)
    needed = len(_brute_force(lo, hi, group, mask, ptr, idx))
    small = np.zeros((needed // 2, 2), dtype=np.int64)
    assert candidate_pairs(lo, hi, group, mask, ptr, idx, order, small) == -needed
    exact = np.zeros((needed, 2), dtype=np.int64)
    assert candidate_pairs(lo, hi, group, mask, ptr, idx, order, exact) == needed


@pytest.mark.parametrize("layout", ["stack along z", "line along x", "coincident", "single", "all unbounded"])
def test_candidate_pairs_on_degenerate_layouts(layout):
    n = 1 if layout == "single" else 60
    rng = np.random.default_rng(6)
    c = np.zeros((n, 3))
    if layout == "stack along z":
        c[:, 2] = np.arange(n) * 0.45
    elif layout == "line along x":
        c[:, 0] = np.arange(n) * 0.45 - 10.0
    r = rng.uniform(0.2, 0.3, n)
    lo, hi = c - r[:, None], c + r[:, None]
    if layout == "all unbounded":
        lo[:] = -UNBOUNDED
        hi[:] = UNBOUNDED
    ones = np.ones(n, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    idx = np.zeros(0, dtype=np.int64)
    expected = _brute_force(lo, hi, ones, ones, ptr, idx)
    pairs = np.zeros((n * n, 2), dtype=np.int64)
    count = candidate_pairs(lo, hi, ones, ones, ptr, idx, np.arange(n, dtype=np.int64), pairs)
    assert count == len(expected)
    assert set(map(tuple, pairs[:count].tolist())) == expected
