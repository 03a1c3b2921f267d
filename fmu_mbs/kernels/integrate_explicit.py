"""Explicit midpoint rule (second-order Runge-Kutta) on index-1 accelerations with mass-orthogonal projections:
the integrator for contact-dominated scenes, whose step the contact stiffness sets anyway (Exudyn's
ExplicitMidpoint for its GeneralContact; the explicit codes of crash analysis). No Newton iteration: two force
evaluations and two factorisations of the (constant-pattern, for free bodies block-diagonal) matrix T per step.

Per step t -> t + h from (q, qd) and its accelerations qdd (first same as last: the evaluation at the end of a
step is the first stage of the next; Hairer, Norsett & Wanner, Solving ODEs I, II.1, Runge's midpoint rule):

  q_m = q + h/2 qd,   qd_m = qd + h/2 qdd,   qdd_m = accelerations at (t + h/2, q_m, qd_m)
  q_1 = q + h qd_m,   qd_1 = qd + h qdd_m
  q_1 <- q_1 - T^-1 c Phi_q^T Phi(q_1)       (while max |Phi| > tol, at most 3 passes)
  qd_1 <- qd_1 + T^-1 c Phi_q^T (nu - Phi_q qd_1)   (if max |Phi_q qd_1 - nu| > tol / h)
  qdd_1, lam_1 = accelerations at (t + h, q_1, qd_1)

(mass-orthogonal projections as in kernels/integrate_alf.py, T = M + c Phi_q^T Phi_q at the unprojected q_1; its
factorisation also serves the end state's accelerations, so a step factorises twice).

Accelerations: the index-1 augmented Lagrangian solve of M qdd + Phi_q^T lam = Q, Phi_q qdd = gamma (Bayo, Garcia
de Jalon & Serna, Comput. Methods Appl. Mech. Eng. 71:183, 1988), T = M + c Phi_q^T Phi_q, in correction form from
the previous stage's qdd and lam: T dx = Q - M x - Phi_q^T lam + c Phi_q^T (gamma - Phi_q x), x += dx, lam += c
(Phi_q x - gamma), repeated while max |Phi_q x - gamma| > 1e-10 (1 + max |x|) (at most 4 passes; each contracts by
about max M / c = 1e-7). Without constraint rows it is one solve with M.

Element states (contact records, bristle deflections, hydraulic pressures, passive-cylinder accelerations): the
midpoint stage advances them over h from the committed zs, and its candidates are committed with the step; the end
evaluation advances them over h/2 (the first stage's share) and is not committed.

Energy bookkeeping: W_diss += h P_diss(t + h/2), W_in += h P_in(t + h/2), the powers of the midpoint state
(system.powers, static with the step's element states): the step moves q by h qd_m under the midpoint forces, so this
is the work the step does, where the ALF's end-point trapezoid would misjudge a force that switches on within a step
(a contact damper ramp crossed in one step: measured 1.4 % of the drop energy on a bouncing ball).

Joint friction is loaded by the multipliers of the previous acceleration solve (one stage behind). Inputs are held
over a call; a call with changed inputs (or the first call) re-evaluates the start state's accelerations.

Stability: explicit, so h must resolve the fastest force: h omega_max < 2 (a contact of stiffness k on a mass m:
h < 2 sqrt(m / k); a damper c_d: h < 2 m / c_d); constraints do not limit h (they are solved, not integrated).
A step whose result is not finite fails with NOT_FINITE (the caller names the step and the limit).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bodies.dispatch import add_body_forces, mass_blocks
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW
from .forces import add_contact_forces, add_element_forces, add_multiplier_forces, after_step, has_multiplier_forces
from .inner import inner_kernel
from .integrate_alf import (
    CONTACT_PAIRS,
    CONTACT_STATES,
    N_REP,
    NOT_FINITE,
    OK,
    SC_EC_READY,
    SC_K,
    SC_P_DISS,
    SC_P_IN,
    SC_STEPS,
    SC_T,
    SC_W_DISS,
    SC_W_IN,
    SINGULAR,
    consistent_accelerations,
    project,
    record_step,
    scan_inputs,
    step_clock,
    step_time,
)
from .linalg import env_cholesky, env_solve_permuted
from .marker_loads import system_view
from .model_arrays import FALSE, MODE_FULL
from .system import (
    assemble_iteration_matrix,
    body_view,
    eval_frames_ws,
    eval_rows_ws,
    jac_t_times,
    jac_times,
    mass_times,
    powers,
)

N_EVALUATIONS = np.int64(2)   # force evaluations per step (reported as the step's 'iterations')
MAX_AL_PASSES = 4
MAX_POSITION_PASSES = 3


@inner_kernel(_nrt=False)
def al_accelerations(bv, mb, row_cols, jac, gamma, Q, c, first, ptr, val, pos, work, y, rhs, gc, x, lam):
    """Index-1 augmented Lagrangian accelerations x and multipliers lam of M x + Phi_q^T lam = Q, Phi_q x = gamma,
    with T = M + c Phi_q^T Phi_q factorised (envelope): passes of integrate_alf.consistent_accelerations from the
    guesses x and lam (module docstring); returns the passes taken. ``y`` (n_rows), ``rhs`` and ``gc`` (n_q) are
    scratch."""
    passes = 0
    for _ in range(MAX_AL_PASSES):
        passes += 1
        mass_times(bv, mb, x, gc, -1.0, FALSE)        # gc = Q - M x
        for i in range(gc.shape[0]):
            gc[i] += Q[i]
        res = consistent_accelerations(row_cols, jac, gamma, lam, c, gc, first, ptr, val, pos, work, y, rhs, x, lam)
        size = 0.0
        for i in range(x.shape[0]):
            if abs(x[i]) > size:
                size = abs(x[i])
        if jac.shape[0] == 0 or res <= 1e-10 * (1.0 + size):
            break
    return passes


@inner_kernel(_nrt=False)
def end_state_forces(m, sv, st, ws, t, h, lam_est, rows_current):
    """Frames, forces ws.Q and constraint rows ws.rows at (t, st.q, st.qd) (the rows only unless ``rows_current``:
    already evaluated at this state), the element states advanced over h from zs into zn; returns the elastic
    energy (J). ``lam_est``: the multipliers that load joint friction."""
    q, qd, fr, rows, Q = st.q, st.qd, ws.fr, ws.rows, ws.Q
    eval_frames_ws(m, q, qd, fr)
    for i in range(Q.shape[0]):
        Q[i] = 0.0
    V = add_element_forces(m, sv, t, q, st.u, h, st.zs, ws.zn, MODE_FULL, Q, ws.out)
    add_body_forces(m, q, qd, Q)
    V += add_contact_forces(m, sv, q, h, st.zs, ws.zn, MODE_FULL, Q, ws.out, ws.cw)
    if not rows_current:
        eval_rows_ws(m, t, q, qd, fr, rows)
    if has_multiplier_forces(m):
        add_multiplier_forces(m, sv, q, rows.jtw, lam_est, h, st.zs, ws.zn, MODE_FULL, Q, ws.out)
    return V


@inner_kernel(_nrt=False)
def stage_accelerations(m, sv, bv, pat, st, ws, t, h, lam_est, c, pivot):
    """end_state_forces at (t, st.q, st.qd), then T = M + c Phi_q^T Phi_q factorised and the accelerations st.qdd
    and multipliers st.lam solved in place from their guesses. Returns (elastic energy J, -1), or (0, the failing
    envelope row) if T is not positive definite."""
    V = end_state_forces(m, sv, st, ws, t, h, lam_est, FALSE)
    mass_blocks(bv, st.q, ws.mb)
    assemble_iteration_matrix(bv, ws.mb, ws.rows.jac, c, ws.Wx, FALSE, pat, ws.val)
    bad = env_cholesky(pat.first, pat.ptr, ws.val, pivot)
    if bad >= 0:
        return 0.0, bad
    al_accelerations(bv, ws.mb, m.row_cols, ws.rows.jac, ws.rows.gamma, ws.Q, c, pat.first, pat.ptr, ws.val, pat.pos,
                     ws.work, ws.y, ws.rhs, ws.res, st.qdd, st.lam)
    return V, -1


@njit(cache=True, _nrt=False, inline="always")
def project_end(m, bv, pat, st, ws, t1, h, tol, c, pivot):
    """T at the new positions (it also serves the end state's accelerations) and the projections onto the position
    and velocity constraints, only where the residuals exceed tol and tol / h. Returns (failing envelope row or -1,
    whether ws.rows are still those of (t1, q, qd))."""
    n = st.q.shape[0]
    nr = st.lam.shape[0]
    rc = m.row_cols
    rows = ws.rows
    eval_frames_ws(m, st.q, st.qd, ws.fr)
    eval_rows_ws(m, t1, st.q, st.qd, ws.fr, rows)
    mass_blocks(bv, st.q, ws.mb)
    assemble_iteration_matrix(bv, ws.mb, rows.jac, c, ws.Wx, FALSE, pat, ws.val)
    bad = env_cholesky(pat.first, pat.ptr, ws.val, pivot)
    if bad >= 0 or nr == 0:
        return bad, True
    for _ in range(MAX_POSITION_PASSES):
        worst = 0.0
        for k in range(nr):
            if abs(rows.phi[k]) > worst:
                worst = abs(rows.phi[k])
        if not worst > tol:
            break
        for i in range(n):
            ws.rhs[i] = 0.0
        jac_t_times(rc, rows.jac, rows.phi, ws.rhs, -c)
        env_solve_permuted(pat.first, pat.ptr, ws.val, pat.pos, ws.rhs, ws.work)
        for i in range(n):
            st.q[i] += ws.rhs[i]
        eval_frames_ws(m, st.q, st.qd, ws.fr)
        eval_rows_ws(m, t1, st.q, st.qd, ws.fr, rows)
    jac_times(rc, rows.jac, st.qd, ws.y)
    worst = 0.0
    for k in range(nr):
        if abs(ws.y[k] - rows.nu[k]) > worst:
            worst = abs(ws.y[k] - rows.nu[k])
    if worst > tol / h:
        project(rc, rows.jac, rows.nu, c, pat.first, pat.ptr, ws.val, pat.pos, ws.work, ws.y, ws.rhs, st.qd)
        return -1, False
    return -1, True


@njit(cache=True, _nrt=False, inline="always")
def restore_start(st, ws):
    """Put the state back at the start of the failing step."""
    for i in range(st.q.shape[0]):
        st.q[i] = ws.q0[i]
        st.qd[i] = ws.qd0[i]
        st.qdd[i] = ws.qdd0[i]
    for k in range(st.lam.shape[0]):
        st.lam[k] = ws.lam0[k]
    for k in range(st.zs.shape[0]):
        st.zs[k] = ws.z0[k]


@njit(cache=True, _nrt=False)
def explicit_advance(m, pat, st, ws, opt, n_steps, h, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z):
    """Advance the State ``st`` by n_steps explicit midpoint steps of size h (s). Returns (status, steps done, detail:
    the failing envelope row for SINGULAR, else 0); on failure the state is left at the start of the failing step.
    Arguments as alf_loop.alf_advance (the same named data; it uses sc, q, qd, qdd, lam, u, zs, u_last, lam_star of
    the State and ws.z0 for the committed element states of a step's start)."""
    sv = system_view(m, ws.fr)
    bv = body_view(m)
    sc = st.sc
    q, qd, qdd, lam, zs = st.q, st.qd, st.qdd, st.lam, st.zs
    n = q.shape[0]
    nr = lam.shape[0]
    c = opt.c
    pivot = opt.pivot
    balance = opt.energy_balance > 0.0
    nonzero, u_changed = scan_inputs(st.u, st.u_last)
    noncons = opt.noncons > 0.0 or nonzero
    h = step_clock(sc, h)          # the grid's step and time (integrate_alf.step_clock: calls split a run exactly)
    hh = 0.5 * h
    t0 = sc[SC_T]
    y2 = ws.y2
    V = 0.0

    # the start state's accelerations (first same as last), unless the last call left them with the same inputs
    if sc[SC_EC_READY] == 0.0 or u_changed:
        for k in range(nr):
            y2[k] = lam[k]
        V, bad = stage_accelerations(m, sv, bv, pat, st, ws, t0, hh, y2, c, pivot)
        if bad >= 0:
            return SINGULAR, 0, float(bad)
        sc[SC_EC_READY] = 1.0
    if not balance:
        sc[SC_W_DISS] = math.nan
        sc[SC_W_IN] = math.nan

    for step in range(n_steps):
        t1 = step_time(sc, step + 1)
        for i in range(n):
            ws.q0[i] = q[i]
            ws.qd0[i] = qd[i]
            ws.qdd0[i] = qdd[i]
        for k in range(nr):
            ws.lam0[k] = lam[k]
            y2[k] = lam[k]                    # joint friction's multipliers: the previous solve's
        for k in range(zs.shape[0]):
            ws.z0[k] = zs[k]
        status = OK
        detail = 0.0
        p_diss, p_in = math.nan, math.nan
        # midpoint stage: q, qd hold the midpoint state, qdd its accelerations (guess: the start's)
        for i in range(n):
            q[i] = ws.q0[i] + hh * ws.qd0[i]
            qd[i] = ws.qd0[i] + hh * ws.qdd0[i]
        V, bad = stage_accelerations(m, sv, bv, pat, st, ws, t1 - hh, h, y2, c, pivot)
        if bad >= 0:
            status = SINGULAR
            detail = float(bad)
        else:
            for k in range(zs.shape[0]):      # the midpoint's element states are the step's
                zs[k] = ws.zn[k]
            # powers at the midpoint (frames, rows, multipliers are its own): the step moves q by h qd_m under
            # the midpoint forces, so h P(t + h/2) is the work the step does
            if balance and noncons:
                p_diss, p_in = powers(m, sv, t1 - hh, q, qd, st.u, zs, ws.zn, ws.out, ws.cw, ws.Qa, ws.Qb, lam,
                                      ws.rows.nu, noncons, ws.rows.jtw)
            elif balance:
                p_diss, p_in = 0.0, 0.0
                for k in range(nr):
                    p_in -= lam[k] * ws.rows.nu[k]
            for i in range(n):
                q[i] = ws.q0[i] + h * qd[i]
                qd[i] = ws.qd0[i] + h * qdd[i]
            bad, rows_current = project_end(m, bv, pat, st, ws, t1, h, opt.tol, c, pivot)
            if bad >= 0:
                status = SINGULAR
                detail = float(bad)
            else:
                # the end state: forces, rows and accelerations (the next step's first stage), solved with T of
                # the unprojected positions (the projection moved them by the step's drift only)
                for k in range(nr):
                    y2[k] = lam[k]
                V = end_state_forces(m, sv, st, ws, t1, hh, y2, rows_current)
                al_accelerations(bv, ws.mb, m.row_cols, ws.rows.jac, ws.rows.gamma, ws.Q, c, pat.first, pat.ptr,
                                 ws.val, pat.pos, ws.work, ws.y, ws.rhs, ws.res, qdd, lam)
        if status == OK:
            for i in range(n):
                if not (math.isfinite(q[i]) and math.isfinite(qd[i]) and math.isfinite(qdd[i])):
                    status = NOT_FINITE
                    break
        cstat = ws.cw.stat
        if status == OK and cstat[ST_PAIR_OVERFLOW] != 0:
            status = CONTACT_PAIRS
        if status == OK and cstat[ST_STATE_OVERFLOW] != 0:
            status = CONTACT_STATES
        if status != OK:
            restore_start(st, ws)
            sc[SC_K] += step                   # the clock at the failing step's start
            return status, step, detail
        for k in range(nr):
            st.lam_star[k] = lam[k]
        after_step(m, sv, q, qdd, zs)   # e.g. passive cylinders: accelerations for the next step

        # reports (frames, rows and twist rows are those of the end state)
        sc[SC_W_DISS] += h * p_diss
        sc[SC_W_IN] += h * p_in
        sc[SC_P_DISS] = p_diss
        sc[SC_P_IN] = p_in
        sc[SC_T] = t1
        sc[SC_STEPS] += 1.0
        record_step(m, step, N_EVALUATIONS, V, st, ws.rows, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z)
    sc[SC_K] += n_steps
    return OK, n_steps, 0.0


__all__ = ["N_EVALUATIONS", "N_REP", "al_accelerations", "end_state_forces", "explicit_advance",
           "stage_accelerations"]
