"""The generalized-alpha form of the ALI3-P integrator (Arnold & Bruels 2007, Chung-Hulbert parameters) and the
rejection of failed steps: the one-step amplification matrix against the Chung-Hulbert formulas written here,
numerical damping of a stiff mode, second order on a constrained model against an independent ODE, singular
positions, step halving on failure, the FMU parameters. Comments give the measured values behind each bound."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.integrators import ALFIntegrator, GeneralizedAlphaIntegrator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AnalysisError, ConvergenceError
from fmu_mbs.model import ModelBuilder, load_model

MODELS = Path(__file__).resolve().parents[1] / "models"
G = 9.81


def chung_hulbert(rho: float) -> tuple[float, float, float, float]:
    """(am, af, gamma, beta) for spectral radius rho at infinity (Chung & Hulbert 1993, eqs. 25, 17, 18)."""
    am = (2.0 * rho - 1.0) / (rho + 1.0)
    af = rho / (rho + 1.0)
    gam = 0.5 + af - am
    return am, af, gam, 0.25 * (gam + 0.5) ** 2


def amplification(rho: float, wh: float) -> np.ndarray:
    """One-step map of (x, h v, h^2 a) for x'' = -w^2 x, from the scheme's three relations with qdd = -w^2 x:
    x1 = x + h v + h^2 ((1/2 - beta) a + beta a1), v1 = v + h ((1 - gam) a + gam a1),
    (1 - am) a1 + am a = -w^2 ((1 - af) x1 + af x)."""
    am, af, gam, beta = chung_hulbert(rho)
    lhs = np.array([[1.0, 0.0, -beta], [0.0, 1.0, -gam], [(1.0 - af) * wh * wh, 0.0, 1.0 - am]])
    rhs = np.array([[1.0, 1.0, 0.5 - beta], [0.0, 1.0, 1.0 - gam], [-af * wh * wh, 0.0, -am]])
    return np.linalg.solve(lhs, rhs)


def oscillator(kx: float, ky: float = 0.0, start=(0.0, 0.0)):
    """1 kg point mass on a linear bushing to the origin (stiffness kx, ky N/m), no gravity: two uncoupled
    linear oscillators, w = sqrt(k) rad/s."""
    b = ModelBuilder("oscillator", dimension=2, gravity=(0.0, 0.0))
    b.add_point_mass("m", 1.0, position=start)
    b.add_marker("O", "ground")
    b.add_marker("m0", "m")
    b.add_bushing("spring", "O", "m0", stiffness=(kx, ky, 0.0), damping=(0.0, 0.0, 0.0))
    return compile_model(b.build())


def pendulum_ode(t_end: float):
    return solve_ivp(lambda t, y: [y[1], -G * math.cos(y[0])], (0.0, t_end), [0.0, 0.0], method="DOP853",
                     rtol=1e-12, atol=1e-12, dense_output=True).sol


def _pendulum_error(tr, theta) -> float:
    th = theta(tr.t)[0]
    return float(np.max(np.hypot(tr.q[:, 0] - np.cos(th), tr.q[:, 1] - np.sin(th))))


# --- the scheme --------------------------------------------------------------------------------------------------

def test_rho_one_is_the_trapezoidal_alf_bit_for_bit():
    """rho_inf = 1 gives am = af = gamma = 1/2, beta = 1/4: the coefficients are exactly the trapezoidal ones, so
    the generalized-alpha class reproduces the ALF to the last bit (springs, dampers, inputs, constraints)."""
    from test_integrators import mixed
    assert chung_hulbert(1.0) == (0.5, 0.5, 0.5, 0.25)
    cm = mixed(3)
    alf, ga = ALFIntegrator(cm, 1e-3), GeneralizedAlphaIntegrator(cm, 1e-3, rho_inf=1.0)
    for ig in (alf, ga):
        ig.u[:] = 0.3
        ig.advance(200)
    for a, b in zip(alf.save(), ga.save()):
        assert np.array_equal(a, b)
    assert np.array_equal(alf.last_report, ga.last_report)


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.8, 1.0])
def test_one_step_amplification_matrix_is_chung_hulbert(rho):
    """The integrator's one-step map of a linear oscillator, measured column by column from unit states, equals
    the matrix from the scheme's formulas for w h from 0.1 to 1e4 (entries of order 1; measured 7e-13, and
    2.4e-9 at w h = 1e4 where h = 100 s magnifies the Newton tolerance), so its eigenvalues are Chung-Hulbert's:
    spectral radius 1 - O((w h)^4) for resolved frequencies and rho_inf for w h -> infinity."""
    k = 1e4
    cm = oscillator(k)
    for wh in (0.1, 1.0, 100.0, 1e4):
        h = wh / math.sqrt(k)
        ig = GeneralizedAlphaIntegrator(cm, h, assemble(cm), rho_inf=rho)
        start = ig.save()
        measured = np.zeros((3, 3))
        for j in range(3):
            ig.restore(start)
            y = np.zeros(3)
            y[j] = 1e-3
            ig.q[0], ig.qd[0], ig.acc[0] = y[0], y[1] / h, y[2] / h ** 2
            ig.qdd[0] = -k * y[0]                         # equilibrium at the start state
            ig.advance(1)
            measured[:, j] = np.array([ig.q[0], h * ig.qd[0], h * h * ig.acc[0]]) / 1e-3
        expected = amplification(rho, wh)
        assert np.max(np.abs(measured - expected)) < (1e-11 if wh <= 100.0 else 1e-8)
        radius = np.max(np.abs(np.linalg.eigvals(measured)))
        if wh <= 0.1:
            assert radius > 1.0 - 1e-4                    # measured >= 0.99995 (rho_inf = 0)
        if wh >= 1e4:
            # the three roots coincide at -rho_inf at infinity (Chung-Hulbert's choice of am), so at finite
            # w h the radius departs from rho_inf like (w h)^(-2/3): measured 1.7e-3 (rho 0.5, 0.8), 2.2e-3 (0)
            assert radius == pytest.approx(rho, abs=3e-3)
    assert np.max(np.abs(np.linalg.eigvals(amplification(rho, 1e9)))) == pytest.approx(rho, abs=1e-4)


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_stiff_mode_decays_by_rho_per_step_and_the_slow_mode_keeps_its_energy(rho):
    """A stiff mode (w h = 100) and a slow one (w h = 0.05) in one model, 100 steps of 1 s. The stiff mode
    follows the Chung-Hulbert map to 1e-12 and decays per step by the spectral radius, which at w h = 100 is
    rho_inf + 0.035 (0.5372 / 0.8346: the (w h)^(-2/3) approach of the test above; measured 0.538 / 0.834 over
    steps 50-100); the slow mode keeps its energy (measured to 9e-5 / 9e-6 relative, about an eighth of its
    period)."""
    kx, ky = 1e4, 0.05 ** 2
    cm = oscillator(kx, ky, start=(0.01, 0.01))
    ig = GeneralizedAlphaIntegrator(cm, 1.0, assemble(cm), rho_inf=rho)
    state = lambda: np.array([ig.q[0], ig.qd[0], ig.acc[0]])  # noqa: E731  (h = 1: already scaled)
    y0 = state()
    G1 = amplification(rho, 100.0)
    ys = [y0]
    slow = []
    for _ in range(100):
        ig.advance(1)
        ys.append(state())
        slow.append(0.5 * ig.qd[1] ** 2 + 0.5 * ky * ig.q[1] ** 2)
    ys = np.array(ys)
    predicted = np.array([np.linalg.matrix_power(G1, n) @ y0 for n in range(101)])
    norms = np.linalg.norm(ys, axis=1)
    assert np.max(np.linalg.norm(ys - predicted, axis=1) / norms) < 1e-9
    radius = np.max(np.abs(np.linalg.eigvals(G1)))
    assert rho < radius < rho + 0.05
    decay = (norms[100] / norms[50]) ** (1.0 / 50.0)
    assert decay == pytest.approx(radius, abs=5e-3)
    assert decay == pytest.approx(rho, abs=0.05)
    e0 = 0.5 * ky * 0.01 ** 2
    assert np.max(np.abs(np.array(slow) - e0)) < 2e-4 * e0


def test_second_order_on_the_pendulum_with_rho_0_8():
    """IFToMM pendulum (a constrained point mass) for 2 s against the pendulum ODE: errors 3.2e-4, 8.0e-5,
    2.0e-5 m at h = 4, 2, 1 ms (observed order 1.997, 1.999): the projections and the pseudo-accelerations
    recomputed from the projected accelerations keep the scheme second order."""
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    theta = pendulum_ode(2.0)
    err = [_pendulum_error(simulate(cm, 2.0, h, integrator="galpha", rho_inf=0.8, output_step=0.02), theta)
           for h in (4e-3, 2e-3, 1e-3)]
    orders = np.log2(np.array(err[:-1]) / np.array(err[1:]))
    assert np.all((orders > 1.8) & (orders < 2.2)), orders
    assert err[-1] < 4e-5


def test_spatial_model_with_every_force_element_against_the_reference():
    """Rigid bodies in Euler parameters, prismatic/cylindrical and revolute joints, TSDA, RSDA, bushing, load
    and actuator (test_integrators.mixed), 1 s against the scipy reference: measured 1.6e-4 / 4.1e-5 at
    h = 1 / 0.5 ms (ALF: 1.5e-4); the energy balance closes to 2.6e-3 J of 13 J dissipated, falling 4x per
    halving (it includes the numerical damping); dissipated work within 1.8e-4 of the reference's."""
    from test_integrators import check_second_order_against_reference, mixed
    check_second_order_against_reference(mixed(3), integrator="galpha", rho_inf=0.8)


