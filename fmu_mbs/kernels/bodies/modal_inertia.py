"""Floating modal body, dynamics (kernels/bodies/modal.py has the coordinates, the frame and the markers): the
mass block B^T M(eta) B from the inertia invariants, the quadratic velocity, elastic, damping and stiffening forces,
gravity, and the energies; the equations are in modal.py's docstring (fe.ffrf.rp_equations is their numpy
reference). Body-level functions (one call per body and evaluation); the per-entry helpers are inlined into them.
"""

from __future__ import annotations

from numba import njit

from ..inner import inner_kernel
from ..model_arrays import FALSE, TRUE
from ..rotation import cross_v, dot_v
from .modal import add_rotational, body_velocities, gbar, mtv, mv, rotation, rows_dot

# --- the invariant mass matrix ------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def ctr_entry(md, b, mass, x, xa, const, i, j):
    """C[i, j] = (m skew(c) if const) + sum_k x_k mPhitTPsiTilde[i, 3k + j]; M_tr = -C at x = eta."""
    m = md.n_modes[b]
    s = 0.0
    if const:
        c = md.com[b]
        if i == 0:
            s = mass * (0.0 if j == 0 else (-c[2] if j == 1 else c[1]))
        elif i == 1:
            s = mass * (c[2] if j == 0 else (0.0 if j == 1 else -c[0]))
        else:
            s = mass * (-c[1] if j == 0 else (c[0] if j == 1 else 0.0))
    adr = md.phit_psit[b]
    for k in range(m):
        s += x[xa + k] * md.pool[adr + i * 3 * m + 3 * k + j]
    return s


@inner_kernel(_nrt=False)
def ctr(md, b, mass, x, xa, const):
    """C (row-major 9-tuple) of ctr_entry."""
    return (ctr_entry(md, b, mass, x, xa, const, 0, 0), ctr_entry(md, b, mass, x, xa, const, 0, 1),
            ctr_entry(md, b, mass, x, xa, const, 0, 2), ctr_entry(md, b, mass, x, xa, const, 1, 0),
            ctr_entry(md, b, mass, x, xa, const, 1, 1), ctr_entry(md, b, mass, x, xa, const, 1, 2),
            ctr_entry(md, b, mass, x, xa, const, 2, 0), ctr_entry(md, b, mass, x, xa, const, 2, 1),
            ctr_entry(md, b, mass, x, xa, const, 2, 2))


@njit(cache=True, inline="always")
def block(md, adr, m3, k):
    """The k-th 3 x 3 block (row-major 9-tuple) of a 3 x 3m invariant at pool address adr (m3 = 3m)."""
    c = adr + 3 * k
    return (md.pool[c], md.pool[c + 1], md.pool[c + 2], md.pool[c + m3], md.pool[c + m3 + 1], md.pool[c + m3 + 2],
            md.pool[c + 2 * m3], md.pool[c + 2 * m3 + 1], md.pool[c + 2 * m3 + 2])


