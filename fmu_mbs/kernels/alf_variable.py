"""Error-controlled variable steps of the implicit ALF (trapezoidal ALI3-P, kernels/integrate_alf.py): a local error
estimate from the accelerations, step rejection and a step size controller, the whole step loop in one call (like
alf_advance, whose inlined phases it reuses: predictor, Newton, end of step, energy bookkeeping).

Local error (Zienkiewicz & Xie, Earthquake Eng. Struct. Dyn. 20:871, 1991, for Newmark schemes). The trapezoidal
rule is Newmark's beta = 1/4, gam = 1/2; by Taylor expansion about t_n its local truncation errors are

  positions   e_q = h^3 (beta - 1/6) qddd + O(h^4)          ~= h^2 (beta - 1/6) (qdd_1 - qdd_n) = h^2/12 (qdd_1 - qdd_n)
  velocities  e_v = h^3 (gam/2 - 1/6) qdddd + O(h^4)        (the h^2 (gam - 1/2) qddd term vanishes at gam = 1/2)
              ~= h^3/12 * 2 [(qdd_1 - qdd_n)/h - (qdd_n - qdd_p)/h_p] / (h + h_p)

(derived here: the velocity one needs the accelerations at the start of the previous accepted step, qdd_p, h_p
before; after a time-table knot, where qdd may jump, and at the first step, only the position estimate is used).
qdd_1 and qdd_n are the projected accelerations at the step's ends: the step's end is projected (end_candidate)
before the decision, and committed (end_commit) only if accepted. The scheme's own end acceleration (from the
positions, 4/h^2 (q_1 - q_n) - 4/h qd_n - qdd_n) differs from the projected one by O(h) plus round-off amplified by
4/h^2; in the velocity estimate that mismatch made the error O(h^2) (steps ~ rtol^(-1/2)) and, at small steps,
round-off growing as 1/h stopped the four-bar at rtol 1e-8. Energy-consistent trapezoid: not supported (the caller
refuses it); generalized-alpha: not supported (its pseudo-accelerations lag qdd, the estimate needs its own form).

Norm: err = max_i |e_i| / (atol + rtol max(|y_n,i|, |y_1,i|)) over the 2n components of (q, qd) (``norm_max`` =
1), or Hairer's weighted RMS sqrt(sum (e_i / sc_i)^2 / 2n) (``norm_max`` = 0). A step with err <= 1 is accepted:
the last Newton correction, the projections, the element states and the after-step hooks (finish_step), once per
accepted step. Otherwise (or if Newton fails) the state goes back to the step start (nothing was committed:
Newton writes only the candidate element states) and the step is retried smaller.

Error per step or per unit step. With err <= 1 per step, a second-order method's global error grows as
rtol^(2/3) (N ~ rtol^(-1/3) steps of error rtol each: measured 10x rtol at 1e-4 to 500x at 1e-9 on the pendulum);
with ``unit`` > 0 (s) the error is taken per unit step, err * unit / h <= 1 (the local error may be h / unit of the
tolerance), so the accumulated error stays near rtol (t_end / unit) at every rtol (Hairer, Norsett & Wanner I,
II.4, "error per unit step").

Controller (elementary): h_new = h min(FAC_MAX, max(FAC_MIN, SAFETY err^(-1/k))), k = 3 per step (err ~ h^3) or 2
per unit step (err ~ h^2); after a Newton failure h/4. Steps end exactly on the output times ``t_out`` and on
the knots ``t_stop`` of the model's time tables (the caller's integrators.variable.time_breakpoints); a step
shortened to end on one keeps the controller's proposal for the next. Contact onset and friction regime changes
are found only through the controller's rejections (no event location).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .alf_loop import (
    end_powers,
    newton,
    predict,
    refresh_tangent,
    reject,
    scheme_coefficients,
    scheme_state,
    start_powers,
)
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW
from .forces import after_step, has_multiplier_forces
from .integrate_alf import (
    CONTACT_PAIRS,
    CONTACT_STATES,
    OK,
    REP_REJECTED,
    SC_P_DISS,
    SC_P_IN,
    SC_P_VALID,
    SC_STEPS,
    SC_T,
    SC_W_DISS,
    SC_W_IN,
    project,
    record_step,
    scan_inputs,
)
from .integrate_dopri import STEP_TOO_SMALL, TOO_MANY_STEPS, first_step
from .marker_loads import system_view
from .model_arrays import arrays_type
from .system import (
    body_view,
    eval_frames_ws,
    eval_rows_ws,
    jac_times,
)

SAFETY = 0.9
FAC_MIN = 0.2       # h_new / h >= 0.2 after an error rejection
FAC_MAX = 4.0       # h_new / h <= 4
NEWTON_CUT = 0.25   # h_new / h after a Newton failure

#: AlfVarWork.ctl: the controller's memory and counters, kept between calls
V_H = 0             # step size proposal (s; 0: choose one)
V_H_PREV = 1        # size of the previous accepted step (s; 0: no usable history for the velocity estimate)
V_ACCEPTED = 2      # accepted steps
V_REJECTED = 3      # rejected attempts (error estimate)
V_NEWTON = 4        # rejected attempts (Newton failed)
V_LAST_FAIL = 5     # status of the last Newton failure
N_VCTL = 6

#: the variable-step workspace of the ALF
AlfVarWork = arrays_type("AlfVarWork", [
    "qdd_p",  # (n,)      accelerations at the start of the previous accepted step
    "ctl",    # (N_VCTL,) V_* entries
    "t_log",  # (k,)      end times of the first k accepted steps (k = 0: no log)
], __name__)


@njit(cache=True, _nrt=False, inline="always")
def end_candidate(m, pat, st, ws, opt, cf, t1):
    """The first half of alf_loop.finish_step (ALI3-P): apply Newton's last correction (the AL multipliers take its
    constraint part) and project the velocities and accelerations with the last factorisation; leaves the end
    state's rows in ws.rows_end. Nothing is committed: reject() undoes it."""
    n = st.q.shape[0]
    rc = m.row_cols
    c = opt.c
    rows = ws.rows
    jac_times(rc, rows.jac, ws.dq, ws.y)
    for k in range(st.lam.shape[0]):
        st.lam_star[k] += cf.alpha * (rows.phi[k] + ws.y[k])
    for i in range(n):
        st.q[i] += ws.dq[i]
        scheme_state(cf, st, ws, i, st.q[i] - ws.q0[i])
    project(rc, rows.jac, rows.nu, c, pat.first, pat.ptr, ws.val, pat.pos, ws.work, ws.y, ws.rhs, st.qd)
    eval_frames_ws(m, st.q, st.qd, ws.fr)
    end = ws.rows_end
    eval_rows_ws(m, t1, st.q, st.qd, ws.fr, end)
    project(rc, rows.jac, end.gamma, c, pat.first, pat.ptr, ws.val, pat.pos, ws.work, ws.y, ws.rhs, st.qdd)


