"""The ALI3-P / generalized-alpha / energy-consistent step loop (the scheme: kernels/integrate_alf.py), in phases
that read the solver's named data (kernels/solver_data.py): the predictor, the Newton iteration, the end of an
accepted step, and the energy bookkeeping. The phases are inlined into ``alf_advance``, one call into numba for a
whole run of steps."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bodies.dispatch import add_body_forces, mass_blocks
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW
from .forces import (
    add_analytic_tangents,
    add_contact_forces,
    add_element_forces,
    add_multiplier_forces,
    after_step,
    has_multiplier_forces,
)
from .inner import inner_kernel
from .integrate_alf import (
    CONTACT_PAIRS,
    CONTACT_STATES,
    DIVERGED,
    NOT_CONVERGED,
    NOT_FINITE,
    OK,
    SC_EC_READY,
    SC_FD_AGE,
    SC_K,
    SC_P_DISS,
    SC_P_IN,
    SC_P_VALID,
    SC_STEPS,
    SC_T,
    SC_W_DISS,
    SC_W_IN,
    SINGULAR,
    Coefficients,
    chord_correction,
    chord_jacobian,
    consistent_accelerations,
    galpha_parameters,
    project,
    record_step,
    scan_inputs,
    step_clock,
    step_time,
)
from .linalg import env_cholesky, env_solve_permuted
from .marker_loads import system_view
from .model_arrays import FALSE, MODE_FULL
from .row_hessians import add_geometric_stiffness
from .system import (
    assemble_iteration_matrix,
    body_view,
    clear_blocks,
    constant_mass,
    eval_frames_ws,
    eval_rows_ws,
    fd_force_jacobian,
    iteration_matrix_from_base,
    jac_t_times,
    jac_times,
    mass_times,
    powers,
)

CHORD_PASSES = np.int64(2)   # passes of the energy scheme's chord correction per Newton iteration


@inner_kernel
def scheme_coefficients(rho, h, c):
    """Coefficients of one step of size h (s) for the spectral radius rho (module docstring of integrate_alf);
    rho = 1 gives exactly 2/h, -1, 0 and 4/h^2, -4/h, 0, -1; ``alpha`` = c ka, the AL update factor."""
    am, af, gam, beta = galpha_parameters(rho)
    hh = h * h
    ka = (1.0 - am) / ((1.0 - af) * beta * hh)
    return Coefficients(am, af, gam / (beta * h), 1.0 - gam / beta, h * (1.0 - gam / (2.0 * beta)), ka,
                        -(1.0 - am) / ((1.0 - af) * beta * h), (am - (1.0 - am) * (0.5 - beta) / beta) / (1.0 - af),
                        -af / (1.0 - af), (1.0 - af) * beta * hh / (1.0 - am), (1.0 - af) * gam / (1.0 - am) * h,
                        c * ka)


@njit(cache=True, _nrt=False, inline="always")
def scheme_state(cf, st, ws, i, d):
    """qd, qdd of the scheme at coordinate i for the displacement d = q - q_n."""
    st.qd[i] = cf.b1 * d + cf.cv1 * ws.qd0[i] + cf.cv2 * st.acc[i]
    st.qdd[i] = cf.ka * d + cf.kv * ws.qd0[i] + cf.kaa * st.acc[i] + cf.kq * ws.qdd0[i]


@njit(cache=True, _nrt=False, inline="always")
def multiplier_estimate(st, ws):
    """ws.y = the iterate's multiplier estimate lam* + (lam_n - lam*_n) that loads joint friction."""
    for k in range(st.lam.shape[0]):
        ws.y[k] = st.lam_star[k] + (st.lam[k] - ws.lam0[k])


