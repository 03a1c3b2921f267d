"""The explicit midpoint integrator (kernels/integrate_explicit.py): second order against the scipy reference on
models with every force element and constraints, exact for constant forces, contact laws and friction as the
implicit integrator reproduces them, the energy balance, the explicit stability limit with a clear error, the
option to skip the energy bookkeeping (also in the ALF), state save/restore, the CLI and the FMU. Comments give
the measured values behind each tolerance."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.integrators import REPORT_KEYS, ALFIntegrator, ExplicitIntegrator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.compiler.contacts import hysteresis_factor
from fmu_mbs.errors import AnalysisError, ConvergenceError
from fmu_mbs.model import ModelBuilder, load_model

MODELS = Path(__file__).resolve().parents[1] / "models"
G = 9.81


@pytest.mark.parametrize("dimension", [2, 3])
def test_second_order_against_the_reference_with_every_force_element(dimension):
    """test_integrators.mixed (pendulum, slider, point mass; TSDA, RSDA, bushing, load, actuator; revolute and
    prismatic/cylindrical joints) over 1 s against the scipy reference at h = 1 and 0.5 ms: error below 5e-4 and
    falling by more than 3.5x per halving, the energy balance likewise, dissipated and input work within 1e-3
    (measured 1.0e-4 / 1.1e-4 m at 1 ms (2D / 3D), 4.0x and 4.3x per halving; balance 2.0e-3 / 2.1e-3 J, 3.7x).
    ``tol`` 5e-12 keeps the velocity residual below the shared check's 1e-8 (velocities are projected when their
    residual exceeds tol / h: 1e-8 at h = 0.5 ms; measured 1.9e-8 with tol = 1e-11)."""
    from test_integrators import check_second_order_against_reference, mixed
    check_second_order_against_reference(mixed(dimension), integrator="explicit", tol=5e-12)


def test_constant_force_flight_is_exact_and_a_free_spin_is_second_order():
    """A rigid body thrown under gravity: the midpoint rule integrates a constant acceleration exactly (measured
    3e-14 m after 1 s); its spin about the major principal axis keeps the rate, and the attitude error falls 4x per
    halving of h (a rotation of w t about z: Euler parameters (cos wt/2, 0, 0, sin wt/2))."""
    w = 7.0
    b = ModelBuilder("throw", gravity=(0.0, 0.0, -G))
    b.add_rigid_body("B", 2.0, (0.01, 0.02, 0.03), position=(0.1, 0.2, 0.3), velocity=(1.0, -2.0, 5.0),
                     angular_velocity=(0.0, 0.0, w))
    cm = compile_model(b.build())
    err = {}
    for h in (1e-3, 5e-4):
        tr = simulate(cm, 1.0, h, integrator="explicit", output_step=0.1)
        t = tr.t
        r = np.column_stack([0.1 + t, 0.2 - 2.0 * t, 0.3 + 5.0 * t - 0.5 * G * t * t])
        assert np.max(np.abs(tr.q[:, :3] - r)) < 1e-12
        p = np.column_stack([np.cos(w * t / 2), 0 * t, 0 * t, np.sin(w * t / 2)])
        err[h] = np.max(np.abs(tr.q[:, 3:7] - p))
        assert np.max(tr.info["residual_position"]) < 1e-10
    assert err[1e-3] < 1e-5 and err[1e-3] / err[5e-4] > 3.5          # measured 6.7e-6, ratio 4.01


@pytest.mark.parametrize("law, e", [("lankarani_nikravesh", 0.9), ("flores", 0.5)])
def test_rebound_equals_the_one_dof_impact(law, e):
    """The ball of tests/test_contact.py: the rebound speed equals the one-dof impact integrated by scipy with the
    same law (to 2e-4, the bound the implicit integrator's test uses; measured 6e-7 (LN) and 1.4e-6 (Flores))."""
    from test_contact import V0, _ball_model, _impact_ode
    cm = compile_model(_ball_model(law, e))
    tr = simulate(cm, 0.02, 1e-5, integrator="explicit")
    assert tr.qd[-1, 2] / V0 == pytest.approx(_impact_ode(hysteresis_factor(law, e)), abs=2e-4)


def test_bouncing_ball_energy_balance_and_rest_at_the_static_depth():
    """A damped ball dropped on the floor (linear law): kinetic + potential + dissipated stays the drop energy
    while it bounces (measured 4.3e-4 J of 0.98 J dissipated), and it comes to rest at the static compression
    m g / k (measured to 1e-16 m)."""
    k, m = 1e5, 1.0
    b = ModelBuilder("drop", gravity=(0.0, 0.0, -G))
    b.add_rigid_body("ball", m, [0.4 * m * 0.01] * 3, position=(0.0, 0.0, 0.2))
    b.add_marker("centre", "ball")
    b.add_marker("origin", "ground")
    b.add_shape("sphere", "centre", "sphere", [0.1])
    b.add_shape("floor", "origin", "plane", [])
    b.add_contact("impact", "sphere", "floor", law="linear", stiffness=k, damping=200.0, damping_depth=1e-4)
    cm = compile_model(b.build())
    tr = simulate(cm, 2.0, 2e-4, integrator="explicit", output_step=0.01)
    i = tr.info
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"] - i["energy_input"]
    assert i["energy_dissipated"][-1] > 0.9 * m * G * 0.1            # it lost the drop energy
    assert np.abs(total - total[0]).max() < 1e-3 * m * G * 0.1
    assert tr.q[-1, 2] == pytest.approx(0.1 - m * G / k, abs=1e-8)
    assert abs(tr.qd[-1, 2]) < 1e-6


def test_block_on_incline_slides_and_sticks_with_joint_friction():
    """Joint friction on a prismatic joint (tests/test_joint_friction.py's incline), loaded by the multipliers one
    stage behind: at 30 deg with mu = 0.3 the block slides with a = g (sin a - mu cos a); at 20 deg with a bristle
    (mu = 0.5) it deflects by m g sin a / k_b and holds (no creep: under 1e-9 m between 0.5 and 2 s). Measured: the
    acceleration to 6e-11, the deflection to 3e-15, no motion at all after 0.5 s."""
    from test_joint_friction import C_B, K_B, M_BLOCK, _incline
    a = math.radians(30.0)
    cm = compile_model(_incline(a, "coulomb", 0.3).build())
    tr = simulate(cm, 1.0, 1e-4, integrator="explicit", output_step=0.1)
    v = tr.qd[:, 0] * math.cos(a) + tr.qd[:, 1] * math.sin(a)
    assert -(v[-1] - v[1]) / (tr.t[-1] - tr.t[1]) == pytest.approx(G * (math.sin(a) - 0.3 * math.cos(a)), rel=1e-3)
    a = math.radians(20.0)
    cm = compile_model(_incline(a, "bristle", 0.5, bristle_stiffness=K_B, bristle_damping=C_B).build())
    tr = simulate(cm, 2.0, 1e-4, integrator="explicit", output_step=0.5)
    s = tr.q[:, 0] * math.cos(a) + tr.q[:, 1] * math.sin(a)
    assert s[-1] == pytest.approx(-M_BLOCK * G * math.sin(a) / K_B, rel=1e-3)
    assert abs(s[-1] - s[1]) < 1e-9


def test_too_large_a_step_names_the_stability_limit():
    """1 kg on a 1e8 N/m spring: h = 1 ms is 5x the explicit limit 2 sqrt(m/k) = 0.2 ms; the motion blows up and
    the error says why, after the halvings (the quarter step is still unstable)."""
    b = ModelBuilder("stiff", dimension=2, gravity=(0.0, -G))
    b.add_point_mass("m", 1.0, position=(0.0, -1.0))
    b.add_marker("top", "ground")
    b.add_marker("m0", "m")
    b.add_spring_damper("spring", "top", "m0", stiffness=1e8, free_length=0.9)
    cm = compile_model(b.build())
    with pytest.raises(ConvergenceError, match=r"explicit midpoint integrator failed at t = .*after 2 halving.*"
                                               r"stability limit"):
        simulate(cm, 1.0, 1e-3, integrator="explicit")
    # h omega = 1 is below the blow-up but the midpoint rule gains energy by (h omega)^4 / 4 per step on an
    # undamped oscillation: at h = 0.1 ms 1e15 J in 0.01 s, which the energy monitor now refuses; at h omega = 0.05
    # the gain over 2000 steps is 0.3 % and it runs
    with pytest.raises(ConvergenceError, match=r"energy balance .* drifted"):
        simulate(cm, 0.01, 1e-4, integrator="explicit")
    tr = simulate(cm, 0.01, 5e-6, integrator="explicit")
    assert np.all(np.isfinite(tr.q))


@pytest.mark.parametrize("stepper", [ALFIntegrator, ExplicitIntegrator])
def test_skipping_the_energy_balance_changes_nothing_else(stepper):
    """energy_balance=False gives the same trajectory bit for bit, with NaN for the dissipated and input work."""
    from test_integrators import mixed
    cm = mixed(3)
    runs = []
    for balance in (True, False):
        ig = stepper(cm, 1e-3, energy_balance=balance)
        rep = ig.advance(200)
        runs.append((ig.q.copy(), ig.qd.copy(), rep))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    d, i = REPORT_KEYS.index("energy_dissipated"), REPORT_KEYS.index("energy_input")
    assert np.all(np.isfinite(runs[0][2][:, [d, i]])) and np.all(np.isnan(runs[1][2][:, [d, i]]))


def test_save_restore_replays_bit_for_bit_and_options_are_checked():
    from test_integrators import mixed
    ig = ExplicitIntegrator(mixed(3), 1e-3)
    ig.advance(30)
    saved = ig.save()
    ig.advance(20)
    first = [a.copy() for a in ig.save()]
    ig.restore(saved)
    ig.advance(20)
    for x, y in zip(first, ig.save()):
        assert np.array_equal(x, y)
    with pytest.raises(AnalysisError, match="'explicit' does not take option.*max_iter"):
        simulate(mixed(2), 0.01, 1e-3, integrator="explicit", max_iter=5)


def test_cli_simulate_explicit_equals_the_library(tmp_path):
    from fmu_mbs.adapters.cli import main
    from fmu_mbs.adapters.recording import read_csv
    pendulum = str(MODELS / "double_pendulum.json")
    out = tmp_path / "p.csv"
    assert main(["simulate", pendulum, "--t-end", "0.5", "--step", "0.001", "--integrator", "explicit",
                 "--output-step", "0.05", "--out", str(out)]) == 0
    rec = read_csv(out)
    lib = simulate(compile_model(load_model(MODELS / "double_pendulum.json")), 0.5, 1e-3, integrator="explicit",
                   output_step=0.05)
    assert np.allclose(rec["P2.r[1]"], lib.q[:, 3], rtol=0.0, atol=1e-12)   # P2: link2 CM; q = link1 (x, y, th), link2


@pytest.fixture(scope="module")
def pendulum_fmu(catalogue_fmu):
    return catalogue_fmu("double_pendulum")


def test_fmu_explicit_matches_the_library_and_replays(pendulum_fmu):
    """solver.integrator = 2 (10 ms communication steps, solver.h = 1 ms) against the library's simulate with the
    same substeps, to round-off; and rollback to a saved FMU state replays bit for bit."""
    from fmpy import simulate_fmu

    from fmu_harness import Slave, replays_from_saved_state
    cm = compile_model(load_model(MODELS / "double_pendulum.json"))
    res = simulate_fmu(str(pendulum_fmu), stop_time=0.5, step_size=0.01, output_interval=0.01,
                       output=["P2.r[1]", "P2.r[2]"], start_values={"solver.integrator": 2})
    lib = simulate(cm, 0.5, 1e-3, output_step=0.01, integrator="explicit", tol=1e-9)   # the FMU's solver.tolerance
    assert np.max(np.abs(res["P2.r[1]"] - lib.q[:, 3])) < 1e-12
    assert np.max(np.abs(res["P2.r[2]"] - lib.q[:, 4])) < 1e-12
    s = Slave(pendulum_fmu, "explicit_rollback").start(**{"solver.integrator": 2})
    for _ in range(20):
        s.step(0.01)
    first, second, third = replays_from_saved_state(s, ["P2.r[1]", "P2.v[2]", "energy.total"], 10, 0.01)
    s.close()
    assert np.array_equal(first, second) and np.array_equal(first, third)
