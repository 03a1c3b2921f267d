"""One FMU communication step in one call into numba: snapshot, input check, ALF substeps, output channels.

An FMU's doStep spent most of its time outside the numerics: a Python snapshot of the state for rollback, numpy
finiteness checks, one kernel call to advance and another to evaluate the channels (each call dispatches every
array of the model again). ``alf_comm_step`` does the same work as ``ALFIntegrator.advance_to`` followed by
``ChannelEvaluator.__call__`` (analyses/), in the same order on the same arrays, so the results are bit for bit
those of the two calls; anything out of the ordinary (a failed or contact-limited substep, a channel evaluation
that needs a larger contact buffer, a non-finite input) returns a code, and the caller restores the snapshot and
takes the general path, which reports and retries as before.
"""

from __future__ import annotations

import math

from numba import njit

from .alf_loop import alf_advance
from .channel_values import channel_values
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW
from .integrate_alf import OK, REP_ITER, REP_PHI, SC_T

BAD_INPUT = 10        # an input is NaN or infinite (nothing was changed)
CHANNEL_PAIRS = 11    # the channel evaluation needs a larger contact pair buffer (the state was advanced)
CHANNEL_STATES = 12   # the channel evaluation found the contact state table full (the state was advanced)


@njit(cache=True, _nrt=False, inline="always")
def _copy(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, _nrt=False)
def snapshot(st, saved):
    """Copy every array of the State ``st`` into the State ``saved`` (same shapes)."""
    _copy(saved.sc, st.sc)
    _copy(saved.q, st.q)
    _copy(saved.qd, st.qd)
    _copy(saved.qdd, st.qdd)
    _copy(saved.lam, st.lam)
    _copy(saved.u, st.u)
    _copy(saved.zs, st.zs)
    _copy(saved.u_last, st.u_last)
    _copy(saved.lam_star, st.lam_star)
    _copy(saved.acc, st.acc)
    _copy(saved.vt, st.vt)
    _copy(saved.at, st.at)
    _copy(saved.gc, st.gc)


@njit(cache=True)
def alf_comm_step(m, pat, st, ws, opt, n_steps, h, t_end, rep, rec_q, rec_lam, rec_z, saved, u_set, u_prev,
                  ms, ev_zs, ev_zn, ev_Q, fr, rows, mrows, out, cw, plan, q_local, angle_local, planar, is_angle,
                  prev_s, prev_scratch, has_prev, raw, off, chan_plan, y):
    """Advance the State ``st`` (m, pat, ws, opt: as kernels.alf_loop.alf_advance) by ``n_steps`` substeps of
    ``h`` (s) to ``t_end`` (s) with the inputs ``u_set``, then fill ``y`` with every channel (``raw[chan_plan]``,
    raw filled by kernels.channel_values.channel_values at the end state with the evaluator arrays ev_zs, ev_zn,
    ev_Q, fr, rows, mrows, out, cw, ...). Returns 0, or a code (BAD_INPUT, CHANNEL_*, or the integrator's
    failure status) after which the caller restores ``saved`` (the State at the call) and takes the general path.

    Bookkeeping as the general path: u_prev = u_set, the angle-unwrapping memory ``prev_s`` and the committed
    element states of the evaluator ``ev_zs`` (= its candidates ev_zn) are updated only on success."""
    for i in range(u_set.shape[0]):
        if not math.isfinite(u_set[i]):
            return BAD_INPUT
    snapshot(st, saved)
    _copy(st.u, u_set)
    for i in range(n_steps):
        for j in range(rep.shape[1]):
            rep[i, j] = 0.0
    status, done, err = alf_advance(m, pat, st, ws, opt, n_steps, h, rep, rec_q, rec_q, rec_q, rec_lam, rec_z)
    if status != OK:
        return status
    st.sc[SC_T] = t_end
    _copy(prev_scratch, prev_s)
    channel_values(m, ms, t_end, st.q, st.qd, st.qdd, st.lam, st.u, st.zs, ev_zn, ev_Q, fr, rows, mrows, out, cw,
                   plan, q_local, angle_local, planar, is_angle, prev_scratch, has_prev, rep[n_steps - 1, REP_ITER],
                   rep[n_steps - 1, REP_PHI], raw, off)
    if cw.stat[ST_PAIR_OVERFLOW] != 0:
        return CHANNEL_PAIRS
    if cw.stat[ST_STATE_OVERFLOW] != 0:
        return CHANNEL_STATES
    _copy(prev_s, prev_scratch)
    _copy(ev_zs, ev_zn)
    _copy(u_prev, u_set)
    for i in range(y.shape[0]):
        y[i] = raw[chan_plan[i]] + 0.0
    return OK
