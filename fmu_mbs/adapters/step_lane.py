"""The bridge's side of the FMU binary's step lane (adapters/native/step_lane.c): what the binary may do without
calling Python, handed over after each doStep that the one-call step kernel took.

A master's loop of fmi2SetReal (inputs), fmi2DoStep and fmi2GetReal (outputs) then costs the kernel plus a few
microseconds instead of three calls into the bridge (issue 13). The lane gets the kernel (the compiled entry of
kernels.comm_step.packed_comm_step for the arguments' layout) and its packed arguments, the address of the
integrator's time, of the bridge's last successful time, and per value reference the address of an input in
``MbsSlave.u_set`` or of an output in ``MbsSlave.y``. Only held Real inputs without a range or an enumeration are
lane inputs (the bridge checks those); everything else, and every step the kernel declines, goes through the bridge
as before.

The binary disarms the lane before any call into the bridge but a getter, so the addresses are only used while
the arrays they point into are those of the armed FastStep and slave (both keep them alive).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pythonfmu import Fmi2Causality

from ..kernels.comm_step import packed_comm_step

_DOUBLE = 8   # bytes


def _entry(layout) -> Callable:
    """The compiled packed_comm_step for this layout, called without numba's dispatcher (which types every argument
    at each call: ~1.5 us of the step); the dispatcher itself if it has no such overload (never after a doStep that
    took the kernel)."""
    for sig, compiled in packed_comm_step.overloads.items():
        if len(sig) > 1 and sig[1] == layout._numba_type_:
            return compiled.entry_point
    return packed_comm_step


class StepLane:
    """Arms the lane of one instance (``arm``: the binary's arm_lane function)."""

    __slots__ = ("_arm", "_slave", "_in", "_out", "_fast", "_args")

    def __init__(self, arm: Callable):
        self._arm = arm
        self._slave = self._fast = self._args = None
        self._in = self._out = None

    def offer(self, slave, variables: list, rules: list, out_pos: list[int], last_time: np.ndarray) -> None:
        """Arm the lane if the slave's last doStep ran on its one-call step and the next one can, as it is."""
        fast = slave._fast
        if not fast or not fast.has_prev or slave.chan is None or slave.chan.has_modal:
            return
        if self._slave is not slave:
            self._tables(slave, variables, rules, out_pos)
        if self._fast is not fast:
            sc_addr, step, capacity, table, layout = fast.lane()
            self._fast = fast
            self._args = (_entry(layout), table, layout, sc_addr, last_time.ctypes.data, step, capacity,
                          len(variables), self._in.ctypes.data, self._out.ctypes.data)
        self._arm(*self._args)

    def _tables(self, slave, variables: list, rules: list, out_pos: list[int]) -> None:
        """Per value reference the address of its lane input / output (0: not a lane value)."""
        n = len(variables)
        self._in, self._out = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        u_addr, y_addr = slave.u_set.ctypes.data, slave.y.ctypes.data
        for vr, v in enumerate(variables):
            k = slave.input_index.get(v.name) if v.causality == Fmi2Causality.input else None
            settable, fixed, allowed, lo, hi = rules[vr]
            if k is not None and settable and not fixed and allowed is None and lo is None and hi is None:
                self._in[vr] = u_addr + _DOUBLE * k
            if out_pos[vr] >= 0:
                self._out[vr] = y_addr + _DOUBLE * out_pos[vr]
        self._slave, self._fast = slave, None

    def forget(self) -> None:
        """Drop the slave and step this lane was armed for (a reset or freed instance; the binary disarmed it)."""
        self._slave = self._fast = self._args = None
