"""Forward-dynamics integrators.

- ``alf``: fixed-step index-3 augmented Lagrangian + trapezoidal rule with mass-orthogonal projections
  (ALI3-P), the step loop in numba; the integrator of every FMU.
- ``reference``: variable-step scipy ``solve_ivp`` on the index-1 KKT accelerations with coordinate
  projection at output points; slow and accurate, for validation.

``INTEGRATORS`` maps a name to the function ``simulate`` uses; a new integrator (e.g. generalized-alpha)
adds an entry here.
"""

from __future__ import annotations

from .alf import REPORT_KEYS, ALFIntegrator
from .reference import integrate_reference

INTEGRATORS = ("alf", "reference")

__all__ = ["ALFIntegrator", "INTEGRATORS", "REPORT_KEYS", "integrate_reference"]