def test_iftomm_pendulum_with_rho_0_9_and_its_energy():
    """10 s of the IFToMM pendulum at h = 1 ms with rho_inf = 0.9: 9.7e-5 m from the ODE (criterion 1e-3 m). The
    numerical damping removes energy, never adds it: E - E0 stays <= 0 at every output (measured max -1.2e-11 J)
    and the loss after 10 s is 4.7e-5 J of the 9.81 J swing; at w h = 3e-3 the swing is barely damped (the
    trapezoidal ALF loses 4.6e-5 J through its projections)."""
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    tr = simulate(cm, 10.0, 1e-3, integrator="galpha", rho_inf=0.9, output_step=0.01)
    assert _pendulum_error(tr, pendulum_ode(10.0)) < 2e-4
    E = tr.info["energy_kinetic"] + tr.info["energy_potential"]
    assert np.max(E[1:] - E[0]) <= 0.0
    assert -2e-4 < E[-1] - E[0] < 0.0
    assert np.max(np.diff(E)) < 1e-5                     # monotonic but for 1.9e-6 J wiggles per 10 ms
    assert np.max(tr.info["residual_position"]) < 1e-9
    assert tr.analysis == "dynamics (galpha, rho_inf 0.9, step 0.001 s)"


def test_slider_crank_and_nfourbar_cross_their_singular_positions_with_rho_0_8():
    from test_benchmarks_dynamics import _ode, _slider_crank
    from test_iftomm_nfourbar import nfourbar, reduced
    cm, a = _slider_crank()
    ref = _ode(lambda t, y: [y[1], (-G * math.cos(y[0]) - 2.0 * math.sin(y[0]) * math.cos(y[0]) * y[1] ** 2)
                             / (2.0 / 3.0 + 2.0 * math.sin(y[0]) ** 2)], 10.0, [math.pi / 4, 2.0 * math.sqrt(2.0)])
    tr = simulate(cm, 10.0, 1e-3, initial=a, output_step=0.005, integrator="galpha", rho_inf=0.8)
    crossings = lambda x: int(np.sum(np.diff(np.floor((x - math.pi / 2) / math.pi)) != 0))  # noqa: E731
    assert crossings(ref(tr.t)[0]) == 11 and crossings(tr.q[:, 2]) == 11
    # measured 2.8e-4 rad (trapezoidal ALF: 2.6e-4) over 30 rad of crank rotation
    assert np.max(np.abs(tr.q[:, 2] - ref(tr.t)[0])) < 1e-3
    assert np.max(tr.info["residual_position"]) < 1e-9
    cm = compile_model(nfourbar(2))
    tr = simulate(cm, 10.0, 1e-3, output_step=0.05, integrator="galpha", rho_inf=0.8)
    theta = tr.q[:, cm.q_names.index("crank0.theta")]
    assert np.max(np.abs(tr.q[:, cm.q_names.index("crank2.theta")] - theta)) < 1e-6   # no branch switch
    assert np.max(np.abs(theta - reduced(2, tr.t))) < 1e-3            # measured 1.9e-4 rad (ALF: 1.7e-4)