@njit(cache=True, _nrt=False, inline="always")
def predict(cf, st, ws, h, ec):
    """Step start copies and the predictor q_n + h qd_n + h^2/2 qdd_n (seed 000 eq. 8.135) with the scheme's
    velocities and accelerations (the energy scheme runs on its own, unprojected, state)."""
    n = st.q.shape[0]
    for i in range(n):
        ws.q0[i] = st.q[i]
        ws.qd0[i] = st.qd[i]
        ws.qdd0[i] = st.qdd[i]
    if ec:
        for i in range(n):
            ws.pqd0[i] = st.qd[i]
            ws.pqdd0[i] = st.qdd[i]
            ws.qd0[i] = st.vt[i]
            ws.qdd0[i] = st.at[i]
    for k in range(st.lam.shape[0]):
        ws.lam0[k] = st.lam_star[k]
    for i in range(n):
        d = h * ws.qd0[i] + 0.5 * h * h * ws.qdd0[i]
        st.q[i] = ws.q0[i] + d
        scheme_state(cf, st, ws, i, d)


@njit(cache=True, _nrt=False, inline="always")
def residual(m, sv, bv, pat, st, ws, opt, cf, t1, h, it, ec, use_fd, mult, err_prev, use_base):
    """Forces, rows and mass at the iterate, the AL update, the residual f and the assembled iteration matrix
    (module docstring of integrate_alf; ``use_base``: from ws.base, see refresh_base); returns the elastic energy
    (J)."""
    q, qd, u, zs = st.q, st.qd, st.u, st.zs
    fr, rows = ws.fr, ws.rows
    nr = st.lam.shape[0]
    n = q.shape[0]
    c = opt.c
    eval_frames_ws(m, q, qd, fr)
    Q = ws.Q
    for i in range(n):
        Q[i] = 0.0
    V = add_element_forces(m, sv, t1, q, u, h, zs, ws.zn, MODE_FULL, Q, ws.out)
    add_body_forces(m, q, qd, Q)
    V += add_contact_forces(m, sv, q, h, zs, ws.zn, MODE_FULL, Q, ws.out, ws.cw)
    eval_rows_ws(m, t1, q, qd, fr, rows)
    mass_blocks(bv, q, ws.mb)
    # energy-consistent: no AL update after a correction whose quadratic remainder |dq|^2 (the Phi it leaves)
    # exceeds tol, where c Phi / s would be a spurious multiplier jump to be undone (halves the next correction
    # only); the converged step's update always applies
    if it > 0 and not (ec and err_prev * err_prev > opt.tol):
        for k in range(nr):
            st.lam_star[k] += cf.alpha * rows.phi[k]
    if mult:                     # joint friction loaded by the iterate's multiplier estimate
        multiplier_estimate(st, ws)
        add_multiplier_forces(m, sv, q, rows.jtw, ws.y, h, zs, ws.zn, MODE_FULL, Q, ws.out)
    # residual f = s (M qdd - Q) + Phi_q^T (s lam* + c Phi), s = h^2/4 for the trapezoidal rule
    # (energy-consistent: f = s (M qdd - Q - gc_n) + K^T (s lam* + c Phi), T = W + c/2 K^T K)
    mass_times(bv, ws.mb, st.qdd, ws.res, cf.s, FALSE)
    for k in range(nr):
        ws.y[k] = cf.s * st.lam_star[k] + c * rows.phi[k]
    if ec:
        for i in range(n):
            ws.res[i] -= cf.s * (Q[i] + st.gc[i])
        chord_jacobian(ws.rows_end.jac, rows.jac, ws.jk)
        jac_t_times(m.row_cols, ws.jk, ws.y, ws.res, 1.0)
        assemble_iteration_matrix(bv, ws.mb, ws.jk, 0.5 * c, ws.Wx, use_fd, pat, ws.val)
        # geometric stiffness s sum_k lam_k d2Phi_k/dq2 (point rows, kernels/row_hessians.py) with the chord
        # multiplier extrapolated to the step's middle, 2 lam_n - lam*_n
        for k in range(nr):
            ws.y2[k] = 2.0 * st.lam[k] - ws.lam0[k]
        add_geometric_stiffness(m, fr.r, fr.o, ws.y2, cf.s, pat.jp_ptr, pat.jp, ws.val)
    else:
        for i in range(n):
            ws.res[i] -= cf.s * Q[i]
        jac_t_times(m.row_cols, rows.jac, ws.y, ws.res, 1.0)
        if use_base:
            iteration_matrix_from_base(ws.base, rows.jac, c, pat, ws.val)
        else:
            assemble_iteration_matrix(bv, ws.mb, rows.jac, c, ws.Wx, use_fd, pat, ws.val)
    return V


