"""Narrow phase: spheres, capsules and boxes against each other (Ericson 2005; the package docstring)."""

from __future__ import annotations

from ..inner import inner_kernel
from .shapes import _PARALLEL_EPS
from .vec import Z_AXIS, _add, _axpy, _clamp, _col, _cross, _dot, _norm, _push, _rot, _rot_t, _scale, _sub

# --- spheres, capsules, boxes --------------------------------------------------------------------------------------

@inner_kernel
def _sphere_sphere(ra, ca, rb, cb, fallback, out, k):
    """Sphere (ca, ra) against sphere (cb, rb); ``fallback`` is the normal when the centres coincide."""
    d = _sub(ca, cb)
    dist = _norm(d)
    depth = ra + rb - dist
    if depth <= 0.0:
        return k
    if dist > 1e-12 * (ra + rb):
        n = _scale(1.0 / dist, d)
    else:
        n = fallback
    xa = _axpy(-ra, n, ca)
    xb = _axpy(rb, n, cb)
    return _push(out, k, depth, n, _scale(0.5, _add(xa, xb)))


@inner_kernel
def _any_normal(z):
    """A unit vector normal to the unit vector z (a fallback direction; its reference axis switches at |z_x| = 0.9)."""
    if abs(z[0]) < 0.9:
        t = _cross(z, (1.0, 0.0, 0.0))
    else:
        t = _cross(z, (0.0, 1.0, 0.0))
    return _scale(1.0 / _norm(t), t)


@inner_kernel
def _closest_on_segment(c, o, z, h):
    """Closest point to c on the segment o + s z, s in [-h, h]."""
    s = _clamp(_dot(_sub(c, o), z), -h, h)
    return _axpy(s, z, o)


@inner_kernel
def _sphere_capsule(r, c, rc, h, o, R, out, k):
    return _sphere_capsule_axis(r, c, rc, h, o, _col(R, Z_AXIS), out, k)


@inner_kernel
def _sphere_capsule_axis(r, c, rc, h, o, z, out, k):
    """Sphere (r, c) against the capsule of radius rc about the segment o + s z, |s| <= h (z a unit vector)."""
    q = _closest_on_segment(c, o, z, h)
    return _sphere_sphere(r, c, rc, q, _any_normal(z), out, k)


@inner_kernel
def _segment_segment(p1, d1, p2, d2):
    """Parameters (s, t) in [0, 1] of the closest points p1 + s d1, p2 + t d2 (Ericson 5.1.9); parallel
    segments take the middle of the overlap of their projections."""
    r = _sub(p1, p2)
    a = _dot(d1, d1)
    e = _dot(d2, d2)
    f = _dot(d2, r)
    if a <= 1e-30 and e <= 1e-30:
        return 0.0, 0.0
    if a <= 1e-30:
        return 0.0, _clamp(f / e, 0.0, 1.0)
    c = _dot(d1, r)
    if e <= 1e-30:
        return _clamp(-c / a, 0.0, 1.0), 0.0
    b = _dot(d1, d2)
    denom = a * e - b * b
    if denom > _PARALLEL_EPS * a * e:
        s = _clamp((b * f - c * e) / denom, 0.0, 1.0)
    else:
        s0 = -c / a
        s1 = (b - c) / a
        lo = max(0.0, min(s0, s1))
        hi = min(1.0, max(s0, s1))
        s = _clamp(0.5 * (lo + hi), 0.0, 1.0)
    t = (b * s + f) / e
    if t < 0.0:
        t = 0.0
        s = _clamp(-c / a, 0.0, 1.0)
    elif t > 1.0:
        t = 1.0
        s = _clamp((b - c) / a, 0.0, 1.0)
    return s, t


@inner_kernel
def _capsule_capsule(ra, ha, oa, Ra, rb, hb, ob, Rb, out, k):
    return _capsule_capsule_axes(ra, ha, oa, _col(Ra, Z_AXIS), rb, hb, ob, _col(Rb, Z_AXIS), out, k)


@inner_kernel
def _capsule_capsule_axes(ra, ha, oa, za, rb, hb, ob, zb, out, k):
    """Two capsules about the segments o + s z, |s| <= h (z unit vectors)."""
    pa = _axpy(-ha, za, oa)
    pb = _axpy(-hb, zb, ob)
    da = _scale(2.0 * ha, za)
    db = _scale(2.0 * hb, zb)
    s, t = _segment_segment(pa, da, pb, db)
    qa = _axpy(s, da, pa)
    qb = _axpy(t, db, pb)
    # crossing axes: the common normal of the two axes (sign towards a's centre), else normal to a's axis
    w = _cross(za, zb)
    wn = _norm(w)
    if wn > 1e-9:
        fb = _scale(1.0 / wn, w)
        if _dot(fb, _sub(oa, ob)) < 0.0:
            fb = _scale(-1.0, fb)
    else:
        fb = _any_normal(za)
    return _sphere_sphere(ra, qa, rb, qb, fb, out, k)


@inner_kernel
def _sphere_box(r, c, hx, hy, hz, o, R, out, k):
    p = _rot_t(R, _sub(c, o))
    q = (_clamp(p[0], -hx, hx), _clamp(p[1], -hy, hy), _clamp(p[2], -hz, hz))
    d = _sub(p, q)
    dist = _norm(d)
    if dist > 0.0:
        depth = r - dist
        if depth <= 0.0:
            return k
        nl = _scale(1.0 / dist, d)
    else:   # centre inside: leave through the face of least penetration
        gx = hx - abs(p[0])
        gy = hy - abs(p[1])
        gz = hz - abs(p[2])
        if gx <= gy and gx <= gz:
            sg = 1.0 if p[0] >= 0.0 else -1.0
            nl = (sg, 0.0, 0.0)
            q = (sg * hx, p[1], p[2])
            depth = r + gx
        elif gy <= gz:
            sg = 1.0 if p[1] >= 0.0 else -1.0
            nl = (0.0, sg, 0.0)
            q = (p[0], sg * hy, p[2])
            depth = r + gy
        else:
            sg = 1.0 if p[2] >= 0.0 else -1.0
            nl = (0.0, 0.0, sg)
            q = (p[0], p[1], sg * hz)
            depth = r + gz
    mid = _scale(0.5, _add(q, _axpy(-r, nl, p)))
    return _push(out, k, depth, _rot(R, nl), _add(o, _rot(R, mid)))
