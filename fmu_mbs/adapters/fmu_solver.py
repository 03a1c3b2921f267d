"""The ``solver.*`` parameters of an fmu-mbs FMU: their defaults, FMI declarations, checks and the integrator they
build (adapters/fmu_slave.py owns the instance). All are fixed parameters, set before initialization."""

from __future__ import annotations

import math
from collections.abc import Callable

from pythonfmu import Boolean, Fmi2Causality, Fmi2Variability, Integer

from ..analyses.integrators import STEPPERS
from .fmu_variables import EnumInteger

INTEGRATORS = {0: "alf", 1: "galpha", 2: "explicit", 3: "variable", 4: "alf-variable"}
VARIABLE_STEP = ("variable", "alf-variable")   # integrators set by solver.rtol and solver.atol, not solver.h
NEWTON = ("alf", "galpha")                     # integrators with solver.accept_first and solver.tangent_every


def set_solver_defaults(s) -> None:
    """The defaults of slave ``s``'s solver parameters."""
    s.h = 1e-3
    s.tolerance = 1e-9   # measured: same accuracy as 1e-10, ~12 % fewer Newton iterations
    s.penalty = 1e7
    s.integrator_kind = 0
    s.rho_inf = 0.8
    s.scheme = 0
    s.input_interpolation = 0
    s.rtol, s.atol = 1e-6, 0.0     # the variable-step integrator's tolerances (atol 0: = rtol)
    s.accept_first = False
    s.tangent_every = 0            # 0: the integrator's own choice (every step; 20 with a modal body)


def register_solver_parameters(s, real: Callable) -> None:
    """Declare slave ``s``'s solver parameters; ``real(name, unit, getter, setter, **kw)`` declares a Real."""
    par = dict(causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed)
    real("solver.h", "s", lambda: s.h, lambda v: setattr(s, "h", float(v)),
         description="largest internal step of the ALF integrator", **par)
    real("solver.tolerance", "1", lambda: s.tolerance, lambda v: setattr(s, "tolerance", float(v)),
         description="Newton tolerance of the integrator (max |dq|, m or rad)", **par)
    real("solver.penalty", "1", lambda: s.penalty, lambda v: setattr(s, "penalty", float(v)),
         description="ALF penalty factor (times the largest mass-matrix diagonal)", **par)
    s.register_variable(EnumInteger("solver.integrator", "Integrator", getter=lambda: s.integrator_kind,
                                    setter=lambda v: setattr(s, "integrator_kind", int(v)),
                                    description="0 = index-3 augmented Lagrangian, trapezoidal rule; "
                                                "1 = the same on the generalized-alpha scheme; 2 = explicit "
                                                "midpoint (contact scenes; h below the stability limit); 3 = "
                                                "error-controlled Dormand-Prince steps, 4 = error-controlled "
                                                "trapezoidal steps (3, 4: solver.rtol, solver.atol)",
                                    **par), nested=False)
    real("solver.rtol", "1", lambda: s.rtol, lambda v: setattr(s, "rtol", float(v)),
         description="variable steps (solver.integrator = 3, 4): relative error bound per step on positions and "
                     "velocities", min=1e-13, **par)
    real("solver.atol", "1", lambda: s.atol, lambda v: setattr(s, "atol", float(v)),
         description="variable steps (solver.integrator = 3, 4): absolute error bound per step (SI units); "
                     "0 = solver.rtol", min=0.0, **par)
    real("solver.rho_inf", "1", lambda: s.rho_inf, lambda v: setattr(s, "rho_inf", float(v)),
         description="generalized-alpha (solver.integrator = 1): spectral radius at infinite frequency, "
                     "in [0, 1]; 1 = no numerical damping", min=0.0, max=1.0, **par)
    s.register_variable(EnumInteger("solver.scheme", "TrapezoidalScheme", getter=lambda: s.scheme,
                                    setter=lambda v: setattr(s, "scheme", int(v)),
                                    description="trapezoidal rule (solver.integrator = 0): 0 = ALI3-P with "
                                                "projections, 1 = energy-consistent (no energy loss on "
                                                "fast rotations)", **par), nested=False)
    s.register_variable(EnumInteger("solver.input_interpolation", "InputInterpolation",
                                    getter=lambda: s.input_interpolation,
                                    setter=lambda v: setattr(s, "input_interpolation", int(v)),
                                    description="0 = hold inputs over a step, 1 = ramp linearly from the "
                                                "previous communication point", **par), nested=False)
    s.register_variable(Boolean("solver.accept_first", getter=lambda: s.accept_first,
                                setter=lambda v: setattr(s, "accept_first", bool(v)),
                                description="solver.integrator = 0, 1 (not the energy-consistent scheme): a "
                                            "first Newton correction below solver.tolerance ends the step without "
                                            "the evaluation that checks it (smooth models, small steps: one force "
                                            "evaluation per step)", **par), nested=False)
    s.register_variable(Integer("solver.tangent_every", getter=lambda: s.tangent_every,
                                setter=lambda v: setattr(s, "tangent_every", int(v)),
                                description="solver.integrator = 0, 1: steps between refreshes of the force "
                                            "tangent (refreshed earlier where Newton stalls); 0 = automatic "
                                            "(every step; 20 on a model with a modal body)", **par), nested=False)


