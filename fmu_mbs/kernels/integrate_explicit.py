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

from numba import njit

from .constraints import eval_constraint_rows
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW, add_contact_forces
from .integrate_alf import (
    CONTACT_PAIRS,
    CONTACT_STATES,
    N_REP,
    NOT_FINITE,
    OK,
    OPT_C,
    OPT_ENERGY_BALANCE,
    OPT_NONCONS,
    OPT_PIVOT,
    OPT_TOL,
    SC_EC_READY,
    SC_P_DISS,
    SC_P_IN,
    SC_STEPS,
    SC_T,
    SC_W_DISS,
    SC_W_IN,
    SINGULAR,
    consistent_accelerations,
    energy_variants,
    project,
    record_step,
    scan_inputs,
)
from .linalg import env_cholesky, env_solve_permuted
from .model_arrays import ModelArrays
from .passive_cylinder import store_end_accelerations
from .system import (
    VARIANT_NO_INPUTS,
    add_marker_inputs,
    assemble_iteration_matrix,
    base_forces_ws,
    eval_frames_ws,
    force_variant,
    jac_t_times,
    jac_times,
    joint_friction_ws,
    mass_blocks,
    mass_times,
    powers,
)

N_EVALUATIONS = 2   # force evaluations per step (reported as the step's 'iterations')
MAX_AL_PASSES = 4
MAX_POSITION_PASSES = 3


@njit(cache=True, _nrt=False)
def al_accelerations(bv, mb, row_cols, jac, gamma, Q, c, first, ptr, val, pos, work, y, rhs, gc, x, lam):
    """Index-1 augmented Lagrangian accelerations x and multipliers lam of M x + Phi_q^T lam = Q, Phi_q x = gamma,
    with T = M + c Phi_q^T Phi_q factorised (envelope): passes of integrate_alf.consistent_accelerations from the
    guesses x and lam (module docstring); returns the passes taken. ``y`` (n_rows), ``rhs`` and ``gc`` (n_q) are
    scratch."""
    passes = 0
    for _ in range(MAX_AL_PASSES):
        passes += 1
        mass_times(bv, mb, x, gc, -1.0, False)        # gc = Q - M x
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


@njit(cache=True, _nrt=False)
def end_state_forces(m, mx, t, q, qd, u, h, zs, zn, fr, fo, phi, jac, nu, gamma, jtw, Q, lam_est, has_contact, has_jf,
                     rows_current):
    """Frames, forces Q and constraint rows at (t, q, qd) (the rows only unless ``rows_current``: already evaluated
    at this state), the element states advanced over h from zs into zn; returns the elastic energy (J).
    ``lam_est``: the multipliers that load joint friction."""
    V = base_forces_ws(m, mx, t, q, qd, fr, u, h, zs, zn, Q, fo)
    r, A, v, w, o, R, vo, wm = fr
    if u.shape[0] > 0:
        add_marker_inputs(m, q, fr, u, Q)
    if has_contact:
        V += add_contact_forces(mx, q, r, o, R, vo, wm, h, zs, zn, Q, fo[5], fo[8])
    if not rows_current:
        eval_constraint_rows(m, t, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw)
    if has_jf:
        joint_friction_ws(mx, q, fr, jtw, lam_est, h, zs, zn, Q, fo)
    return V


@njit(cache=True, _nrt=False)
def stage_accelerations(m, mx, bv, pat, t, q, qd, u, h, zs, zn, fr, fo, phi, jac, nu, gamma, jtw, Q, mb, Wx, val, y,
                        rhs, gc, work, lam_est, c, pivot, qdd, lam, has_contact, has_jf):
    """end_state_forces at (t, q, qd), then T = M + c Phi_q^T Phi_q factorised and the accelerations qdd and
    multipliers lam solved in place from their guesses. Returns (elastic energy J, -1), or (0, the failing envelope
    row) if T is not positive definite."""
    pos, first, ptr = pat[0], pat[1], pat[2]
    V = end_state_forces(m, mx, t, q, qd, u, h, zs, zn, fr, fo, phi, jac, nu, gamma, jtw, Q, lam_est, has_contact,
                         has_jf, False)
    mass_blocks(bv, q, mb)
    assemble_iteration_matrix(bv, mb, jac, c, Wx, False, pat, val)
    bad = env_cholesky(first, ptr, val, pivot)
    if bad >= 0:
        return 0.0, bad
    al_accelerations(bv, mb, m.row_cols, jac, gamma, Q, c, first, ptr, val, pos, work, y, rhs, gc, qdd, lam)
    return V, -1


