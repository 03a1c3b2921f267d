"""The system quantities of M(q) qdd + Phi_q^T lam = Q(t, q, qd, u) evaluated into caller workspace
(no allocation): frames, constraint rows, forces, block-diagonal mass matrix, products with M and
Phi_q, and the assembly of the iteration matrix W + c Phi_q^T Phi_q into envelope storage.

The kernels called in every Newton iteration take only the arrays they need, not ModelArrays: a call that
passes the ~90 arrays of ModelArrays to a kernel that LLVM does not inline copies them all (~0.1 us a call,
most of the cost of a one-body step). The body view ``bv`` = (body_kind, body_q_adr, body_q_num, body_mass,
body_inertia); Jacobian products take ``row_cols``.

Frame workspace ``fr`` = (r, A, v, w, o, R, vo, wm) as in kernels.frames; force-element outputs
``fo`` = (tsda_out, rsda_out, bush_out, act_out, hyd_out, cont_out, pc_out, jf_out, cw) as in kernels.forces and
kernels.joint_friction (cw: the contact workspace of kernels.contact). The mass matrix is kept as one dense block
per body, ``mb[b, :n_b, :n_b]`` with n_b = body_q_num[b] (r-p bodies: diag(m I3,
4 G^T Jbar G), seed 004). Also: variants of the force model with non-conservative terms switched off
(for the energy split), and the finite-difference force Jacobian of the iteration matrix.
"""

from __future__ import annotations

from numba import njit

from .contact import ST_ACTIVE, add_contact_forces, pair_contact
from .forces import add_element_forces
from .frames import add_wrench, eval_body_frames, eval_marker_frames
from .joint_friction import add_joint_friction
from .linalg import env_add
from .mass import add_inertia_forces, gravity_potential, kinetic_energy
from .model_arrays import PLANAR, POINT_MASS, ModelArrays


@njit(cache=True, _nrt=False)
def eval_frames_ws(m, q, qd, fr):
    r, A, v, w, o, R, vo, wm = fr
    eval_body_frames(m, q, qd, r, A, v, w)
    eval_marker_frames(m, r, A, v, w, o, R, vo, wm)


@njit(cache=True, _nrt=False)
def applied_forces_ws(m, t, q, fr, u, h, zs, zn, Q, fo):
    """Q = applied forces of model ``m`` at frames ``fr``; returns the spring potential energy (J). Element states:
    ``zs`` committed at the step start (read), ``zn`` candidates written here, ``h`` the step (s; 0 = static)."""
    r, A, v, w, o, R, vo, wm = fr
    tsda_out, rsda_out, bush_out, act_out, hyd_out, cont_out, pc_out, jf_out, cw = fo
    for i in range(Q.shape[0]):
        Q[i] = 0.0
    V = add_element_forces(m, t, q, r, o, R, vo, wm, u, h, zs, zn, Q, tsda_out, rsda_out, bush_out, act_out, hyd_out,
                           pc_out)
    if cont_out.shape[0] > 0:
        V += add_contact_forces(m, q, r, o, R, vo, wm, h, zs, zn, Q, cont_out, cw)
    return V


@njit(cache=True, _nrt=False)
def joint_friction_ws(m, q, fr, jtw, lam, h, zs, zn, Q, fo):
    """Q += joint friction (kernels.joint_friction) at frames ``fr`` with the multipliers ``lam`` and the twist
    rows ``jtw`` of the constraints (the caller's estimate; frozen inside a finite-difference tangent)."""
    if m.jf_type.shape[0] == 0:
        return
    r, A, v, w, o, R, vo, wm = fr
    add_joint_friction(m, q, r, o, R, vo, wm, jtw, lam, h, zs, zn, Q, fo[7])


@njit(cache=True, _nrt=False)
def add_marker_inputs(m, q, fr, u, Q):
    """Q += the marker loads of the input vector (force u[adr:adr+3] at the marker origin and torque
    u[adr+3:adr+6], world axes), as kernels.forces does, skipping markers whose inputs are all zero."""
    r, A, v, w, o, R, vo, wm = fr
    for k in range(m.marker_body.shape[0]):
        adr = m.marker_input_adr[k]
        b = m.marker_body[k]
        if adr < 0 or b < 0:
            continue
        F0, F1, F2 = u[adr], u[adr + 1], u[adr + 2]
        T0, T1, T2 = u[adr + 3], u[adr + 4], u[adr + 5]
        if F0 == 0.0 and F1 == 0.0 and F2 == 0.0 and T0 == 0.0 and T1 == 0.0 and T2 == 0.0:
            continue
        s0, s1, s2 = o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2]
        add_wrench(m, b, q, F0, F1, F2, s1 * F2 - s2 * F1 + T0, s2 * F0 - s0 * F2 + T1, s0 * F1 - s1 * F0 + T2,
                   1.0, Q)


