"""VariableStepIntegrator: error-controlled Dormand-Prince 5(4) steps on the index-1 accelerations with projections
(kernels/integrate_dopri.py), selected by a tolerance rather than a step: the user gives ``rtol`` and ``atol`` (on
positions and velocities, SI units) and the kernel takes as many steps as they need, hitting every requested time
exactly. The state, saving and reporting are ALFIntegrator's; ``step`` is only the default output spacing; after a
``restore`` the step size controller starts afresh.

For smooth, non-stiff models (mechanisms, vehicles without stiff bushings): a stiff spring or contact makes the
explicit pair take steps of about 3 / omega; the implicit integrators are the choice there. Steps end on events:
the breakpoints of time tables and ramps (found here from the compiled time functions) and the onset and end of
contact and of hydraulic end stops (bracketed by bisection to ``event_tol`` in the kernel). Element states (contact
records, bristle friction, hydraulic pressures, passive cylinders, crush springs, belts) follow the elements' own
update rules over each step, outside the error estimate.
"""

from __future__ import annotations

import math

import numpy as np

from ...compiler import CompiledModel
from ...errors import ConvergenceError
from ...kernels import integrate_alf as K
from ...kernels import integrate_dopri as KD
from ...kernels import integrate_dopri_project as KP
from ...kernels import model_arrays as ma
from ..assembly import AssemblyResult
from .alf import ALFIntegrator

_REASONS = {
    K.SINGULAR: "singular matrix M + c Phi_q^T Phi_q (not positive definite, or NaN in Phi_q)",
    K.NOT_FINITE: "the state became NaN or inf",
    KD.TOO_MANY_STEPS: "more steps than max_steps for this interval",
    KD.STEP_TOO_SMALL: "the step size fell below 1e-14 t (the tolerance cannot be met: a discontinuity, a "
                       "singular position, or rtol below what double precision allows)",
}

#: why the projection onto the constraints refused the last refused step (integrate_dopri_project.REFUSED_*)
_REFUSALS = {
    KP.REFUSED_SINGULAR: "the matrix M + c Phi_q^T Phi_q was not positive definite at the step's end positions",
    KP.REFUSED_POSITION: "the position projection did not bring the constraint residual down",
    KP.REFUSED_SIZE: f"the projection moved the state by more than {KP.PROJ_MAX:g}x the error tolerance",
}


class OutputTimes:
    """What the error-controlled integrators share (this module's and alf_variable's): their steps end on output
    times, so ``advance`` and ``advance_to`` are ``advance_times`` over the requested times."""

    def _output_rows(self, t_out, record: bool):
        """(t_out as a float array, report rows, recording arrays (q, qd, qdd, lam, z) or the empty ones) for
        ``advance_times``; refuses times before the current one."""
        t_out = np.ascontiguousarray(t_out, dtype=float)
        N = len(t_out)
        rep = np.zeros((N, K.N_REP))
        if record:
            rec = (np.zeros((N, self.cm.n_q)), np.zeros((N, self.cm.n_q)), np.zeros((N, self.cm.n_q)),
                   np.zeros((N, self.cm.n_rows)), np.zeros((N, len(self.zs))))
        else:
            rec = self._empty
        if N and t_out[0] <= self.t - 1e-12 * max(1.0, abs(self.t)):
            raise ValueError(f"cannot advance backwards from t = {self.t:.9g} s to {t_out[0]:.9g} s")
        return t_out, rep, rec

    def advance(self, n_steps: int, h: float | None = None, record: bool = False):
        """Advance by n_steps output intervals of size h (default: the nominal step), recording at each."""
        h = self.step if h is None else float(h)
        return self.advance_times(self.t + h * np.arange(1, int(n_steps) + 1), record)

    def advance_to(self, t_target: float, record: bool = False):
        span = t_target - self.t
        if span <= 0.0:
            if span < -1e-12 * max(1.0, abs(t_target)):
                raise ValueError(f"cannot advance backwards from t = {self.t:.9g} s to {t_target:.9g} s")
            return self.advance_times(np.zeros(0), record)
        return self.advance_times(np.array([float(t_target)]), record)