def test_a_stiff_vibration_is_damped_out_while_the_swing_stays_accurate():
    """The IFToMM pendulum with its rod replaced by a 1e8 N/m spring (axial w = 1e4 rad/s, w h = 10 at h = 1 ms),
    released stretched by 1e-4 m. The trapezoidal ALF keeps the axial vibration forever (measured 2.0e-4 m
    peak to peak in the last 0.1 s of 2 s) and needs 3.8 Newton iterations per step (4.6 before the tangent was
    refreshed in stalled steps); generalized-alpha with rho_inf = 0.8 removes it (measured 7.3e-8 m: what is left
    is the quasi-static stretch under the changing centripetal load, at most 3 m g / k = 3e-7 m), in 2.0
    iterations per step, and the swing stays within
    2.6e-5 rad of the rigid pendulum's ODE (ALF: 2.3e-5)."""
    b = ModelBuilder("elastic_pendulum", dimension=2, gravity=(0.0, -G))
    b.add_point_mass("bob", 1.0, position=(1.0 + 1e-4, 0.0))
    b.add_marker("pivot", "ground")
    b.add_marker("P1", "bob")
    b.add_spring_damper("rod", "pivot", "P1", stiffness=1e8, free_length=1.0)
    cm = compile_model(b.build())
    theta = pendulum_ode(2.0)
    runs = {name: simulate(cm, 2.0, 1e-3, integrator=name, **kw) for name, kw in
            (("alf", {}), ("galpha", {"rho_inf": 0.8}))}
    for name, tr in runs.items():
        stretch = np.hypot(tr.q[:, 0], tr.q[:, 1]) - 1.0
        vibration = np.ptp(stretch[-100:])
        iterations = np.mean(tr.info["iterations"][1:])
        if name == "alf":
            assert vibration > 1e-4 and iterations > 3.0
        else:
            assert vibration < 3e-7 and iterations < 2.1
        assert np.max(np.abs(np.arctan2(tr.q[:, 1], tr.q[:, 0]) - theta(tr.t)[0])) < 1e-4