@njit(cache=True, inline="always")
def y_block(md, ap, m3, k, x, xa):
    """Y_k = sum_l x_l P[3k:3k+3, 3l:3l+3] (row-major 9-tuple) of the 3m x 3m invariant P at pool address ap,
    m3 = 3m, read in contiguous row triples."""
    y0 = y1 = y2 = y3 = y4 = y5 = y6 = y7 = y8 = 0.0
    r0 = ap + 3 * k * m3
    for l in range(m3 // 3):
        el = x[xa + l]
        c0 = r0 + 3 * l
        y0 += el * md.pool[c0]
        y1 += el * md.pool[c0 + 1]
        y2 += el * md.pool[c0 + 2]
        y3 += el * md.pool[c0 + m3]
        y4 += el * md.pool[c0 + m3 + 1]
        y5 += el * md.pool[c0 + m3 + 2]
        y6 += el * md.pool[c0 + 2 * m3]
        y7 += el * md.pool[c0 + 2 * m3 + 1]
        y8 += el * md.pool[c0 + 2 * m3 + 2]
    return y0, y1, y2, y3, y4, y5, y6, y7, y8


@inner_kernel(_nrt=False)
def mrr(md, b, x, xa):
    """M_rr at eta = x as a row-major 9-tuple: J0 + sum_k eta_k (S_k + S_k^T + Y_k), S_k = mXRefTildePsiTilde_k,
    Y_k = sum_l eta_l P[3k:3k+3, 3l:3l+3] (P = mPsiTildePsiTilde): J0 + S + S^T + E^T P E with S = mXRefTildePsiTilde
    E, E = eta x I3, read block by block (contiguous rows of P)."""
    m = md.n_modes[b]
    m3 = 3 * m
    ax = md.x_psit[b]
    ap = md.psit_psit[b]
    J0 = md.j0[b]
    M = (J0[0, 0], J0[0, 1], J0[0, 2], J0[1, 0], J0[1, 1], J0[1, 2], J0[2, 0], J0[2, 1], J0[2, 2])
    for k in range(m):
        ek = x[xa + k]
        y0, y1, y2, y3, y4, y5, y6, y7, y8 = y_block(md, ap, m3, k, x, xa)
        S = block(md, ax, m3, k)
        M = (M[0] + ek * (S[0] + S[0] + y0), M[1] + ek * (S[1] + S[3] + y1), M[2] + ek * (S[2] + S[6] + y2),
             M[3] + ek * (S[3] + S[1] + y3), M[4] + ek * (S[4] + S[4] + y4), M[5] + ek * (S[5] + S[7] + y5),
             M[6] + ek * (S[6] + S[2] + y6), M[7] + ek * (S[7] + S[5] + y7), M[8] + ek * (S[8] + S[8] + y8))
    return M


@njit(cache=True, inline="always")
def mrf_entry(md, b, x, xa, i, j):
    """M_rf[i, j] = -(mXRefTildePsi[i, j] + sum_k x_k mPsiTildePsi[3k + i, j]) at eta = x."""
    m = md.n_modes[b]
    s = md.pool[md.x_psi[b] + i * m + j]
    ap = md.psit_psi[b]
    for k in range(m):
        s += x[xa + k] * md.pool[ap + (3 * k + i) * m + j]
    return -s


@inner_kernel(_nrt=False)
def mrf_times(md, b, x, xa, y, ya):
    """M_rf(x) y[ya:ya+m] (3-tuple)."""
    m = md.n_modes[b]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    for j in range(m):
        s0 += mrf_entry(md, b, x, xa, 0, j) * y[ya + j]
        s1 += mrf_entry(md, b, x, xa, 1, j) * y[ya + j]
        s2 += mrf_entry(md, b, x, xa, 2, j) * y[ya + j]
    return s0, s1, s2


@inner_kernel(_nrt=False)
def mtf_times(md, b, y, ya):
    """mPhitTPsi y[ya:ya+m] (3-tuple)."""
    m = md.n_modes[b]
    adr = md.phit_psi[b]
    return (rows_dot(md, adr, m, 0, y, ya), rows_dot(md, adr, m, 1, y, ya),
            rows_dot(md, adr, m, 2, y, ya))


@njit(cache=True, _nrt=False)
def mass_block(md, b, a, mass, q, out, off):
    """out[off:off+7+m, off:off+7+m] = B^T M(eta) B (the caller zeroed it)."""
    m = md.n_modes[b]
    e = a + 7
    A = rotation(q, a)
    G = gbar(q, a)
    C = ctr(md, b, mass, q, e, TRUE)
    Mrr = mrr(md, b, q, e)
    for i in range(3):
        out[off + i, off + i] = mass
    # r-p: -2 A C Gbar;  p-p: 4 Gbar^T Mrr Gbar
    AC = (A[0] * C[0] + A[1] * C[3] + A[2] * C[6], A[0] * C[1] + A[1] * C[4] + A[2] * C[7],
          A[0] * C[2] + A[1] * C[5] + A[2] * C[8], A[3] * C[0] + A[4] * C[3] + A[5] * C[6],
          A[3] * C[1] + A[4] * C[4] + A[5] * C[7], A[3] * C[2] + A[4] * C[5] + A[5] * C[8],
          A[6] * C[0] + A[7] * C[3] + A[8] * C[6], A[6] * C[1] + A[7] * C[4] + A[8] * C[7],
          A[6] * C[2] + A[7] * C[5] + A[8] * C[8])
    for i in range(3):
        for c in range(4):
            v = -2.0 * (AC[3 * i] * G[c] + AC[3 * i + 1] * G[4 + c] + AC[3 * i + 2] * G[8 + c])
            out[off + i, off + 3 + c] = v
            out[off + 3 + c, off + i] = v
    for r_ in range(4):
        for c in range(4):
            s = 0.0
            for i in range(3):
                for j in range(3):
                    s += G[4 * i + r_] * Mrr[3 * i + j] * G[4 * j + c]
            out[off + 3 + r_, off + 3 + c] = 4.0 * s
    pf = md.phit_psi[b]
    for j in range(m):
        col = (md.pool[pf + j], md.pool[pf + m + j], md.pool[pf + 2 * m + j])
        acol = mv(A, col)
        for i in range(3):
            out[off + i, off + 7 + j] = acol[i]
            out[off + 7 + j, off + i] = acol[i]
        rf = (mrf_entry(md, b, q, e, 0, j), mrf_entry(md, b, q, e, 1, j),
              mrf_entry(md, b, q, e, 2, j))
        for c in range(4):
            v = 2.0 * (G[c] * rf[0] + G[4 + c] * rf[1] + G[8 + c] * rf[2])
            out[off + 3 + c, off + 7 + j] = v
            out[off + 7 + j, off + 3 + c] = v
        for i in range(m):
            out[off + 7 + i, off + 7 + j] = md.pool[md.m_ff[b] + i * m + j]


# --- forces and energies ------------------------------------------------------------------------------------


@inner_kernel(_nrt=False)
def momenta(md, b, mass, q, qd, e, v, w):
    """(p_t, p_r) = the translational and rotational rows of M(eta) s (body frame)."""
    C = ctr(md, b, mass, q, e, TRUE)
    Mrr = mrr(md, b, q, e)
    cw = mv(C, w)
    tf = mtf_times(md, b, qd, e)
    ctv = mtv(C, v)
    rw = mv(Mrr, w)
    rf = mrf_times(md, b, q, e, qd, e)
    return ((mass * v[0] - cw[0] + tf[0], mass * v[1] - cw[1] + tf[1], mass * v[2] - cw[2] + tf[2]),
            (-ctv[0] + rw[0] + rf[0], -ctv[1] + rw[1] + rf[1], -ctv[2] + rw[2] + rf[2]))


@inner_kernel(_nrt=False)
def add_internal_forces(md, b, a, mass, g, q, qd, Q):
    """Q += Q_q - B^T M(eta)[:, :3] A^T g ... i.e. every force of the body but gravity: the quadratic velocity
    vector, -K_ff eta - D_ff eta', and -K_geo(w, -A^T g) eta when stiffening is on (module docstring).

    One pass over the modes k builds every eta-dependent term from two contractions of the invariants:
    Y_k = sum_l eta_l P[3k:3k+3, 3l:3l+3] (P = mPsiTildePsiTilde, symmetric) and pe_k = mPsiTildePsi[3k:3k+3, :] eta',
    so that E^T P E = sum_k eta_k Y_k, its rate sum_k eta'_k (Y_k + Y_k^T), 1/2 s^T (dM_rr/deta_k) s's quadratic
    part w^T Y_k w, M_rf eta' = -(mXRefTildePsi eta' + sum_k eta_k pe_k) and M_rf' eta' = -sum_k eta'_k pe_k:
    ~17 m^2 products instead of ~50 m^2 when every matrix is formed on its own (m = 12: 6.0 -> 2.2 us)."""
    m = md.n_modes[b]
    e = a + 7
    A, v, w = body_velocities(q, qd, a)
    d = cross_v(v, w)                                # B' q' = [-w x v, 0, 0] = [v x w, 0, 0]
    gb = mtv(A, (g[0], g[1], g[2]))
    stiff = md.stiffening[b] != 0
    kg = md.k_geo[b]
    mm = m * m
    m3 = 3 * m
    wp = (w[0] * w[0], w[1] * w[1], w[2] * w[2], w[0] * w[1], w[0] * w[2], w[1] * w[2], -gb[0], -gb[1], -gb[2])
    ppt, xpt, ppp, pps = md.phit_psit[b], md.x_psit[b], md.psit_psi[b], md.psit_psit[b]
    pf, kff, dff = md.phit_psi[b], md.k_ff[b], md.d_ff[b]
    z9 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    Mrr = z9          # sum_k eta_k (S_k + S_k^T + Y_k) (+ J0 below), S_k = mXRefTildePsiTilde_k
    Mrrd = z9         # sum_k eta'_k (S_k + S_k^T + Y_k + Y_k^T)
    rf0 = 0.0         # sum_k eta_k pe_k
    rf1 = 0.0
    rf2 = 0.0
    rd0 = 0.0         # sum_k eta'_k pe_k
    rd1 = 0.0
    rd2 = 0.0
    for k in range(m):
        ek = q[e + k]
        dk = qd[e + k]
        y0, y1, y2, y3, y4, y5, y6, y7, y8 = y_block(md, pps, m3, k, q, e)
        pe0 = pe1 = pe2 = 0.0
        mdot = 0.0
        f = 0.0
        for l in range(m):
            el = q[e + l]
            dl = qd[e + l]
            pe0 += md.pool[ppp + (3 * k) * m + l] * dl
            pe1 += md.pool[ppp + (3 * k + 1) * m + l] * dl
            pe2 += md.pool[ppp + (3 * k + 2) * m + l] * dl
            # (M' s)_f,k = -sum_l eta'_l mPsiTildePsi[3l:3l+3, k] . w
            mdot -= dl * (md.pool[ppp + (3 * l) * m + k] * w[0] + md.pool[ppp + (3 * l + 1) * m + k] * w[1]
                          + md.pool[ppp + (3 * l + 2) * m + k] * w[2])
            f -= md.pool[kff + k * m + l] * el + md.pool[dff + k * m + l] * dl
            if stiff:
                kk = 0.0
                for c in range(9):
                    kk += wp[c] * md.pool[kg + c * mm + k * m + l]
                f -= kk * el
        # mPhitTPsiTilde_k and mXRefTildePsiTilde_k (3 x 3 blocks of the 3 x 3m invariants)
        P = block(md, ppt, m3, k)
        S = block(md, xpt, m3, k)
        Y = (y0, y1, y2, y3, y4, y5, y6, y7, y8)
        ptw = mv(P, w)                               # mPhitTPsiTilde_k w
        sw = mv(S, w)                                # mXRefTildePsiTilde_k w
        yw = mv(Y, w)
        # -1/2 s^T (dM/deta_k) s, and the rest of the modal row
        f += (-dot_v(v, ptw) - (w[0] * pe0 + w[1] * pe1 + w[2] * pe2) + dot_v(w, sw) + dot_v(w, yw) - mdot
              - (md.pool[pf + k] * d[0] + md.pool[pf + m + k] * d[1] + md.pool[pf + 2 * m + k] * d[2]))
        Q[e + k] += f
        T = (S[0] + S[0], S[1] + S[3], S[2] + S[6], S[3] + S[1], S[4] + S[4], S[5] + S[7], S[6] + S[2],
             S[7] + S[5], S[8] + S[8])               # S_k + S_k^T
        Mrr = (Mrr[0] + ek * (T[0] + y0), Mrr[1] + ek * (T[1] + y1), Mrr[2] + ek * (T[2] + y2),
               Mrr[3] + ek * (T[3] + y3), Mrr[4] + ek * (T[4] + y4), Mrr[5] + ek * (T[5] + y5),
               Mrr[6] + ek * (T[6] + y6), Mrr[7] + ek * (T[7] + y7), Mrr[8] + ek * (T[8] + y8))
        Mrrd = (Mrrd[0] + dk * (T[0] + y0 + y0), Mrrd[1] + dk * (T[1] + y1 + y3), Mrrd[2] + dk * (T[2] + y2 + y6),
                Mrrd[3] + dk * (T[3] + y3 + y1), Mrrd[4] + dk * (T[4] + y4 + y4), Mrrd[5] + dk * (T[5] + y5 + y7),
                Mrrd[6] + dk * (T[6] + y6 + y2), Mrrd[7] + dk * (T[7] + y7 + y5), Mrrd[8] + dk * (T[8] + y8 + y8))
        rf0 += ek * pe0
        rf1 += ek * pe1
        rf2 += ek * pe2
        rd0 += dk * pe0
        rd1 += dk * pe1
        rd2 += dk * pe2
    C = ctr(md, b, mass, q, e, TRUE)
    Cd = ctr(md, b, mass, qd, e, FALSE)
    J0 = md.j0[b]
    Mrr = (Mrr[0] + J0[0, 0], Mrr[1] + J0[0, 1], Mrr[2] + J0[0, 2], Mrr[3] + J0[1, 0], Mrr[4] + J0[1, 1],
           Mrr[5] + J0[1, 2], Mrr[6] + J0[2, 0], Mrr[7] + J0[2, 1], Mrr[8] + J0[2, 2])
    # momenta p_t = m v - C w + mPhitTPsi eta', p_r = -C^T v + M_rr w + M_rf eta'
    cw = mv(C, w)
    tf = mtf_times(md, b, qd, e)
    ctv = mtv(C, v)
    rw = mv(Mrr, w)
    xp = (rows_dot(md, md.x_psi[b], m, 0, qd, e), rows_dot(md, md.x_psi[b], m, 1, qd, e),
          rows_dot(md, md.x_psi[b], m, 2, qd, e))
    pt = (mass * v[0] - cw[0] + tf[0], mass * v[1] - cw[1] + tf[1], mass * v[2] - cw[2] + tf[2])
    pr = (-ctv[0] + rw[0] - xp[0] - rf0, -ctv[1] + rw[1] - xp[1] - rf1, -ctv[2] + rw[2] - xp[2] - rf2)
    cdw = mv(Cd, w)                                  # (M' s)_t = -Cd w
    cdv = mtv(Cd, v)
    rdw = mv(Mrrd, w)
    ctd = mtv(C, d)
    wpt = cross_v(w, pt)
    wpr = cross_v(w, pr)
    vpt = cross_v(v, pt)
    ft = (cdw[0] - wpt[0] - mass * d[0], cdw[1] - wpt[1] - mass * d[1], cdw[2] - wpt[2] - mass * d[2])
    # M_rf' eta' = -sum_k eta'_k pe_k enters with a minus sign
    fr = (cdv[0] - rdw[0] + rd0 - wpr[0] - vpt[0] + ctd[0], cdv[1] - rdw[1] + rd1 - wpr[1] - vpt[1] + ctd[1],
          cdv[2] - rdw[2] + rd2 - wpr[2] - vpt[2] + ctd[2])
    aft = mv(A, ft)
    for i in range(3):
        Q[a + i] += aft[i]
    add_rotational(q, a, fr[0], fr[1], fr[2], 1.0, Q)


@inner_kernel(_nrt=False)
def add_gravity(md, b, a, mass, g, q, Q):
    """Q += B^T M(eta)[:, :3] A^T g: m g on r, (m c(eta) x A^T g) on p, mPhitTPsi^T A^T g on eta."""
    m = md.n_modes[b]
    e = a + 7
    A = rotation(q, a)
    gb = mtv(A, (g[0], g[1], g[2]))
    C = ctr(md, b, mass, q, e, TRUE)
    fr = mtv(C, gb)
    for i in range(3):
        Q[a + i] += mass * g[i]
    add_rotational(q, a, -fr[0], -fr[1], -fr[2], 1.0, Q)
    pf = md.phit_psi[b]
    for k in range(m):
        Q[e + k] += md.pool[pf + k] * gb[0] + md.pool[pf + m + k] * gb[1] + md.pool[pf + 2 * m + k] * gb[2]


@njit(cache=True, _nrt=False)
def kinetic_energy(md, b, a, mass, q, qd):
    """1/2 s^T M(eta) s (J)."""
    m = md.n_modes[b]
    e = a + 7
    _, v, w = body_velocities(q, qd, a)
    pt, pr = momenta(md, b, mass, q, qd, e, v, w)
    T = dot_v(v, pt) + dot_v(w, pr)
    tf = mtf_times(md, b, qd, e)
    T += dot_v(v, tf)
    for j in range(m):
        T += qd[e + j] * (mrf_entry(md, b, q, e, 0, j) * w[0] + mrf_entry(md, b, q, e, 1, j) * w[1]
                          + mrf_entry(md, b, q, e, 2, j) * w[2])
        for i in range(m):
            T += qd[e + i] * md.pool[md.m_ff[b] + i * m + j] * qd[e + j]
    return 0.5 * T


@inner_kernel(_nrt=False)
def potential_energy(md, b, a, mass, g, q):
    """-g . (m r + A (m c + mPhitTPsi eta)) + 1/2 eta^T K_ff eta (J)."""
    m = md.n_modes[b]
    e = a + 7
    A = rotation(q, a)
    c = md.com[b]
    tf = mtf_times(md, b, q, e)
    mc = mv(A, (mass * c[0] + tf[0], mass * c[1] + tf[1], mass * c[2] + tf[2]))
    V = 0.0
    for i in range(3):
        V -= g[i] * (mass * q[a + i] + mc[i])
    for i in range(m):
        for j in range(m):
            V += 0.5 * q[e + i] * md.pool[md.k_ff[b] + i * m + j] * q[e + j]
    return V


@inner_kernel(_nrt=False)
def damping_power(md, b, a, qd):
    """eta'^T D_ff eta' (W)."""
    m = md.n_modes[b]
    e = a + 7
    P = 0.0
    for i in range(m):
        for j in range(m):
            P += qd[e + i] * md.pool[md.d_ff[b] + i * m + j] * qd[e + j]
    return P
