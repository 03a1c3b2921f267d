"""Error-controlled variable steps: the Dormand-Prince 5(4) embedded Runge-Kutta pair (Dormand & Prince, J. Comput.
Appl. Math. 6:19, 1980; Hairer, Norsett & Wanner, Solving ODEs I, II.4-II.5, the DOPRI5 code) on the index-1
accelerations, with mass-orthogonal projections onto the position and velocity constraints after every accepted
step, the whole step loop in one call (like explicit_advance).

State y = (q, qd), y' = (qd, qdd(t, q, qd)), qdd and lam from the augmented Lagrangian index-1 solve of
integrate_explicit.stage_accelerations (T = M + c Phi_q^T Phi_q). Seven stages, the seventh at the fifth-order
solution (first same as last: it is the next step's first stage unless a projection moved the state). Local error
err = max_i |h sum_j e_j k_ji| / (atol + rtol max(|y0_i|, |y1_i|)) over all 2n components of y (positions and
velocities: m, rad, 1 for Euler parameters, m/s, rad/s; the max norm, not Hairer's RMS norm, which let the global
error of the four-bar and the spatial slider-crank reach 20-130x rtol); a step with err <= 1 is accepted. Step
size: the PI controller of DOPRI5 (Hairer & Wanner's beta = 0.04, safety 0.9, factor in [0.2, 10]): h_new = h / fac with
fac = err^(0.2 - 0.75 beta) / err_prev^beta / 0.9; after a rejection h_new = h / min(5, err^0.2 / 0.9).
Communication points (``t_out``) are hit exactly: the step that would pass one is shortened to end on it, and the
step size proposal survives the shortening.

Element states are not integrated here (the caller refuses models that have them); forces are evaluated statically
(h = 0). Energy bookkeeping: W_diss, W_in by the trapezoidal rule over each accepted step from the powers at its
ends (system.powers).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .integrate_alf import (
    N_REP,
    NOT_FINITE,
    OK,
    REP_REJECTED,
    SC_P_DISS,
    SC_P_IN,
    SC_STEPS,
    SC_T,
    SC_W_DISS,
    SC_W_IN,
    SINGULAR,
    record_step,
)
from .integrate_explicit import project_end, stage_accelerations
from .marker_loads import system_view
from .model_arrays import arrays_type
from .system import body_view, powers

#: Butcher tableau of DOPRI5: nodes, stage coefficients (row s: a_s0 .. a_s(s-1)), error weights b - b_hat
DP_C = np.array([0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0])
DP_A = np.array([
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0.0, 0.0],
    [9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0.0],
    [35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0],
])
DP_E = np.array([71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0, 22.0 / 525.0,
                 -1.0 / 40.0])
BETA = 0.04
SAFETY = 0.9
FAC_MIN = 0.2       # h_new / h >= 0.2
FAC_MAX = 10.0      # h_new / h <= 10

#: statuses beyond integrate_alf's
TOO_MANY_STEPS = 20
STEP_TOO_SMALL = 21

#: the variable-step workspace: stage derivatives and the controller's memory
DopriWork = arrays_type("DopriWork", [
    "kq",    # (7, n)  stage derivatives of q (the stage velocities)
    "kv",    # (7, n)  stage derivatives of qd (the stage accelerations)
    "q0",    # (n,)    step start positions
    "qd0",   # (n,)    step start velocities
    "lam0",  # (nr,)   step start multipliers
    "ctl",   # (4,)    step size proposal (s; 0: choose one), previous error, accepted steps, rejected steps
], __name__)


@njit(cache=True, _nrt=False, inline="always")
def _norm(q, qd, q0, qd0, kq, kv, h, rtol, atol):
    """The scaled max norm of the local error estimate h sum_j e_j k_j (module docstring)."""
    n = q.shape[0]
    s = 0.0
    for i in range(n):
        eq = 0.0
        ev = 0.0
        for j in range(7):
            eq += DP_E[j] * kq[j, i]
            ev += DP_E[j] * kv[j, i]
        sq = atol + rtol * max(abs(q0[i]), abs(q[i]))
        sv = atol + rtol * max(abs(qd0[i]), abs(qd[i]))
        s = max(s, abs(h * eq) / sq, abs(h * ev) / sv)
    return s


@njit(cache=True, _nrt=False)
def dopri_advance(m, pat, st, ws, opt, dw, t_out, rtol, atol, h_max, max_steps, rep, rec_q, rec_qd, rec_qdd,
                  rec_lam, rec_z):
    """Advance the State ``st`` through the times ``t_out`` (s, increasing, after st.sc[SC_T]) by error-controlled
    DOPRI5 steps; report row i (REP_*: 'iterations' = acceleration solves, REP_REJECTED = rejected steps since the
    previous point) and, if rec_* have rows, the state at t_out[i]. Returns (status, points reached, detail: the
    failing envelope row for SINGULAR, the time for the other failures). On failure the state is left at the last
    accepted step."""
    sv = system_view(m, ws.fr)
    bv = body_view(m)
    sc = st.sc
    q, qd, qdd, lam = st.q, st.qd, st.qdd, st.lam
    kq, kv, q0, qd0, lam0, ctl = dw.kq, dw.kv, dw.q0, dw.qd0, dw.lam0, dw.ctl
    n = q.shape[0]
    nr = lam.shape[0]
    c = opt.c
    pivot = opt.pivot
    balance = opt.energy_balance > 0.0
    noncons = opt.noncons > 0.0
    for i in range(st.u.shape[0]):
        if st.u[i] != 0.0:
            noncons = True
    y2 = ws.y2
    t = sc[SC_T]

    # the start state's accelerations (inputs may have changed since the last call)
    for k in range(nr):
        y2[k] = lam[k]
    V, bad = stage_accelerations(m, sv, bv, pat, st, ws, t, 0.0, y2, c, pivot)
    if bad >= 0:
        return SINGULAR, 0, float(bad)
    p_diss, p_in = 0.0, 0.0
    if balance:
        p_diss, p_in = powers(m, sv, t, q, qd, st.u, st.zs, ws.zn, ws.out, ws.cw, ws.Qa, ws.Qb, lam, ws.rows.nu,
                              noncons, ws.rows.jtw)
    for i in range(n):
        kq[0, i] = qd[i]
        kv[0, i] = qdd[i]
    h = ctl[0]
    err_prev = ctl[1] if ctl[1] > 0.0 else 1e-4
    if not h > 0.0:
        # Hairer & Wanner's first guess: 0.01 |y| / |y'| in the scaled norm
        d0 = 0.0
        d1 = 0.0
        for i in range(n):
            sq = atol + rtol * abs(q[i])
            sv_ = atol + rtol * abs(qd[i])
            d0 += (q[i] / sq) ** 2 + (qd[i] / sv_) ** 2
            d1 += (qd[i] / sq) ** 2 + (qdd[i] / sv_) ** 2
        d0 = math.sqrt(d0 / max(2 * n, 1))
        d1 = math.sqrt(d1 / max(2 * n, 1))
        h = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
        h = min(h, h_max, 0.1)
    steps = 0
    for io in range(t_out.shape[0]):
        target = t_out[io]
        evals = 1 if io == 0 else 0
        rejected = 0
        while target - t > 1e-13 * max(1.0, abs(target)):
            if steps >= max_steps:
                return TOO_MANY_STEPS, io, t
            hs = min(h, h_max)
            last = False
            if t + hs >= target - 1e-13 * max(1.0, abs(target)):
                hs = target - t
                last = True
            if hs < 1e-14 * max(1.0, abs(t)):
                return STEP_TOO_SMALL, io, t
            for i in range(n):
                q0[i] = q[i]
                qd0[i] = qd[i]
            for k in range(nr):
                lam0[k] = lam[k]
                y2[k] = lam[k]
            ok = True
            for s in range(1, 7):
                for i in range(n):
                    dq = 0.0
                    dv = 0.0
                    for j in range(s):
                        a = DP_A[s, j]
                        if a != 0.0:
                            dq += a * kq[j, i]
                            dv += a * kv[j, i]
                    q[i] = q0[i] + hs * dq
                    qd[i] = qd0[i] + hs * dv
                V, bad = stage_accelerations(m, sv, bv, pat, st, ws, t + DP_C[s] * hs, 0.0, y2, c, pivot)
                evals += 1
                if bad >= 0:
                    ok = False
                    break
                for i in range(n):
                    kq[s, i] = qd[i]
                    kv[s, i] = qdd[i]
            err = _norm(q, qd, q0, qd0, kq, kv, hs, rtol, atol) if ok else math.inf
            if not math.isfinite(err):
                err = math.inf
            if err <= 1.0:
                t = target if last else t + hs
                # projections onto the position and velocity constraints (only where the residuals exceed tol)
                for i in range(n):
                    ws.q0[i] = q[i]
                    ws.qd0[i] = qd[i]
                bad, _ = project_end(m, bv, pat, st, ws, t, 1.0, opt.tol, c, pivot)
                if bad >= 0:
                    return SINGULAR, io, float(bad)
                moved = False
                for i in range(n):
                    if q[i] != ws.q0[i] or qd[i] != ws.qd0[i]:
                        moved = True
                        break
                # not moved: the last stage is at this state (first same as last), project_end left its rows
                if moved:        # the last stage is not at the projected state: evaluate it there
                    for k in range(nr):
                        y2[k] = lam[k]
                    V, bad = stage_accelerations(m, sv, bv, pat, st, ws, t, 0.0, y2, c, pivot)
                    evals += 1
                    if bad >= 0:
                        return SINGULAR, io, float(bad)
                for i in range(n):
                    if not (math.isfinite(q[i]) and math.isfinite(qd[i]) and math.isfinite(qdd[i])):
                        return NOT_FINITE, io, t
                    kq[0, i] = qd[i]
                    kv[0, i] = qdd[i]
                if balance:
                    pd1, pi1 = powers(m, sv, t, q, qd, st.u, st.zs, ws.zn, ws.out, ws.cw, ws.Qa, ws.Qb, lam,
                                      ws.rows.nu, noncons, ws.rows.jtw)
                    sc[SC_W_DISS] += 0.5 * hs * (p_diss + pd1)
                    sc[SC_W_IN] += 0.5 * hs * (p_in + pi1)
                    p_diss, p_in = pd1, pi1
                # PI controller
                e = max(err, 1e-10)
                fac = e ** (0.2 - 0.75 * BETA) / err_prev ** BETA / SAFETY
                fac = min(1.0 / FAC_MIN, max(1.0 / FAC_MAX, fac))
                h_new = hs / fac
                h = max(h, h_new) if last else h_new
                err_prev = max(err, 1e-4)
                steps += 1
                ctl[2] += 1.0
                sc[SC_STEPS] += 1.0
            else:
                # rejected: back to the step start (its first stage is still in kq[0], kv[0])
                for i in range(n):
                    q[i] = q0[i]
                    qd[i] = qd0[i]
                    qdd[i] = kv[0, i]
                for k in range(nr):
                    lam[k] = lam0[k]
                fac = (err ** 0.2) / SAFETY if math.isfinite(err) else 1.0 / FAC_MIN
                h = hs / min(1.0 / FAC_MIN, max(1.0, fac))
                rejected += 1
                ctl[3] += 1.0
        # at the communication point: the report and the recorded state
        sc[SC_T] = target
        t = target
        sc[SC_P_DISS] = p_diss
        sc[SC_P_IN] = p_in
        record_step(m, io, evals, V, st, ws.rows, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z)
        rep[io, REP_REJECTED] = rejected
    ctl[0] = h
    ctl[1] = err_prev
    if not balance:
        sc[SC_W_DISS] = math.nan
        sc[SC_W_IN] = math.nan
    return OK, t_out.shape[0], 0.0


__all__ = ["DP_A", "DP_C", "DP_E", "DopriWork", "N_REP", "STEP_TOO_SMALL", "TOO_MANY_STEPS", "dopri_advance"]
