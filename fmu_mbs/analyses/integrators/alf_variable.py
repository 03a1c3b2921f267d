"""ALFVariableIntegrator: the trapezoidal ALF (ALI3-P) with error-controlled variable steps
(kernels/alf_variable.py): a local error estimate from the accelerations (Zienkiewicz & Xie 1991), rejection and
retry, a step size controller, the whole step loop in one call into numba. Selected by a tolerance, as the implicit
integrators of Adams are: ``simulate(..., integrator="alf", rtol=1e-6)`` or ``integrator="alf-variable"``.

For stiff or fast-rotating models, where the explicit pair (``variable``) needs steps of about 3 / omega of the
stiffest element: the implicit step is limited by accuracy only. Steps end exactly on the output times and on the
knots of time tables and ramps; contact onset and friction regime changes are found only by the controller's
rejections (no event location yet). The state, saving and reporting are ALFIntegrator's; ``step`` is only the
default output spacing; after a ``restore`` the controller starts afresh.
"""

from __future__ import annotations

import math

import numpy as np

from ...compiler import CompiledModel
from ...errors import ConvergenceError
from ...kernels import alf_variable as KA
from ...kernels import integrate_alf as K
from ...kernels import integrate_dopri as KD
from ..assembly import AssemblyResult
from .alf import ALFIntegrator
from .variable import OutputTimes, time_breakpoints

_REASONS = {
    KD.TOO_MANY_STEPS: "more steps than max_steps for this interval",
    KD.STEP_TOO_SMALL: "the step size fell below 1e-14 t (the tolerance cannot be met, or Newton fails at every "
                       "step size: a discontinuity, a singular position, or rtol below what the Newton tolerance "
                       "and double precision allow)",
}


def local_share(rtol: float) -> float:
    """The share of rtol and atol that each step's local error may use (a tolerance transformation, as RADAU5's
    0.1 rtol^(2/3) for its lower-order estimate): with the error per step at most tol, a second-order method's global
    error grows as K tol^(2/3) (N ~ tol^(-1/3) steps; measured K = 3.3-3.6 on the pendulum, 11-12 on the seed 002
    four-bar, tol 5e-6 ... 5e-11), so tol = (rtol / 10)^(3/2) keeps it proportional to rtol."""
    return math.sqrt(rtol / 10.0) / 10.0


#: the smallest local error per step (SI units) asked of the implicit step: below it the error estimate's
#: round-off and Newton's tolerance (a tenth of it) are the error, and the step collapses (measured: the pendulum at
#: rtol 1e-8, local 3e-14, failed at t = 0.04 s; at rtol 1e-7, local 1e-11, it meets the tolerance)
LOCAL_FLOOR = 1e-12
#: the rtol (= atol) whose local error with local_share is LOCAL_FLOOR: rtol^(3/2) / sqrt(1000) = LOCAL_FLOOR (1e-7)
SMALLEST_RTOL = (LOCAL_FLOOR * math.sqrt(1000.0)) ** (2.0 / 3.0)

#: error per unit step (s) when > 0: the local error of a step of size h may be h / UNIT_STEP of the tolerance.
#: Off (0) by default: it keeps the global error proportional to rtol, but a round-off floor of the estimate then
#: looks like an error growing as 1/h, and the step collapses (measured: the pendulum at rtol 1e-8, the four-bar at
#: 1e-6, the bouncing ball and the friction pendulum at 1e-5)
UNIT_STEP = 0.0


