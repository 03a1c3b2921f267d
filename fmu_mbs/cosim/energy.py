"""Energy exchanged through a power bond between two FMUs, and the residual of the coupling (Sadjina et al. 2017,
"Energy conservation and power bonds in co-simulations: non-iterative adaptive step size control and error
estimation", Engineering with Computers 33:607-620).

A bond joins FMU A (effort out, flow in, e.g. a hydraulic cylinder: force F out, rod speed in) and FMU B (effort
in, flow out, e.g. the mechanism: actuator force in, actuator speed out). With ideal coupling the power A gives,
P_A = e_A f_A,in, equals the power B takes, P_B = e_B,in f_B. Over a communication step the master knows both
FMUs' outputs at its ends and the input signals it gave them (their values at the ends), so

    dE_k = H/2 [P_A(t_k) + P_A(t_k+1) - P_B(t_k) - P_B(t_k+1)]

(trapezoidal rule) is the energy the coupling created (< 0) or destroyed (> 0) in step k. The optional correction
adds the previous step's residual back into B's effort input over the next step,

    e_B,in += dE_k f_B / (H (f_B^2 + f_eps^2)),

which puts the missing energy back (dE_k f_B^2/(f_B^2 + f_eps^2) of it; f_eps keeps the correction bounded near
zero flow). Choose f_eps about a tenth of the bond's typical flow: much smaller, and the correction divides by
near-zero flows and destabilises the coupling (measured in tests/test_cosim_master.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PowerBond:
    """A power bond: ``effort`` and ``flow`` are connections ``"A.e -> B.e_in"`` and ``"B.f -> A.f_in"`` (as given
    to CoSimulation.connect); ``correct`` switches the energy correction on, with flow scale ``flow_eps`` (the
    flow's unit; about a tenth of its typical magnitude)."""

    name: str
    effort: str
    flow: str
    correct: bool = False
    flow_eps: float = 1e-3


def residual(h: float, e_a: tuple[float, float], f_a_in: tuple[float, float], e_b_in: tuple[float, float],
             f_b: tuple[float, float]) -> float:
    """dE of one step from the (start, end) values of A's effort output, A's flow input, B's effort input and B's
    flow output (see the module docstring)."""
    p_a = e_a[0] * f_a_in[0] + e_a[1] * f_a_in[1]
    p_b = e_b_in[0] * f_b[0] + e_b_in[1] * f_b[1]
    return 0.5 * h * (p_a - p_b)


def correction(d_e: float, h: float, f_b: float, flow_eps: float) -> float:
    """Effort added to B's input over the next step to return the residual d_e (see the module docstring)."""
    return d_e * f_b / (h * (f_b * f_b + flow_eps * flow_eps)) if h > 0.0 else 0.0
