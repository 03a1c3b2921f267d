"""Entry points that bundle frames and forces for callers outside numba (analyses, outputs)."""

from __future__ import annotations

from numba import njit

from .forces import add_applied_forces
from .frames import eval_body_frames, eval_marker_frames


@njit(cache=True)
def eval_frames(m, q, qd, r, A, v, w, o, R, vo, wm):
    """Body frames (r, A, v, w) and marker frames (o, R, vo, wm), world axes."""
    eval_body_frames(m, q, qd, r, A, v, w)
    eval_marker_frames(m, r, A, v, w, o, R, vo, wm)


@njit(cache=True)
def eval_forces(m, t, q, qd, r, o, R, vo, wm, u, h, zs, zn, Q, tsda_out, rsda_out, bush_out, act_out, hyd_out,
                cont_out, pc_out, cw):
    """Q += applied forces at frames already evaluated; returns spring potential energy (J)."""
    return add_applied_forces(m, t, q, r, o, R, vo, wm, u, h, zs, zn, Q, tsda_out, rsda_out, bush_out, act_out,
                              hyd_out, cont_out, pc_out, cw)
