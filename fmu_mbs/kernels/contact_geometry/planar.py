"""Narrow phase of planar models: a circle against a convex polygon, both in the polygon marker's x-y plane."""

from __future__ import annotations

import math

from ..inner import inner_kernel
from .vec import _add, _push, _rot, _rot_t, _sub


@inner_kernel
def _circle_polygon(r, c, mi, o, R, mesh_ptr, mesh_verts, out, k):
    """A circle (centre c, radius r) against the convex polygon mi (vertices counter-clockwise in the x-y plane of
    the frame (o, R), stored as mesh vertices): at most one point, normal from the polygon towards the circle.
    Centre outside: q the closest boundary point, depth = r - |p - q|, n = (p - q) / |p - q| (Ericson 5.1.2 per
    edge). Centre inside: out through the edge of least penetration, n its outward normal, depth = r + distance."""
    p = _rot_t(R, _sub(c, o))
    v0 = mesh_ptr[mi]
    nv = mesh_ptr[mi + 1] - v0
    best_sd = -math.inf
    bnx, bny = 0.0, 1.0
    best_d2 = math.inf
    qx, qy = 0.0, 0.0
    for i in range(nv):
        ax, ay = mesh_verts[v0 + i, 0], mesh_verts[v0 + i, 1]
        j = v0 + (i + 1) % nv
        ex, ey = mesh_verts[j, 0] - ax, mesh_verts[j, 1] - ay
        L2 = ex * ex + ey * ey
        if L2 <= 0.0:
            continue
        L = math.sqrt(L2)
        nx, ny = ey / L, -ex / L          # outward normal of a counter-clockwise edge
        sd = (p[0] - ax) * nx + (p[1] - ay) * ny
        if sd > best_sd:
            best_sd, bnx, bny = sd, nx, ny
        t = min(max(((p[0] - ax) * ex + (p[1] - ay) * ey) / L2, 0.0), 1.0)
        cx, cy = ax + t * ex, ay + t * ey
        d2 = (p[0] - cx) ** 2 + (p[1] - cy) ** 2
        if d2 < best_d2:
            best_d2, qx, qy = d2, cx, cy
    if nv < 3:
        return k
    if best_sd > 0.0:
        d = math.sqrt(best_d2)
        if d >= r:
            return k
        depth = r - d
        if d > 1e-12 * r:
            nx, ny = (p[0] - qx) / d, (p[1] - qy) / d
        else:
            nx, ny = bnx, bny
    else:
        depth = r - best_sd
        nx, ny = bnx, bny
        qx, qy = p[0] - best_sd * nx, p[1] - best_sd * ny
    mid = (0.5 * (qx + p[0] - r * nx), 0.5 * (qy + p[1] - r * ny), p[2])
    return _push(out, k, depth, _rot(R, (nx, ny, 0.0)), _add(o, _rot(R, mid)))
