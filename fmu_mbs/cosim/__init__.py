"""Co-simulation master (top layer): drives FMI 2.0 co-simulation FMUs through fmpy with explicit (Jacobi,
Gauss-Seidel; constant, linear or quadratic input extrapolation) or iterative (state rollback, quasi-Newton on the
coupling variables) coupling, and monitors the energy exchanged through power bonds."""

from .master import CosimResult, CoSimulation, PowerBond

__all__ = ["CoSimulation", "CosimResult", "PowerBond"]
