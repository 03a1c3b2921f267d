"""One FMU communication step in one call into numba: snapshot, input check, ALF substeps, output channels.

An FMU's doStep spent most of its time outside the numerics: a Python snapshot of the state for rollback, numpy
finiteness checks, one kernel call to advance and another to evaluate the channels (each call dispatches every
array of the model again). ``alf_comm_step`` does the same work as ``ALFIntegrator.advance_to`` followed by
``ChannelEvaluator.__call__`` (analyses/), in the same order on the same arrays, so the results are bit for bit
those of the two calls; anything out of the ordinary (a failed or contact-limited substep, a channel evaluation
that needs a larger contact buffer, a non-finite input) returns a code, and the caller restores the snapshot and
takes the general path, which reports and retries as before.

Its ~200 arrays (``CommArgs``) reach it packed (kernels/packed_args.py): ``packed_comm_step`` takes one int64
table of their addresses and shapes, so a call costs about what a call with a few arrays costs.
"""

from __future__ import annotations

import math

from numba import njit

from .alf_loop import alf_advance
from .channel_values import channel_values, planar_angles
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW
from .inner import inner_kernel
from .integrate_alf import OK, REP_ITER, REP_PHI, SC_T, SC_W_DISS, SC_W_IN
from .model_arrays import arrays_type
from .packed_args import unpack

BAD_INPUT = 10        # an input is NaN or infinite (nothing was changed)
CHANNEL_PAIRS = 11    # the channel evaluation needs a larger contact pair buffer (the state was advanced)
CHANNEL_STATES = 12   # the channel evaluation found the contact state table full (the state was advanced)

#: everything alf_comm_step reads and writes besides the step's size (adapters/fmu_fast_step.py fills it)
CommArgs = arrays_type("CommArgs", [
    "m", "pat", "st", "ws", "opt",   # ModelArrays, PatternArrays, State, Work, Options: as alf_loop.alf_advance
    "rep",           # (capacity, N_REP) the substeps' reports
    "rec_q",         # (0, n) no recording of q, qd, qdd
    "rec_lam",       # (0, nr)
    "rec_z",         # (0, nz)
    "saved",         # State: the snapshot written at each call (rollback)
    "u_set",         # (n_u,) inputs for the step (set by the master)
    "u_prev",        # (n_u,) inputs at the previous communication point (written on success)
    "ms",            # the measure rows (CompiledModel.measure)
    "ev_zs", "ev_zn", "ev_Q", "fr", "rows", "mrows", "out", "cw", "plan", "q_local", "angle_local", "planar",
    "is_angle", "prev_s",            # the channel evaluator's arrays (ChannelEvaluator.kernel_arguments)
    "prev_scratch",  # (nmeas,) the unwrap memory the evaluation writes (copied to prev_s on success)
    "prev_phi",      # (n_markers,) a planar model's marker angles at the previous call (rad), updated on success
    "has_prev",      # bool: prev_s and prev_phi hold a previous state
    "raw", "off", "chan_plan",       # the evaluator's raw values, block offsets and channel gather plan
    "sums",          # int: index in raw of energy.dissipated (J); energy.input (J) follows
    "y",             # (n_channels,) every channel, written on success
], __name__)


@njit(cache=True, _nrt=False, inline="always")
def _copy(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, _nrt=False, inline="always")
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


@njit(cache=True, inline="always")
def comm_step_body(a, n_steps, h, t_end):
    """Advance the State ``a.st`` (CommArgs ``a``; m, pat, ws, opt: as kernels.alf_loop.alf_advance) by ``n_steps``
    substeps of ``h`` (s) to ``t_end`` (s) with the inputs ``a.u_set``, then fill ``a.y`` with every channel
    (``raw[chan_plan]``, raw filled by kernels.channel_values.channel_values at the end state, and the integrator's
    energy sums W_diss, W_in (J) at ``raw[sums]``, ``raw[sums + 1]``). Returns 0, or a code (BAD_INPUT, CHANNEL_*,
    or the integrator's failure status) after which the caller restores ``a.saved`` (the State at the call) and
    takes the general path.

    Bookkeeping as the general path: u_prev = u_set, the angle-unwrapping memory ``prev_s``, a planar model's marker
    angles phi (and their memory ``prev_phi``, as ChannelEvaluator.finish_planar) and the committed element states of
    the evaluator ``ev_zs`` (= its candidates ev_zn) are updated only on success."""
    st, rep = a.st, a.rep
    for i in range(a.u_set.shape[0]):
        if not math.isfinite(a.u_set[i]):
            return BAD_INPUT
    snapshot(st, a.saved)
    _copy(st.u, a.u_set)
    for i in range(n_steps):
        for j in range(rep.shape[1]):
            rep[i, j] = 0.0
    status, done, err = alf_advance(a.m, a.pat, st, a.ws, a.opt, n_steps, h, rep, a.rec_q, a.rec_q, a.rec_q,
                                    a.rec_lam, a.rec_z)
    if status != OK:
        return status
    st.sc[SC_T] = t_end
    _copy(a.prev_scratch, a.prev_s)
    channel_values(a.m, a.ms, t_end, st.q, st.qd, st.qdd, st.lam, st.u, st.zs, a.ev_zn, a.ev_Q, a.fr, a.rows,
                   a.mrows, a.out, a.cw, a.plan, a.q_local, a.angle_local, a.planar, a.is_angle, a.prev_scratch,
                   a.has_prev, rep[n_steps - 1, REP_ITER], rep[n_steps - 1, REP_PHI], a.raw, a.off)
    if a.cw.stat[ST_PAIR_OVERFLOW] != 0:
        return CHANNEL_PAIRS
    if a.cw.stat[ST_STATE_OVERFLOW] != 0:
        return CHANNEL_STATES
    _copy(a.prev_s, a.prev_scratch)
    _copy(a.ev_zs, a.ev_zn)
    _copy(a.u_prev, a.u_set)
    a.raw[a.sums] = st.sc[SC_W_DISS]
    a.raw[a.sums + 1] = st.sc[SC_W_IN]
    if a.planar:
        planar_angles(a.raw, a.off, a.prev_phi.shape[0], a.prev_phi, a.has_prev)
    y, raw, chan_plan = a.y, a.raw, a.chan_plan
    for i in range(y.shape[0]):
        y[i] = raw[chan_plan[i]] + 0.0
    return OK


@inner_kernel
def alf_comm_step(a, n_steps, h, t_end):
    """comm_step_body on the CommArgs ``a`` passed as one named tuple of arrays (typed and unboxed at every call
    from Python: the benchmark's comparison, bench/fmu_latency.py)."""
    return comm_step_body(a, n_steps, h, t_end)


@njit(cache=True)
def packed_comm_step(table, layout, n_steps, h, t_end):
    """comm_step_body on the CommArgs packed into ``table`` (kernels/packed_args.py: ``layout`` is its type).
    The body is inlined (numba IR): called as a function it received the ~200 arrays of CommArgs by value, which
    cost 4.6 of the 20.4 us per pendulum step (2026-11-26)."""
    return comm_step_body(unpack(table, layout), n_steps, h, t_end)