def test_cli_simulate_with_generalized_alpha(tmp_path, capsys):
    from fmu_mbs.adapters.cli import main
    from fmu_mbs.adapters.recording import read_csv
    pendulum = str(MODELS / "pendulum.json")
    out = tmp_path / "p.csv"
    assert main(["simulate", pendulum, "--t-end", "0.5", "--step", "0.001", "--integrator", "galpha",
                 "--rho-inf", "0.7", "--output-step", "0.05", "--out", str(out)]) == 0
    rec = read_csv(out)
    lib = simulate(compile_model(load_model(MODELS / "pendulum.json")), 0.5, 1e-3, integrator="galpha",
                   rho_inf=0.7, output_step=0.05)
    assert np.allclose(rec["P1.r[2]"], lib.q[:, 1], rtol=0.0, atol=1e-12)
    assert main(["simulate", pendulum, "--t-end", "0.1", "--step", "0.001", "--rho-inf", "0.7",
                 "--out", str(out)]) == 1
    assert "--rho-inf applies to --integrator galpha" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", pendulum, "--t-end", "0.1", "--step", "0.001", "--integrator", "galpha",
              "--rho-inf", "1.5"])
    assert "must be in [0, 1], got 1.5" in capsys.readouterr().err


def test_generalized_alpha_state_saves_and_replays_bit_for_bit():
    """The pseudo-accelerations are part of the saved state, and they matter: restarting with a = qdd (what a
    state without them would have to assume) changes the continuation."""
    from test_integrators import mixed
    ig = GeneralizedAlphaIntegrator(mixed(2), 1e-3, rho_inf=0.6)
    ig.advance(40)
    saved = ig.save()
    ig.advance(25)
    first = [a.copy() for a in ig.save()]
    ig.restore(saved)
    ig.advance(25)
    for x, y in zip(first, ig.save()):
        assert np.array_equal(x, y)
    ig.restore(saved)
    assert not np.array_equal(ig.acc, ig.qdd)
    ig.acc[:] = ig.qdd
    ig.advance(25)
    assert np.max(np.abs(ig.q - first[1])) > 1e-9            # measured 2.7e-6 m (|a - qdd| was 1.0 m/s^2)


