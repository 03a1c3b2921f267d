"""Broad phase: world axis-aligned bounding boxes of contact shapes and sweep-and-prune candidate pairs.

``shape_aabb`` bounds one shape (kinds and parameters of ``contact_geometry``); unbounded directions of a plane
(a half-space) are encoded as -+1e300.

``candidate_pairs`` is sweep and prune on x (Baraff, Dynamic Simulation of Non-penetrating Rigid Bodies, 1992,
ch. 6; Ericson, Real-Time Collision Detection, 2005, 7.5) inside the columns of a (y, z) grid. A single sweep
along x tests each shape against every shape in its x slab, O(n^(2/3)) shapes in a uniform 3D scene, so
O(n^(5/3)) per call (measured: 4x the per-shape cost from 250 to 4000 shapes). Here:

- the cell size w is twice the mean AABB extent of the bounded shapes, rounded up to a quarter octave (so it
  stays put while shapes move); a shape belongs to the column of its lo corner (y, z);
- ``order`` is sorted on (z column, y column, lo x), kept between calls and re-sorted by insertion sort,
  near-linear for coherent motion (past 8 n moves it switches to heap sort, as on the first call);
- a shape no larger than a cell can only meet shapes of its own and the eight neighbouring columns: its own
  column is swept forward; four neighbour columns (the other four visit this one) are scanned from lo x minus
  the largest x extent, through a cursor per neighbour that only moves forward within a column (one binary
  search per column), over a copy of the boxes in sorted order (sequential memory);
- shapes larger than a cell, planes (unbounded AABBs) among them, sort last and meet every other shape, O(n)
  each.

So a roughly uniform scene costs O(n + pairs) per call, never O(n^2) (bench/broad_phase_scaling.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .contact_geometry import (
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
from .inner import inner_kernel
from .model_arrays import ZERO

UNBOUNDED = 1e300
_PLANE_AXIS_TOL = 1e-12   # a plane normal within this of a world axis bounds the half-space along that axis


@njit(cache=True)
def shape_aabb(kind, par, o, R, mesh_ptr, mesh_verts, lo, hi):
    """World AABB (lo, hi, m) of one shape with pose (o, R); R's columns are the shape axes in world."""
    if kind == SHAPE_PLANE or kind == SHAPE_LINE:
        # the solid half-space m . (x - o) <= 0, m = R[:, c] (c = 2; a line's c = 1), is bounded along axis i
        # only if m = +-e_i
        c = 2 if kind == SHAPE_PLANE else 1
        for i in range(3):
            lo[i] = -UNBOUNDED
            hi[i] = UNBOUNDED
        for i in range(3):
            off = 0.0
            for j in range(3):
                if j != i:
                    off += R[j, c] * R[j, c]
            if math.sqrt(off) <= _PLANE_AXIS_TOL:
                if R[i, c] > 0.0:
                    hi[i] = o[i]
                else:
                    lo[i] = o[i]
        return
    if kind == SHAPE_MESH or kind == SHAPE_POLYGON:
        mi = int(par[0] + 0.5)
        for i in range(3):
            lo[i] = UNBOUNDED
            hi[i] = -UNBOUNDED
        for iv in range(mesh_ptr[mi], mesh_ptr[mi + 1]):
            for i in range(3):
                x = o[i] + R[i, 0] * mesh_verts[iv, 0] + R[i, 1] * mesh_verts[iv, 1] + R[i, 2] * mesh_verts[iv, 2]
                lo[i] = min(lo[i], x)
                hi[i] = max(hi[i], x)
        if mesh_ptr[mi + 1] == mesh_ptr[mi]:
            for i in range(3):
                lo[i] = o[i]
                hi[i] = o[i]
        return
    for i in range(3):
        if kind == SHAPE_SPHERE:
            e = par[0]
        elif kind == SHAPE_BOX:
            e = abs(R[i, 0]) * par[0] + abs(R[i, 1]) * par[1] + abs(R[i, 2]) * par[2]
        elif kind == SHAPE_CAPSULE:
            e = abs(R[i, 2]) * par[1] + par[0]
        elif kind == SHAPE_PLANAR_CAPSULE:
            e = abs(R[i, 0]) * par[1] + par[0]
        elif kind == SHAPE_CYLINDER:
            # a disc of radius r normal to the axis z reaches r sqrt(1 - z_i^2) along axis i
            e = abs(R[i, 2]) * par[1] + par[0] * math.sqrt(max(1.0 - R[i, 2] * R[i, 2], 0.0))
        elif kind == SHAPE_ELLIPSOID:
            e = math.sqrt((R[i, 0] * par[0]) ** 2 + (R[i, 1] * par[1]) ** 2 + (R[i, 2] * par[2]) ** 2)
        else:
            e = UNBOUNDED
        lo[i] = o[i] - e
        hi[i] = o[i] + e


