"""The accuracy a simulation achieved, estimated from a second run (Richardson extrapolation; Hairer, Norsett &
Wanner, Solving ODEs I, II.4, step-size doubling).

- Fixed-step integrators (alf, galpha, explicit: order p = 2): the run with step h is repeated with h / 2 on the
  same output times; the global error of the h run is e_h = (y_h - y_h/2) / (1 - 2^-p) = 4/3 (y_h - y_h/2) to
  leading order (valid when h resolves the motion: the two runs must be in the asymptotic range, which the
  estimate cannot check by itself).
- ``variable``: repeated with rtol / 100 (its error scales with rtol): e = y_rtol - y_rtol/100 to 1 %.

The estimate costs the second run (2x the CPU of the first for the fixed-step ones, more for ``variable``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..compiler import CompiledModel
from ..errors import AnalysisError
from .assembly import AssemblyResult
from .simulate import simulate
from .trajectory import Trajectory

#: convergence order of the fixed-step integrators (trapezoidal ALI3-P, generalized-alpha, explicit midpoint)
ORDER = {"alf": 2, "galpha": 2, "explicit": 2}


class ErrorEstimate(NamedTuple):
    """Estimated global error of a run, per output row: ``position`` and ``velocity`` are max over the
    coordinates of |error| (m or rad, m/s or rad/s; Euler parameters count as positions); ``worst`` names the
    coordinate and time of the largest position error; ``method`` says how it was estimated."""

    t: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    worst: str
    method: str

    def summary(self) -> str:
        """One line for a report."""
        return (f"estimated error ({self.method}): positions <= {self.position.max():.3g} (m or rad; largest on "
                f"{self.worst}), velocities <= {self.velocity.max():.3g} (m/s or rad/s)")


def estimate_error(cm: CompiledModel, traj: Trajectory, step: float, integrator: str = "alf",
                   initial: AssemblyResult | None = None, **options) -> ErrorEstimate:
    """The error of ``traj``, the result of ``simulate(cm, t_end, step, integrator, output_step=...,
    initial=initial, **options)``, from a second run (module docstring). Raises AnalysisError for the
    'reference' integrator (it is the reference) and if the second run's output times differ."""
    t = traj.t
    if len(t) < 2:
        raise AnalysisError("estimate_error: the run has fewer than two output rows")
    output_step = float(t[1] - t[0])
    if integrator == "variable":
        rtol = float(options.get("rtol", 1e-6))
        atol = options.get("atol")
        fine = dict(options, rtol=rtol / 100.0, atol=(rtol if atol is None else float(atol)) / 100.0)
        h, factor = step, 1.0
        method = f"a second run at rtol {rtol / 100.0:g}"
    elif integrator in ORDER:
        p = ORDER[integrator]
        fine, h, factor = options, 0.5 * step, 1.0 / (1.0 - 2.0 ** -p)
        method = f"step doubling, h and h/2 = {0.5 * step:g} s, order {p}"
    else:
        raise AnalysisError(f"estimate_error: no error estimate for integrator '{integrator}' (choose from "
                            f"{', '.join((*ORDER, 'variable'))})")
    ref = simulate(cm, float(t[-1]), h, integrator=integrator, t_start=float(t[0]), output_step=output_step,
                   initial=initial, **fine)
    if ref.t.shape != t.shape or not np.allclose(ref.t, t, rtol=0.0, atol=1e-9 * max(1.0, abs(t[-1]))):
        raise AnalysisError("estimate_error: the second run's output times differ from the run's (pass the "
                            "output_step and t_start of the run)")
    eq = factor * np.abs(traj.q - ref.q)
    ev = factor * np.abs(traj.qd - ref.qd)
    pos = eq.max(axis=1) if eq.shape[1] else np.zeros(len(t))
    vel = ev.max(axis=1) if ev.shape[1] else np.zeros(len(t))
    worst = "no coordinate"
    if eq.size:
        row, col = np.unravel_index(int(np.argmax(eq)), eq.shape)
        worst = f"{cm.q_names[col]} at t = {t[row]:.6g} s"
    return ErrorEstimate(t, pos, vel, worst, method)


__all__ = ["ORDER", "ErrorEstimate", "estimate_error"]
