"""Narrow phase: a sphere against a triangle mesh (Ericson 5.1.5, the package docstring's double-count rule)."""

from __future__ import annotations

from ..inner import inner_kernel
from .vec import _add, _axpy, _cross, _dot, _norm, _push, _rot, _rot_t, _scale, _sub

# --- triangle meshes ---------------------------------------------------------------------------------------------

@inner_kernel
def _closest_on_triangle(p, a, b, c):
    """Closest point of triangle abc to p and its Voronoi feature: 0, 1, 2 vertex a, b, c; 3 edge ab; 4 edge ac;
    5 edge bc; 6 face interior (Ericson, Real-Time Collision Detection, 5.1.5)."""
    ab = _sub(b, a)
    ac = _sub(c, a)
    ap = _sub(p, a)
    d1 = _dot(ab, ap)
    d2 = _dot(ac, ap)
    if d1 <= 0.0 and d2 <= 0.0:
        return a, 0
    bp = _sub(p, b)
    d3 = _dot(ab, bp)
    d4 = _dot(ac, bp)
    if d3 >= 0.0 and d4 <= d3:
        return b, 1
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        return _axpy(d1 / (d1 - d3), ab, a), 3
    cp = _sub(p, c)
    d5 = _dot(ab, cp)
    d6 = _dot(ac, cp)
    if d6 >= 0.0 and d5 <= d6:
        return c, 2
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        return _axpy(d2 / (d2 - d6), ac, a), 4
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        return _axpy((d4 - d3) / ((d4 - d3) + (d5 - d6)), _sub(c, b), b), 5
    s = va + vb + vc
    if s <= 0.0:    # degenerate triangle
        return a, 0
    return _axpy(vb / s, ab, _axpy(vc / s, ac, a)), 6


@inner_kernel
def _triangle(mesh_verts, vbase, mesh_tris, it):
    i0 = mesh_tris[it, 0]
    i1 = mesh_tris[it, 1]
    i2 = mesh_tris[it, 2]
    a = (mesh_verts[vbase + i0, 0], mesh_verts[vbase + i0, 1], mesh_verts[vbase + i0, 2])
    b = (mesh_verts[vbase + i1, 0], mesh_verts[vbase + i1, 1], mesh_verts[vbase + i1, 2])
    c = (mesh_verts[vbase + i2, 0], mesh_verts[vbase + i2, 1], mesh_verts[vbase + i2, 2])
    return a, b, c


@inner_kernel
def _triangle_candidate(p, r, a, b, c):
    """Closest point q of a front-facing triangle within r of p: (valid, q, feature, distance, face normal)."""
    nf = _cross(_sub(b, a), _sub(c, a))
    nfn = _norm(nf)
    q = a
    if nfn <= 0.0:
        return False, q, 0, 0.0, (0.0, 0.0, 1.0)
    nf = _scale(1.0 / nfn, nf)
    if _dot(nf, _sub(p, a)) <= 0.0:      # behind the triangle's plane: one-sided
        return False, q, 0, 0.0, nf
    if (min(a[0], b[0], c[0]) > p[0] + r or max(a[0], b[0], c[0]) < p[0] - r
            or min(a[1], b[1], c[1]) > p[1] + r or max(a[1], b[1], c[1]) < p[1] - r
            or min(a[2], b[2], c[2]) > p[2] + r or max(a[2], b[2], c[2]) < p[2] - r):
        return False, q, 0, 0.0, nf
    q, feat = _closest_on_triangle(p, a, b, c)
    d = _norm(_sub(p, q))
    return d < r, q, feat, d, nf


@inner_kernel
def _dominates(d2, rank2, i2, d, rank, i, tie):
    """Candidate 2 ranks before candidate 1: closer (beyond ``tie``), else face before edge/vertex, else index."""
    if d2 < d - tie:
        return True
    if d2 > d + tie:
        return False
    return rank2 < rank or (rank2 == rank and i2 < i)


@inner_kernel
def _sphere_mesh(r, c, mi, o, R, mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris, out, k):
    p = _rot_t(R, _sub(c, o))          # centre in the mesh frame
    vbase = mesh_ptr[mi]
    t0 = mesh_tri_ptr[mi]
    t1 = mesh_tri_ptr[mi + 1]
    tie = 1e-9 * r
    for it in range(t0, t1):
        a, b, cc = _triangle(mesh_verts, vbase, mesh_tris, it)
        ok, q, feat, d, nf = _triangle_candidate(p, r, a, b, cc)
        if not ok:
            continue
        # vertices of the feature holding q (mesh-local indices; -1 unused)
        f0 = mesh_tris[it, 0]
        f1 = mesh_tris[it, 1]
        f2 = mesh_tris[it, 2]
        if feat == 0:
            f1, f2 = -1, -1
        elif feat == 1:
            f0, f2 = f1, -1
            f1 = -1
        elif feat == 2:
            f0, f1 = f2, -1
            f2 = -1
        elif feat == 3:
            f2 = -1
        elif feat == 4:
            f1, f2 = f2, -1
        elif feat == 5:
            f0, f1, f2 = f1, f2, -1
        rank = 0 if feat == 6 else 1
        dropped = False
        for jt in range(t0, t1):
            if jt == it:
                continue
            j0 = mesh_tris[jt, 0]
            j1 = mesh_tris[jt, 1]
            j2 = mesh_tris[jt, 2]
            shares = False
            for f in (f0, f1, f2):
                if f >= 0 and (j0 == f or j1 == f or j2 == f):
                    shares = True
            if not shares:
                continue
            a2, b2, c2 = _triangle(mesh_verts, vbase, mesh_tris, jt)
            ok2, q2, feat2, d2, nf2 = _triangle_candidate(p, r, a2, b2, c2)
            if not ok2 or not _dominates(d2, 0 if feat2 == 6 else 1, jt, d, rank, it, tie):
                continue
            # an edge or vertex point yields to a better neighbour; a face point only to the same point
            if rank == 1 or _norm(_sub(q2, q)) <= tie:
                dropped = True
                break
        if dropped:
            continue
        if feat == 6:
            nl = nf
            depth = r - _dot(nf, _sub(p, q))
        else:
            nl = _scale(1.0 / d, _sub(p, q)) if d > 1e-12 * r else nf
            depth = r - d
        mid = _scale(0.5, _add(q, _axpy(-r, nl, p)))
        k = _push(out, k, depth, _rot(R, nl), _add(o, _rot(R, mid)))
    return k