@njit(cache=True)
def explicit_advance(mt, off, pat, st, ws, opt, n_steps, h, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z):
    """Advance the state ``st`` by n_steps explicit midpoint steps of size h (s). Returns (status, steps done, detail:
    the failing envelope row for SINGULAR, else 0); on failure the state is left at the start of the failing step.
    Arguments as integrate_alf.alf_advance (the same state tuple, of which it uses sc, q, qd, qdd, lam, u, zs,
    u_last and lam*); ``ws`` is alf_advance's workspace plus a copy of the committed element states."""
    m = ModelArrays(*mt)
    mx = force_variant(m, off, VARIANT_NO_INPUTS)
    bv = (m.body_kind, m.body_q_adr, m.body_q_num, m.body_mass, m.body_inertia)
    rc = m.row_cols
    pos, first, ptr = pat[0], pat[1], pat[2]
    sc, q, qd, qdd, lam, u, zs, u_last, lam_s, acc, vt, at, gc = st
    (fr, fo, zn, phi, jac, nu, gamma, jtw, Q, Qa, Qb, mb, q0, qd0, qdd0, lam0, y, res, dq, rhs, work, val, Wx,
     dlt, phi2, jac2, nu2, gamma2, jtw2, jk, y2, dq2, pqd0, pqdd0, z0) = ws

    n = q.shape[0]
    nr = lam.shape[0]
    c = opt[OPT_C]
    tol = opt[OPT_TOL]
    pivot = opt[OPT_PIVOT]
    noncons = opt[OPT_NONCONS] > 0.0
    balance = opt[OPT_ENERGY_BALANCE] > 0.0
    nonzero, u_changed = scan_inputs(u, u_last)
    noncons = noncons or nonzero
    md, mc = energy_variants(m, off, mx, noncons and balance)
    has_contact = fo[5].shape[0] > 0
    has_jf = m.jf_type.shape[0] > 0
    hh = 0.5 * h
    t0 = sc[SC_T]

    # the start state's accelerations (first same as last), unless the last call left them with the same inputs
    if sc[SC_EC_READY] == 0.0 or u_changed:
        for k in range(nr):
            y2[k] = lam[k]
        V, bad = stage_accelerations(m, mx, bv, pat, t0, q, qd, u, hh, zs, zn, fr, fo, phi, jac, nu, gamma, jtw, Q,
                                     mb, Wx, val, y, rhs, res, work, y2, c, pivot, qdd, lam, has_contact, has_jf)
        if bad >= 0:
            return SINGULAR, 0, float(bad)
        sc[SC_EC_READY] = 1.0
    if not balance:
        sc[SC_W_DISS] = math.nan
        sc[SC_W_IN] = math.nan

    for step in range(n_steps):
        t1 = t0 + (step + 1) * h
        for i in range(n):
            q0[i] = q[i]
            qd0[i] = qd[i]
            qdd0[i] = qdd[i]
        for k in range(nr):
            lam0[k] = lam[k]
            y2[k] = lam[k]                    # joint friction's multipliers: the previous solve's
        for k in range(zs.shape[0]):
            z0[k] = zs[k]
        status = OK
        detail = 0.0
        # midpoint stage: q, qd hold the midpoint state, qdd its accelerations (guess: the start's)
        for i in range(n):
            q[i] = q0[i] + hh * qd0[i]
            qd[i] = qd0[i] + hh * qdd0[i]
        V, bad = stage_accelerations(m, mx, bv, pat, t1 - hh, q, qd, u, h, zs, zn, fr, fo, phi, jac, nu, gamma, jtw,
                                     Q, mb, Wx, val, y, rhs, res, work, y2, c, pivot, qdd, lam, has_contact, has_jf)
        if bad >= 0:
            status = SINGULAR
            detail = float(bad)
        else:
            for k in range(zs.shape[0]):      # the midpoint's element states are the step's
                zs[k] = zn[k]
            # powers at the midpoint (frames, rows, multipliers are its own): the step moves q by h qd_m under
            # the midpoint forces, so h P(t + h/2) is the work the step does
            p_diss, p_in = math.nan, math.nan
            if balance and noncons:
                p_diss, p_in = powers(m, mx, md, mc, t1 - hh, q, qd, u, zs, zn, fr, fo, Qa, Qb, lam, nu, noncons,
                                      jtw)
            elif balance:
                p_diss, p_in = 0.0, 0.0
                for k in range(nr):
                    p_in -= lam[k] * nu[k]
            for i in range(n):
                q[i] = q0[i] + h * qd[i]
                qd[i] = qd0[i] + h * qdd[i]
            # T at the new positions (it also serves the end state's accelerations); projections onto the
            # position and velocity constraints only where the residuals exceed tol and tol / h
            eval_frames_ws(m, q, qd, fr)
            r, A, v, w, o, R, vo, wm = fr
            eval_constraint_rows(m, t1, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw)
            mass_blocks(bv, q, mb)
            assemble_iteration_matrix(bv, mb, jac, c, Wx, False, pat, val)
            bad = env_cholesky(first, ptr, val, pivot)
            rows_current = True       # the rows at (t1, q, qd), unless the velocity projection changes qd
            if bad >= 0:
                status = SINGULAR
                detail = float(bad)
            elif nr > 0:
                for _ in range(MAX_POSITION_PASSES):
                    worst = 0.0
                    for k in range(nr):
                        if abs(phi[k]) > worst:
                            worst = abs(phi[k])
                    if not worst > tol:
                        break
                    for i in range(n):
                        rhs[i] = 0.0
                    jac_t_times(rc, jac, phi, rhs, -c)
                    env_solve_permuted(first, ptr, val, pos, rhs, work)
                    for i in range(n):
                        q[i] += rhs[i]
                    eval_frames_ws(m, q, qd, fr)
                    r, A, v, w, o, R, vo, wm = fr
                    eval_constraint_rows(m, t1, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw)
                jac_times(rc, jac, qd, y)
                worst = 0.0
                for k in range(nr):
                    if abs(y[k] - nu[k]) > worst:
                        worst = abs(y[k] - nu[k])
                if worst > tol / h:
                    project(rc, jac, nu, c, first, ptr, val, pos, work, y, rhs, qd)
                    rows_current = False
            if status == OK:
                # the end state: forces, rows and accelerations (the next step's first stage), solved with T of
                # the unprojected positions (the projection moved them by the step's drift only)
                for k in range(nr):
                    y2[k] = lam[k]
                V = end_state_forces(m, mx, t1, q, qd, u, hh, zs, zn, fr, fo, phi, jac, nu, gamma, jtw, Q, y2,
                                     has_contact, has_jf, rows_current)
                al_accelerations(bv, mb, rc, jac, gamma, Q, c, first, ptr, val, pos, work, y, rhs, res, qdd, lam)
        if status == OK:
            for i in range(n):
                if not (math.isfinite(q[i]) and math.isfinite(qd[i]) and math.isfinite(qdd[i])):
                    status = NOT_FINITE
                    break
        cstat = fo[8][8]
        if status == OK and cstat[ST_PAIR_OVERFLOW] != 0:
            status = CONTACT_PAIRS
        if status == OK and cstat[ST_STATE_OVERFLOW] != 0:
            status = CONTACT_STATES
        if status != OK:
            for i in range(n):
                q[i] = q0[i]
                qd[i] = qd0[i]
                qdd[i] = qdd0[i]
            for k in range(nr):
                lam[k] = lam0[k]
            for k in range(zs.shape[0]):
                zs[k] = z0[k]
            return status, step, detail
        for k in range(nr):
            lam_s[k] = lam[k]
        r, A, v, w, o, R, vo, wm = fr
        store_end_accelerations(m, q, qdd, r, w, o, zs)   # passive cylinders: accelerations for the next step

        # reports (frames, rows and twist rows are those of the end state)
        sc[SC_W_DISS] += h * p_diss
        sc[SC_W_IN] += h * p_in
        sc[SC_P_DISS] = p_diss
        sc[SC_P_IN] = p_in
        sc[SC_T] = t1
        sc[SC_STEPS] += 1.0
        record_step(m, step, N_EVALUATIONS, V, q, qd, qdd, lam, zs, phi, jac, nu, gamma, sc, rep, rec_q, rec_qd,
                    rec_qdd, rec_lam, rec_z)
    return OK, n_steps, 0.0


__all__ = ["N_EVALUATIONS", "N_REP", "al_accelerations", "end_state_forces", "explicit_advance",
           "stage_accelerations"]