@njit(cache=True, _nrt=False, inline="always")
def refresh_base(bv, q, ws, pat, use_fd):
    """ws.base = M + Wx in the envelope (assemble_iteration_matrix without the constraints), the part of the
    iteration matrix that stays while the finite-difference tangent is kept, when no mass block depends on q
    (system.constant_mass): each Newton iteration then adds only c Phi_q^T Phi_q to a copy of it."""
    mass_blocks(bv, q, ws.mb)
    assemble_iteration_matrix(bv, ws.mb, ws.rows.jac, 0.0, ws.Wx, use_fd, pat, ws.base)


@njit(cache=True, _nrt=False, inline="always")
def refresh_tangent(m, sv, pat, st, ws, opt, cf, t1, h, n_colors):
    """ws.Wx = the force tangent kq K + kv C at the iterate (kq = cf.s, kv = cf.hc): from the families' closed forms
    when every force with a tangent has one (opt.analytic_tangent; the frames are evaluated at the iterate), else by
    finite differences (system.fd_force_jacobian). Returns the colour count."""
    if opt.analytic_tangent > 0.0:
        eval_frames_ws(m, st.q, st.qd, ws.fr)
        clear_blocks(ws.Wx)
        add_analytic_tangents(m, sv, cf.s, cf.hc, pat.adj_ptr, pat.adj_idx, ws.Wx)
        return n_colors
    return fd_force_jacobian(m, sv, t1, st.q, st.qd, st.u, h, st.zs, ws.zn, ws.fr, ws.out, ws.cw, ws.Qa, ws.Qb, ws.Wx,
                             cf.s, cf.hc, opt.fd_eps, pat.colors, n_colors, pat.adj_ptr, pat.adj_idx, pat.adj_rev,
                             ws.dlt, opt.dyn_colors > 0.0, ws.rows.jtw, ws.y)


