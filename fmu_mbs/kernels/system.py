"""The system quantities of M(q) qdd + Phi_q^T lam = Q(t, q, qd, u) evaluated into caller workspace
(no allocation): frames, forces, block-diagonal mass matrix, products with M and Phi_q, the assembly of the
iteration matrix W + c Phi_q^T Phi_q into envelope storage, the energy split's powers and the finite-difference
force Jacobian.

Named data (kernels/solver_data.py): frames ``fr`` (Frames), the element output vector ``out``, the contact
workspace ``cw``; ``sv`` is the System view of kernels/marker_loads.py; ``bv`` the BodyView of the mass kernels.
The mass matrix is kept as one dense block per body, ``mb[b, :n_b, :n_b]`` with n_b = body_q_num[b] (the body
kind's block, kernels/bodies/; mb, the pattern's midx and the tangent blocks Wx are as wide as the largest body).
Forces are evaluated by mode (MODE_* of kernels/model_arrays.py): the energy split compares the full, damped and
conservative force fields.
"""

from __future__ import annotations

from numba import njit

from .bodies.dispatch import (
    add_body_forces,
    body_potential,
    damping_power,
    eval_body_frames,
    eval_marker_frames,
    kinetic_energy,
)
from .constraints import eval_constraint_rows
from .contact import ST_ACTIVE
from .families.contact import pair_element
from .forces import add_contact_forces, add_element_forces, add_multiplier_forces, has_multiplier_forces
from .inner import inner_kernel
from .linalg import env_add
from .model_arrays import MODE_CONSERVATIVE, MODE_DAMPED, MODE_FULL, PLANAR, POINT_MASS
from .solver_data import BodyView


@njit(cache=True, inline="always")
def body_view(m):
    """The BodyView of model arrays m."""
    return BodyView(m.body_kind, m.body_q_adr, m.body_q_num, m.body_mass, m.body_inertia, m.flex)


@njit(cache=True, inline="always")
def eval_frames_ws(m, q, qd, fr):
    """Body and marker frames of the state (q, qd) into ``fr``."""
    eval_body_frames(m, q, qd, fr.r, fr.A, fr.v, fr.w)
    eval_marker_frames(m, q, qd, fr.r, fr.A, fr.v, fr.w, fr.o, fr.R, fr.vo, fr.wm)


@njit(cache=True, inline="always")
def eval_rows_ws(m, t, q, qd, fr, rows):
    """Constraint rows (Phi, Phi_q, nu, gamma, twist rows) at (t, q, qd) with the frames ``fr`` into ``rows``."""
    eval_constraint_rows(m, t, q, qd, fr.r, fr.o, fr.R, fr.vo, fr.wm, rows.phi, rows.jac, rows.nu, rows.gamma,
                         rows.jtw)


@inner_kernel(_nrt=False)
def applied_forces_ws(m, sv, t, q, u, h, zs, zn, mode, Q, out, cw):
    """Q = applied forces of the model in ``mode`` at the frames of sv (evaluated); returns the spring and contact
    potential energy (J). Element states: ``zs`` committed at the step start (read), ``zn`` candidates written here,
    ``h`` the step (s; 0 = static)."""
    for i in range(Q.shape[0]):
        Q[i] = 0.0
    V = add_element_forces(m, sv, t, q, u, h, zs, zn, mode, Q, out)
    return V + add_contact_forces(m, sv, q, h, zs, zn, mode, Q, out, cw)


@inner_kernel(_nrt=False)
def total_forces_ws(m, sv, t, q, qd, fr, u, h, zs, zn, Q, out, cw):
    """Frames at (q, qd) into fr (sv views them), then Q = applied forces (MODE_FULL) + the bodies' own forces
    (velocity-dependent inertia, internal elastic and damping); returns the spring and contact energy (J). The
    multiplier-loaded forces are not included."""
    eval_frames_ws(m, q, qd, fr)
    for i in range(Q.shape[0]):
        Q[i] = 0.0
    V = add_element_forces(m, sv, t, q, u, h, zs, zn, MODE_FULL, Q, out)
    add_body_forces(m, q, qd, Q)
    return V + add_contact_forces(m, sv, q, h, zs, zn, MODE_FULL, Q, out, cw)


