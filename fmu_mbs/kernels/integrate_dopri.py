"""Error-controlled variable steps: the Dormand-Prince 5(4) embedded Runge-Kutta pair (Dormand & Prince, J. Comput.
Appl. Math. 6:19, 1980; Hairer, Norsett & Wanner, Solving ODEs I, II.4-II.5, the DOPRI5 code) on the index-1
accelerations, with mass-orthogonal projections onto the position and velocity constraints after every accepted
step (integrate_dopri_project: a projection that fails, or moves the state by more than the tolerance allows,
rejects the step like its error estimate would), the whole step loop in one call (like explicit_advance).

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

Events end a step (a Runge-Kutta step across a discontinuity loses its order; Hairer, Norsett & Wanner II.6).
- Known times (``t_stop``: the breakpoints of the model's time tables and ramps, found by the caller) are hit
  exactly like communication points, without a report row.
- State events: a signature of the discrete regime of the model (integrate_dopri_events.event_signature: which
  contact elements touch, which hydraulic cylinders sit in an end stop, crush springs loading or unloading,
  bristle joint friction sticking or slipping, belt segments taut or slack) is taken at every stage; a step
  whose stages see another signature than its start holds an event. If the step is longer than ``event_tol``
  (s) it is rejected and the event bracketed by bisection: the next attempt takes half of it; an attempt
  without the event is accepted (it ends before the event) and the rest of the bracket is halved again, until
  the step that holds the event is at most event_tol long; it is then accepted (its error estimate still has
  to pass) and the controller goes on with the step size it had before the event. event_tol = 0 turns state
  events off.

Element states (contact records, bristle friction, hydraulic pressures, passive cylinders, crush springs, belts)
follow the elements' own rules: stage s advances them over c_s h from the states committed at the step start
(as the midpoint stage of explicit_advance does), and the seventh stage's (over h, at the accepted state) are
committed with the step; they are not part of the error estimate (their rules are first or second order in h).
Energy bookkeeping: W_diss, W_in by the trapezoidal rule over each accepted step from the powers at its ends
(system.powers).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW
from .forces import after_step
from .inner import inner_kernel
from .integrate_alf import (
    CONTACT_PAIRS,
    CONTACT_STATES,
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
from .integrate_dopri_events import event_signature
from .integrate_dopri_project import REFUSED_SINGULAR, project_step
from .integrate_explicit import al_accelerations, end_state_forces, stage_accelerations
from .marker_loads import system_view
from .model_arrays import FALSE, TRUE, arrays_type
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
REDO = 22           # internal: the step is rejected and retried with a fifth of its size
MAX_REFUSALS = 40   # refused projections in a row before STEP_TOO_SMALL (0.2^40 of the first size: none passes)
LENIENT_AFTER = 4   # refusals in a row after which the size rule is dropped: a correction that survived a step
                    # 5^4 times smaller is no drift but a jump of the constraints (an undeclared breakpoint)

#: DopriWork.ctl: the controller's memory and counters, kept between calls
C_H = 0             # step size proposal (s; 0: choose one)
C_ERR = 1           # error of the last accepted step (0: none yet)
C_ACCEPTED = 2      # accepted steps
C_REJECTED = 3      # rejected steps (error or event bisection)
C_EVENTS = 4        # state events located
C_SIG = 5           # event signature of the current state
C_P_DISS = 6        # dissipated and input power at the current state (W)
C_P_IN = 7
C_REFUSED = 8       # why a projection last refused a step (integrate_dopri_project.REFUSED_*; 0: never)
C_REFUSED_T = 9     # the time (s) where that step started
C_REFUSED_H = 10    # and its size (s)
N_CTL = 11

#: the variable-step workspace: stage derivatives and the controller's memory
DopriWork = arrays_type("DopriWork", [
    "kq",    # (7, n)  stage derivatives of q (the stage velocities)
    "kv",    # (7, n)  stage derivatives of qd (the stage accelerations)
    "q0",    # (n,)    step start positions
    "qd0",   # (n,)    step start velocities
    "lam0",  # (nr,)   step start multipliers
    "ctl",   # (N_CTL,) C_* entries
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
        e = max(abs(h * eq) / sq, abs(h * ev) / sv)
        if not e <= s:         # NaN counts as infinitely large (max() would drop it)
            s = e if e == e else math.inf
    return s


@inner_kernel(_nrt=False)
def first_step(q, qd, qdd, rtol, atol, h_max):
    """Hairer & Wanner's first guess of the step: 0.01 |y| / |y'| in the scaled norm (s)."""
    n = q.shape[0]
    d0 = 0.0
    d1 = 0.0
    for i in range(n):
        sq = atol + rtol * abs(q[i])
        sv = atol + rtol * abs(qd[i])
        d0 += (q[i] / sq) ** 2 + (qd[i] / sv) ** 2
        d1 += (qd[i] / sq) ** 2 + (qdd[i] / sv) ** 2
    d0 = math.sqrt(d0 / max(2 * n, 1))
    d1 = math.sqrt(d1 / max(2 * n, 1))
    h = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    return min(h, h_max, 0.1)


@njit(cache=True, _nrt=False, inline="always")
def start_state(m, sv, bv, pat, st, ws, dw, opt, t, balance, noncons, factorised):
    """The first stage at the current state (t, q, qd) with the committed element states (static: h = 0): its
    accelerations, power and event signature into dw; ``factorised``: T is already factorised at q and ws.rows
    are those of (t, q, qd) (after a projection). Returns (elastic energy J, failing envelope row or -1)."""
    for k in range(st.lam.shape[0]):
        ws.y2[k] = st.lam[k]
    if factorised:
        V = end_state_forces(m, sv, st, ws, t, 0.0, ws.y2, TRUE)
        al_accelerations(bv, ws.mb, m.row_cols, ws.rows.jac, ws.rows.gamma, ws.Q, opt.c, pat.first, pat.ptr, ws.val,
                         pat.pos, ws.work, ws.y, ws.rhs, ws.res, st.qdd, st.lam)
    else:
        V, bad = stage_accelerations(m, sv, bv, pat, st, ws, t, 0.0, ws.y2, opt.c, opt.pivot)
        if bad >= 0:
            return V, bad
    ctl = dw.ctl
    ctl[C_SIG] = event_signature(m, sv, st.zs, ws.zn, ws.out)
    if balance:
        ctl[C_P_DISS], ctl[C_P_IN] = powers(m, sv, t, st.q, st.qd, st.u, st.zs, ws.zn, ws.out, ws.cw, ws.Qa,
                                            ws.Qb, st.lam, ws.rows.nu, noncons, ws.rows.jtw)
    for i in range(st.q.shape[0]):
        dw.kq[0, i] = st.qd[i]
        dw.kv[0, i] = st.qdd[i]
    return V, -1


@njit(cache=True, _nrt=False, inline="always")
def try_step(m, sv, bv, pat, st, ws, dw, opt, t, hs, rtol, atol):
    """Stages 2-7 of the step (t, hs) from the current state (kept in dw.q0, dw.qd0, dw.lam0; stage 1 in dw.kq[0],
    dw.kv[0]); the element states of stage s advanced over c_s hs from the committed ones. Leaves the fifth-order
    solution and its accelerations in st. Returns (error norm: inf if a stage failed, whether a stage saw another
    event signature than the start, elastic energy J of the last stage, failing envelope row or -1)."""
    q, qd, qdd = st.q, st.qd, st.qdd
    kq, kv, q0, qd0 = dw.kq, dw.kv, dw.q0, dw.qd0
    n = q.shape[0]
    for i in range(n):
        q0[i] = q[i]
        qd0[i] = qd[i]
    for k in range(st.lam.shape[0]):
        dw.lam0[k] = st.lam[k]
        ws.y2[k] = st.lam[k]           # joint friction's multipliers: the step start's
    event = False
    V = 0.0
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
        V, bad = stage_accelerations(m, sv, bv, pat, st, ws, t + DP_C[s] * hs, DP_C[s] * hs, ws.y2, opt.c,
                                     opt.pivot)
        if bad >= 0:
            return math.inf, event, V, bad
        if event_signature(m, sv, st.zs, ws.zn, ws.out) != dw.ctl[C_SIG]:
            event = True
        for i in range(n):
            kq[s, i] = qd[i]
            kv[s, i] = qdd[i]
    err = _norm(q, qd, q0, qd0, kq, kv, hs, rtol, atol)
    if not math.isfinite(err):
        err = math.inf
    return err, event, V, -1


@njit(cache=True, _nrt=False, inline="always")
def accept_step(m, sv, bv, pat, st, ws, dw, opt, t1, hs, rtol, atol, balance, noncons, V, limit):
    """Complete an accepted step ending at t1: projections onto the position and velocity constraints
    (integrate_dopri_project), the seventh stage's element states committed, the end state's accelerations
    (re-evaluated if a projection moved it), the after-step hooks, the work over the step (trapezoidal rule on the
    powers). Returns (status, detail, elastic energy J of the end state, 1 if it was re-evaluated else 0); status
    REDO, nothing committed: a projection refused the step (T singular at the new positions, the position passes
    not converging, or a correction beyond the error tolerance: a loose tolerance let the step leave the
    constraints), its reason in ctl[C_REFUSED]. ``limit``: apply the projection-size rule (not at a breakpoint,
    where a driver's rate may jump by itself: a table's end holds its last value)."""
    q, qd, qdd = st.q, st.qd, st.qdd
    n = q.shape[0]
    ctl = dw.ctl
    for i in range(n):
        ws.q0[i] = q[i]
        ws.qd0[i] = qd[i]
    refused, row, factorised = project_step(m, bv, pat, st, ws, t1, opt.tol, opt.c, opt.pivot, rtol, atol, limit)
    if refused != 0:
        ctl[C_REFUSED] = refused
        ctl[C_REFUSED_T] = t1 - hs
        ctl[C_REFUSED_H] = hs
        return REDO, float(row), V, 0
    moved = False
    for i in range(n):
        if q[i] != ws.q0[i] or qd[i] != ws.qd0[i]:
            moved = True
            break
    p_diss, p_in = ctl[C_P_DISS], ctl[C_P_IN]
    if moved:        # the last stage is not at the projected state: evaluate it there (first same as last else)
        for k in range(st.zs.shape[0]):    # the seventh stage's element states are the step's
            st.zs[k] = ws.zn[k]
        V, bad = start_state(m, sv, bv, pat, st, ws, dw, opt, t1, balance, noncons, factorised)
        if bad >= 0:
            return SINGULAR, float(bad), V, 1
    else:
        for k in range(st.zs.shape[0]):
            st.zs[k] = ws.zn[k]
        ctl[C_SIG] = event_signature(m, sv, st.zs, ws.zn, ws.out)
        if balance:
            ctl[C_P_DISS], ctl[C_P_IN] = powers(m, sv, t1, q, qd, st.u, st.zs, ws.zn, ws.out, ws.cw, ws.Qa, ws.Qb,
                                                st.lam, ws.rows.nu, noncons, ws.rows.jtw)
        for i in range(n):
            dw.kq[0, i] = qd[i]
            dw.kv[0, i] = qdd[i]
    for i in range(n):
        if not (math.isfinite(q[i]) and math.isfinite(qd[i]) and math.isfinite(qdd[i])):
            return NOT_FINITE, t1, V, int(moved)
    after_step(m, sv, q, qdd, st.zs)   # e.g. passive cylinders: accelerations for the next step
    if balance:
        st.sc[SC_W_DISS] += 0.5 * hs * (p_diss + ctl[C_P_DISS])
        st.sc[SC_W_IN] += 0.5 * hs * (p_in + ctl[C_P_IN])
    return OK, 0.0, V, int(moved)


@njit(cache=True, _nrt=False, inline="always")
def back_to_start(st, dw):
    """A rejected step: the state back at its start (its first stage is still in kq[0], kv[0]; the committed
    element states were not touched)."""
    for i in range(st.q.shape[0]):
        st.q[i] = dw.q0[i]
        st.qd[i] = dw.qd0[i]
        st.qdd[i] = dw.kv[0, i]
    for k in range(st.lam.shape[0]):
        st.lam[k] = dw.lam0[k]


@njit(cache=True, _nrt=False, inline="always")
def next_step_size(err, err_prev, hs):
    """The PI controller's step after an accepted step of size hs with the error err (module docstring)."""
    e = max(err, 1e-10)
    fac = e ** (0.2 - 0.75 * BETA) / err_prev ** BETA / SAFETY
    fac = min(1.0 / FAC_MIN, max(1.0 / FAC_MAX, fac))
    return hs / fac


