"""ExplicitIntegrator: the explicit midpoint rule (second order) on index-1 augmented Lagrangian accelerations with
mass-orthogonal projections (kernels/integrate_explicit.py), for contact-dominated scenes whose step the contact
stiffness sets anyway: two force evaluations per step and no Newton iteration. The same state, saving, rejection
and reporting as ALFIntegrator, whose machinery it reuses; 'iterations' reports the force evaluations per step.
"""

from __future__ import annotations

from ...compiler import CompiledModel
from ...kernels import integrate_alf as K
from ...kernels import integrate_explicit as KE
from ..assembly import AssemblyResult
from .alf import ALFIntegrator

_REASONS = {
    K.SINGULAR: "singular matrix M + c Phi_q^T Phi_q (not positive definite, or NaN in Phi_q)",
    K.NOT_FINITE: "the state became NaN or inf: the step is above the explicit stability limit of the stiffest "
                  "force (h omega < 2; a contact or spring of stiffness k on a mass m needs h < 2 sqrt(m / k))",
}


class ExplicitIntegrator(ALFIntegrator):
    """Fixed-step explicit midpoint integrator (Runge's second-order Runge-Kutta) of one compiled model.

    Constraints are solved at acceleration level (M qdd + Phi_q^T lam = Q, Phi_q qdd = gamma, augmented Lagrangian
    with c = ``penalty`` x the largest diagonal of M) and the positions and velocities are projected onto them after
    every step (mass-orthogonally, position passes while max |Phi| > ``tol``), so constraints do not limit the step;
    forces do: h omega_max < 2 for the stiffest force. Options: ``penalty``, ``tol`` (m or rad), ``pivot_tol``,
    ``max_halvings`` (a step whose result is not finite is redone as two half steps, recursively, before the error
    is raised), ``energy_balance`` (as ALFIntegrator)."""

    name = "explicit"
    label = "explicit midpoint"
    reasons = _REASONS

    def __init__(self, cm: CompiledModel, step: float, initial: AssemblyResult | None = None, *,
                 penalty: float = 1e7, tol: float = 1e-10, pivot_tol: float = 1e-13, max_halvings: int = 2,
                 energy_balance: bool = True):
        super().__init__(cm, step, initial, penalty=penalty, tol=tol, tangent="constraints", pivot_tol=pivot_tol,
                         max_halvings=max_halvings, energy_balance=energy_balance)
        self._kernel = KE.explicit_advance

    def _detail(self, status: int, err: float) -> str:
        if status == K.SINGULAR:
            return super()._detail(status, err)
        return f"state at t = {self.t:.9g} s kept"