@njit(cache=True, _nrt=False, inline="always")
def newton(m, sv, bv, pat, st, ws, opt, cf, t1, h, ec, use_fd, mult, n_colors, use_base):
    """The Newton iteration of one step from the predictor. Returns (status, max |dq| of the last correction or
    the failing envelope row, iterations, elastic energy J, colour count); the converged last correction stays in
    ws.dq (below tol), not yet applied."""
    n = st.q.shape[0]
    tol = opt.tol
    accept_tol = opt.accept_tol
    max_iter = int(opt.max_iter)
    first_ok = opt.accept_first > 0.0 and not ec
    status = OK
    err = 0.0
    err_min = math.inf
    iters = 0
    V = 0.0
    relax = 1.0
    err_prev = math.inf
    err_prev2 = math.inf
    for it in range(max_iter):
        if use_fd and it >= 2 and err_prev > 0.9 * err_prev2:
            # a stalled step (the last correction did not shrink): the force law changed regime since the
            # predictor (contact, friction ramp), so the tangent there is wrong and a stale tangent across a
            # kink cycles: refresh it at the iterate (converging steps keep the predictor's tangent)
            multiplier_estimate(st, ws)
            n_colors = refresh_tangent(m, sv, pat, st, ws, opt, cf, t1, h, n_colors)
            if use_base:
                refresh_base(bv, st.q, ws, pat, use_fd)
        V = residual(m, sv, bv, pat, st, ws, opt, cf, t1, h, it, ec, use_fd, mult, err_prev, use_base)
        iters = it + 1
        bad = env_cholesky(pat.first, pat.ptr, ws.val, opt.pivot)
        if bad >= 0 and ec:
            # compressive rows can make the geometric stiffness indefinite: keep T = W + c/2 K^T K then
            assemble_iteration_matrix(bv, ws.mb, ws.jk, 0.5 * opt.c, ws.Wx, use_fd, pat, ws.val)
            bad = env_cholesky(pat.first, pat.ptr, ws.val, opt.pivot)
        if bad >= 0:
            return SINGULAR, float(bad), iters, V, n_colors
        dq = ws.dq
        for i in range(n):
            dq[i] = -ws.res[i]
        env_solve_permuted(pat.first, pat.ptr, ws.val, pat.pos, dq, ws.work)
        if ec and st.lam.shape[0] > 0:
            chord_correction(m.row_cols, ws.rows.jac, ws.rows_end.jac, ws.jk, opt.c, ws.res, dq, ws.y2, ws.dq2,
                             pat.first, pat.ptr, ws.val, pat.pos, ws.work, CHORD_PASSES)
        err = 0.0
        for i in range(n):
            e = abs(dq[i])
            if not (e <= err):
                err = e
        if not math.isfinite(err):
            return NOT_FINITE, err, iters, V, n_colors
        # converged: a correction below tol, normally checked by the evaluation after it (it > 0); with
        # opt.accept_first the first one is taken unchecked (Newton leaves ~ rho |dq| after it, rho the contraction)
        if err <= tol and (it > 0 or first_ok):
            break
        if err < err_min:
            err_min = err
        if it >= 2 and err > 100.0 * err_min and err > accept_tol:
            return DIVERGED, err, iters, V, n_colors
        if it == max_iter - 1:
            if err > accept_tol:
                status = NOT_CONVERGED
            break
        if use_fd and it >= 2:
            # a correction reversing the previous one without shrinking: Newton cycles across a kink of the
            # force law (friction saturation); halve the steps from here on (rhs holds the previous one)
            turn = 0.0
            for i in range(n):
                turn += dq[i] * ws.rhs[i]
            if turn < 0.0 and err > 0.9 * err_prev:
                relax *= 0.5
        err_prev2 = err_prev
        err_prev = err
        for i in range(n):
            ws.rhs[i] = dq[i]
            st.q[i] += relax * dq[i]
            scheme_state(cf, st, ws, i, st.q[i] - ws.q0[i])
    return status, err, iters, V, n_colors


@njit(cache=True, _nrt=False, inline="always")
def reject(st, ws, ec):
    """Put the state back at the start of the failing step."""
    for i in range(st.q.shape[0]):
        st.q[i] = ws.q0[i]
        st.qd[i] = ws.qd0[i]
        st.qdd[i] = ws.qdd0[i]
    if ec:
        for i in range(st.q.shape[0]):
            st.qd[i] = ws.pqd0[i]
            st.qdd[i] = ws.pqdd0[i]
    for k in range(st.lam.shape[0]):
        st.lam_star[k] = ws.lam0[k]