@njit(cache=True, _nrt=False)
def dopri_advance(m, pat, st, ws, opt, dw, t_out, t_stop, rtol, atol, h_max, event_tol, max_steps, rep, rec_q,
                  rec_qd, rec_qdd, rec_lam, rec_z):
    """Advance the State ``st`` through the times ``t_out`` (s, increasing, after st.sc[SC_T]) by error-controlled
    DOPRI5 steps that also end on the times ``t_stop`` (s, increasing) and on state events (module docstring);
    report row i (REP_*: 'iterations' = acceleration solves, REP_REJECTED = rejected steps since the previous
    point) and, if rec_* have rows, the state at t_out[i]. Returns (status, points reached, detail: the failing
    envelope row for SINGULAR, the time for the other failures). On failure the state is left at the last accepted
    step (st.sc[SC_T] its time)."""
    sv = system_view(m, ws.fr)
    bv = body_view(m)
    sc, ctl, cstat = st.sc, dw.ctl, ws.cw.stat
    balance = opt.energy_balance > 0.0
    noncons = opt.noncons > 0.0
    for i in range(st.u.shape[0]):
        if st.u[i] != 0.0:
            noncons = True
    t = sc[SC_T]
    # The start state onto the constraints: a model assembled at rest under a driver, an input that moved a driven
    # coordinate or a restored state leave it off them by an amount that no step size reduces, so the step's
    # size rule (integrate_dopri_project) would refuse every step. On the constraints already: one row evaluation.
    for i in range(st.q.shape[0]):
        ws.q0[i] = st.q[i]
        ws.qd0[i] = st.qd[i]
    refused, bad, factorised = project_step(m, bv, pat, st, ws, t, opt.tol, opt.c, opt.pivot, rtol, atol, FALSE)
    if refused == REFUSED_SINGULAR:
        return SINGULAR, 0, float(bad)
    # the start state's accelerations (inputs may have changed since the last call)
    V, bad = start_state(m, sv, bv, pat, st, ws, dw, opt, t, balance, noncons, factorised)
    if bad >= 0:
        return SINGULAR, 0, float(bad)
    if cstat[ST_PAIR_OVERFLOW] != 0 or cstat[ST_STATE_OVERFLOW] != 0:
        return (CONTACT_PAIRS if cstat[ST_PAIR_OVERFLOW] != 0 else CONTACT_STATES), 0, t
    h = ctl[C_H] if ctl[C_H] > 0.0 else first_step(st.q, st.qd, st.qdd, rtol, atol, h_max)
    err_prev = ctl[C_ERR] if ctl[C_ERR] > 0.0 else 1e-4
    ib = 0
    ev_end = -1.0      # an event lies before this time (s) while it is being bracketed
    h_event = h        # the step size proposal before the bracketing
    steps = 0
    refusals = 0       # projections refused in a row
    for io in range(t_out.shape[0]):
        target = t_out[io]
        eps = 1e-13 * max(1.0, abs(target))
        evals = 1 if io == 0 else 0
        rejected = 0
        while target - t > eps:
            if steps >= max_steps:
                return TOO_MANY_STEPS, io, t
            while ib < t_stop.shape[0] and t_stop[ib] <= t + eps:
                ib += 1
            end = target
            if ib < t_stop.shape[0] and t_stop[ib] < target - eps:
                end = t_stop[ib]
            hs = min(h, h_max)
            if ev_end > t:     # bisection: half the bracket, or all of it once it is within event_tol
                rest = ev_end - t
                hs = min(hs, rest if rest <= event_tol else 0.5 * rest)
            snapped = False
            if t + hs >= end - eps:
                hs = end - t
                snapped = True
            if hs < 1e-14 * max(1.0, abs(t)):
                return STEP_TOO_SMALL, io, t
            err, event, V, bad = try_step(m, sv, bv, pat, st, ws, dw, opt, t, hs, rtol, atol)
            evals += 6
            if cstat[ST_PAIR_OVERFLOW] != 0 or cstat[ST_STATE_OVERFLOW] != 0:
                back_to_start(st, dw)
                sc[SC_T] = t
                return (CONTACT_PAIRS if cstat[ST_PAIR_OVERFLOW] != 0 else CONTACT_STATES), io, t
            bisect = event and event_tol > 0.0 and hs > event_tol
            if err <= 1.0 and not bisect:
                t0 = t
                t = end if snapped else t + hs
                at_break = snapped and ib < t_stop.shape[0] and abs(t_stop[ib] - t) <= eps
                status, detail, V, moved = accept_step(m, sv, bv, pat, st, ws, dw, opt, t, hs, rtol, atol, balance,
                                                       noncons, V, not at_break and refusals < LENIENT_AFTER)
                evals += moved
                if status == REDO:
                    back_to_start(st, dw)
                    t = t0
                    h = FAC_MIN * hs
                    rejected += 1
                    ctl[C_REJECTED] += 1.0
                    refusals += 1
                    if refusals > MAX_REFUSALS:   # a step that snaps to the same end is refused whatever h says
                        return STEP_TOO_SMALL, io, t
                    continue
                refusals = 0
                sc[SC_T] = t
                if status != OK:
                    return status, io, detail
                h_new = next_step_size(err, err_prev, hs)
                h = max(h, h_new) if snapped else h_new
                err_prev = max(err, 1e-4)
                if event and event_tol > 0.0:
                    ctl[C_EVENTS] += 1.0
                if ev_end > t0 and (event or ev_end <= t + eps):
                    # the step that held the event, or the bracket closed without it: go on as before the event
                    ev_end = -1.0
                    h = max(h, h_event)
                    err_prev = 1e-4
                steps += 1
                ctl[C_ACCEPTED] += 1.0
                sc[SC_STEPS] += 1.0
            else:
                back_to_start(st, dw)
                if bisect:         # an event in a step longer than event_tol: bracket it, try the first half
                    if not ev_end > t:
                        h_event = h
                    ev_end = t + hs
                    h = 0.5 * hs
                else:
                    fac = (err ** 0.2) / SAFETY if math.isfinite(err) else 1.0 / FAC_MIN
                    h = hs / min(1.0 / FAC_MIN, max(1.0, fac))
                rejected += 1
                ctl[C_REJECTED] += 1.0
        # at the communication point: the report and the recorded state
        sc[SC_T] = target
        t = target
        sc[SC_P_DISS] = ctl[C_P_DISS]
        sc[SC_P_IN] = ctl[C_P_IN]
        record_step(m, io, evals, V, st, ws.rows, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z)
        rep[io, REP_REJECTED] = rejected
    ctl[C_H] = h if ev_end < 0.0 else h_event
    ctl[C_ERR] = err_prev
    if not balance:
        sc[SC_W_DISS] = math.nan
        sc[SC_W_IN] = math.nan
    return OK, t_out.shape[0], 0.0


__all__ = ["DP_A", "DP_C", "DP_E", "DopriWork", "N_CTL", "N_REP", "STEP_TOO_SMALL", "TOO_MANY_STEPS",
           "dopri_advance", "event_signature"]
