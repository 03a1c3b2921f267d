"""Constraint rows Phi(q, t), Jacobian Phi_q, velocity right side nu and acceleration right side gamma.

Every joint and driver is a set of basic rows between two markers (seed 004 GCons, Haug ch. 9):
CD, DP1, DP2, D, plus ANGLE (relative rotation about z_i, for rotation drivers and planar joints) and
the Euler-parameter normalisation of each rigid body. With Phi_q q'' = gamma and Phi_q q' = nu:
gamma = -(Phi_q q')_q q' + f''(t) and nu = f'(t). Rows are written with the derivatives g_v, g_w with
respect to each marker's origin velocity and angular velocity (world axes) and the markers' quadratic
accelerations; the body kind of each marker maps them to its coordinates (kernels/bodies/dispatch.py), so one
code path serves every body kind. Jacobian values go to ``jac[r, :]`` in the column order of
``m.row_cols[r, :]`` (body i's coordinates, then body j's; -1 = unused; width 2 x the largest body's
coordinate count). The twist rows ``jtw`` (reactions, joint friction) are the same derivatives about each
body's reference point r_b (the CM of a rigid kind): (v: g_v, w: g_w + s x g_v), s = o - r_b.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bodies.dispatch import eval_body_frames, eval_marker_frames, quad_acc, quad_alpha, row_to_q
from .functions import eval_time_function
from .inner import inner_kernel
from .model_arrays import ROW_ANGLE, ROW_CD, ROW_D, ROW_DP1, ROW_DP2, ROW_NORM, ZERO
from .rotation import cross_v, dot_v, wxwxs


@inner_kernel(_nrt=False)
def angle_about_z(Ri, Rj):
    """Angle from x_i to x_j about z_i (rad, in (-pi, pi]) and its (s, c) = (y_i.x_j, x_i.x_j)."""
    s = Ri[0, 1] * Rj[0, 0] + Ri[1, 1] * Rj[1, 0] + Ri[2, 1] * Rj[2, 0]
    c = Ri[0, 0] * Rj[0, 0] + Ri[1, 0] * Rj[1, 0] + Ri[2, 0] * Rj[2, 0]
    return math.atan2(s, c), s, c


@inner_kernel(_nrt=False)
def eval_constraint_rows(m, t, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw):
    """Fill phi, jac, nu, gamma and the twist-space rows jtw[r] = [v_i, w_i, v_j, w_j] (12)."""
    n_rows = m.row_type.shape[0]
    # marker accelerations at zero q'' of the last row's markers: a joint's rows are consecutive and share them
    # (on a modal body each costs the node's modal sums and a Rodrigues evaluation)
    ci_marker = -1
    cj_marker = -1
    ci = (0.0, 0.0, 0.0)
    cj = (0.0, 0.0, 0.0)
    ali = (0.0, 0.0, 0.0)
    alj = (0.0, 0.0, 0.0)
    for k in range(n_rows):
        typ = m.row_type[k]
        for c in range(jac.shape[1]):
            jac[k, c] = 0.0
        for c in range(12):
            jtw[k, c] = 0.0
        if typ == ROW_NORM:
            b = m.row_body_i[k]
            a = m.body_q_adr[b] + 3
            pp = 0.0
            pdpd = 0.0
            for i in range(4):
                jac[k, i] = q[a + i]
                pp += q[a + i] * q[a + i]
                pdpd += qd[a + i] * qd[a + i]
            phi[k] = 0.5 * (pp - 1.0)
            nu[k] = 0.0
            gamma[k] = -pdpd
            continue

        mi = m.row_mi[k]
        mj = m.row_mj[k]
        bi = m.row_body_i[k]
        bj = m.row_body_j[k]
        f, fd, fdd = eval_time_function(m.fn_type, m.fn_adr, m.fn_len, m.fn_par, m.row_fn[k], t)
        oi = o[mi]
        oj = o[mj]
        wi = wm[mi]
        wj = wm[mj]
        si = (oi[0] - r[bi, 0], oi[1] - r[bi, 1], oi[2] - r[bi, 2]) if bi >= 0 else (0.0, 0.0, 0.0)
        sj = (oj[0] - r[bj, 0], oj[1] - r[bj, 1], oj[2] - r[bj, 2]) if bj >= 0 else (0.0, 0.0, 0.0)
        d = (oj[0] - oi[0], oj[1] - oi[1], oj[2] - oi[2])
        dd = (vo[mj, 0] - vo[mi, 0], vo[mj, 1] - vo[mi, 1], vo[mj, 2] - vo[mi, 2])
        if mi != ci_marker:
            ci = quad_acc(m, r, o, wm, q, qd, mi)
            ali = quad_alpha(m, q, qd, mi)  # marker angular accelerations at zero q'' (0 on rigid kinds)
            ci_marker = mi
        if mj != cj_marker:
            cj = quad_acc(m, r, o, wm, q, qd, mj)
            alj = quad_alpha(m, q, qd, mj)
            cj_marker = mj
        dd_quad = (cj[0] - ci[0], cj[1] - ci[1], cj[2] - ci[2])  # d'' at zero accelerations
        # derivative of the row w.r.t. the marker points (gv) and rotations (gw)
        gvi = (0.0, 0.0, 0.0)
        gwi = (0.0, 0.0, 0.0)
        gvj = (0.0, 0.0, 0.0)
        gwj = (0.0, 0.0, 0.0)
        if typ == ROW_CD:
            c = (m.row_c[k, 0], m.row_c[k, 1], m.row_c[k, 2])
            phi[k] = dot_v(c, d) - f
            gvi = (-c[0], -c[1], -c[2])
            gvj = c
            quad = dot_v(c, dd_quad)
            nu[k] = fd
            gamma[k] = -quad + fdd
        elif typ == ROW_DP1:
            ai = (R[mi, 0, m.row_axis_i[k]], R[mi, 1, m.row_axis_i[k]], R[mi, 2, m.row_axis_i[k]])
            aj = (R[mj, 0, m.row_axis_j[k]], R[mj, 1, m.row_axis_j[k]], R[mj, 2, m.row_axis_j[k]])
            phi[k] = dot_v(ai, aj) - f
            gwi = cross_v(ai, aj)
            gwj = cross_v(aj, ai)
            quad = dot_v(wxwxs(wi, ai), aj) + 2.0 * dot_v(cross_v(wi, ai), cross_v(wj, aj)) \
                + dot_v(ai, wxwxs(wj, aj)) + dot_v(cross_v(ali, ai), aj) + dot_v(ai, cross_v(alj, aj))
            nu[k] = fd
            gamma[k] = -quad + fdd
        elif typ == ROW_DP2:
            ai = (R[mi, 0, m.row_axis_i[k]], R[mi, 1, m.row_axis_i[k]], R[mi, 2, m.row_axis_i[k]])
            phi[k] = dot_v(ai, d) - f
            gvi = (-ai[0], -ai[1], -ai[2])
            gwi = cross_v(ai, d)
            gvj = ai
            quad = dot_v(wxwxs(wi, ai), d) + 2.0 * dot_v(cross_v(wi, ai), dd) + dot_v(ai, dd_quad) \
                + dot_v(cross_v(ali, ai), d)
            nu[k] = fd
            gamma[k] = -quad + fdd
        elif typ == ROW_D:
            phi[k] = 0.5 * (dot_v(d, d) - f)
            gvi = (-d[0], -d[1], -d[2])
            gvj = d
            quad = dot_v(dd, dd) + dot_v(d, dd_quad)
            nu[k] = 0.5 * fd
            gamma[k] = -quad + 0.5 * fdd
        elif typ == ROW_ANGLE:
            theta, s, c = angle_about_z(R[mi], R[mj])
            diff = theta - f
            phi[k] = math.atan2(math.sin(diff), math.cos(diff))
            xi = (R[mi, 0, 0], R[mi, 1, 0], R[mi, 2, 0])
            yi = (R[mi, 0, 1], R[mi, 1, 1], R[mi, 2, 1])
            xj = (R[mj, 0, 0], R[mj, 1, 0], R[mj, 2, 0])
            r2 = s * s + c * c
            ds_i = cross_v(yi, xj)   # ds = w_i . ds_i + w_j . (-ds_i)
            dc_i = cross_v(xi, xj)
            gwi = ((c * ds_i[0] - s * dc_i[0]) / r2, (c * ds_i[1] - s * dc_i[1]) / r2,
                   (c * ds_i[2] - s * dc_i[2]) / r2)
            gwj = (-gwi[0], -gwi[1], -gwi[2])
            sdot = dot_v(wi, ds_i) - dot_v(wj, ds_i)
            cdot = dot_v(wi, dc_i) - dot_v(wj, dc_i)
            wj_xj = cross_v(wj, xj)
            sq = dot_v(wxwxs(wi, yi), xj) + 2.0 * dot_v(cross_v(wi, yi), wj_xj) + dot_v(yi, wxwxs(wj, xj)) \
                + dot_v(cross_v(ali, yi), xj) + dot_v(yi, cross_v(alj, xj))
            cq = dot_v(wxwxs(wi, xi), xj) + 2.0 * dot_v(cross_v(wi, xi), wj_xj) + dot_v(xi, wxwxs(wj, xj)) \
                + dot_v(cross_v(ali, xi), xj) + dot_v(xi, cross_v(alj, xj))
            quad = (c * sq - s * cq) / r2 - 2.0 * (c * sdot - s * cdot) * (c * cdot + s * sdot) / (r2 * r2)
            nu[k] = fd
            gamma[k] = -quad + fdd
        # twist-space rows: point derivative g_v acts through v + w x s
        ti = cross_v(si, gvi)
        tj = cross_v(sj, gvj)
        for i in range(3):
            jtw[k, i] = gvi[i]
            jtw[k, 3 + i] = gwi[i] + ti[i]
            jtw[k, 6 + i] = gvj[i]
            jtw[k, 9 + i] = gwj[i] + tj[i]
        off = 0
        if bi >= 0:
            row_to_q(m, q, r, o, mi, gvi[0], gvi[1], gvi[2], gwi[0], gwi[1], gwi[2], jac[k], ZERO)
            off = m.body_q_num[bi]
        if bj >= 0:
            row_to_q(m, q, r, o, mj, gvj[0], gvj[1], gvj[2], gwj[0], gwj[1], gwj[2], jac[k], off)


@njit(cache=True)
def eval_constraints(m, t, q, qd, phi, jac, nu, gamma, jtw):
    """Phi, Phi_q (row blocks), nu, gamma and twist rows at (t, q, qd); allocates its frame scratch."""
    nb = m.body_kind.shape[0]
    nm = m.marker_body.shape[0]
    r = np.empty((nb, 3))
    A = np.empty((nb, 3, 3))
    v = np.empty((nb, 3))
    w = np.empty((nb, 3))
    o = np.empty((nm, 3))
    R = np.empty((nm, 3, 3))
    vo = np.empty((nm, 3))
    wm = np.empty((nm, 3))
    eval_body_frames(m, q, qd, r, A, v, w)
    eval_marker_frames(m, q, qd, r, A, v, w, o, R, vo, wm)
    eval_constraint_rows(m, t, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw)


@njit(cache=True, _nrt=False)
def scatter_dense(jac, row_cols, out):
    """Dense Phi_q (n_rows x n_q) from row blocks."""
    out[:, :] = 0.0
    for k in range(jac.shape[0]):
        for c in range(row_cols.shape[1]):
            col = row_cols[k, c]
            if col >= 0:
                out[k, col] += jac[k, c]