@njit(cache=True, _nrt=False, inline="always")
def finish_step(m, sv, bv, pat, st, ws, opt, cf, t1, ec, lean):
    """Accept a converged step: apply the last correction (the multipliers take its constraint part), project the
    velocities and accelerations with the last factorisation, commit the element states and run the after-step
    hooks. Leaves the end state's rows in ws.rows_end and returns them. Without opt.project_acc (not "energy") the
    accelerations stay the scheme's and lam = lam* (first order): the generalized-alpha recurrence does not need the
    projection (Arnold & Bruls 2007, index-3 generalized-alpha: positions and velocities second order); ``lean``
    (that and no energy balance): nothing reads the end state's rows, which are not evaluated (one frames-and-rows
    evaluation less per step); the last iteration's rows are returned for the report."""
    n = st.q.shape[0]
    nr = st.lam.shape[0]
    rc = m.row_cols
    c = opt.c
    rows = ws.rows
    # converged: apply the last correction dq (below tol) without a new evaluation. The multipliers take its
    # constraint part, lam = lam* + alpha (Phi + Phi_q dq); without it lam would be off by up to alpha * tol
    # (4e3 N for c = 1e7 kg, h = 1e-3 s, tol = 1e-10 m).
    jac_times(rc, rows.jac, ws.dq, ws.y)
    for k in range(nr):
        st.lam_star[k] += cf.alpha * (rows.phi[k] + ws.y[k])
    for i in range(n):
        st.q[i] += ws.dq[i]
        scheme_state(cf, st, ws, i, st.q[i] - ws.q0[i])
    # projections with the factorisation T of the last iteration and its Phi_q (so that T and the right sides
    # agree), in correction form: T (qd - qd*) = c Phi_q^T (nu - Phi_q qd*) (the plain form lost ~1e-7 rad per 0.3 s)
    if ec:
        # the trapezoid's state: vt, at and the end-point constraint force gc = Q - M at (last evaluation)
        mass_times(bv, ws.mb, st.qdd, st.gc, -1.0, FALSE)
        for i in range(n):
            st.gc[i] += ws.Q[i]
            st.vt[i] = st.qd[i]
            st.at[i] = st.qdd[i]
    project(rc, rows.jac, rows.nu, c, pat.first, pat.ptr, ws.val, pat.pos, ws.work, ws.y, ws.rhs, st.qd)
    end = ws.rows_end
    if lean:                 # the rows of the last iteration stand in for the end state's in the report
        end = rows
    else:
        eval_frames_ws(m, st.q, st.qd, ws.fr)      # gamma(q, qd) and the residuals at the final state
        eval_rows_ws(m, t1, st.q, st.qd, ws.fr, end)
    if ec:
        # consistent accelerations and multipliers for the output (the step does not read them back)
        consistent_accelerations(rc, rows.jac, end.gamma, st.lam_star, c, st.gc, pat.first, pat.ptr, ws.val,
                                 pat.pos, ws.work, ws.y, ws.rhs, st.qdd, st.lam)
        for i in range(n):
            st.acc[i] = st.qdd[i]
    else:
        if opt.project_acc > 0.0:
            project(rc, rows.jac, end.gamma, c, pat.first, pat.ptr, ws.val, pat.pos, ws.work, ws.y, ws.rhs, st.qdd)
            # multipliers consistent with the projected accelerations: lam = lam* + c (Phi_q qdd - gamma) is
            # second-order accurate (lam*, the trapezoidal multiplier, is first order; it stays the next step's AL
            # multiplier)
            jac_times(rc, rows.jac, st.qdd, ws.y)
            for k in range(nr):
                st.lam[k] = st.lam_star[k] + c * (ws.y[k] - end.gamma[k])
        else:
            for k in range(nr):
                st.lam[k] = st.lam_star[k]
        # pseudo-accelerations from the (projected) accelerations, (1 - am) a_1 = (1 - af) qdd_1 + af qdd_n - am a_n
        for i in range(n):
            st.acc[i] = ((1.0 - cf.af) * st.qdd[i] + (cf.af * ws.qdd0[i] - cf.am * st.acc[i])) / (1.0 - cf.am)
    for k in range(st.zs.shape[0]):          # element states of the last evaluation are committed
        st.zs[k] = ws.zn[k]
    after_step(m, sv, st.q, st.qdd, st.zs)   # e.g. passive cylinders: accelerations for the next step
    return end


