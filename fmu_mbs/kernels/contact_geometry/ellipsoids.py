"""Narrow phase: ellipsoid-ellipsoid and ellipsoid-sphere by the minimum translation distance
(Perram-Wertheim start, Riemannian Newton; the package docstring)."""

from __future__ import annotations

import math

from ..inner import inner_kernel
from .shapes import _NEWTON_ITERS, _PW_ITERS
from .vec import _add, _axpy, _dot, _norm, _push, _scale, _sub

# --- ellipsoids ------------------------------------------------------------------------------------------------

@inner_kernel
def _shape_matrix(R, a, b, c):
    """M = R diag(a^2, b^2, c^2) R^T as (xx, yy, zz, xy, xz, yz)."""
    a2 = a * a
    b2 = b * b
    c2 = c * c
    xx = R[0, 0] * R[0, 0] * a2 + R[0, 1] * R[0, 1] * b2 + R[0, 2] * R[0, 2] * c2
    yy = R[1, 0] * R[1, 0] * a2 + R[1, 1] * R[1, 1] * b2 + R[1, 2] * R[1, 2] * c2
    zz = R[2, 0] * R[2, 0] * a2 + R[2, 1] * R[2, 1] * b2 + R[2, 2] * R[2, 2] * c2
    xy = R[0, 0] * R[1, 0] * a2 + R[0, 1] * R[1, 1] * b2 + R[0, 2] * R[1, 2] * c2
    xz = R[0, 0] * R[2, 0] * a2 + R[0, 1] * R[2, 1] * b2 + R[0, 2] * R[2, 2] * c2
    yz = R[1, 0] * R[2, 0] * a2 + R[1, 1] * R[2, 1] * b2 + R[1, 2] * R[2, 2] * c2
    return xx, yy, zz, xy, xz, yz


@inner_kernel
def _sym_mul(M, v):
    return (M[0] * v[0] + M[3] * v[1] + M[4] * v[2],
            M[3] * v[0] + M[1] * v[1] + M[5] * v[2],
            M[4] * v[0] + M[5] * v[1] + M[2] * v[2])


@inner_kernel
def _sym_lin(s, A, t, B):
    """s A + t B for symmetric 6-tuples."""
    return (s * A[0] + t * B[0], s * A[1] + t * B[1], s * A[2] + t * B[2],
            s * A[3] + t * B[3], s * A[4] + t * B[4], s * A[5] + t * B[5])


@inner_kernel
def _sym_solve(M, r):
    """M^-1 r for a symmetric positive definite M (cofactors); zero if M is singular."""
    c00 = M[1] * M[2] - M[5] * M[5]
    c01 = M[4] * M[5] - M[3] * M[2]
    c02 = M[3] * M[5] - M[4] * M[1]
    c11 = M[0] * M[2] - M[4] * M[4]
    c12 = M[3] * M[4] - M[0] * M[5]
    c22 = M[0] * M[1] - M[3] * M[3]
    det = M[0] * c00 + M[3] * c01 + M[4] * c02
    if det <= 0.0:
        return 0.0, 0.0, 0.0
    inv = 1.0 / det
    return ((c00 * r[0] + c01 * r[1] + c02 * r[2]) * inv,
            (c01 * r[0] + c11 * r[1] + c12 * r[2]) * inv,
            (c02 * r[0] + c12 * r[1] + c22 * r[2]) * inv)


@inner_kernel
def _support_gap(n, r, Ma, Mb):
    """f(n) = r . n + sqrt(n' Ma n) + sqrt(n' Mb n) (r = c_b - c_a): the overlap of the two supports along n."""
    return _dot(r, n) + math.sqrt(max(_dot(n, _sym_mul(Ma, n)), 0.0)) + math.sqrt(max(_dot(n, _sym_mul(Mb, n)), 0.0))


@inner_kernel
def _tangent_basis(n):
    """Orthonormal t1, t2 normal to the unit n (Duff et al., J. Computer Graphics Techniques 6(1), 2017)."""
    sg = 1.0 if n[2] >= 0.0 else -1.0
    a = -1.0 / (sg + n[2])
    b = n[0] * n[1] * a
    return (1.0 + sg * n[0] * n[0] * a, sg * b, -sg * n[0]), (b, sg + n[1] * n[1] * a, -n[1])


@inner_kernel
def _perram_wertheim(r, Ma, Mb):
    """Maximum S* of S(l) = l (1 - l) r' G(l)^-1 r, G = (1 - l) Ma + l Mb, and z = G(l*)^-1 r."""
    D = _sym_lin(-1.0, Ma, 1.0, Mb)
    lo = 0.0
    hi = 1.0
    lam = 0.5
    for _ in range(_PW_ITERS):
        G = _sym_lin(1.0 - lam, Ma, lam, Mb)
        z = _sym_solve(G, r)
        Q = _dot(r, z)
        Dz = _sym_mul(D, z)
        Qp = -_dot(z, Dz)
        Qpp = 2.0 * _dot(Dz, _sym_solve(G, Dz))
        Sp = (1.0 - 2.0 * lam) * Q + lam * (1.0 - lam) * Qp
        Spp = -2.0 * Q + 2.0 * (1.0 - 2.0 * lam) * Qp + lam * (1.0 - lam) * Qpp
        if Sp > 0.0:
            lo = lam
        else:
            hi = lam
        new = lam - Sp / Spp if Spp < 0.0 else -1.0
        if not (lo < new < hi):
            new = 0.5 * (lo + hi)
        if abs(new - lam) <= 1e-15 or hi - lo <= 1e-15:
            break
        lam = new
    G = _sym_lin(1.0 - lam, Ma, lam, Mb)
    z = _sym_solve(G, r)
    return lam * (1.0 - lam) * _dot(r, z), z