@njit(cache=True, inline="always")
def _listed(exclude_ptr, exclude_idx, s, t):
    """True if t is in the sorted slice exclude_idx[exclude_ptr[s]:exclude_ptr[s + 1]] (binary search)."""
    a = exclude_ptr[s]
    b = exclude_ptr[s + 1]
    while a < b:
        mid = (a + b) // 2
        v = exclude_idx[mid]
        if v == t:
            return True
        if v < t:
            a = mid + 1
        else:
            b = mid
    return False


_LARGE = 1 << 62     # column index of shapes larger than a cell: they sort last


@njit(cache=True, inline="always")
def _before(s, t, col, lo):
    """Shape s sorts before shape t: by column (z, then y), then lo x."""
    if col[s, 0] != col[t, 0]:
        return col[s, 0] < col[t, 0]
    if col[s, 1] != col[t, 1]:
        return col[s, 1] < col[t, 1]
    return lo[s, 0] < lo[t, 0]


@inner_kernel
def _sift_down(order, start, end, col, lo):
    root = start
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and _before(order[child], order[child + 1], col, lo):
            child += 1
        if _before(order[root], order[child], col, lo):
            order[root], order[child] = order[child], order[root]
            root = child
        else:
            return


@inner_kernel
def _heap_sort(order, col, lo):
    n = order.shape[0]
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(order, start, n, col, lo)
    for end in range(n - 1, 0, -1):
        order[0], order[end] = order[end], order[0]
        _sift_down(order, ZERO, end, col, lo)


@inner_kernel
def _sort_order(order, col, lo):
    """Insertion sort of ``order`` (near-linear for coherent motion); past 8 n moves, heap sort instead."""
    n = order.shape[0]
    budget = 8 * n + 16
    moves = 0
    for i in range(1, n):
        s = order[i]
        j = i - 1
        while j >= 0 and _before(s, order[j], col, lo):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = s
        moves += i - 1 - j
        if moves > budget:
            _heap_sort(order, col, lo)
            return


@njit(cache=True, inline="always")
def _lower_bound(order, n_small, col, lo, cz, cy, x):
    """First position in order[:n_small] not before the key (cz, cy, x)."""
    a = 0
    b = n_small
    while a < b:
        mid = (a + b) // 2
        t = order[mid]
        if col[t, 0] < cz or (col[t, 0] == cz and (col[t, 1] < cy or (col[t, 1] == cy and lo[t, 0] < x))):
            a = mid + 1
        else:
            b = mid
    return a


@njit(cache=True, inline="always")
def _boxes_overlap(box, i, j):
    """Closed-interval overlap of rows i and j of the sorted (lo, hi) copy."""
    return (box[j, 0] <= box[i, 3] and box[i, 0] <= box[j, 3] and box[j, 1] <= box[i, 4] and box[i, 1] <= box[j, 4]
            and box[j, 2] <= box[i, 5] and box[i, 2] <= box[j, 5])


@njit(cache=True, inline="always")
def _test_pair(s, t, group, mask, exclude_ptr, exclude_idx, pairs, count):
    """Append (min, max) of two shapes with overlapping boxes if the filters pass; returns the new count."""
    if (group[s] & mask[t]) == 0 or (group[t] & mask[s]) == 0:
        return count
    if _listed(exclude_ptr, exclude_idx, s, t) or _listed(exclude_ptr, exclude_idx, t, s):
        return count
    if count < pairs.shape[0]:
        pairs[count, 0] = min(s, t)
        pairs[count, 1] = max(s, t)
    return count + 1


@njit(cache=True)
def candidate_pairs(lo, hi, group, mask, exclude_ptr, exclude_idx, order, pairs):
    """Pairs (s, t), s < t, of shapes whose AABBs overlap (closed intervals), whose group/mask bits match both
    ways and that neither exclusion list names; returns their count, or -(count) if ``pairs`` is too short.

    ``order`` (int64[n]) is the caller's scratch kept between calls; it must hold a permutation of 0..n-1, or
    -1 in its first entry to be initialised here. Allocates work arrays of 10 n numbers per call (use
    ``candidate_pairs_ws`` with caller scratch in a step loop).
    """
    n = lo.shape[0]
    return candidate_pairs_ws(lo, hi, group, mask, exclude_ptr, exclude_idx, order, pairs,
                              np.empty((n, 2), dtype=np.int64), np.empty((n, 8)), np.empty(4, dtype=np.int64))