@njit(cache=True, _nrt=False)
def base_forces_ws(m, mx, t, q, qd, fr, u, h, zs, zn, Q, fo):
    """Frames at (q, qd), then Q = applied forces but contact and marker inputs + velocity-dependent inertia
    forces; returns the spring energy. ``mx`` is ``m`` with marker inputs switched off (total_forces_ws adds them,
    skipping zero inputs, much cheaper than the per-marker loop of kernels.forces). No code that reads ModelArrays
    may sit in a branch here: measured, the function then costs ~0.3 us more per call, branch taken or not."""
    r, A, v, w, o, R, vo, wm = fr          # the callees directly: every call that passes ModelArrays costs
    eval_body_frames(m, q, qd, r, A, v, w)  # ~0.1-0.2 us (the tuple of ~90 arrays is copied by value)
    eval_marker_frames(m, r, A, v, w, o, R, vo, wm)
    for i in range(Q.shape[0]):
        Q[i] = 0.0
    tsda_out, rsda_out, bush_out, act_out, hyd_out, cont_out, pc_out, jf_out, cw = fo
    V = add_element_forces(mx, t, q, r, o, R, vo, wm, u, h, zs, zn, Q, tsda_out, rsda_out, bush_out, act_out, hyd_out,
                           pc_out)
    add_inertia_forces(m, q, qd, Q)
    return V


@njit(cache=True, _nrt=False)
def total_forces_ws(m, mx, t, q, qd, fr, u, h, zs, zn, Q, fo):
    """base_forces_ws plus marker inputs and contact forces: Q = applied + velocity-dependent inertia forces; returns
    the spring and contact energy."""
    V = base_forces_ws(m, mx, t, q, qd, fr, u, h, zs, zn, Q, fo)
    if u.shape[0] > 0:
        add_marker_inputs(m, q, fr, u, Q)
    cont_out = fo[5]
    if cont_out.shape[0] > 0:           # contact kept out of base_forces_ws: no ModelArrays code in its branches
        r, A, v, w, o, R, vo, wm = fr
        V += add_contact_forces(mx, q, r, o, R, vo, wm, h, zs, zn, Q, cont_out, fo[8])
    return V


@njit(cache=True, _nrt=False)
def mass_blocks(bv, q, mb):
    """Per-body mass blocks at q (kg, kg m^2); r-p bodies: 4 G(p)^T Jbar G(p) on the p block (``bv``: body view)."""
    body_kind, body_q_adr, body_q_num, body_mass, body_inertia = bv
    for b in range(body_kind.shape[0]):
        kind = body_kind[b]
        nb = body_q_num[b]
        for i in range(nb):
            for j in range(nb):
                mb[b, i, j] = 0.0
        mass = body_mass[b]
        if kind == POINT_MASS:
            for i in range(nb):
                mb[b, i, i] = mass
        elif kind == PLANAR:
            mb[b, 0, 0] = mass
            mb[b, 1, 1] = mass
            mb[b, 2, 2] = body_inertia[b, 2, 2]
        else:
            for i in range(3):
                mb[b, i, i] = mass
            a = body_q_adr[b] + 3
            e0, e1, e2, e3 = q[a], q[a + 1], q[a + 2], q[a + 3]
            G = ((-e1, e0, e3, -e2), (-e2, -e3, e0, e1), (-e3, e2, -e1, e0))
            J = body_inertia[b]
            for r in range(4):
                for c in range(r, 4):
                    s = 0.0
                    for i in range(3):
                        gi = G[i][r]
                        if gi == 0.0:
                            continue
                        for j in range(3):
                            s += gi * J[i, j] * G[j][c]
                    mb[b, 3 + r, 3 + c] = 4.0 * s
                    mb[b, 3 + c, 3 + r] = 4.0 * s