def test_options_are_checked():
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    for bad in (-0.1, 1.5, float("nan"), "x"):
        with pytest.raises(ValueError, match="rho_inf .* must be in \\[0, 1\\]"):
            GeneralizedAlphaIntegrator(cm, 1e-3, rho_inf=bad)
    with pytest.raises(AnalysisError, match="integrator 'alf' is the trapezoidal rule"):
        simulate(cm, 0.1, 1e-3, rho_inf=0.8)
    with pytest.raises(ValueError, match="max_halvings"):
        ALFIntegrator(cm, 1e-3, max_halvings=-1)
    assert GeneralizedAlphaIntegrator(cm, 1e-3).rho_inf == 0.8


# --- rejected steps ------------------------------------------------------------------------------------------

def stiff_spring():
    """1 kg on a 1e5 N/m spring. With the iteration matrix left without the spring (tangent "constraints"),
    Newton contracts by h^2 k / (4 m) per iteration: 2.5 at h = 10 ms (diverges), 0.63 at 5 ms (too slow for
    10 iterations), 0.16 at 2.5 ms (converges)."""
    b = ModelBuilder("stiff", dimension=2, gravity=(0.0, -9.81))
    b.add_point_mass("m", 1.0, position=(0.0, -1.0))
    b.add_marker("top", "ground")
    b.add_marker("m0", "m")
    b.add_spring_damper("spring", "top", "m0", stiffness=1e5, free_length=0.9)
    return compile_model(b.build())


@pytest.mark.parametrize("integrator", ["alf", "galpha"])
def test_a_failed_step_is_redone_with_halved_steps(integrator):
    cm = stiff_spring()
    small = simulate(cm, 0.2, 2.5e-3, integrator=integrator, tangent="constraints", output_step=0.01)
    tr = simulate(cm, 0.2, 0.01, integrator=integrator, tangent="constraints")
    # every 10 ms step fails, each 5 ms half fails, the 2.5 ms quarters succeed: 3 rejections per step, and the
    # result is that of the 2.5 ms run (the same steps; measured 2.1e-15 m apart); the four quarters take 38-40
    # Newton iterations (linear convergence: the spring is not in the iteration matrix)
    assert np.all(tr.info["rejected"][1:] == 3)
    assert np.all(tr.info["iterations"][1:] >= 4 * 2)
    assert np.max(np.abs(tr.q - small.q)) < 1e-12
    assert tr.t[-1] == 0.2
    ig = STEPPER[integrator](cm, 0.01, tangent="constraints")
    ig.advance_to(0.05)
    assert ig.rejected == 15 and ig.t == 0.05 and len(ig.last_report) == 5
    # with one halving allowed the 5 ms half step is the last try: the error names its time and the reason
    ig = STEPPER[integrator](cm, 0.01, tangent="constraints", max_halvings=1)
    with pytest.raises(ConvergenceError, match=r"failed at t = 0\.005 s \(step 0\.005 s, after 1 halving\(s\) of "
                                               r"the step 0\.01 s\): Newton did not converge"):
        ig.advance(3)
    assert ig.t == 0.0 and ig.rejected == 0