@njit(cache=True, _nrt=False, inline="always")
def end_commit(m, sv, st, ws, opt, cf):
    """The second half of alf_loop.finish_step for an accepted step: multipliers consistent with the projected
    accelerations, the pseudo-accelerations, the element states of the last evaluation and the after-step hooks."""
    rows = ws.rows
    end = ws.rows_end
    jac_times(m.row_cols, rows.jac, st.qdd, ws.y)
    for k in range(st.lam.shape[0]):
        st.lam[k] = st.lam_star[k] + opt.c * (ws.y[k] - end.gamma[k])
    for i in range(st.q.shape[0]):
        st.acc[i] = ((1.0 - cf.af) * st.qdd[i] + (cf.af * ws.qdd0[i] - cf.am * st.acc[i])) / (1.0 - cf.am)
    for k in range(st.zs.shape[0]):
        st.zs[k] = ws.zn[k]
    after_step(m, sv, st.q, st.qdd, st.zs)


@njit(cache=True, _nrt=False, inline="always")
def local_error(st, ws, vw, h, rtol, atol, norm_max, velocity):
    """The scaled local error estimate of the step of size h at the converged iterate (module docstring)."""
    n = st.q.shape[0]
    hp = vw.ctl[V_H_PREV] if velocity else 0.0
    cq = h * h / 12.0
    cv = h * h * h / 6.0 / (h + hp) if hp > 0.0 else 0.0
    s = 0.0
    for i in range(n):
        d1 = st.qdd[i] - ws.qdd0[i]
        eq = cq * d1
        ev = 0.0
        if hp > 0.0:
            ev = cv * (d1 / h - (ws.qdd0[i] - vw.qdd_p[i]) / hp)
        rq = abs(eq) / (atol + rtol * max(abs(ws.q0[i]), abs(st.q[i])))
        rv = abs(ev) / (atol + rtol * max(abs(ws.qd0[i]), abs(st.qd[i])))
        if norm_max:
            s = max(s, rq, rv)
        else:
            s += rq * rq + rv * rv
    if not norm_max:
        s = math.sqrt(s / max(2 * n, 1))
    return s if math.isfinite(s) else math.inf