@njit(cache=True, _nrt=False)
def mass_times(bv, mb, x, out, scale, accumulate):
    """out (+)= scale * M x with the block-diagonal mass matrix (``bv``: body view)."""
    body_q_adr = bv[1]
    body_q_num = bv[2]
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


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def jac_times(row_cols, jac, x, out):
    """out = Phi_q x (``row_cols``: ModelArrays.row_cols)."""
    for k in range(jac.shape[0]):
        s = 0.0
        for c in range(jac.shape[1]):
            col = row_cols[k, c]
            if col >= 0:
                s += jac[k, c] * x[col]
        out[k] = s


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def assemble_iteration_matrix(bv, mb, jac, c, Wx, use_wx, pat, val):
    """val = envelope of P (M + Wx + c Phi_q^T Phi_q) P^T with the index tables of ``pat`` = (pos, first,
    ptr, colors, adj_ptr, adj_idx, jp_ptr, jp, midx, adj_rev): for entry c1 of row k, jp[e] = (c2, value index)
    for e in jp_ptr[k * ncol + c1] .. jp_ptr[k * ncol + c1 + 1] lists the lower-triangle products
    c jac[k, c1] jac[k, c2]; midx[b, i, j] is the value index of mass entry (i, j) of body b or -1.
    Wx (symmetric, in blocks per adjacency entry as fd_force_jacobian writes it) is added when ``use_wx``.
    Returns the number of Wx entries outside the envelope (0 unless the pattern is wrong). ``bv``: body view."""
    pos, first, ptr, colors, adj_ptr, adj_idx, jp_ptr, jp, midx, adj_rev = pat
    body_q_adr = bv[1]
    body_q_num = bv[2]
    for k in range(val.shape[0]):
        val[k] = 0.0
    for b in range(body_q_adr.shape[0]):
        nb = body_q_num[b]
        for i in range(nb):
            for j in range(nb):
                e = midx[b, i, j]
                if e >= 0:
                    val[e] += mb[b, i, j]
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


# --- force-model variants (energy split) and the finite-difference force Jacobian ---------------------------

#: field order of ModelArrays that force_variant rebuilds (checked against ModelArrays by the Python layer)
MODEL_FIELDS = (
    "dim", "gravity",
    "body_kind", "body_q_adr", "body_q_num", "body_mass", "body_inertia",
    "marker_body", "marker_pos", "marker_rot", "marker_input_adr",
    "row_type", "row_mi", "row_mj", "row_axis_i", "row_axis_j", "row_c", "row_fn",
    "row_body_i", "row_body_j", "row_cols",
    "fn_type", "fn_adr", "fn_len", "fn_par",
    "curve_par",
    "tsda_mi", "tsda_mj", "tsda_k", "tsda_l0", "tsda_c", "tsda_fn", "tsda_spring", "tsda_damper",
    "rsda_mi", "rsda_mj", "rsda_k", "rsda_theta0", "rsda_c", "rsda_fn", "rsda_spring", "rsda_damper",
    "bush_mi", "bush_mj", "bush_k", "bush_c", "bush_kr", "bush_cr",
    "load_marker", "load_fn", "load_frame",
    "act_mi", "act_mj", "act_fn", "act_input_adr",
    "rsda_z_adr", "z0",
    "hyd_mi", "hyd_mj", "hyd_par", "hyd_fn", "hyd_input_adr", "hyd_z_adr",
    "shape_kind", "shape_marker", "shape_par", "shape_group", "shape_mask", "shape_excl_ptr", "shape_excl_idx",
    "mesh_ptr", "mesh_verts", "mesh_tri_ptr", "mesh_tris",
    "shape_body", "shape_sig", "shape_compliance", "shape_inv_radius", "sig_contact", "sig_swap", "cont_state",
    "cont_law", "cont_par", "cont_friction", "cont_curves", "cont_dissipative",
    "pc_mi", "pc_mj", "pc_par", "pc_fn", "pc_input_adr", "pc_z_adr", "pc_row",
    "jf_type", "jf_mi", "jf_mj", "jf_rows", "jf_model", "jf_par", "jf_geo", "jf_z_adr", "jf_dissipative",
)

VARIANT_CONSERVATIVE = 0   # gravity and springs only
VARIANT_DAMPED = 1         # ... plus dampers
VARIANT_NO_INPUTS = 2      # the full model without the marker loads of the input vector


