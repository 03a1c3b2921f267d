"""Partner FMU: a periodic piecewise-linear signal source (a table of up to 8 breakpoints), as any tool's signal
generator would export it (FMI 2.0 co-simulation, pythonfmu, pure Python; independent of fmu-mbs).

Parameters: ``n`` breakpoints (t[k], y[k]), k = 1..n, times increasing from t[1] = 0; ``period`` (s): the table
repeats with this period (0: it does not repeat, and the last value holds after t[n]). Before t[1] the first value
holds. Output ``y`` = table(t) at the FMU's current time: the start time in initialization mode and t + H after
doStep(t, H). The default table is the valve reference of the hydraulic-crane demo: 0 until 0.5 s, a ramp to 0.6
by 2 s, 0.6 to 7 s, a ramp to -1 by 9 s, back to 0 at 10 s, every 10 s (Project Chrono's demo).
"""

from __future__ import annotations

import bisect
import math

from partner_base import KEEPALIVE, PartnerSlave
from pythonfmu.enums import Fmi2Status

KEEPALIVE.append(globals())

MAX_POINTS = 8
VALVE_PROFILE = [(0.0, 0.0), (0.5, 0.0), (2.0, 0.6), (7.0, 0.6), (9.0, -1.0), (10.0, 0.0)]


def table_value(times: list[float], values: list[float], period: float, t: float) -> float:
    """Piecewise-linear interpolation of (times, values) at t, repeated with ``period`` (> 0) or held after the end."""
    if period > 0.0:
        t = t - period * math.floor(t / period)
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    k = bisect.bisect_right(times, t) - 1
    w = (t - times[k]) / (times[k + 1] - times[k])
    return values[k] + (values[k + 1] - values[k]) * w


class SignalSource(PartnerSlave):
    """Periodic piecewise-linear table (up to 8 breakpoints)."""

    description = "Periodic piecewise-linear signal source (up to 8 breakpoints); default: the crane's valve profile."

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.par = {"period": 10.0}
        for k in range(MAX_POINTS):
            tk, yk = VALVE_PROFILE[k] if k < len(VALVE_PROFILE) else (0.0, 0.0)
            self.par[f"t[{k + 1}]"] = tk
            self.par[f"y[{k + 1}]"] = yk
        self.ipar = {"n": len(VALVE_PROFILE)}
        self.t = 0.0
        self.failure: str | None = None
        self.parameter("period", "s", "repetition period (0: no repetition)", self.par)
        self.integer_parameter("n", f"number of breakpoints used (2..{MAX_POINTS})", self.ipar)
        for k in range(MAX_POINTS):
            self.parameter(f"t[{k + 1}]", "s", f"time of breakpoint {k + 1}", self.par)
            self.parameter(f"y[{k + 1}]", "1", f"value at breakpoint {k + 1}", self.par)
        self.output("y", "1", "table value at the current time", lambda: self.value(self.t))

    def table(self) -> tuple[list[float], list[float]]:
        n = self.ipar["n"]
        return ([self.par[f"t[{k + 1}]"] for k in range(n)], [self.par[f"y[{k + 1}]"] for k in range(n)])

    def value(self, t: float) -> float:
        if self.failure is not None:
            return math.nan
        times, values = self.table()
        return table_value(times, values, self.par["period"], t)

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self.t = float(start_time)

    def exit_initialization_mode(self):
        try:
            self.failure = None
            n = self.ipar["n"]
            if not 2 <= n <= MAX_POINTS:
                raise ValueError(f"n must be in 2..{MAX_POINTS}, got {n}")
            self.check_finite(self.par, "parameter(s)")
            times, _ = self.table()
            if times[0] != 0.0 or any(b <= a for a, b in zip(times, times[1:])):
                raise ValueError(f"breakpoint times must start at 0 and increase, got {times}")
            if self.par["period"] < 0.0 or (self.par["period"] > 0.0 and self.par["period"] < times[-1]):
                raise ValueError(f"period must be 0 or at least t[n] = {times[-1]}, got {self.par['period']}")
        except Exception as exc:
            self.failure = f"initialization failed: {exc}"
            self.fail("initialization", exc)

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self.failure is not None:
            self.log(f"doStep(t = {current_time:.9g} s) refused: {self.failure}", Fmi2Status.error)
            return False
        self.t = float(current_time) + float(step_size)
        return True

    def state_dict(self) -> dict:
        return {"t": self.t, "failure": self.failure}

    def load_state_dict(self, state: dict) -> None:
        self.t, self.failure = state["t"], state["failure"]