STEPPER = {"alf": ALFIntegrator, "galpha": GeneralizedAlphaIntegrator}


# --- FMU -----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    from fmu_mbs.adapters.fmu_build import build_fmu
    out = tmp_path_factory.mktemp("galpha_dist")
    slow = load_model(MODELS / "pendulum.json")
    fast = dataclasses.replace(slow, name="fast_pendulum",
                               bodies=(dataclasses.replace(slow.bodies[0], velocity=(0.0, -20.0)),))
    return {"double_pendulum": build_fmu(MODELS / "double_pendulum.json", out), "fast": build_fmu(fast, out),
            "fast_model": fast}


def _library_channels(cm, names, traj):
    from fmu_mbs.analyses.channels import ChannelEvaluator
    chan = ChannelEvaluator(cm)
    return np.array([chan(t, q, qd, qdd, lam)[[chan.names.index(n) for n in names]]
                     for t, q, qd, qdd, lam in zip(traj.t, traj.q, traj.qd, traj.qdd, traj.lam)])


def test_fmu_generalized_alpha_matches_the_library(fmus):
    """solver.integrator = 1, solver.rho_inf = 0.8 (10 ms communication steps, solver.h = 1 ms) against the
    library's simulate with the same scheme and substeps: every output channel, to round-off."""
    from fmpy import simulate_fmu

    from fmu_mbs.model.fmu_interface import fmu_outputs
    from fmu_mbs.model.names import channel_names
    cm = compile_model(load_model(MODELS / "double_pendulum.json"))
    names = [channel_names(cm.model)[k] for k in fmu_outputs(cm.model)]   # the FMU's declared outputs
    res = simulate_fmu(str(fmus["double_pendulum"]), stop_time=0.5, step_size=0.01, output_interval=0.01,
                       output=names, start_values={"solver.integrator": 1, "solver.rho_inf": 0.8})
    lib = simulate(cm, 0.5, 1e-3, output_step=0.01, integrator="galpha", rho_inf=0.8)
    ref = _library_channels(cm, names, lib)
    got = np.column_stack([res[n] for n in names])
    scale = np.maximum(1.0, np.abs(ref).max(axis=0))
    assert np.max(np.abs(got - ref) / scale) < 1e-9
    alf = _library_channels(cm, names, simulate(cm, 0.5, 1e-3, output_step=0.01))
    assert np.max(np.abs(alf - ref) / scale) > 1e-7             # and it is not the ALF run (measured 2.6e-6)


def test_fmu_rho_inf_is_checked_and_the_state_holds_the_pseudo_accelerations(fmus):
    from fmpy.fmi1 import FMICallException

    from fmu_harness import Slave, replays_from_saved_state
    bad = Slave(fmus["double_pendulum"], "bad_rho")     # the declared range [0, 1] is enforced at fmi2SetReal
    bad.fmu.setupExperiment(startTime=0.0)
    bad.fmu.enterInitializationMode()
    with pytest.raises(FMICallException, match="status 3"):
        bad.fmu.setReal([bad.vr["solver.rho_inf"]], [1.5])
    assert any("'solver.rho_inf'" in m and "must be in [0.0, 1.0], got 1.5" in m for m in bad.log)
    bad.fmu.exitInitializationMode()                       # with the default 0.8
    bad.close()
    s = Slave(fmus["double_pendulum"], "galpha_rollback").start(**{"solver.integrator": 1, "solver.rho_inf": 0.3})
    watch = ["P2.r[1]", "P2.v[2]", "energy.total"]
    for _ in range(20):
        s.step(0.01)
    first, second, third = replays_from_saved_state(s, watch, 10, 0.01)
    s.close()
    assert np.array_equal(first, second) and np.array_equal(first, third)