@njit(cache=True)
def force_variant(m, off, mode):
    """ModelArrays with force terms switched off (see VARIANT_*); ``off`` = (zero tsda_c, tsda_fn -1,
    tsda_damper without curves, zero rsda_c, rsda_fn -1, rsda_damper without curves, zero bush_c,
    zero bush_cr, load_fn -1, marker_input_adr -1, act_fn -1, act_input_adr -1, no hydraulic cylinders,
    cont_dissipative [0], jf_dissipative [0], no passive cylinders). A hydraulic cylinder is a power port: all its
    power counts as input; so is a passive cylinder (its parts' kinetic and potential energy are outside the
    system's); contact and joint friction are dissipation."""
    (z_tc, z_tfn, z_tdmp, z_rc, z_rfn, z_rdmp, z_bc, z_bcr, z_lfn, z_minp, z_afn, z_ainp, z_hmi, z_cdiss,
     z_pmi, z_jdiss) = off
    tc, tdmp, rc, rdmp, bc, bcr, cdiss = z_tc, z_tdmp, z_rc, z_rdmp, z_bc, z_bcr, z_cdiss
    jdiss = z_jdiss
    tfn, rfn, lfn, afn, ainp, hmi, pmi = z_tfn, z_rfn, z_lfn, z_afn, z_ainp, z_hmi, z_pmi
    if mode != VARIANT_CONSERVATIVE:
        tc, tdmp, rc, rdmp, bc, bcr = m.tsda_c, m.tsda_damper, m.rsda_c, m.rsda_damper, m.bush_c, m.bush_cr
        cdiss = m.cont_dissipative
        jdiss = m.jf_dissipative
    if mode == VARIANT_NO_INPUTS:
        tfn, rfn, lfn, afn, ainp = m.tsda_fn, m.rsda_fn, m.load_fn, m.act_fn, m.act_input_adr
        hmi = m.hyd_mi
        pmi = m.pc_mi
    return ModelArrays(
        m.dim, m.gravity,
        m.body_kind, m.body_q_adr, m.body_q_num, m.body_mass, m.body_inertia,
        m.marker_body, m.marker_pos, m.marker_rot, z_minp,
        m.row_type, m.row_mi, m.row_mj, m.row_axis_i, m.row_axis_j, m.row_c, m.row_fn,
        m.row_body_i, m.row_body_j, m.row_cols,
        m.fn_type, m.fn_adr, m.fn_len, m.fn_par,
        m.curve_par,
        m.tsda_mi, m.tsda_mj, m.tsda_k, m.tsda_l0, tc, tfn, m.tsda_spring, tdmp,
        m.rsda_mi, m.rsda_mj, m.rsda_k, m.rsda_theta0, rc, rfn, m.rsda_spring, rdmp,
        m.bush_mi, m.bush_mj, m.bush_k, bc, m.bush_kr, bcr,
        m.load_marker, lfn, m.load_frame,
        m.act_mi, m.act_mj, afn, ainp,
        m.rsda_z_adr, m.z0,
        hmi, m.hyd_mj, m.hyd_par, m.hyd_fn, m.hyd_input_adr, m.hyd_z_adr,
        m.shape_kind, m.shape_marker, m.shape_par, m.shape_group, m.shape_mask, m.shape_excl_ptr, m.shape_excl_idx,
        m.mesh_ptr, m.mesh_verts, m.mesh_tri_ptr, m.mesh_tris,
        m.shape_body, m.shape_sig, m.shape_compliance, m.shape_inv_radius, m.sig_contact, m.sig_swap, m.cont_state,
        m.cont_law, m.cont_par, m.cont_friction, m.cont_curves, cdiss,
        pmi, m.pc_mj, m.pc_par, m.pc_fn, m.pc_input_adr, m.pc_z_adr, m.pc_row,
        m.jf_type, m.jf_mi, m.jf_mj, m.jf_rows, m.jf_model, m.jf_par, m.jf_geo, m.jf_z_adr, jdiss,
    )


@njit(cache=True, _nrt=False)
def powers(m, mx, md, mc, t, q, qd, u, zs, zn, fr, fo, Qa, Qb, lam, nu, noncons, jtw):
    """(P_diss, P_in) at a state whose frames ``fr`` and constraint twist rows ``jtw`` are evaluated: power
    removed by dampers and friction and power put in by time functions, loads, inputs, actuators and rheonomic
    constraints (W). Forces are evaluated statically (h = 0) with the committed element states ``zs``; joint
    friction with the multipliers ``lam``."""
    p_in = 0.0
    for k in range(lam.shape[0]):
        p_in -= lam[k] * nu[k]
    if not noncons:
        return 0.0, p_in
    jf = m.jf_type.shape[0] > 0          # (skip the calls: each one copies the ModelArrays tuple)
    applied_forces_ws(mx, t, q, fr, u, 0.0, zs, zn, Qa, fo)
    if jf:
        joint_friction_ws(mx, q, fr, jtw, lam, 0.0, zs, zn, Qa, fo)
    add_marker_inputs(m, q, fr, u, Qa)
    applied_forces_ws(md, t, q, fr, u, 0.0, zs, zn, Qb, fo)
    if jf:
        joint_friction_ws(md, q, fr, jtw, lam, 0.0, zs, zn, Qb, fo)
    for i in range(q.shape[0]):
        p_in += (Qa[i] - Qb[i]) * qd[i]
    applied_forces_ws(mc, t, q, fr, u, 0.0, zs, zn, Qa, fo)
    if jf:
        joint_friction_ws(mc, q, fr, jtw, lam, 0.0, zs, zn, Qa, fo)
    p_diss = 0.0
    for i in range(q.shape[0]):
        p_diss -= (Qb[i] - Qa[i]) * qd[i]
    # leave the element outputs at the full model's values
    applied_forces_ws(mx, t, q, fr, u, 0.0, zs, zn, Qa, fo)
    if jf:
        joint_friction_ws(mx, q, fr, jtw, lam, 0.0, zs, zn, Qa, fo)
    return p_diss, p_in