@njit(cache=True, _nrt=False, inline="always")
def start_powers(m, sv, st, ws, t0, noncons, balance):
    """(P_diss, P_in) at the start state: those kept from the end of the last step, also when the inputs changed
    since. The step's trapezoid must start from the powers of the forces that the step's start accelerations
    (the previous step's) hold: booked at the new input, the balance drifted at first order in h at every input
    jump (9.6e-4 of the energy moved at h = 1 ms on a pendulum with a force input held over 10 ms, 2.4e-4 at h/4),
    with the old ones at second (2.4e-6 and 1.5e-7; tests/test_fmu_fast.py). Evaluated here only without kept
    values (the first step, a restored state)."""
    sc = st.sc
    if not balance:
        sc[SC_W_DISS] = math.nan
        sc[SC_W_IN] = math.nan
        sc[SC_P_VALID] = 0.0
    elif sc[SC_P_VALID] == 0.0:
        eval_frames_ws(m, st.q, st.qd, ws.fr)
        eval_rows_ws(m, t0, st.q, st.qd, ws.fr, ws.rows)
        sc[SC_P_DISS], sc[SC_P_IN] = powers(m, sv, t0, st.q, st.qd, st.u, st.zs, ws.zn, ws.out, ws.cw, ws.Qa, ws.Qb,
                                            st.lam, ws.rows.nu, noncons, ws.rows.jtw)
        sc[SC_P_VALID] = 1.0
    return sc[SC_P_DISS], sc[SC_P_IN]


@njit(cache=True, _nrt=False, inline="always")
def end_powers(m, sv, st, ws, t1, noncons, balance):
    """(P_diss, P_in) at the accepted end state (NaN without the energy balance)."""
    if not balance:                 # no energy bookkeeping (sc[SC_W_*] stay NaN)
        return math.nan, math.nan
    end = ws.rows_end
    if noncons:
        return powers(m, sv, t1, st.q, st.qd, st.u, st.zs, ws.zn, ws.out, ws.cw, ws.Qa, ws.Qb, st.lam, end.nu,
                      noncons, end.jtw)
    p_in = 0.0                      # conservative: only the drivers' power
    for k in range(st.lam.shape[0]):
        p_in -= st.lam[k] * end.nu[k]
    return 0.0, p_in