class VariableStepIntegrator(OutputTimes, ALFIntegrator):
    """Error-controlled variable-step integrator (Dormand-Prince 5(4), PI step control, projections) of one
    compiled model. Options: ``rtol``, ``atol`` (local error bounds per step on q and qd: |err_i| <= atol + rtol
    |y_i| in the max norm; default 1e-6 and rtol), ``h_max`` (s, default unbounded), ``max_steps`` (per
    ``advance_to`` interval), ``event_tol`` (s: the step that holds a contact onset or end or an end-stop
    crossing is at most this long; default max(1e-12, 1e-4 rtol) s, 0 = no state events), ``penalty`` (the
    augmented Lagrangian acceleration solve, as ExplicitIntegrator),
    ``tol`` (projection tolerance, m or rad; default 1e-12), ``pivot_tol``, ``energy_balance``."""

    name = "variable"
    label = "variable-step Dormand-Prince"
    reasons = _REASONS

    def __init__(self, cm: CompiledModel, step: float, initial: AssemblyResult | None = None, *,
                 rtol: float = 1e-6, atol: float | None = None, h_max: float = math.inf, max_steps: int = 10 ** 7,
                 event_tol: float | None = None, penalty: float = 1e7, tol: float = 1e-12, pivot_tol: float = 1e-13,
                 energy_balance: bool = True):
        atol = rtol if atol is None else atol
        event_tol = max(1e-12, 1e-4 * rtol) if event_tol is None else event_tol
        for name, value in (("rtol", rtol), ("atol", atol), ("h_max", h_max)):
            if not value > 0.0:
                raise ValueError(f"{name} must be positive, got {value!r}")
        if not event_tol >= 0.0:
            raise ValueError(f"event_tol must be >= 0 (s; 0: no state events), got {event_tol!r}")
        if rtol < 1e-13:
            raise ValueError(f"rtol = {rtol!r} is below what double precision can deliver (>= 1e-13)")
        super().__init__(cm, step, initial, penalty=penalty, tol=tol, tangent="constraints", pivot_tol=pivot_tol,
                         max_halvings=0, energy_balance=energy_balance)
        self.rtol, self.atol, self.h_max, self.max_steps = float(rtol), float(atol), float(h_max), int(max_steps)
        self.event_tol = float(event_tol)
        self.breakpoints = time_breakpoints(cm)
        self._t_start = self.t        # s: where a singular matrix means a massless coordinate, not a lost rank
        n, nr = cm.n_q, cm.n_rows
        self._dw = KD.DopriWork(kq=np.zeros((7, n)), kv=np.zeros((7, n)), q0=np.zeros(n), qd0=np.zeros(n),
                                lam0=np.zeros(nr), ctl=np.zeros(KD.N_CTL))

    def restore(self, saved) -> None:
        """Put back a state from ``save``; the step size controller starts afresh from it (a restored run is
        deterministic, though its steps differ from those of the run that passed through the saved state)."""
        super().restore(saved)
        self._dw.ctl[KD.C_H] = 0.0
        self._dw.ctl[KD.C_ERR] = 0.0

    def control_state(self) -> np.ndarray:
        """The step size controller's state (a copy), which ``restore`` does not put back: an FMU state carries it,
        so that a replay from a restored state takes the steps of the run that passed through it."""
        return self._dw.ctl.copy()

    def set_control_state(self, control: np.ndarray) -> None:
        """Put back a ``control_state`` (after ``restore``)."""
        self._dw.ctl[:] = control

    @property
    def steps_taken(self) -> int:
        """Accepted steps since the start."""
        return int(self._dw.ctl[KD.C_ACCEPTED])

    @property
    def steps_rejected(self) -> int:
        """Rejected steps since the start (on the error estimate or to bracket an event)."""
        return int(self._dw.ctl[KD.C_REJECTED])

    @property
    def events_located(self) -> int:
        """State events (contact onset or end, end stops) located by bisection since the start."""
        return int(self._dw.ctl[KD.C_EVENTS])

    def advance_times(self, t_out: np.ndarray, record: bool = False):
        """Advance through the increasing times ``t_out`` (s), ending exactly on each; returns the report rows
        (len(t_out), REPORT_KEYS: 'iterations' = acceleration solves since the previous time, 'rejected' = rejected
        steps) and, with ``record``, (q, qd, qdd, lam, z) at each time."""
        t_out, rep, rec = self._output_rows(t_out, record)
        i = 0
        while True:        # one call into numba, another after a contact buffer grew
            status, done, detail = KD.dopri_advance(
                self.cm.arrays, self._pat, self.state, self._ws, self.opt, self._dw, t_out[i:], self.breakpoints,
                self.rtol, self.atol, self.h_max, self.event_tol, self.max_steps, rep[i:], *(r[i:] for r in rec))
            i += done
            if not self._contact_buffers(status):
                break
        self.last_report = rep[:i]
        if status != K.OK:
            self._raise_variable(status, detail)
        return (rep, *rec) if record else rep

    def _raise_variable(self, status: int, detail: float) -> None:
        ctl = self._dw.ctl
        if status == K.SINGULAR:
            where = f"at t = {self.t:.9g} s ({self._singular_text(detail)})"
        else:
            where = f"at t = {detail:.9g} s"
        why = self.reasons.get(status, "unknown failure")
        refused = int(ctl[KD.C_REFUSED])
        if status == KD.STEP_TOO_SMALL and refused and abs(ctl[KD.C_REFUSED_T] - detail) <= 1e-9 * max(1.0, detail):
            why = (f"every step from t = {detail:.9g} s down to {ctl[KD.C_REFUSED_H]:.3g} s was refused by the "
                   f"projection onto the constraints ({_REFUSALS[refused]}): the mechanism is at or near a "
                   f"position where its constraints lose rank (a lock-up or a bifurcation), which no step size "
                   f"passes; check the model's geometry and the state there")
        raise ConvergenceError(f"model '{self.cm.model.name}': {self.label} integrator failed {where}: "
                               f"{why} (rtol {self.rtol:g}, atol {self.atol:g}, {self.steps_taken} steps, "
                               f"{self.steps_rejected} rejected)")

    def _singular_text(self, row: float) -> str:
        """Why T = M + c Phi_q^T Phi_q is singular at the state where the call started: at the model's start a
        massless coordinate that no joint holds; later a state the steps reached (the projections check every
        accepted step, so the constraints lost rank there)."""
        names = self.cm.q_names
        coord = names[int(np.argsort(self.pattern.pos)[int(row)])]
        if self.t <= self._t_start:
            return super()._detail(K.SINGULAR, row)
        return (f"at a state the steps reached, not at the start, where the joints no longer hold coordinate "
                f"{coord}: the mechanism reached a position where its constraints lose rank (a lock-up or a "
                f"bifurcation), not a massless body")