@inner_kernel(_nrt=False)
def candidate_pairs_ws(lo, hi, group, mask, exclude_ptr, exclude_idx, order, pairs, col, box, cursor):
    """``candidate_pairs`` without allocation: scratch ``col`` int64 (n, 2), ``box`` (n, 8), ``cursor`` int64[4]."""
    n = lo.shape[0]
    if n == 0:
        return 0
    # cell size: twice the mean extent of the bounded shapes, rounded up to a quarter octave (so that it stays
    # put while the shapes move and the kept order stays nearly sorted)
    total = 0.0
    n_bounded = 0
    for s in range(n):
        e = max(hi[s, 0] - lo[s, 0], hi[s, 1] - lo[s, 1], hi[s, 2] - lo[s, 2])
        if e < 1e299:
            total += e
            n_bounded += 1
    w = 1.0
    if n_bounded > 0 and total > 0.0:
        w = 2.0 ** (math.ceil(4.0 * math.log2(2.0 * total / n_bounded)) / 4.0)
    for s in range(n):
        e = max(hi[s, 0] - lo[s, 0], hi[s, 1] - lo[s, 1], hi[s, 2] - lo[s, 2])
        if e <= w and abs(lo[s, 1]) < 1e15 * w and abs(lo[s, 2]) < 1e15 * w:
            col[s, 0] = int(math.floor(lo[s, 2] / w))
            col[s, 1] = int(math.floor(lo[s, 1] / w))
        else:
            col[s, 0] = _LARGE
            col[s, 1] = 0
    if order[0] < 0:
        for i in range(n):
            order[i] = i
        _heap_sort(order, col, lo)
    else:
        _sort_order(order, col, lo)
    n_small = _lower_bound(order, n, col, lo, _LARGE, 0, -math.inf)
    # the grid shapes' boxes and columns copied in sorted order: the sweeps below read memory sequentially
    ex = 0.0        # largest x extent in the grid: the look-back into neighbour columns
    for ii in range(n_small):
        s = order[ii]
        for i in range(3):
            box[ii, i] = lo[s, i]
            box[ii, 3 + i] = hi[s, i]
        box[ii, 6] = col[s, 0]
        box[ii, 7] = col[s, 1]
        ex = max(ex, hi[s, 0] - lo[s, 0])
    count = 0
    for i in range(4):
        cursor[i] = 0
    for ii in range(n_small):
        cz = box[ii, 6]
        cy = box[ii, 7]
        hx = box[ii, 3]
        x0 = box[ii, 0] - ex
        new_column = ii == 0 or box[ii - 1, 6] != cz or box[ii - 1, 7] != cy
        # own column: sweep forward on lo x
        for jj in range(ii + 1, n_small):
            if box[jj, 6] != cz or box[jj, 7] != cy or box[jj, 0] > hx:
                break
            if _boxes_overlap(box, ii, jj):
                count = _test_pair(order[ii], order[jj], group, mask, exclude_ptr, exclude_idx, pairs, count)
        # four of the eight neighbour columns (the other four visit this one) from lo x - ex on; each has a
        # cursor that only moves forward while ii runs through its column (one binary search per column)
        for nb in range(4):
            nz = cz if nb == 0 else cz + 1.0
            ny = cy + 1.0 if nb == 0 else cy + nb - 2.0
            if new_column:
                jj = _lower_bound(order, n_small, col, lo, int(nz), int(ny), x0)
            else:
                jj = cursor[nb]
                while jj < n_small and box[jj, 6] == nz and box[jj, 7] == ny and box[jj, 0] < x0:
                    jj += 1
            cursor[nb] = jj
            while jj < n_small:
                if box[jj, 6] != nz or box[jj, 7] != ny or box[jj, 0] > hx:
                    break
                if _boxes_overlap(box, ii, jj):
                    count = _test_pair(order[ii], order[jj], group, mask, exclude_ptr, exclude_idx, pairs, count)
                jj += 1
    # shapes larger than a cell (planes, big meshes) against every other shape: O(n) each
    for ii in range(n_small, n):
        s = order[ii]
        for jj in range(n):
            if jj >= n_small and jj <= ii:
                continue
            t = order[jj]
            if (lo[t, 0] <= hi[s, 0] and lo[s, 0] <= hi[t, 0] and lo[t, 1] <= hi[s, 1] and lo[s, 1] <= hi[t, 1]
                    and lo[t, 2] <= hi[s, 2] and lo[s, 2] <= hi[t, 2]):
                count = _test_pair(s, t, group, mask, exclude_ptr, exclude_idx, pairs, count)
    return count if count <= pairs.shape[0] else -count