@inner_kernel(_nrt=False)
def mass_times(bv, mb, x, out, scale, accumulate):
    """out (+)= scale * M x with the block-diagonal mass matrix (``bv``: body view)."""
    body_q_adr = bv.q_adr
    body_q_num = bv.q_num
    for b in range(body_q_adr.shape[0]):
        a = body_q_adr[b]
        nb = body_q_num[b]
        for i in range(nb):
            s = 0.0
            for j in range(nb):
                s += mb[b, i, j] * x[a + j]
            if accumulate:
                out[a + i] += scale * s
            else:
                out[a + i] = scale * s


@inner_kernel(_nrt=False)
def jac_t_times(row_cols, jac, y, out, scale):
    """out += scale * Phi_q^T y (``row_cols``: ModelArrays.row_cols)."""
    for k in range(jac.shape[0]):
        yk = scale * y[k]
        if yk == 0.0:
            continue
        for c in range(jac.shape[1]):
            col = row_cols[k, c]
            if col >= 0:
                out[col] += jac[k, c] * yk


@inner_kernel(_nrt=False)
def jac_times(row_cols, jac, x, out):
    """out = Phi_q x (``row_cols``: ModelArrays.row_cols)."""
    for k in range(jac.shape[0]):
        s = 0.0
        for c in range(jac.shape[1]):
            col = row_cols[k, c]
            if col >= 0:
                s += jac[k, c] * x[col]
        out[k] = s


@inner_kernel(_nrt=False)
def jac_residual(row_cols, jac, x, rhs):
    """max_k |(Phi_q x)_k - rhs_k| (residual of a velocity or acceleration constraint level)."""
    worst = 0.0
    for k in range(jac.shape[0]):
        s = -rhs[k]
        for c in range(jac.shape[1]):
            col = row_cols[k, c]
            if col >= 0:
                s += jac[k, c] * x[col]
        if abs(s) > worst:
            worst = abs(s)
    return worst


@inner_kernel(_nrt=False)
def add_constraint_products(jac, c, pat, val):
    """val += c Phi_q^T Phi_q in the envelope: for entry c1 of row k, jp[e] = (c2, value index) for e in
    jp_ptr[k * ncol + c1] .. jp_ptr[k * ncol + c1 + 1] lists the lower-triangle products c jac[k, c1] jac[k, c2]."""
    jp_ptr, jp = pat.jp_ptr, pat.jp
    ncol = jac.shape[1]
    for k in range(jac.shape[0]):
        base = k * ncol
        for c1 in range(ncol):
            e0 = jp_ptr[base + c1]
            e1 = jp_ptr[base + c1 + 1]
            if e0 == e1:
                continue
            x1 = c * jac[k, c1]
            if x1 == 0.0:
                continue
            for e in range(e0, e1):
                val[jp[e, 1]] += x1 * jac[k, jp[e, 0]]


@njit(cache=True, _nrt=False, inline="always")
def constant_mass(bv):
    """True if no body's mass block depends on q (planar bodies and point masses only)."""
    for b in range(bv.kind.shape[0]):
        if bv.kind[b] != PLANAR and bv.kind[b] != POINT_MASS:
            return False
    return True


@inner_kernel(_nrt=False)
def iteration_matrix_from_base(base, jac, c, pat, val):
    """val = base + c Phi_q^T Phi_q, the iteration matrix from its constraint-free part ``base`` = M + Wx
    (assemble_iteration_matrix with c = 0; valid while the mass and Wx are unchanged: constant_mass models)."""
    for k in range(val.shape[0]):
        val[k] = base[k]
    add_constraint_products(jac, c, pat, val)