@njit(cache=True, _nrt=False)
def contact_colors(m, fo, adj_ptr, adj_idx, colors):
    """Greedy colouring of the bodies for finite differences from the static adjacency (adj, itself included)
    and the contact pairs of the last force evaluation (the broad-phase candidates in the contact workspace
    fo[8], margin included): bodies b, b' share a colour only if neither reaches a static neighbour of the other
    through the full (static + contact) graph, so perturbing both at once leaves every block read by
    fd_force_jacobian (static adjacency) exact. Returns the number of colours."""
    cw = fo[8]
    pairs = cw[3]
    stat = cw[8]
    bptr, bidx, mark = cw[11], cw[12], cw[13]
    nb = m.body_kind.shape[0]
    for b in range(nb + 1):
        bptr[b] = 0
    n_pairs = stat[ST_ACTIVE]
    for k in range(n_pairs):
        c, sa, sb = pair_contact(m, pairs[k, 0], pairs[k, 1])
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
        c, sa, sb = pair_contact(m, pairs[k, 0], pairs[k, 1])
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


@njit(cache=True, _nrt=False)
def fd_force_jacobian(m, mx, t, q, qd, u, h, zs, zn, fr, fo, Q0, Qp, Wx, kq, kv, eps, colors, n_colors, adj_ptr,
                      adj_idx, adj_rev, dlt, dynamic, jtw, lam):
    """Wx = sym(kq * K + kv * C), K = -dQ/dq, C = -dQ/dqd by forward differences, perturbing one
    coordinate slot of all bodies of a colour at once (bodies of one colour share no force element
    neighbourhood, so their columns do not overlap). Only the blocks of the static adjacency (adj) are kept:
    Wx[e, i, s] = W[body adj_idx[e] coordinate i, body b coordinate s] for the entries e of body b. With
    ``dynamic`` the colours are recomputed here from the contact pairs at (q, qd) (contact_colors; contact
    couplings themselves are then not in adj: a block-diagonal contact tangent). Joint friction enters with its
    reaction frozen (the multipliers ``lam`` and twist rows ``jtw``): only its dependence on the slip (and the
    bristle) is in K, C. Returns the colour count."""
    nb = m.body_kind.shape[0]
    for e in range(Wx.shape[0]):
        for i in range(Wx.shape[1]):
            for j in range(Wx.shape[2]):
                Wx[e, i, j] = 0.0
    jf = m.jf_type.shape[0] > 0
    total_forces_ws(m, mx, t, q, qd, fr, u, h, zs, zn, Q0, fo)
    if jf:
        joint_friction_ws(mx, q, fr, jtw, lam, h, zs, zn, Q0, fo)
    if dynamic:
        n_colors = contact_colors(m, fo, adj_ptr, adj_idx, colors)
    for level in range(2):
        x = q if level == 0 else qd
        scale = kq if level == 0 else kv
        if scale == 0.0:
            continue
        for col in range(n_colors):
            for s in range(7):
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
                total_forces_ws(m, mx, t, q, qd, fr, u, h, zs, zn, Qp, fo)
                if jf:
                    joint_friction_ws(mx, q, fr, jtw, lam, h, zs, zn, Qp, fo)
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


@njit(cache=True, _nrt=False)
def step_report(m, q, qd, qdd, jac, nu, gamma):
    """(max |Phi_q qd - nu|, max |Phi_q qdd - gamma|, kinetic energy J, gravity potential J) in one call."""
    return (jac_residual(m.row_cols, jac, qd, nu), jac_residual(m.row_cols, jac, qdd, gamma),
            kinetic_energy(m, q, qd), gravity_potential(m, q))