@njit(cache=True, _nrt=False)
def alf_advance(m, pat, st, ws, opt, n_steps, h, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z):
    """Advance the State ``st`` by n_steps steps of size h (s). Returns (status, steps done, max |dq| of the failing
    step, or for SINGULAR the envelope row whose pivot failed); on failure the state is left at the start of the
    failing step. m: ModelArrays; pat: PatternArrays; ws: Work; opt: Options; rep (n_steps, N_REP); rec_* (n_rec,
    .): the state after every (n_steps / n_rec)-th step (n_steps a multiple of n_rec), or (0, .) to skip (rec_z:
    element states). Everything a step depends on is in the State, so a run split into several calls gives the same
    numbers bit for bit: the step times and size (integrate_alf.step_clock) and the age of the finite-difference
    tangent (sc[SC_FD_AGE], 0 = refresh at the next step). Without NRT: it allocates nothing, and the inlined phases
    read the named data's arrays in their loops, which NRT would count on every access."""
    sv = system_view(m, ws.fr)
    bv = body_view(m)
    sc = st.sc
    n = st.q.shape[0]
    use_fd = opt.use_fd > 0.0
    balance = opt.energy_balance > 0.0
    ec = opt.energy > 0.0
    fd_every = max(int(opt.fd_every), 1)
    fd_age = int(sc[SC_FD_AGE])    # steps since the last predictor refresh (0: the first step refreshes)
    nonzero, _ = scan_inputs(st.u, st.u_last)     # (the start powers stay those of the last step)
    noncons = opt.noncons > 0.0 or nonzero
    mult = has_multiplier_forces(m)
    use_base = not ec and constant_mass(bv)     # the iteration matrix from M + Wx kept between refreshes
    lean = not ec and not balance and opt.project_acc == 0.0     # finish_step: no end-state evaluation
    if use_base:
        refresh_base(bv, st.q, ws, pat, use_fd)
    n_colors = np.int64(0)      # not the literal 0: numba would compile fd_force_jacobian once more for it
    for b in range(pat.colors.shape[0]):
        if pat.colors[b] + 1 > n_colors:
            n_colors = pat.colors[b] + 1
    h = step_clock(sc, h)          # the grid's step if h is it to round-off (and sc[SC_T] set to the grid time)
    cf = scheme_coefficients(opt.rho, h, opt.c)
    t0 = sc[SC_T]
    p_diss0, p_in0 = start_powers(m, sv, st, ws, t0, noncons, balance)
    if ec:
        # Phi_q(q_n) of the first step's chord; the scheme's own state starts from the consistent one
        eval_frames_ws(m, st.q, st.qd, ws.fr)
        eval_rows_ws(m, t0, st.q, st.qd, ws.fr, ws.rows_end)
        if sc[SC_EC_READY] == 0.0:
            for i in range(n):
                st.vt[i] = st.qd[i]
                st.at[i] = st.qdd[i]
                st.gc[i] = 0.0
            jac_t_times(m.row_cols, ws.rows_end.jac, st.lam, st.gc, 1.0)      # M qdd = Q - Phi_q^T lam
            sc[SC_EC_READY] = 1.0

    for step in range(n_steps):
        t1 = step_time(sc, step + 1)
        predict(cf, st, ws, h, ec)
        if use_fd and (fd_age >= fd_every or fd_age == 0):
            if mult:       # joint friction's frozen reaction: twist rows at the predictor, multiplier estimate
                eval_frames_ws(m, st.q, st.qd, ws.fr)
                eval_rows_ws(m, t1, st.q, st.qd, ws.fr, ws.rows)
                multiplier_estimate(st, ws)
            n_colors = refresh_tangent(m, sv, pat, st, ws, opt, cf, t1, h, n_colors)
            if use_base:
                refresh_base(bv, st.q, ws, pat, use_fd)
            fd_age = 0
        fd_age += 1
        status, err, iters, V, n_colors = newton(m, sv, bv, pat, st, ws, opt, cf, t1, h, ec, use_fd, mult, n_colors,
                                                 use_base)
        cstat = ws.cw.stat
        if status == OK and cstat[ST_PAIR_OVERFLOW] != 0:
            status = CONTACT_PAIRS
        if status == OK and cstat[ST_STATE_OVERFLOW] != 0:
            status = CONTACT_STATES
        if status == OK and ec:
            # the output projections need T = W + c Phi_q^T Phi_q (the Newton matrix held K)
            assemble_iteration_matrix(bv, ws.mb, ws.rows.jac, opt.c, ws.Wx, use_fd, pat, ws.val)
            bad = env_cholesky(pat.first, pat.ptr, ws.val, opt.pivot)
            if bad >= 0:
                status = SINGULAR
                err = float(bad)
        if status != OK:
            reject(st, ws, ec)
            sc[SC_K] += step                   # the clock at the failing step's start
            sc[SC_FD_AGE] = fd_age
            return status, step, err
        report_rows = finish_step(m, sv, bv, pat, st, ws, opt, cf, t1, ec, lean)
        p_diss1, p_in1 = end_powers(m, sv, st, ws, t1, noncons, balance)
        sc[SC_W_DISS] += 0.5 * h * (p_diss0 + p_diss1)
        sc[SC_W_IN] += 0.5 * h * (p_in0 + p_in1)
        p_diss0 = p_diss1
        p_in0 = p_in1
        sc[SC_P_DISS] = p_diss1
        sc[SC_P_IN] = p_in1
        sc[SC_T] = t1
        sc[SC_STEPS] += 1.0
        record_step(m, step, iters, V, st, report_rows, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z)
    sc[SC_K] += n_steps
    sc[SC_FD_AGE] = fd_age
    return OK, n_steps, 0.0