@inner_kernel(_nrt=False)
def assemble_iteration_matrix(bv, mb, jac, c, Wx, use_wx, pat, val):
    """val = envelope of P (M + Wx + c Phi_q^T Phi_q) P^T with the index tables of ``pat`` (solver_data.PatternArrays):
    midx[b, i, j] is the value index of mass entry (i, j) of body b or -1; the constraint part: add_constraint_products
    (skipped for c = 0).
    Wx (symmetric, in blocks per adjacency entry as fd_force_jacobian writes it) is added when ``use_wx``.
    Returns the number of Wx entries outside the envelope (0 unless the pattern is wrong). ``bv``: body view."""
    pos, first, ptr, adj_ptr, adj_idx = pat.pos, pat.first, pat.ptr, pat.adj_ptr, pat.adj_idx
    midx = pat.midx
    body_q_adr = bv.q_adr
    body_q_num = bv.q_num
    for k in range(val.shape[0]):
        val[k] = 0.0
    for b in range(body_q_adr.shape[0]):
        nb = body_q_num[b]
        for i in range(nb):
            for j in range(nb):
                e = midx[b, i, j]
                if e >= 0:
                    val[e] += mb[b, i, j]
    if c != 0.0:
        add_constraint_products(jac, c, pat, val)
    lost = 0
    if use_wx:
        for b in range(body_q_adr.shape[0]):
            a = body_q_adr[b]
            nb = body_q_num[b]
            for e in range(adj_ptr[b], adj_ptr[b + 1]):
                b2 = adj_idx[e]
                if b2 > b:
                    continue
                a2 = body_q_adr[b2]
                n2 = body_q_num[b2]
                for i in range(nb):
                    for j in range(n2):
                        if b2 == b and j > i:
                            continue
                        x = Wx[e, j, i]          # W[a2 + j, a + i] = W[a + i, a2 + j]
                        if x != 0.0:
                            if not env_add(first, ptr, val, pos[a + i], pos[a2 + j], x):
                                lost += 1
    return lost


# --- the energy split and the finite-difference force Jacobian ----------------------------------------------


@njit(cache=True, _nrt=False)
def powers(m, sv, t, q, qd, u, zs, zn, out, cw, Qa, Qb, lam, nu, noncons, jtw):
    """(P_diss, P_in) at a state whose frames (sv) and constraint twist rows ``jtw`` are evaluated: power removed by
    dampers, friction and the bodies' internal damping, and power put in by time functions, loads, inputs,
    actuators, power ports and rheonomic constraints (W), from the forces in MODE_FULL, MODE_DAMPED and
    MODE_CONSERVATIVE. Forces are evaluated statically (h = 0) with the committed element states ``zs``;
    multiplier-loaded forces with ``lam``. The element outputs are left at the full model's values."""
    p_in = 0.0
    for k in range(lam.shape[0]):
        p_in -= lam[k] * nu[k]
    if not noncons:
        return damping_power(m, qd), p_in
    mult = has_multiplier_forces(m)
    applied_forces_ws(m, sv, t, q, u, 0.0, zs, zn, MODE_FULL, Qa, out, cw)
    if mult:
        add_multiplier_forces(m, sv, q, jtw, lam, 0.0, zs, zn, MODE_FULL, Qa, out)
    applied_forces_ws(m, sv, t, q, u, 0.0, zs, zn, MODE_DAMPED, Qb, out, cw)
    if mult:
        add_multiplier_forces(m, sv, q, jtw, lam, 0.0, zs, zn, MODE_DAMPED, Qb, out)
    for i in range(q.shape[0]):
        p_in += (Qa[i] - Qb[i]) * qd[i]
    applied_forces_ws(m, sv, t, q, u, 0.0, zs, zn, MODE_CONSERVATIVE, Qa, out, cw)
    if mult:
        add_multiplier_forces(m, sv, q, jtw, lam, 0.0, zs, zn, MODE_CONSERVATIVE, Qa, out)
    p_diss = damping_power(m, qd)      # the bodies' internal damping (0 without flexible bodies)
    for i in range(q.shape[0]):
        p_diss -= (Qb[i] - Qa[i]) * qd[i]
    # leave the element outputs at the full model's values
    applied_forces_ws(m, sv, t, q, u, 0.0, zs, zn, MODE_FULL, Qa, out, cw)
    if mult:
        add_multiplier_forces(m, sv, q, jtw, lam, 0.0, zs, zn, MODE_FULL, Qa, out)
    return p_diss, p_in