@inner_kernel
def _ellipsoid_ellipsoid(ca, Ma, cb, Mb, out, k):
    """Minimum translation distance of two ellipsoids {c + M^(1/2) u, |u| <= 1} (see the module docstring)."""
    r = _sub(cb, ca)
    dist = _norm(r)
    scene = dist + math.sqrt(Ma[0] + Ma[1] + Ma[2]) + math.sqrt(Mb[0] + Mb[1] + Mb[2])
    # 1. a separating direction along the centre line
    if dist > 0.0 and _support_gap(_scale(-1.0 / dist, r), r, Ma, Mb) <= 0.0:
        return k
    # 2. exact overlap test and initial normal from the Perram-Wertheim contact function
    S, z = _perram_wertheim(r, Ma, Mb)
    if S >= 1.0:
        return k
    zn = _norm(z)
    if zn > 1e-12 * dist and dist > 1e-12 * scene:
        n = _scale(-1.0 / zn, z)
    else:   # concentric: the world axis of least overlap
        n = (1.0, 0.0, 0.0)
        fbest = _support_gap(n, r, Ma, Mb)
        for j in range(1, 3):
            e = (1.0 if j == 0 else 0.0, 1.0 if j == 1 else 0.0, 1.0 if j == 2 else 0.0)
            fe = _support_gap(e, r, Ma, Mb)
            if fe < fbest:
                fbest = fe
                n = e
    # 3. Riemannian Newton on the unit sphere for the minimum of f
    f = _support_gap(n, r, Ma, Mb)
    tol = 1e-13 * scene
    for _ in range(_NEWTON_ITERS):
        ua = _sym_mul(Ma, n)
        ub = _sym_mul(Mb, n)
        sa = math.sqrt(max(_dot(n, ua), 1e-300))
        sb = math.sqrt(max(_dot(n, ub), 1e-300))
        g = _add(r, _add(_scale(1.0 / sa, ua), _scale(1.0 / sb, ub)))
        t1, t2 = _tangent_basis(n)
        g1 = _dot(t1, g)
        g2 = _dot(t2, g)
        if math.sqrt(g1 * g1 + g2 * g2) <= tol:
            break
        # Hessian of f in R^3: Ma/sa - ua ua'/sa^3 + Mb/sb - ub ub'/sb^3, projected on the tangent plane
        a1 = _dot(ua, t1)
        a2 = _dot(ua, t2)
        b1 = _dot(ub, t1)
        b2 = _dot(ub, t2)
        Mat1 = _sym_mul(Ma, t1)
        Mbt1 = _sym_mul(Mb, t1)
        Mat2 = _sym_mul(Ma, t2)
        Mbt2 = _sym_mul(Mb, t2)
        sa3 = sa * sa * sa
        sb3 = sb * sb * sb
        h11 = _dot(t1, Mat1) / sa - a1 * a1 / sa3 + _dot(t1, Mbt1) / sb - b1 * b1 / sb3 - f
        h12 = _dot(t1, Mat2) / sa - a1 * a2 / sa3 + _dot(t1, Mbt2) / sb - b1 * b2 / sb3
        h22 = _dot(t2, Mat2) / sa - a2 * a2 / sa3 + _dot(t2, Mbt2) / sb - b2 * b2 / sb3 - f
        # not convex here (deep penetration): shift the Hessian to positive definite (Levenberg-Marquardt)
        lam_min = 0.5 * (h11 + h22) - math.sqrt(0.25 * (h11 - h22) ** 2 + h12 * h12)
        curv = abs(h11) + abs(h22) + abs(f) + 1e-12 * scene
        if lam_min < 1e-3 * curv:
            h11 += 1e-3 * curv - lam_min
            h22 += 1e-3 * curv - lam_min
        det = h11 * h22 - h12 * h12
        d1 = -(h22 * g1 - h12 * g2) / det
        d2 = -(h11 * g2 - h12 * g1) / det
        dn = math.sqrt(d1 * d1 + d2 * d2)
        if dn > 0.5:
            d1 *= 0.5 / dn
            d2 *= 0.5 / dn
        slope = g1 * d1 + g2 * d2
        step = 1.0
        accepted = False
        for _ls in range(30):
            trial = _axpy(step * d1, t1, _axpy(step * d2, t2, n))
            trial = _scale(1.0 / _norm(trial), trial)
            ft = _support_gap(trial, r, Ma, Mb)
            if ft <= f + 1e-4 * step * slope + 4e-16 * scene:
                accepted = True
                break
            step *= 0.5
        if not accepted:
            break
        n = trial
        f = ft
        if step * dn <= 1e-15:
            break
    if f <= 0.0:
        return k
    sa = math.sqrt(max(_dot(n, _sym_mul(Ma, n)), 1e-300))
    sb = math.sqrt(max(_dot(n, _sym_mul(Mb, n)), 1e-300))
    xa = _axpy(-1.0 / sa, _sym_mul(Ma, n), ca)     # support point of a in -n (deepest point of a)
    xb = _axpy(1.0 / sb, _sym_mul(Mb, n), cb)      # support point of b in +n
    return _push(out, k, f, n, _scale(0.5, _add(xa, xb)))
