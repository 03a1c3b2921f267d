"""ExplicitIntegrator: the explicit midpoint rule (second order) on index-1 augmented Lagrangian accelerations with
mass-orthogonal projections (kernels/integrate_explicit.py), for contact-dominated scenes whose step the contact
stiffness sets anyway: two force evaluations per step and no Newton iteration. The same state, saving, rejection
and reporting as ALFIntegrator, whose machinery it reuses; 'iterations' reports the force evaluations per step.
"""

from __future__ import annotations

import numpy as np

from ...compiler import CompiledModel
from ...errors import ConvergenceError
from ...kernels import integrate_alf as K
from ...kernels import integrate_explicit as KE
from ..assembly import AssemblyResult, assemble
from ..evaluate import Evaluator
from .alf import ALFIntegrator
from .stability import energy_drift, highest_frequency

_REASONS = {
    K.SINGULAR: "singular matrix M + c Phi_q^T Phi_q (not positive definite, or NaN in Phi_q)",
    K.NOT_FINITE: "the state became NaN or inf: the step is above the explicit stability limit of the stiffest "
                  "force (h omega < 2; a contact or spring of stiffness k on a mass m needs h < 2 sqrt(m / k))",
}

#: the midpoint rule's energy error per unit time grows as (h omega)^4 (measured 20-37x per halving of h on the
#: seed 002 four-bar and the spatial slider-crank; 4 is the conservative exponent for the suggested step)
DRIFT_ORDER = 4.0