@njit(cache=True, _nrt=False)
def alf_variable_advance(m, pat, st, ws, opt, vw, t_out, t_stop, rtol, atol, h_max, max_steps, norm_max, velocity,
                         unit, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z):
    """Advance the State ``st`` through the times ``t_out`` (s, increasing, after st.sc[SC_T]) by error-controlled
    trapezoidal ALI3-P steps that also end on the times ``t_stop`` (s, increasing). Report row i (REP_*:
    'iterations' = Newton iterations, REP_REJECTED = rejected attempts since the previous point) and, if rec_*
    have rows, the state at t_out[i]. Returns (status, points reached, detail: the time of the failure); on
    failure the state is left at the last accepted step (st.sc[SC_T] its time)."""
    sv = system_view(m, ws.fr)
    bv = body_view(m)
    sc, ctl, cstat = st.sc, vw.ctl, ws.cw.stat
    n = st.q.shape[0]
    use_fd = opt.use_fd > 0.0
    balance = opt.energy_balance > 0.0
    nonzero, _ = scan_inputs(st.u, st.u_last)     # (the start powers stay those of the last step)
    noncons = opt.noncons > 0.0 or nonzero
    mult = has_multiplier_forces(m)
    n_colors = np.int64(0)      # not the literal 0: numba would compile fd_force_jacobian once more for it
    for b in range(pat.colors.shape[0]):
        if pat.colors[b] + 1 > n_colors:
            n_colors = pat.colors[b] + 1
    expo = 0.5 if unit > 0.0 else 1.0 / 3.0      # the error is O(h^2) per unit step, O(h^3) per step
    t = sc[SC_T]
    p_diss0, p_in0 = start_powers(m, sv, st, ws, t, noncons, balance)
    h = ctl[V_H] if ctl[V_H] > 0.0 else first_step(st.q, st.qd, st.qdd, rtol, atol, h_max)
    ib = 0
    steps = 0
    V = 0.0
    for io in range(t_out.shape[0]):
        target = t_out[io]
        eps = 1e-13 * max(1.0, abs(target))
        iters_sum = 0
        rejected = 0
        while target - t > eps:
            if steps >= max_steps:
                return TOO_MANY_STEPS, io, t
            while ib < t_stop.shape[0] and t_stop[ib] <= t + eps:
                ib += 1
            end = target
            knot = False
            if ib < t_stop.shape[0] and t_stop[ib] < target - eps:
                end = t_stop[ib]
                knot = True
            hs = min(h, h_max)
            snapped = False
            if t + hs >= end - eps:
                hs = end - t
                snapped = True
            elif t + 1.5 * hs > end:       # no sliver before a stop: two equal steps
                hs = 0.5 * (end - t)
            if hs < 1e-14 * max(1.0, abs(t)):
                return STEP_TOO_SMALL, io, t
            t1 = end if snapped else t + hs
            cf = scheme_coefficients(opt.rho, hs, opt.c)
            predict(cf, st, ws, hs, False)
            if use_fd:         # the tangent is scaled by the step: refreshed at every attempt's predictor
                if mult:
                    eval_frames_ws(m, st.q, st.qd, ws.fr)
                    eval_rows_ws(m, t1, st.q, st.qd, ws.fr, ws.rows)
                    for k in range(st.lam.shape[0]):
                        ws.y[k] = st.lam_star[k] + (st.lam[k] - ws.lam0[k])
                n_colors = refresh_tangent(m, sv, pat, st, ws, opt, cf, t1, hs, n_colors)
            status, _, iters, V, n_colors = newton(m, sv, bv, pat, st, ws, opt, cf, t1, hs, False, use_fd, mult,
                                                   n_colors, False)
            iters_sum += iters
            if cstat[ST_PAIR_OVERFLOW] != 0 or cstat[ST_STATE_OVERFLOW] != 0:
                reject(st, ws, False)
                sc[SC_T] = t
                return (CONTACT_PAIRS if cstat[ST_PAIR_OVERFLOW] != 0 else CONTACT_STATES), io, t
            if status != OK:
                reject(st, ws, False)
                ctl[V_LAST_FAIL] = status
                h = NEWTON_CUT * hs
                rejected += 1
                ctl[V_NEWTON] += 1.0
                continue
            end_candidate(m, pat, st, ws, opt, cf, t1)
            err = local_error(st, ws, vw, hs, rtol, atol, norm_max, velocity)
            if unit > 0.0:           # error per unit step: the local error may grow with the step (h / unit)
                err *= unit / hs
            if err > 1.0:
                reject(st, ws, False)
                h = hs * max(FAC_MIN, SAFETY * err ** (-expo)) if math.isfinite(err) else FAC_MIN * hs
                rejected += 1
                ctl[V_REJECTED] += 1.0
                continue
            # accepted: multipliers, element states and after-step hooks, once
            end_commit(m, sv, st, ws, opt, cf)
            ctl[V_LAST_FAIL] = 0.0
            p_diss1, p_in1 = end_powers(m, sv, st, ws, t1, noncons, balance)
            sc[SC_W_DISS] += 0.5 * hs * (p_diss0 + p_diss1)
            sc[SC_W_IN] += 0.5 * hs * (p_in0 + p_in1)
            p_diss0 = p_diss1
            p_in0 = p_in1
            sc[SC_P_DISS] = p_diss1
            sc[SC_P_IN] = p_in1
            sc[SC_P_VALID] = 1.0 if balance else 0.0
            t = t1
            sc[SC_T] = t
            sc[SC_STEPS] += 1.0
            for i in range(n):
                vw.qdd_p[i] = ws.qdd0[i]
            # past a knot the acceleration may jump: no history for the velocity estimate
            ctl[V_H_PREV] = 0.0 if (snapped and knot) else hs
            k = int(ctl[V_ACCEPTED])
            if k < vw.t_log.shape[0]:
                vw.t_log[k] = t
            ctl[V_ACCEPTED] += 1.0
            steps += 1
            h_new = hs * min(FAC_MAX, max(FAC_MIN, SAFETY * max(err, 1e-12) ** (-expo)))
            h = max(h, h_new) if snapped else h_new
        sc[SC_T] = target
        t = target
        record_step(m, io, iters_sum, V, st, ws.rows_end, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z)
        rep[io, REP_REJECTED] = rejected
    ctl[V_H] = h
    if not balance:
        sc[SC_W_DISS] = math.nan
        sc[SC_W_IN] = math.nan
    return OK, t_out.shape[0], 0.0


__all__ = ["AlfVarWork", "N_VCTL", "V_ACCEPTED", "V_H", "V_H_PREV", "V_NEWTON", "V_REJECTED",
           "alf_variable_advance", "local_error"]