@inner_kernel(_nrt=False)
def contact_colors(m, cw, adj_ptr, adj_idx, colors):
    """Greedy colouring of the bodies for finite differences from the static adjacency (adj, itself included)
    and the contact pairs of the last force evaluation (the broad-phase candidates in the contact workspace
    ``cw``, margin included): bodies b, b' share a colour only if neither reaches a static neighbour of the other
    through the full (static + contact) graph, so perturbing both at once leaves every block read by
    fd_force_jacobian (static adjacency) exact. Returns the number of colours."""
    pairs, stat = cw.pairs, cw.stat
    bptr, bidx, mark = cw.bptr, cw.bidx, cw.mark
    nb = m.body_kind.shape[0]
    for b in range(nb + 1):
        bptr[b] = 0
    n_pairs = stat[ST_ACTIVE]
    for k in range(n_pairs):
        c, sa, sb = pair_element(m.shape_body, m.shape_sig, m.sig_contact, m.sig_swap, pairs[k, 0], pairs[k, 1])
        ba = m.shape_body[sa]
        bb = m.shape_body[sb]
        if c >= 0 and ba >= 0 and bb >= 0:
            bptr[ba + 1] += 1
            bptr[bb + 1] += 1
    for b in range(nb):
        bptr[b + 1] += bptr[b]
    for b in range(nb):
        mark[b] = bptr[b]                 # fill cursors
    for k in range(n_pairs):
        c, sa, sb = pair_element(m.shape_body, m.shape_sig, m.sig_contact, m.sig_swap, pairs[k, 0], pairs[k, 1])
        ba = m.shape_body[sa]
        bb = m.shape_body[sb]
        if c >= 0 and ba >= 0 and bb >= 0:
            bidx[mark[ba]] = bb
            mark[ba] += 1
            bidx[mark[bb]] = ba
            mark[bb] += 1
    for b in range(nb + 1):
        mark[b] = 0
    for b in range(nb):
        colors[b] = -1
    n_colors = 0
    for b in range(nb):
        stamp = b + 1
        for e in range(adj_ptr[b], adj_ptr[b + 1]):          # static neighbours x of b: full neighbours of x
            x = adj_idx[e]
            for f in range(adj_ptr[x], adj_ptr[x + 1]):
                y = colors[adj_idx[f]]
                if y >= 0:
                    mark[y] = stamp
            for f in range(bptr[x], bptr[x + 1]):
                y = colors[bidx[f]]
                if y >= 0:
                    mark[y] = stamp
        for f in range(bptr[b], bptr[b + 1]):                # contact neighbours x of b: static neighbours of x
            x = bidx[f]
            for e in range(adj_ptr[x], adj_ptr[x + 1]):
                y = colors[adj_idx[e]]
                if y >= 0:
                    mark[y] = stamp
        col = 0
        while mark[col] == stamp:
            col += 1
        colors[b] = col
        if col + 1 > n_colors:
            n_colors = col + 1
    return n_colors


@njit(cache=True, _nrt=False, inline="always")
def clear_blocks(Wx):
    """Wx = 0 (the tangent blocks, before a refresh adds to them)."""
    for e in range(Wx.shape[0]):
        for i in range(Wx.shape[1]):
            for j in range(Wx.shape[2]):
                Wx[e, i, j] = 0.0


