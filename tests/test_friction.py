"""Contact friction against analytic solutions: incline (stick below the friction angle, g (sin a - mu cos a)
above), stick-slip of a spring-pulled block (exact Coulomb period with mu_s > mu_k), a ball rolling without
slip (a = 5/7 g sin a, v = sqrt(10/7 g h)), and the energy balance of a sliding block."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.functions import Linear

G = 9.81
HALF = (0.1, 0.1, 0.05)          # block half extents (m)
MASS = 1.0
K_N = 1e5                        # normal stiffness per corner (N/m)
C_N = 2.0 * math.sqrt(K_N * MASS / 4.0)   # critical damping per corner
K_T, C_T = 1e4, 2.0 * math.sqrt(1e4 * MASS / 4.0)


def _block(angle: float, friction: str, mu: float, mu_static: float | None = None, velocity=(0.0, 0.0, 0.0),
           **extra) -> ModelBuilder:
    """A box resting on the plane z = 0 under gravity tilted by ``angle`` about y (an incline along x)."""
    g = (G * math.sin(angle), 0.0, -G * math.cos(angle))
    b = ModelBuilder("block", gravity=g)
    sink = MASS * G * math.cos(angle) / (4.0 * K_N)           # static corner compression
    inertia = [MASS / 3.0 * (HALF[1] ** 2 + HALF[2] ** 2), MASS / 3.0 * (HALF[0] ** 2 + HALF[2] ** 2),
               MASS / 3.0 * (HALF[0] ** 2 + HALF[1] ** 2)]
    b.add_rigid_body("block", MASS, inertia, position=(0.0, 0.0, HALF[2] - sink), velocity=velocity)
    b.add_marker("cm", "block")
    b.add_marker("origin", "ground")
    b.add_shape("box", "cm", "box", HALF)
    b.add_shape("floor", "origin", "plane", [])
    b.add_contact("sliding", "box", "floor", law="linear", stiffness=K_N, damping=C_N, damping_depth=1e-5,
                  friction=friction, mu=mu, mu_static=mu_static, tangential_stiffness=K_T, tangential_damping=C_T,
                  **extra)
    return b


def test_block_sticks_below_the_friction_angle_without_creep():
    """mu = 0.5 (friction angle 26.6 deg), incline 20 deg: after the bristles settle the block moves less than
    1e-6 m over 9 s (stated bound); regularised Coulomb creeps at ~v_eps tan(a)/mu meanwhile."""
    a = math.radians(20.0)
    cm = compile_model(_block(a, "bristle", 0.5).build())
    tr = simulate(cm, 10.0, 1e-3, output_step=0.5)
    drift = abs(tr.q[-1, 0] - tr.q[2, 0])
    assert drift < 1e-6
    # the friction channel carries m g sin a
    from fmu_mbs.analyses.channels import evaluate_channels
    from fmu_mbs.model.names import channel_names
    ch = evaluate_channels(cm, tr)
    names = channel_names(cm.model)
    assert ch[-1, names.index("sliding.ft[1]")] == pytest.approx(-MASS * G * math.sin(a), rel=1e-6)
    assert ch[-1, names.index("sliding.fn")] == pytest.approx(MASS * G * math.cos(a), rel=1e-6)
    creep = compile_model(_block(a, "coulomb", 0.5, velocity_threshold=1e-3).build())
    tc = simulate(creep, 2.0, 1e-3, output_step=0.5)
    assert tc.q[-1, 0] - tc.q[2, 0] > 1e-4          # the regularised law cannot hold the block


@pytest.mark.parametrize("friction", ["coulomb", "stribeck", "bristle"])
def test_block_slides_above_the_friction_angle_with_the_analytic_acceleration(friction):
    a, mu = math.radians(35.0), 0.3
    cm = compile_model(_block(a, friction, mu, stribeck_speed=1e-3).build())
    tr = simulate(cm, 1.0, 1e-3, output_step=0.1)
    acc = (tr.qd[-1, 0] - tr.qd[5, 0]) / (tr.t[-1] - tr.t[5])
    assert acc == pytest.approx(G * (math.sin(a) - mu * math.cos(a)), rel=2e-3)


def _stick_slip_period(k, V, m, N, mu_k, mu_s, v_s):
    """Period of the steady stick-slip cycle of a block (mass m, normal force N) dragged through a spring k whose
    end moves at V, friction mu(v) N = (mu_k + (mu_s - mu_k) exp(-(v/v_s)^2)) N while sliding, up to mu_s N
    while stuck: a one-coordinate solve_ivp of the slip phase (it starts when the spring force reaches mu_s N)
    plus the recharge time of the stuck phase (independent of the multibody model)."""
    def rhs(t, y):                       # y = (spring force F, block speed v)
        F, v = y
        return [k * (V - v), (F - (mu_k + (mu_s - mu_k) * math.exp(-(v / v_s) ** 2)) * N) / m]

    def stops(t, y):
        return y[1] if t > 1e-6 else 1.0
    stops.terminal, stops.direction = True, -1
    sol = solve_ivp(rhs, (0.0, 10.0), [mu_s * N, 0.0], events=stops, rtol=1e-10, atol=1e-12, max_step=1e-3)
    t_slip, F_end = sol.t_events[0][0], sol.y_events[0][0][0]
    return t_slip + (mu_s * N - F_end) / (k * V)


def test_spring_pulled_block_stick_slip_period():
    """Coulomb friction with mu_s > mu_k, spring k pulled at speed V. With a sharp drop to mu_k the exact period is
    2 (pi - atan(D w / V)) / w + (D - y_end) / V, D = (mu_s - mu_k) m g / k, w = sqrt(k / m): a lower bound, since
    the Stribeck curve mu(v) >= mu_k brakes the slip; the period equals the one-coordinate integration of the same
    law. The Stribeck speed must keep h (mu_s - mu_k) fn / v_s (the falling friction's negative damping in the
    iteration matrix) below the mass: v_s = 0.01 m/s with h = 1 ms."""
    k, V, mu_s, mu_k, v_s = 100.0, 0.05, 0.6, 0.4, 1e-2
    b = _block(0.0, "bristle", mu_k, mu_static=mu_s, stribeck_speed=v_s)
    along_x = (math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0)          # marker z axis along world x
    b.add_rigid_body("puller", 1.0, [1.0, 1.0, 1.0], position=(-0.5, 0.0, HALF[2]))
    b.add_marker("rail", "ground", position=(-0.5, 0.0, HALF[2]), orientation=along_x)
    b.add_marker("hand", "puller", orientation=along_x)
    b.add_marker("hook", "block")
    b.add_joint("slide", "prismatic", "rail", "hand")
    b.add_driver("pull", "slide", Linear(0.0, V))
    b.add_spring_damper("spring", "hand", "hook", stiffness=k, free_length=0.5)
    cm = compile_model(b.build())
    tr = simulate(cm, 6.0, 1e-3, output_step=1e-3)
    moving = tr.qd[:, 0] > 1e-3
    starts = tr.t[1:][moving[1:] & ~moving[:-1]]
    periods = np.diff(starts)
    w = math.sqrt(k / MASS)
    D = (mu_s - mu_k) * MASS * G / k
    theta = 2.0 * (math.pi - math.atan(D * w / V))
    sharp = theta / w + (D - D * math.cos(theta) - V / w * math.sin(theta)) / V
    reference = _stick_slip_period(k, V, MASS, MASS * G, mu_k, mu_s, v_s)
    assert len(periods) >= 3
    assert reference > sharp
    assert np.all(periods[1:] > sharp)
    assert np.allclose(periods[1:], reference, rtol=0.01)


def test_ball_rolls_down_a_slope_without_slipping():
    """Solid sphere on a 20 deg slope with enough friction (the stick-capable bristle model, so the contact point does
    not creep): a = g sin a / (1 + I / (m r_c^2)) and v = sqrt(2 g h / (1 + I / (m r_c^2))), 5/7 g sin a and
    sqrt(10/7 g h) for r_c = r; the friction acts at the contact point, half the Hertz depth inside the ball, so the
    rolling radius is r_c = r - d/2 (0.2 % smaller here, and it shows)."""
    a, r, m = math.radians(20.0), 0.1, 1.0
    b = ModelBuilder("roll", gravity=(G * math.sin(a), 0.0, -G * math.cos(a)))
    k = 1e6
    b.add_rigid_body("ball", m, [0.4 * m * r * r] * 3, position=(0.0, 0.0, r - (m * G * math.cos(a) / k) ** (2 / 3)))
    b.add_marker("c", "ball")
    b.add_marker("o", "ground")
    b.add_shape("sphere", "c", "sphere", [r])
    b.add_shape("slope", "o", "plane", [])
    b.add_contact("rolling", "sphere", "slope", law="hertz", stiffness=k, damping=50.0, damping_depth=1e-5,
                  friction="bristle", mu=0.6, tangential_stiffness=1e4, tangential_damping=200.0)
    cm = compile_model(b.build())
    tr = simulate(cm, 1.0, 1e-3, output_step=0.05)
    drop = (tr.q[-1, 0] - tr.q[0, 0]) * math.sin(a)
    r_c = r - 0.5 * (m * G * math.cos(a) / k) ** (2 / 3)
    ratio = 1.0 + 0.4 * r * r / r_c ** 2
    assert (tr.qd[-1, 0] - tr.qd[4, 0]) / (tr.t[-1] - tr.t[4]) == pytest.approx(G * math.sin(a) / ratio, rel=1e-4)
    # 1e-3: the bristle damping takes a little energy while the friction force builds up at the start
    assert tr.qd[-1, 0] == pytest.approx(math.sqrt(2.0 * G * drop / ratio), rel=1e-3)


def test_energy_balance_closes_for_a_sliding_block():
    """A block sliding to rest on a flat plane: kinetic + potential + dissipated (friction and contact damping)
    stays the initial energy."""
    cm = compile_model(_block(0.0, "coulomb", 0.3, velocity=(1.0, 0.0, 0.0)).build())
    tr = simulate(cm, 0.5, 1e-3, output_step=0.01)
    i = tr.info
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"] - i["energy_input"]
    assert i["energy_dissipated"][-1] > 0.45                          # it came to rest: 1/2 m v^2 = 0.5 J
    assert np.abs(total - total[0]).max() < 2e-3 * 0.5
