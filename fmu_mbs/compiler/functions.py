"""Lowering of time functions and force curves into the flat float pools the kernels read."""

from __future__ import annotations

import numpy as np

from ..kernels import model_arrays as ma
from ..model.functions import Constant, External, Harmonic, Linear, Polynomial, SmoothRamp, Table, TimeFunction
from .cubic_spline import cubic_spline_coefficients


class FunctionPool:
    """Collects time functions -> (fn_type, fn_adr, fn_len, fn_par) and curves -> curve_par."""

    def __init__(self) -> None:
        self.types: list[int] = []
        self.adrs: list[int] = []
        self.lens: list[int] = []
        self.par: list[float] = []
        self.curve_par: list[float] = []

    def add(self, fn: TimeFunction | None) -> int:
        """Index of ``fn`` in the table; -1 for None or a zero constant."""
        if fn is None or (isinstance(fn, Constant) and fn.value == 0.0 and not isinstance(fn, External)):
            return -1
        if isinstance(fn, Constant):
            kind, par = ma.FN_CONSTANT, [fn.value]
        elif isinstance(fn, Linear):
            kind, par = ma.FN_LINEAR, [fn.initial, fn.rate]
        elif isinstance(fn, External):   # rewritten at run time by the FMU (see adapters/fmu_slave.py)
            kind, par = ma.FN_POLYNOMIAL, [fn.initial, 0.0, 0.0]
        elif isinstance(fn, Polynomial):
            kind, par = ma.FN_POLYNOMIAL, list(fn.coefficients)
        elif isinstance(fn, SmoothRamp):
            kind, par = ma.FN_SMOOTH_RAMP, [fn.t_start, fn.t_end, fn.start_value, fn.end_value]
        elif isinstance(fn, Harmonic):
            kind, par = ma.FN_HARMONIC, [fn.amplitude, fn.omega, fn.phase, fn.offset]
        elif isinstance(fn, Table) and fn.interpolation == "linear":
            kind, par = ma.FN_TABLE_LINEAR, list(fn.t) + list(fn.values)
        elif isinstance(fn, Table):
            coeffs = cubic_spline_coefficients(fn.t, fn.values)    # shape (4, n-1), descending powers
            kind, par = ma.FN_TABLE_CUBIC, [float(x) for x in fn.t] + list(coeffs.ravel())
        else:
            raise TypeError(f"unknown time function {fn!r}")
        return self._append(kind, par)

    def constant(self, value: float) -> int:
        return self._append(ma.FN_CONSTANT, [float(value)])

    def _append(self, kind: int, par: list[float]) -> int:
        self.types.append(kind)
        self.adrs.append(len(self.par))
        self.lens.append(len(par))
        self.par.extend(float(p) for p in par)
        return len(self.types) - 1

    def add_curve(self, curve) -> tuple[int, int]:
        """(adr, n) of a piecewise-linear curve [[x, y], ...]; (0, 0) for None."""
        if curve is None:
            return 0, 0
        adr = len(self.curve_par)
        self.curve_par.extend(float(x) for x, _ in curve)
        self.curve_par.extend(float(y) for _, y in curve)
        return adr, len(curve)

    def arrays(self):
        par = self.par or [0.0]
        curve = self.curve_par or [0.0]
        return (np.array(self.types, dtype=np.int64), np.array(self.adrs, dtype=np.int64),
                np.array(self.lens, dtype=np.int64), np.array(par, dtype=float), np.array(curve, dtype=float))