def solver_problems(s) -> list[str]:
    """What is wrong with slave ``s``'s solver parameters (empty: nothing)."""
    problems = []
    if not (math.isfinite(s.h) and s.h > 0.0):
        problems.append(f"solver.h must be a positive step in s, got {s.h}")
    if not (math.isfinite(s.tolerance) and s.tolerance > 0.0):
        problems.append(f"solver.tolerance must be positive, got {s.tolerance}")
    if not (math.isfinite(s.penalty) and s.penalty > 0.0):
        problems.append(f"solver.penalty must be positive, got {s.penalty}")
    if s.integrator_kind not in INTEGRATORS:
        problems.append(f"solver.integrator must be one of {sorted(INTEGRATORS)}, got {s.integrator_kind}")
    if not (math.isfinite(s.rtol) and s.rtol >= 1e-13):
        problems.append(f"solver.rtol must be at least 1e-13, got {s.rtol}")
    if not (math.isfinite(s.atol) and s.atol >= 0.0):
        problems.append(f"solver.atol must be >= 0 (0: solver.rtol), got {s.atol}")
    if not 0.0 <= s.rho_inf <= 1.0:
        problems.append(f"solver.rho_inf must be in [0, 1], got {s.rho_inf}")
    if s.scheme not in (0, 1):
        problems.append(f"solver.scheme must be 0 (ALI3-P) or 1 (energy-consistent), got {s.scheme}")
    elif s.scheme == 1 and s.integrator_kind != 0:
        problems.append("solver.scheme = 1 (energy-consistent) needs solver.integrator = 0 (trapezoidal rule)")
    if s.input_interpolation not in (0, 1):
        problems.append(f"solver.input_interpolation must be 0 (hold) or 1 (linear), got {s.input_interpolation}")
    if s.tangent_every < 0:
        problems.append(f"solver.tangent_every must be >= 0 (0: automatic), got {s.tangent_every}")
    return problems


def make_integrator(s, cm, initial):
    """The integrator slave ``s``'s solver parameters ask for, on compiled model ``cm`` from ``initial``."""
    kind = INTEGRATORS[s.integrator_kind]
    options = ({"rho_inf": s.rho_inf} if kind == "galpha" else
               {"scheme": ("ali3p", "energy")[s.scheme]} if kind == "alf" else
               {"rtol": s.rtol, "atol": s.atol or s.rtol} if kind in VARIABLE_STEP else {})
    if kind not in VARIABLE_STEP:   # their tol: the projection's (1e-12) / Newton's (from rtol, atol)
        options["tol"] = s.tolerance
    if kind in NEWTON:
        options["accept_first"] = s.accept_first
        options["tangent_every"] = s.tangent_every or None
    return STEPPERS[kind](cm, s.h, initial, penalty=s.penalty, **options)