class ALFVariableIntegrator(OutputTimes, ALFIntegrator):
    """Error-controlled trapezoidal ALI3-P of one compiled model. Options: ``rtol``, ``atol`` (local error bounds
    per step on q and qd, SI units: |err_i| <= atol + rtol |y_i|; default 1e-6 and rtol), ``norm`` ("max": the
    largest scaled component, as the ``variable`` integrator; "rms": Hairer's weighted RMS), ``h_max`` (s),
    ``max_steps`` (per output interval), ``tol`` (Newton, m or rad; default min(1e-9, atol / 10)),
    ``step_log`` (keep the end times of the first k accepted steps in ``accepted_times``), and ALFIntegrator's
    ``penalty``, ``accept_tol``, ``max_iter``, ``tangent``, ``pivot_tol``, ``fd_eps``, ``energy_balance``.
    ``share`` (the share of rtol and atol each step's local error may use, default ``local_share(rtol)``),
    ``unit_step`` (s; > 0: error per unit step, see UNIT_STEP),
    ``velocity_estimate`` (False: positions only, as Zienkiewicz & Xie; the global error then grows to 30-1800x
    rtol on the pendulum and the four-bar). Trapezoidal ALI3-P only: the generalized-alpha scheme's
    pseudo-accelerations lag the accelerations by O(h), so this estimate does not carry over to it unchanged, and
    the energy-consistent scheme is refused (above)."""

    name = "alf-variable"
    label = "variable-step ALF"

    def __init__(self, cm: CompiledModel, step: float, initial: AssemblyResult | None = None, *,
                 rtol: float = 1e-6, atol: float | None = None, norm: str = "max", h_max: float = math.inf,
                 max_steps: int = 10 ** 7, tol: float | None = None, step_log: int = 0,
                 share: float | None = None, velocity_estimate: bool = True, unit_step: float = UNIT_STEP,
                 **options):
        atol = rtol if atol is None else atol
        for key, value in (("rtol", rtol), ("atol", atol), ("h_max", h_max)):
            if not value > 0.0:
                raise ValueError(f"{key} must be positive, got {value!r}")
        if rtol < 1e-13:
            raise ValueError(f"rtol = {rtol!r} is below what double precision can deliver (>= 1e-13)")
        share = local_share(rtol) if share is None else share
        if not 0.0 < share <= 1.0:
            raise ValueError(f"share must be in (0, 1], got {share!r}")
        if share * atol < LOCAL_FLOOR * (1.0 - 1e-9):
            raise ValueError(f"model '{cm.model.name}', {self.label}: rtol {rtol:g}, atol {atol:g} ask each step "
                             f"for a local error of {share * atol:.2g} (a second-order method's share of the "
                             f"tolerance, local_share), "
                             f"below what an implicit step resolves in double precision ({LOCAL_FLOOR:g}: the step "
                             f"would collapse); this integrator takes rtol and atol >= {SMALLEST_RTOL:g}; for tighter "
                             f"tolerances use integrator 'variable' (Dormand-Prince 5(4))")
        if norm not in ("max", "rms"):
            raise ValueError(f"norm must be 'max' or 'rms', got {norm!r}")
        for key in ("rho_inf", "max_halvings", "project_accelerations"):
            if key in options:
                raise ValueError(f"{self.label}: option '{key}' does not apply (trapezoidal ALI3-P, steps set by "
                                 f"the error estimate)")
        if options.get("scheme", "ali3p") != "ali3p":
            raise ValueError(f"{self.label}: scheme {options['scheme']!r} is not supported with error control (the "
                             f"energy-consistent trapezoid rejected every step on seed 000 E7.2 in its first 0.3 ms; "
                             f"not understood yet): use scheme 'ali3p'")
        tol = min(1e-9, 0.1 * share * atol) if tol is None else tol
        super().__init__(cm, step, initial, tol=tol, max_halvings=0, **options)
        self.reasons = {**self.reasons, **_REASONS}
        self.rtol, self.atol, self.h_max, self.max_steps = float(rtol), float(atol), float(h_max), int(max_steps)
        self.share = float(share)
        self.norm_max = norm == "max"
        self.velocity_estimate = bool(velocity_estimate)
        if not unit_step >= 0.0:
            raise ValueError(f"unit_step must be >= 0 (s; 0: error per step), got {unit_step!r}")
        self.unit_step = float(unit_step)
        self.breakpoints = time_breakpoints(cm)
        self._vw = KA.AlfVarWork(qdd_p=np.zeros(cm.n_q), ctl=np.zeros(KA.N_VCTL), t_log=np.zeros(int(step_log)))

    def restore(self, saved) -> None:
        """Put back a state from ``save``; the step size controller starts afresh from it."""
        super().restore(saved)
        self._vw.ctl[KA.V_H] = 0.0
        self._vw.ctl[KA.V_H_PREV] = 0.0

    def control_state(self) -> np.ndarray:
        """The step size controller's state and the previous step's accelerations of the velocity estimate (a
        copy), which ``restore`` does not put back: an FMU state carries them, so that a replay from a restored state
        takes the steps of the run that passed through it."""
        return np.concatenate([self._vw.ctl, self._vw.qdd_p])

    def set_control_state(self, control: np.ndarray) -> None:
        """Put back a ``control_state`` (after ``restore``)."""
        n = len(self._vw.ctl)
        self._vw.ctl[:] = control[:n]
        self._vw.qdd_p[:] = control[n:]

    @property
    def steps_taken(self) -> int:
        """Accepted steps since the start."""
        return int(self._vw.ctl[KA.V_ACCEPTED])

    @property
    def steps_rejected(self) -> int:
        """Rejected attempts since the start (error estimate above the tolerance, or Newton failed)."""
        return int(self._vw.ctl[KA.V_REJECTED] + self._vw.ctl[KA.V_NEWTON])

    @property
    def newton_failures(self) -> int:
        """Rejected attempts whose Newton iteration failed (retried with a quarter of the step)."""
        return int(self._vw.ctl[KA.V_NEWTON])

    @property
    def accepted_times(self) -> np.ndarray:
        """End times (s) of the first ``step_log`` accepted steps (fewer if fewer were taken)."""
        return self._vw.t_log[:min(self.steps_taken, len(self._vw.t_log))].copy()

    def advance_times(self, t_out: np.ndarray, record: bool = False):
        """Advance through the increasing times ``t_out`` (s), ending exactly on each; returns the report rows
        (len(t_out), REPORT_KEYS: 'iterations' = Newton iterations since the previous time, 'rejected' = rejected
        attempts) and, with ``record``, (q, qd, qdd, lam, z) at each time."""
        t_out, rep, rec = self._output_rows(t_out, record)
        i = 0
        while True:        # one call into numba, another after a contact buffer grew
            status, done, detail = KA.alf_variable_advance(
                self.cm.arrays, self._pat, self.state, self._ws, self.opt, self._vw, t_out[i:], self.breakpoints,
                self.share * self.rtol, self.share * self.atol, self.h_max, self.max_steps, self.norm_max,
                self.velocity_estimate, self.unit_step, rep[i:], *(r[i:] for r in rec))
            i += done
            if not self._contact_buffers(status):
                break
        self.last_report = rep[:i]
        if status != K.OK:
            raise ConvergenceError(
                f"model '{self.cm.model.name}': {self.label} integrator failed at t = {detail:.9g} s: "
                f"{self.reasons.get(status, 'unknown failure')} (rtol {self.rtol:g}, atol {self.atol:g}, "
                f"{self.steps_taken} steps, {self.steps_rejected} rejected, {self.newton_failures} of them by Newton)")
        return (rep, *rec) if record else rep

