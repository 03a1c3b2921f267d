"""Forward-dynamics integrators.

- ``alf``: fixed-step index-3 augmented Lagrangian + trapezoidal rule with mass-orthogonal projections
  (ALI3-P), the step loop in numba; the default integrator of every FMU.
- ``galpha``: the same ALI3-P step on the generalized-alpha scheme (Arnold & Bruels 2007), with numerical
  damping of high frequencies set by ``rho_inf`` in [0, 1] (1 = ``alf``).
- ``explicit``: the explicit midpoint rule on index-1 augmented Lagrangian accelerations with projections: two
  force evaluations per step, no Newton iteration, for contact-dominated scenes (step set by the contact stiffness).
- ``variable``: error-controlled Dormand-Prince 5(4) steps on the index-1 accelerations with projections, the step
  loop in numba, selected by ``rtol`` / ``atol`` rather than a step; for smooth non-stiff models.
- ``alf-variable``: the trapezoidal ALF with error-controlled steps (a local error estimate from the accelerations,
  rejection, a step size controller; the step loop in numba), selected by ``rtol`` / ``atol``; for stiff models and
  fast rotations, where the explicit pair's steps are limited by stability.
- ``reference``: variable-step scipy ``solve_ivp`` on the index-1 KKT accelerations with coordinate
  projection at output points; slow and accurate, for validation.

``INTEGRATORS`` lists the names ``simulate`` accepts; ``STEPPERS`` maps the fixed-step ones to their class.
"""

from __future__ import annotations

from .alf import REPORT_KEYS, ALFIntegrator, GeneralizedAlphaIntegrator
from .alf_variable import ALFVariableIntegrator
from .explicit import ExplicitIntegrator
from .reference import integrate_reference
from .variable import VariableStepIntegrator

STEPPERS = {"alf": ALFIntegrator, "galpha": GeneralizedAlphaIntegrator, "explicit": ExplicitIntegrator,
            "variable": VariableStepIntegrator, "alf-variable": ALFVariableIntegrator}
INTEGRATORS = (*STEPPERS, "reference")

__all__ = ["ALFIntegrator", "ALFVariableIntegrator", "ExplicitIntegrator",
           "GeneralizedAlphaIntegrator", "INTEGRATORS", "REPORT_KEYS",
           "STEPPERS", "VariableStepIntegrator", "integrate_reference"]