def test_fmu_retries_a_failing_substep_before_discarding(fmus):
    """The pendulum whirling at 20 rad/s with solver.h = 0.05 s (1 rad per step): the ALF Newton iteration does
    not converge in the second step; the FMU redoes it with halved steps, logs it and matches the library (which
    retries the same way)."""
    from fmu_harness import Slave
    cm = compile_model(fmus["fast_model"])
    with pytest.raises(ConvergenceError, match="Newton did not converge"):
        simulate(cm, 0.5, 0.05, max_halvings=0)
    lib = simulate(cm, 0.5, 0.05)
    assert lib.info["rejected"].sum() > 0
    s = Slave(fmus["fast"], "retry").start(**{"solver.h": 0.05})
    names = ["P1.r[1]", "P1.r[2]", "P1.v[1]"]
    ref = _library_channels(cm, names, lib)
    got = []
    for _ in range(10):
        s.step(0.05)
        got.append(s.get(*names))
    s.close()
    assert np.max(np.abs(np.array(got) - ref[1:])) < 1e-9
    assert any("redone with halved steps" in m for m in s.log)


def test_energy_scheme_from_the_fmu_and_the_cli_equals_the_library(fmus, tmp_path, capsys):
    """solver.scheme = 1 and --scheme energy select the energy-consistent trapezoid: the same outputs as the
    library's simulate(scheme="energy") to round-off, different from the default scheme; bad combinations named."""
    from fmpy import simulate_fmu
    from fmpy.fmi1 import FMICallException

    from fmu_mbs.adapters.cli import main
    from fmu_mbs.adapters.recording import read_csv
    from fmu_mbs.model.fmu_interface import fmu_outputs
    from fmu_mbs.model.names import channel_names

    from fmu_harness import Slave
    cm = compile_model(load_model(MODELS / "double_pendulum.json"))
    names = [channel_names(cm.model)[k] for k in fmu_outputs(cm.model)]   # the FMU's declared outputs
    res = simulate_fmu(str(fmus["double_pendulum"]), stop_time=0.3, step_size=0.01, output_interval=0.01,
                       output=names, start_values={"solver.scheme": 1})
    lib = simulate(cm, 0.3, 1e-3, output_step=0.01, scheme="energy")
    ref = _library_channels(cm, names, lib)
    scale = np.maximum(1.0, np.abs(ref).max(axis=0))
    assert np.max(np.abs(np.column_stack([res[n] for n in names]) - ref) / scale) < 1e-9
    default = _library_channels(cm, names, simulate(cm, 0.3, 1e-3, output_step=0.01))
    assert np.max(np.abs(default - ref) / scale) > 1e-8
    bad = Slave(fmus["double_pendulum"], "bad_scheme")
    with pytest.raises(FMICallException, match="fmi2ExitInitializationMode failed with status 3"):
        bad.start(**{"solver.integrator": 1, "solver.scheme": 1})
    assert any("solver.scheme = 1 (energy-consistent) needs solver.integrator = 0" in m for m in bad.log)
    with pytest.raises(FMICallException, match="status 3"):     # the error mode refuses steps
        bad.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    bad.close()
    out = tmp_path / "e.csv"
    model = str(MODELS / "double_pendulum.json")
    assert main(["simulate", model, "--t-end", "0.3", "--step", "0.001", "--scheme", "energy", "--output-step",
                 "0.01", "--out", str(out)]) == 0
    assert np.allclose(read_csv(out)["P2.r[1]"], ref[:, names.index("P2.r[1]")], rtol=0.0, atol=1e-12)
    assert main(["simulate", model, "--t-end", "0.1", "--step", "0.001", "--integrator", "galpha", "--scheme",
                 "energy", "--out", str(out)]) == 1
    assert "--scheme applies to --integrator alf" in capsys.readouterr().err
