"""The FMU's one-call communication step (kernels/comm_step.py) and when it applies.

``FastStep.build`` gathers, once, every array the kernel needs (the integrator's named data, a preallocated
snapshot of its State, the output channel evaluator's arrays, the slave's input and output buffers) into
``CommArgs`` and packs them into one table of addresses and shapes (kernels/packed_args.py); ``run`` is then one
call into numba per doStep with that table and three numbers. It applies to the ALF and generalized-alpha
integrators with inputs held over the step, on models without external drivers and after-step hooks; anything
else, and any step the kernel declines (failed substep, non-finite input, contact buffers), takes MbsSlave's
general path, which gives the same numbers (the kernel runs the same kernels on the same arrays in the same order).

The table holds raw addresses: the FastStep keeps the arrays alive (``Packed.tree``), and the slave drops its
FastStep (builds a new one) whenever an array may have been replaced: after a declined step and the general path,
a restored FMU state, a new initialization; a reset or freed instance drops it with the slave.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..compiler.families import needs_after_step
from ..kernels.alf_loop import alf_advance
from ..kernels.comm_step import BAD_INPUT, CommArgs, packed_comm_step
from ..kernels.integrate_alf import N_REP
from ..kernels.packed_args import Packed, pack

#: substeps per communication step the preallocated report holds (more: a larger one is allocated once)
MIN_SUBSTEPS = 64


@dataclass
class FastStep:
    """The packed arguments of kernels.comm_step.alf_comm_step for one slave (``None`` from ``build``: not
    applicable)."""

    integ: object
    sc: np.ndarray         # the integrator's scalars (sc[0] = t)
    step: float            # nominal substep (s)
    capacity: int          # substeps the report holds
    has_prev: bool         # the evaluator's unwrap memory was valid when built (rebuilt once it becomes so)
    args: Packed           # CommArgs, packed (holds the arrays)

    @classmethod
    def build(cls, slave, substeps: int = MIN_SUBSTEPS) -> FastStep | None:
        integ, chan, cm = slave.integ, slave.chan, slave.cm
        if (integ is None or chan is None or getattr(integ, "name", None) not in ("alf", "galpha")
                or getattr(integ, "_kernel", None) is not alf_advance
                or slave.input_interpolation != 0 or len(slave.d_set) or cm.external_drivers
                or needs_after_step(cm.arrays)):
            return None
        capacity = max(MIN_SUBSTEPS, int(substeps))
        (zs, zn, Q, fr, rows, mrows, out, cw, plan, q_local, angle_local, planar, is_angle, prev_s, prev_phi, has_prev,
         raw, off, gather) = chan.kernel_arguments()
        empty = integ._empty
        args = CommArgs(m=cm.arrays, pat=integ._pat, st=integ.state, ws=integ._ws, opt=integ.opt,
                        rep=np.zeros((capacity, N_REP)), rec_q=empty[0], rec_lam=empty[3], rec_z=empty[4],
                        saved=integ.save(), u_set=slave.u_set, u_prev=slave.u_prev, ms=cm.measure, ev_zs=zs,
                        ev_zn=zn, ev_Q=Q, fr=fr, rows=rows, mrows=mrows, out=out, cw=cw, plan=plan,
                        q_local=q_local, angle_local=angle_local, planar=bool(planar), is_angle=is_angle,
                        prev_s=prev_s, prev_scratch=np.empty_like(prev_s), prev_phi=prev_phi,
                        has_prev=bool(has_prev), raw=raw, off=off, chan_plan=gather, sums=int(chan._off["sums"]),
                        y=slave.y)
        return cls(integ, integ.sc, float(integ.step), capacity, bool(has_prev), pack(args))

    def run(self, t: float, H: float) -> int | None:
        """Advance from t by H (s) and fill the outputs: 0 on success; None if this step is not for the kernel
        (nothing changed); else the kernel's code, with the state put back at t."""
        t0 = float(self.sc[0])
        span = (t + H) - t0
        # the FMU binary's step lane (adapters/native/step_lane.c, lane_do_step) makes the same checks and call
        if not (0.0 < H < math.inf and span > 0.0 and abs(t - t0) <= 1e-9 * max(1.0, abs(t))):
            return None
        n = max(1, math.ceil(span / self.step * (1.0 - 1e-9)))   # as ALFIntegrator.advance_to
        if n > self.capacity:
            return None
        code = packed_comm_step(self.args.table, self.args.layout, n, span / n, t + H)
        self.declined(code)
        return code

    def declined(self, code: int) -> None:
        """After the kernel returned ``code``: a failed step's state is put back at the step's start."""
        if code != 0 and code != BAD_INPUT:
            self.integ.restore(self.args.tree.saved)

    def lane(self) -> tuple[int, float, int, np.ndarray, object]:
        """What the FMU binary's step lane needs to run this step (adapters/step_lane.py): the address of the
        integrator's time t (sc[0]), the nominal substep (s), the report's capacity, the table and layout."""
        return self.sc.ctypes.data, self.step, self.capacity, self.args.table, self.args.layout