@inner_kernel(_nrt=False)
def fd_force_jacobian(m, sv, t, q, qd, u, h, zs, zn, fr, out, cw, Q0, Qp, Wx, kq, kv, eps, colors, n_colors, adj_ptr,
                      adj_idx, adj_rev, dlt, dynamic, jtw, lam):
    """Wx = sym(kq * K + kv * C), K = -dQ/dq, C = -dQ/dqd by forward differences, perturbing one
    coordinate slot of all bodies of a colour at once (bodies of one colour share no force element
    neighbourhood, so their columns do not overlap). Only the blocks of the static adjacency (adj) are kept:
    Wx[e, i, s] = W[body adj_idx[e] coordinate i, body b coordinate s] for the entries e of body b. With
    ``dynamic`` the colours are recomputed here from the contact pairs at (q, qd) (contact_colors; contact
    couplings themselves are then not in adj: a block-diagonal contact tangent). Multiplier-loaded forces (joint
    friction) enter with their reaction frozen (the multipliers ``lam`` and twist rows ``jtw``): only their
    dependence on the slip (and the bristle) is in K, C. Returns the colour count."""
    nb = m.body_kind.shape[0]
    clear_blocks(Wx)
    mult = has_multiplier_forces(m)
    total_forces_ws(m, sv, t, q, qd, fr, u, h, zs, zn, Q0, out, cw)
    if mult:
        add_multiplier_forces(m, sv, q, jtw, lam, h, zs, zn, MODE_FULL, Q0, out)
    if dynamic:
        n_colors = contact_colors(m, cw, adj_ptr, adj_idx, colors)
    for level in range(2):
        x = q if level == 0 else qd
        scale = kq if level == 0 else kv
        if scale == 0.0:
            continue
        for col in range(n_colors):
            for s in range(Wx.shape[1]):          # the largest body's coordinate count
                any_body = False
                for b in range(nb):
                    if colors[b] == col and m.body_q_num[b] > s:
                        a = m.body_q_adr[b] + s
                        d = eps * max(1.0, abs(x[a]))
                        dlt[b] = x[a]
                        x[a] += d
                        any_body = True
                if not any_body:
                    continue
                total_forces_ws(m, sv, t, q, qd, fr, u, h, zs, zn, Qp, out, cw)
                if mult:
                    add_multiplier_forces(m, sv, q, jtw, lam, h, zs, zn, MODE_FULL, Qp, out)
                for b in range(nb):
                    if colors[b] == col and m.body_q_num[b] > s:
                        a = m.body_q_adr[b] + s
                        d = x[a] - dlt[b]
                        x[a] = dlt[b]
                        for e in range(adj_ptr[b], adj_ptr[b + 1]):
                            b2 = adj_idx[e]
                            a2 = m.body_q_adr[b2]
                            for i in range(m.body_q_num[b2]):
                                Wx[e, i, s] -= scale * (Qp[a2 + i] - Q0[a2 + i]) / d
    for b in range(nb):
        nq = m.body_q_num[b]
        for e in range(adj_ptr[b], adj_ptr[b + 1]):
            er = adj_rev[e]
            if er < e:
                continue
            n2 = m.body_q_num[adj_idx[e]]
            for i in range(n2):
                for s in range(nq):
                    if er == e and s <= i:
                        continue
                    v = 0.5 * (Wx[e, i, s] + Wx[er, s, i])
                    Wx[e, i, s] = v
                    Wx[er, s, i] = v
    return n_colors


@inner_kernel(_nrt=False)
def step_report(m, q, qd, qdd, jac, nu, gamma):
    """(max |Phi_q qd - nu|, max |Phi_q qdd - gamma|, kinetic energy J, the bodies' potential energy J: gravity and
    a flexible body's elastic energy) in one call."""
    return (jac_residual(m.row_cols, jac, qd, nu), jac_residual(m.row_cols, jac, qdd, gamma),
            kinetic_energy(m, q, qd), body_potential(m, q))