class ExplicitIntegrator(ALFIntegrator):
    """Fixed-step explicit midpoint integrator (Runge's second-order Runge-Kutta) of one compiled model.

    Constraints are solved at acceleration level (M qdd + Phi_q^T lam = Q, Phi_q qdd = gamma, augmented Lagrangian
    with c = ``penalty`` x the largest diagonal of M) and the positions and velocities are projected onto them after
    every step (mass-orthogonally, position passes while max |Phi| > ``tol``), so constraints do not limit the step;
    forces do: h omega_max < 2 for the stiffest force. Options: ``penalty``, ``tol`` (m or rad), ``pivot_tol``,
    ``max_halvings`` (a step whose result is not finite is redone as two half steps, recursively, before the error
    is raised), ``energy_balance`` (as ALFIntegrator), ``energy_tol`` (the drift monitor: ConvergenceError when
    kinetic + potential + dissipated - input work moves from its start value by more than this fraction of the
    motion's energy scale, the largest kinetic energy or potential-energy range met so far; the message gives the
    highest frequency and a step that keeps the drift within the bound; None: off, and off without the energy
    balance). A step too large for the scheme loses energy through the projections silently otherwise (issue 16:
    7.4 % on the seed 002 four-bar at h = 1 ms)."""

    name = "explicit"
    label = "explicit midpoint"
    reasons = _REASONS

    def __init__(self, cm: CompiledModel, step: float, initial: AssemblyResult | None = None, *,
                 penalty: float = 1e7, tol: float = 1e-10, pivot_tol: float = 1e-13, max_halvings: int = 2,
                 energy_balance: bool = True, energy_tol: float | None = 0.02):
        initial = initial if initial is not None else assemble(cm)
        super().__init__(cm, step, initial, penalty=penalty, tol=tol, tangent="constraints", pivot_tol=pivot_tol,
                         max_halvings=max_halvings, energy_balance=energy_balance)
        self._kernel = KE.explicit_advance
        if energy_tol is not None and not energy_tol > 0.0:
            raise ValueError(f"energy_tol must be positive or None, got {energy_tol!r}")
        self.energy_tol = energy_tol if energy_balance else None
        self._start = (initial.t, initial.q.copy(), initial.qd.copy())
        ev = Evaluator(cm)
        ev.forces(initial.t, initial.q, initial.qd)
        kin, pot = ev.kinetic_energy(initial.q, initial.qd), ev.gravity_energy(initial.q) + ev.spring_energy
        self._e0 = kin + pot
        self._kin_max, self._pot_min, self._pot_max = kin, pot, pot

    def advance(self, n_steps: int, h: float | None = None, record: bool = False, every: int = 1):
        out = super().advance(n_steps, h, record, every)
        if self.energy_tol is not None:
            self._monitor(self.last_report, self.step if h is None else float(h))
        return out

    def _monitor(self, report: np.ndarray, h: float) -> None:
        """ConvergenceError when the energy balance of the steps in ``report`` drifted beyond energy_tol."""
        if len(report) == 0:
            return
        self._kin_max = max(self._kin_max, float(np.max(report[:, K.REP_KIN])))
        self._pot_min = min(self._pot_min, float(np.min(report[:, K.REP_POT])))
        self._pot_max = max(self._pot_max, float(np.max(report[:, K.REP_POT])))
        scale = max(self._kin_max, self._pot_max - self._pot_min, 1e-300)
        drift, k = energy_drift(report, self._e0, scale)
        if drift <= self.energy_tol:
            return
        t_bad = self.t - (len(report) - 1 - k) * h
        h_ok = h * (0.1 * self.energy_tol / drift) ** (1.0 / DRIFT_ORDER)    # a tenth of the drift rate
        acc = float(np.max(report[:, K.REP_ACC]))
        omega = self._omega()
        head = (f"model '{self.cm.model.name}': {self.label} integrator: the energy balance (kinetic + potential + "
                f"dissipated - input) drifted by {100.0 * drift:.3g} % of the motion's energy ({scale:.4g} J) by "
                f"t = {t_bad:.6g} s, above energy_tol = {100.0 * self.energy_tol:.3g} %")
        if acc > 1e-6 and h * omega < 0.5:
            raise ConvergenceError(f"{head}: {self._solve_text(h, omega, acc, h_ok)}")
        solve = (f"; the acceleration-level constraint residual reached {acc:.2g} in these steps" if acc > 1e-6
                 else "")
        raise ConvergenceError(
            f"{head}: the step {h:.3g} s is too large for an explicit scheme on this model "
            f"({self._frequency_text(h, omega)}; the midpoint rule's energy error grows as (h omega)^4{solve}); a "
            f"step of about {h_ok:.2g} s should cut the drift per second by 10x, or use the implicit integrator "
            f"'alf' or the error-controlled one (integrator 'variable', rtol)")

    def _omega(self) -> float:
        """The highest frequency of the linearised motion at the start and at the current state (rad/s)."""
        t0, q0, qd0 = self._start
        return max(highest_frequency(self.cm, t0, q0, qd0),
                   highest_frequency(self.cm, self.t, self.q.copy(), self.qd.copy()))

    def _solve_text(self, h: float, omega: float, acc: float | None, h_ok: float | None = None) -> str:
        """Why a run with a step well inside the stability limit failed: the acceleration-level solve."""
        reached = f"its residual |Phi_q qdd - gamma| reached {acc:.2g}" if acc is not None else "it failed"
        step = f", or a step of about {h_ok:.2g} s" if h_ok is not None else ", or a smaller step"
        return (f"the step {h:.3g} s is well inside the explicit stability limit (h omega = {h * omega:.2g} with "
                f"the highest frequency {omega:.3g} rad/s; the limit is h omega = 2), so the step size is not the "
                f"cause: the acceleration-level constraint solve did not converge ({reached}; augmented Lagrangian "
                f"with c = penalty x largest mass = {self.opt.c:.3g}), the accelerations leave the constraints and "
                f"the projections take the difference out of the motion. Its passes converge with a smaller penalty "
                f"(measured on the seed 002 four-bar from 5 rad/s at h = 1 ms: 7.6 % energy drift at penalty 1e7, "
                f"1.0 % at 1e6, 0.09 % at 1e5): use penalty={self.penalty / 100.0:.0e}{step}, or the implicit "
                f"integrator 'alf' or the error-controlled one (integrator 'variable', rtol)")

    def _frequency_text(self, h: float, omega: float | None = None) -> str:
        """The highest frequency at the start and at the current state, and the step 2 / omega it allows."""
        omega = self._omega() if omega is None else omega
        if not np.isfinite(omega) or omega <= 0.0:
            return "its highest frequency could not be estimated"
        return (f"highest frequency of the linearised motion about {omega:.3g} rad/s, h omega = {h * omega:.2g}; "
                f"largest stable step about 2 / omega = {2.0 / omega:.2g} s")

    def _detail(self, status: int, err: float) -> str:
        if status == K.SINGULAR and self.t > self._start[0]:
            # T was factorised at the start: a coordinate that loses its mass later is a state thrown off by an
            # unstable step, not a massless body
            return f"at a state the steps produced, not at the start: the motion became unstable; t = {self.t:.9g} s"
        if status == K.SINGULAR:
            return super()._detail(status, err)
        return f"state at t = {self.t:.9g} s kept"

    def _raise(self, status: int, h: float, err: float, halvings: int = 0) -> None:
        if status == K.SINGULAR and self.t <= self._start[0]:
            super()._raise(status, h, err, halvings)
        redone = f", after {halvings} halving(s) of the step {h * 2 ** halvings:.3g} s" if halvings else ""
        h0 = h * 2 ** halvings
        # the frequency where it failed, unless the failure threw the state off (h omega > 1e6; measured 2e68
        # rad/s on the spatial slider-crank): then the start's
        omega = highest_frequency(self.cm, self.t, self.q.copy(), self.qd.copy())
        if not (np.isfinite(omega) and h0 * omega < 1e6):
            omega = highest_frequency(self.cm, *self._start)
        where = (f"model '{self.cm.model.name}': {self.label} integrator failed at t = {self.t + h:.9g} s (step "
                 f"{h:.3g} s{redone})")
        # the acceleration solve is the cause only where nothing else can stiffen: constraints, no contact shapes
        constrained = self.cm.n_rows > 0 and len(self.cm.arrays.shape_kind) == 0
        if constrained and np.isfinite(omega) and h0 * omega < 0.5:
            raise ConvergenceError(f"{where}: {_FAILED[status]}: {self._solve_text(h0, omega, None)}")
        raise ConvergenceError(
            f"{where}: {self.reasons.get(status, 'unknown failure')} ({self._detail(status, err)}): the step is "
            f"above the explicit stability limit ({self._frequency_text(h0, omega)}); reduce the step, or "
            f"use the implicit integrator 'alf' or the error-controlled one (integrator 'variable', rtol)")


#: what failed, without a claim about the cause (the messages above name it)
_FAILED = {K.SINGULAR: "the matrix M + c Phi_q^T Phi_q of the acceleration solve was not positive definite",
           K.NOT_FINITE: "the state became NaN or inf"}