def time_breakpoints(cm: CompiledModel) -> np.ndarray:
    """Sorted times (s) where a time function of the model (drivers, loads, valve references) has a kink or a
    jump in a derivative: the knots of its tables, the start and end of its smooth ramps; and the knots of a belt
    pretensioner's stroke table after its fire time, where the webbing's pull-in jumps in slope."""
    a = cm.arrays
    times: list[float] = []
    for kind, adr, length in zip(a.fn_type, a.fn_adr, a.fn_len):
        par = a.fn_par[int(adr):int(adr) + int(length)]
        if kind == ma.FN_TABLE_LINEAR:
            times.extend(par[:len(par) // 2])
        elif kind == ma.FN_TABLE_CUBIC:
            times.extend(par[:(len(par) + 4) // 5])
        elif kind == ma.FN_SMOOTH_RAMP:
            times.extend(par[:2])
    bt = a.belt
    for k in range(len(bt.n_seg)):
        fire = float(a.z0[int(bt.z_adr[k]) + 2 * int(bt.n_seg[k]) + 1])     # the belt's firing time state
        adr, count = (int(x) for x in bt.stroke[k])
        if fire >= 0.0 and count > 0:
            times.extend(fire + a.curve_par[adr:adr + count])
    return np.unique(np.asarray(times, dtype=float))
