"""The co-simulation master (fmu_mbs.cosim) on a problem with an exact solution: a two-mass oscillator split into
two FMUs at its coupling spring (the partner ``Oscillator`` FMU, integration/partners/oscillator.py):

    m1 x1'' = -k1 x1 + F,        F = -Fc = kc (x2 - x1)           (FMU "a": input F, outputs x, v)
    m2 x2'' = -k2 x2 - kc (x2 - x_in)                            (FMU "b": inputs x_in = x1, v_in = v1, output Fc)

The monolithic solution is exp(A t) y0 (scipy.linalg.expm). Coupling links: b.Fc -> a.F, a.x -> b.x_in,
a.v -> b.v_in. Both start at rest (x1 = 0.1 m), so every coupling signal starts with zero slope and the start-up
steps (which extrapolate from fewer points) do not limit the order. The FMUs integrate with RK4 at 1e-4 s, far
below the coupling errors measured.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import expm

from fmu_mbs.cosim import CoSimulation, PowerBond
from fmu_mbs.errors import CosimError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from build_partners import build_partner  # noqa: E402

M1, K1, M2, K2, KC = 1.0, 10.0, 2.0, 5.0, 50.0
X0 = 0.1
MODES = ["hold", "linear", "quadratic"]


def exact(t: float) -> np.ndarray:
    a = np.array([[0, 1, 0, 0], [-(K1 + KC) / M1, 0, KC / M1, 0], [0, 0, 0, 1], [KC / M2, 0, -(K2 + KC) / M2, 0]])
    return expm(a * t) @ np.array([X0, 0.0, 0.0, 0.0])


@pytest.fixture(scope="module")
def oscillator(tmp_path_factory):
    return build_partner("Oscillator", tmp_path_factory.mktemp("osc"))


def system(fmu, mode="hold", bond=None) -> CoSimulation:
    sim = CoSimulation()
    sim.add("a", fmu, {"m": M1, "k": K1, "x_start": X0}, input_mode=mode)
    sim.add("b", fmu, {"m": M2, "k": K2, "kc": KC}, input_mode=mode)
    for link in ("b.Fc -> a.F", "a.x -> b.x_in", "a.v -> b.v_in"):
        sim.connect(link)
    if bond is not None:
        sim.bond(bond)
    return sim


def error(result) -> float:
    """Largest position error over the run against the exact solution (m)."""
    ref = np.array([exact(t) for t in result.time])
    return max(np.abs(result["a.x"] - ref[:, 0]).max(), np.abs(result["b.x"] - ref[:, 2]).max())


def run(fmu, scheme, order, step, t_end=2.0, mode=None, **kw):
    return system(fmu, mode or MODES[order]).run(t_end, step, scheme=scheme, order=order,
                                                 record=["b.x", "b.v"], **kw)


@pytest.mark.parametrize("scheme", ["jacobi", "gauss-seidel"])
@pytest.mark.parametrize("order", [0, 1, 2])
def test_explicit_coupling_error_has_the_order_of_the_extrapolation(oscillator, scheme, order):
    """Constant, linear and quadratic extrapolation: global coupling error O(H), O(H^2), O(H^3)."""
    steps = [0.01, 0.005, 0.0025]
    errors = [error(run(oscillator, scheme, order, h)) for h in steps]
    observed = [math.log2(errors[i] / errors[i + 1]) for i in range(2)]
    print(scheme, order, [f"{e:.3e}" for e in errors], [f"{p:.2f}" for p in observed])
    assert abs(observed[-1] - (order + 1)) < 0.35
    assert errors[-1] < [2e-2, 1e-3, 5e-5][order]


def test_iterative_scheme_is_stable_where_explicit_coupling_diverges(oscillator):
    """H = 0.05 s (H sqrt(kc/m1) = 0.35) over 10 s: Jacobi with constant extrapolation blows up; the iterative
    scheme converges at every step to the fixed point (|u - G(u)| <= 1e-8 of the scale), and what remains is the
    input reconstruction: linear (order 1) O(H^2), quadratic (order 2) O(H^3) against the exact solution."""
    explicit = error(run(oscillator, "jacobi", 0, 0.05, t_end=10.0))
    assert explicit > 1.0                     # m, for a 0.1 m oscillation
    errs = {}
    for order in (1, 2):
        for h in (0.05, 0.025):
            res = run(oscillator, "iterative", order, h, t_end=10.0)
            errs[order, h] = error(res)
            assert res.evaluations.max() <= 12 and res.jacobians.sum() <= 5
    print(errs)
    assert errs[1, 0.05] < 0.05 and errs[2, 0.05] < 0.015
    assert errs[1, 0.05] / errs[1, 0.025] > 2 ** 1.7
    assert errs[2, 0.05] / errs[2, 0.025] > 2 ** 2.5


def test_iterative_scheme_reaches_the_fixed_point(oscillator):
    """After each step the outputs equal the coupling values the inputs were built from (to the tolerance)."""
    res = run(oscillator, "iterative", 1, 0.05, t_end=1.0, tolerance=1e-10)
    # G(u) = u at t_k+1: b used x_in = a.x(t_k+1), so b.Fc = kc (b.x - a.x) exactly
    assert np.allclose(res["b.Fc"], KC * (res["b.x"] - res["a.x"]), rtol=0, atol=1e-10 * KC * X0 * 10)


def power_bond_run(fmu, correct: bool, step: float = 0.01, t_end: float = 5.0, flow_eps: float = 0.1):
    """The oscillator coupled through a pure power bond: b's coupling spring deflection integrates v - v_in
    (coupling = 1, delta(0) = x2 - x1 = -X0: the same exact solution), so energy crosses only as Fc v_in / F v1."""
    bond = PowerBond("spring", effort="b.Fc -> a.F", flow="a.v -> b.v_in", correct=correct, flow_eps=flow_eps)
    sim = CoSimulation()
    sim.add("a", fmu, {"m": M1, "k": K1, "x_start": X0})
    sim.add("b", fmu, {"m": M2, "k": K2, "kc": KC, "coupling": 1, "delta_start": -X0})
    sim.connect("b.Fc -> a.F")
    sim.connect("a.v -> b.v_in")
    sim.bond(bond)
    res = sim.run(t_end, step, scheme="jacobi", order=0, record=["a.x", "b.x", "a.energy", "b.energy"])
    return res, res["a.energy"] + res["b.energy"]


def test_energy_residual_accounts_for_the_energy_the_coupling_creates(oscillator):
    """Undamped, so the monolithic system conserves E. In the co-simulation each FMU's energy changes by the power
    it takes in, so E(t) - E(0) = -sum dE_k up to the trapezoidal quadrature of the residual (energy.py)."""
    res, e = power_bond_run(oscillator, correct=False)
    drift = e - e[0]
    predicted = -res.energy_cumulative("spring")
    print(f"drift {drift[-1]:.4g} J, predicted {predicted[-1]:.4g} J, E0 {e[0]:.4g} J, "
          f"mismatch {np.abs(drift - predicted).max():.3g} J")
    assert abs(drift[-1]) > 0.05 * e[0]                       # Jacobi at H = 0.01 s creates energy visibly
    assert np.abs(drift - predicted).max() < 0.02 * np.abs(drift).max()   # measured 0.02 %


def test_energy_correction_reduces_the_drift(oscillator):
    """flow_eps = 0.1 m/s, about a seventh of the velocity amplitude (0.77 m/s). Measured: largest drift 3.53 J ->
    0.89 J, position error 0.18 m -> 0.07 m. (With flow_eps = 1e-3 m/s the correction, divided by near-zero
    velocities, makes it worse: 8.7 J; energy.py.)"""
    plain_res, plain = power_bond_run(oscillator, correct=False)
    res, corrected = power_bond_run(oscillator, correct=True)
    print(f"largest drift: {np.abs(plain - plain[0]).max():.4g} J plain, {np.abs(corrected - corrected[0]).max():.4g} "
          f"J corrected; position error {error(plain_res):.3g} -> {error(res):.3g} m")
    assert np.abs(corrected - corrected[0]).max() < 0.3 * np.abs(plain - plain[0]).max()
    assert error(res) < 0.5 * error(plain_res)


def test_errors_name_the_problem(oscillator, tmp_path):
    sim = CoSimulation()
    sim.add("a", oscillator)
    sim.add("b", oscillator, {"m": -1.0})
    with pytest.raises(CosimError, match=r"instance 'a' \(Oscillator.fmu\) has no output 'xx'; did you mean x"):
        sim.connect("a.xx -> b.x_in")
    with pytest.raises(CosimError, match="no FMU instance 'c'"):
        sim.connect("c.x -> b.x_in")
    with pytest.raises(CosimError, match="'F' has causality input, so it cannot be used as output"):
        sim.connect("a.F -> b.x_in")
    sim.connect("a.x -> b.x_in")
    with pytest.raises(CosimError, match="already connected"):
        sim.connect("a.v -> b.x_in")
    with pytest.raises(CosimError, match="input_mode must be one of"):
        CoSimulation().add("a", oscillator, input_mode="cubic")
    # b's mass is negative: it says so at initialization, and the master reports the refused doStep with that log
    with pytest.raises(CosimError, match=r"(?s)instance 'b': fmi2DoStep\(t = 0 s.*fmi2Discard.*m and h_max must "
                                         r"be positive, got m = -1"):
        sim.run(1.0, 0.1)
    with pytest.raises(CosimError, match="does not exist"):
        CoSimulation().add("x", tmp_path / "missing.fmu")
