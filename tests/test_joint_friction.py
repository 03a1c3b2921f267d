"""Joint friction (elements.JointFriction) against values from elsewhere: a block on an inclined prismatic joint
(sticks below the friction angle, slides with g (sin a - mu cos a) above it), a physical pendulum with pin friction
against an independent minimal-coordinate integration whose pin reaction comes from the rigid-body equations, the
breakaway of a bristle-stuck revolute joint under a torque ramp at mu_s r |F|, the energy balance with friction
dissipation, model checks, and an FMU with joint friction that replays bit for bit after a state restore."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AnalysisError, ModelError
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.functions import Linear
from fmu_mbs.model.json_io import model_to_dict
from fmu_mbs.model.names import channel_names

G = 9.81


def _channel(cm, tr, name: str) -> np.ndarray:
    return evaluate_channels(cm, tr)[:, channel_names(cm.model).index(name)]


# --- block on an inclined prismatic joint ----------------------------------------------------------------------

M_BLOCK = 2.0


def _incline(alpha: float, friction: str, mu: float, **kw) -> ModelBuilder:
    """Planar block on a rail inclined by alpha; the rail's x axis points up the slope, so s < 0 is sliding down."""
    b = ModelBuilder("incline", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("block", M_BLOCK, 0.01, position=(0.0, 0.0), angle=alpha)
    b.add_marker("rail", "ground", (0.0, 0.0), angle=alpha)
    b.add_marker("slider", "block", (0.0, 0.0))
    b.add_joint("slide", "prismatic", "rail", "slider")
    b.add_joint_friction("seal", "slide", friction=friction, mu=mu, **kw)
    return b


def test_block_on_incline_slides_with_the_coulomb_acceleration():
    """alpha = 30 deg > atan(0.3): a = g (sin a - mu cos a) along the rail (normal reaction m g cos a)."""
    a, mu = math.radians(30.0), 0.3
    cm = compile_model(_incline(a, "coulomb", mu).build())
    tr = simulate(cm, 1.0, 1e-3, output_step=0.1)
    slip = _channel(cm, tr, "seal.slip")
    accel = -(slip[-1] - slip[1]) / (tr.t[-1] - tr.t[1])     # slip is constant-acceleration after the start
    assert accel == pytest.approx(G * (math.sin(a) - mu * math.cos(a)), rel=1e-3)
    assert _channel(cm, tr, "seal.load")[-1] == pytest.approx(M_BLOCK * G * math.cos(a), rel=1e-6)
    assert _channel(cm, tr, "seal.force")[-1] == pytest.approx(mu * M_BLOCK * G * math.cos(a), rel=1e-6)
    ga = simulate(cm, 1.0, 1e-3, output_step=0.1, integrator="galpha")
    slip = _channel(cm, ga, "seal.slip")
    assert -(slip[-1] - slip[1]) / (ga.t[-1] - ga.t[1]) == pytest.approx(G * (math.sin(a) - mu * math.cos(a)),
                                                                         rel=1e-3)


K_B = 1e6                                  # bristle stiffness (N/m)
C_B = 2.0 * math.sqrt(K_B * M_BLOCK)       # critical damping of the block on the bristle


def test_block_below_the_friction_angle_sticks_without_creep():
    """alpha = 20 deg < atan(0.5): the bristle deflects by m g sin a / k_b (9.8e-6 m) and then holds: the block moves
    less than 1e-9 m between t = 0.5 s and 2 s (stated bound; the deflection is settled to round-off by 0.5 s, 70
    periods of sqrt(k_b / m) at critical damping), while regularised Coulomb friction creeps."""
    a = math.radians(20.0)
    cm = compile_model(_incline(a, "bristle", 0.5, bristle_stiffness=K_B, bristle_damping=C_B).build())
    tr = simulate(cm, 2.0, 1e-3, output_step=0.5)
    s = tr.q[:, 0] * math.cos(a) + tr.q[:, 1] * math.sin(a)
    deflection = M_BLOCK * G * math.sin(a) / K_B
    assert s[-1] == pytest.approx(-deflection, rel=1e-3)     # the position integrates the projected velocities
    assert abs(s[-1] - s[1]) < 1e-9
    assert _channel(cm, tr, "seal.force")[-1] == pytest.approx(M_BLOCK * G * math.sin(a), rel=1e-6)
    assert len(tr.z[0]) == 3 and tr.z[-1, 0] == pytest.approx(-deflection, rel=1e-6)   # the bristle state
    creep = compile_model(_incline(a, "coulomb", 0.5, velocity_threshold=1e-3).build())
    tc = simulate(creep, 2.0, 1e-3, output_step=0.5)
    sc = tc.q[:, 0] * math.cos(a) + tc.q[:, 1] * math.sin(a)
    assert abs(sc[-1] - sc[1]) > 1e-4                         # v_eps tan(a) / mu over 1.5 s: 1.1e-3 m


# --- physical pendulum with pin friction ------------------------------------------------------------------------

M, IC, L, R_PIN, MU, V_EPS = 1.0, 0.01, 0.3, 0.02, 0.3, 5e-3
TH0 = 1.2


def _pendulum(friction: str = "coulomb", **kw) -> ModelBuilder:
    """Planar body whose CM hangs L below the pivot at angle theta (the body angle)."""
    b = ModelBuilder("pin_pendulum", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("arm", M, IC, position=(L * math.sin(TH0), -L * math.cos(TH0)), angle=TH0)
    b.add_marker("pivot", "ground", (0.0, 0.0))
    b.add_marker("eye", "arm", (0.0, L))
    b.add_joint("pin", "revolute", "pivot", "eye")
    kw = {"mu": MU, "pin_radius": R_PIN, "velocity_threshold": V_EPS, "ramp": "smooth", **kw}
    b.add_joint_friction("pin_friction", "pin", friction=friction, **kw)
    return b


def _smooth(x: float) -> float:
    x = min(max(x, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)


def _pendulum_reference(t_out: np.ndarray) -> np.ndarray:
    """theta(t) in minimal coordinates: (Ic + m L^2) th'' = -m g L sin th + tau_f, tau_f = -mu r |F| s(r|th'|/v_eps)
    sign(th') with the pin reaction F = m a_cm - m g from a_cm(th, th', th''), so th'' solves a scalar equation
    (fixed point: its gain mu r m L / I_p is 0.02)."""
    ip = IC + M * L * L

    def rhs(_t, y):
        th, om = y
        tau_dir = -math.copysign(MU * R_PIN * _smooth(R_PIN * abs(om) / V_EPS), om) if om != 0.0 else 0.0
        acc = -M * G * L * math.sin(th) / ip
        for _ in range(60):
            ax = L * (acc * math.cos(th) - om * om * math.sin(th))
            ay = L * (acc * math.sin(th) + om * om * math.cos(th))
            F = M * math.hypot(ax, ay + G)
            new = (-M * G * L * math.sin(th) + tau_dir * F) / ip
            if abs(new - acc) < 1e-15:
                break
            acc = new
        return [om, acc]

    sol = solve_ivp(rhs, (t_out[0], t_out[-1]), [TH0, 0.0], method="DOP853", rtol=1e-12, atol=1e-12, t_eval=t_out,
                    max_step=1e-3)
    return sol.y[0]


def test_pin_friction_pendulum_matches_the_minimal_coordinate_solution():
    """ALF h = 5e-4 s and the reference integrator (fixed point on lam) against the solve_ivp above, 2 s of swinging
    in which friction takes a quarter of the amplitude; the pin reaction channel equals |F| of the reference."""
    cm = compile_model(_pendulum().build())
    t_out = np.linspace(0.0, 2.0, 41)
    ref = _pendulum_reference(t_out)
    assert ref[0] - abs(ref).max() == 0.0 and np.abs(ref[20:]).max() < 0.9 * TH0   # it does lose amplitude
    alf = simulate(cm, 2.0, 5e-4, output_step=0.05)
    assert np.abs(alf.q[:, 2] - ref).max() < 3e-5        # 1.0e-5 measured (the reaction estimate is 2nd order)
    exact = simulate(cm, 2.0, 0.05, integrator="reference")
    assert np.abs(exact.q[:, 2] - ref).max() < 1e-7
    # the friction torque is mu r |F| where the pin slides fast (|slip| >> v_eps)
    ev = evaluate_channels(cm, alf)
    names = channel_names(cm.model)
    slip, torque, load = (ev[:, names.index(f"pin_friction.{q}")] for q in ("slip", "torque", "load"))
    F = np.hypot(ev[:, names.index("pin.F[1]")], ev[:, names.index("pin.F[2]")])
    assert np.allclose(load, F, rtol=1e-9, atol=0.0)
    fast = np.abs(slip) > V_EPS
    assert fast.sum() > 20
    assert np.allclose(torque[fast], -np.sign(slip[fast]) * MU * R_PIN * load[fast], rtol=1e-9)


def test_pin_friction_energy_balance_closes():
    """kinetic + gravity potential + dissipated friction work stays at its initial value (trapezoidal in time)."""
    cm = compile_model(_pendulum().build())
    tr = simulate(cm, 2.0, 5e-4, output_step=0.01)
    i = tr.info
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"] - i["energy_input"]
    assert i["energy_dissipated"][-1] > 0.1 * M * G * L * (1.0 - math.cos(TH0))
    assert np.abs(total - total[0]).max() < 1e-4 * i["energy_dissipated"][-1]   # 2.4e-5 J of 0.57 J (Newton tol)
    ex = simulate(cm, 2.0, 0.01, integrator="reference").info           # fixed point on lam: closes exactly
    total = ex["energy_kinetic"] + ex["energy_potential"] + ex["energy_dissipated"] - ex["energy_input"]
    assert np.abs(total - total[0]).max() < 1e-9 * ex["energy_dissipated"][-1]


def test_catalogue_friction_pendulum_comes_to_rest_off_centre_and_stays():
    """models/friction_pendulum.json (bristle pin friction, mu_s = 0.4, r = 20 mm): the swing dies out and the
    pendulum sticks where gravity's torque is below the breakaway torque mu_s r m g, then holds (no creep)."""
    from pathlib import Path

    cm = compile_model(load_model(Path(__file__).resolve().parents[1] / "models" / "friction_pendulum.json"))
    tr = simulate(cm, 20.0, 1e-3, output_step=1.0)
    theta, rate = tr.q[:, 2], tr.qd[:, 2]
    assert np.abs(rate[-5:]).max() < 1e-9 and np.ptp(theta[-5:]) < 1e-12
    assert 1.0 * G * 0.3 * abs(math.sin(theta[-1])) < 0.4 * 0.02 * 1.0 * G
    assert np.abs(theta[:10]).max() > 0.5                      # it did swing first


# --- breakaway of a stuck revolute joint ------------------------------------------------------------------------

def test_revolute_breakaway_under_a_torque_ramp_at_mu_s_r_F():
    """Wheel pivoted at its CM (radial load m g), torque ramp k t, bristle friction mu_s = 0.3, mu_k = 0.2: it stays
    put (rotation tau / (k_b r^2), the bristle deflection, less its viscous lag) until tau = mu_s r m g, at
    t_b = mu_s r m g / k = 1.4715 s, then turns."""
    m, inertia, r, mu_s, mu_k, rate = 1.0, 0.01, 0.05, 0.3, 0.2, 0.1
    k_b = 1e5
    c_b = 2.0 * math.sqrt(k_b * inertia / r ** 2)
    b = ModelBuilder("breakaway", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("wheel", m, inertia)
    b.add_marker("axle", "ground")
    b.add_marker("hub", "wheel")
    b.add_joint("bearing", "revolute", "axle", "hub")
    b.add_joint_friction("bearing_friction", "bearing", friction="bristle", mu=mu_k, mu_static=mu_s,
                         stribeck_speed=1e-3, pin_radius=r, bristle_stiffness=k_b, bristle_damping=c_b)
    b.add_point_load("drive", "hub", force=(0.0, 0.0), torque=(Linear(0.0, rate),))
    cm = compile_model(b.build())
    tr = simulate(cm, 1.8, 1e-4, output_step=1e-3)
    torque = _channel(cm, tr, "bearing_friction.torque")
    t_b = mu_s * r * m * G / rate
    k = int(np.argmax(-torque))
    assert tr.t[k] == pytest.approx(t_b, abs=2e-3)
    assert -torque[k] == pytest.approx(mu_s * r * m * G, rel=2e-3)
    stuck = np.flatnonzero(tr.t <= 1.0)[-1]
    # elastic and viscous bristle under the ramp (steady state k r^2 th + c r^2 th' = k t): no creep
    assert tr.q[stuck, 2] == pytest.approx(rate * (1.0 - c_b / k_b) / (k_b * r * r), rel=1e-4)
    assert tr.q[-1, 2] > 100.0 * mu_s * m * G / (k_b * r)                           # it turns after t_b


# --- spatial joints: bending moment and axial force ----------------------------------------------------------

@pytest.mark.parametrize("case", ["overhung", "vertical"])
def test_spatial_revolute_spin_down_with_bending_and_axial_terms(case):
    """A wheel spinning about its principal axis z on a revolute joint decelerates at mu r N / I_zz with
    N = m g (1 + d / bending_arm) when its CM overhangs the bearing by d on a horizontal axis (radial force m g,
    bending moment m g d), and N = m g friction_arm / r on a vertical axis (axial force m g only)."""
    m, izz, r, mu, d, arm_b, arm_n, w0 = 2.0, 0.04, 0.02, 0.2, 0.1, 0.05, 0.03, 20.0
    g = (0.0, -G, 0.0) if case == "overhung" else (0.0, 0.0, -G)
    b = ModelBuilder("spin", dimension=3, gravity=g)
    b.add_rigid_body("wheel", m, [[0.02, 0.0, 0.0], [0.0, 0.02, 0.0], [0.0, 0.0, izz]], position=(0.0, 0.0, d),
                     angular_velocity=(0.0, 0.0, w0))
    b.add_marker("axle", "ground")
    b.add_marker("hub", "wheel", (0.0, 0.0, -d))
    b.add_joint("bearing", "revolute", "axle", "hub")
    b.add_joint_friction("bearing_friction", "bearing", mu=mu, pin_radius=r, bending_arm=arm_b, friction_arm=arm_n)
    cm = compile_model(b.build())
    tr = simulate(cm, 1.0, 1e-3, output_step=0.5)
    load = m * G * (1.0 + d / arm_b) if case == "overhung" else m * G * arm_n / r
    assert _channel(cm, tr, "bearing_friction.load")[-1] == pytest.approx(load, rel=1e-6)
    # the reaction is exact; the spinning Euler-parameter body's rate carries the O((w h)^2) integration error
    assert _channel(cm, tr, "bearing.sd")[-1] == pytest.approx(w0 - mu * r * load / izz * 1.0, rel=1e-4)


def test_inverse_dynamics_driver_overcomes_pin_friction():
    """A wheel pivoted at its CM, driven at 5 rad/s: the driver's effort is the friction torque mu r m g."""
    from fmu_mbs.analyses.inverse import inverse_dynamics

    m, r, mu = 1.5, 0.05, 0.2
    b = ModelBuilder("driven", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("wheel", m, 0.01)
    b.add_marker("axle", "ground")
    b.add_marker("hub", "wheel")
    b.add_joint("bearing", "revolute", "axle", "hub")
    b.add_joint_friction("bearing_friction", "bearing", mu=mu, pin_radius=r)
    b.add_driver("motor", "bearing", Linear(0.0, 5.0))
    cm = compile_model(b.build())
    tr = inverse_dynamics(cm, 0.5, 0.1)
    effort = -tr.lam[:, cm.driver_rows["motor"]]
    assert np.allclose(effort, mu * r * m * G, rtol=1e-9)


# --- model checks -----------------------------------------------------------------------------------------------

def test_joint_friction_model_checks_name_the_element():
    b = _pendulum()
    b.add_joint_friction("bad_joint", "nowhere", mu=0.1)
    b.add_joint_friction("bad_mu", "pin", mu=-0.1, pin_radius=0.01)
    b.add_joint_friction("no_radius", "pin", mu=0.1)
    b.add_joint_friction("no_bristle", "pin", friction="bristle", mu=0.1, pin_radius=0.01)
    b.add_joint_friction("bad_static", "pin", mu=0.3, mu_static=0.2, pin_radius=0.01)
    b.add_marker("p2", "ground", (1.0, 0.0))
    b.add_marker("e2", "arm", (0.0, -L))
    b.add_joint("rod", "distance", "p2", "e2", length=1.2)
    b.add_joint_friction("wrong_type", "rod", mu=0.1)
    with pytest.raises(ModelError) as info:
        b.build()
    text = str(info.value)
    for expected in ("'bad_joint': joint 'nowhere' is not defined", "'bad_mu': 'mu' must be finite and >= 0",
                     "'no_radius': friction in revolute joint 'pin' needs a positive 'pin_radius'",
                     "'no_bristle': bristle friction needs a positive 'bristle_stiffness'",
                     "'bad_static': 'mu_static' must be >= mu", "'wrong_type': joint 'rod' is a distance joint"):
        assert expected in text


def test_joint_friction_round_trips_through_json_and_the_reference_rejects_bristles():
    model = _pendulum("bristle", bristle_stiffness=1e5).build()
    again = load_model(model_to_dict(model))
    assert again == model
    with pytest.raises(AnalysisError, match="pin_friction.*bristle"):
        simulate(compile_model(model), 0.1, 0.05, integrator="reference")


# --- FMU ----------------------------------------------------------------------------------------------------------

def test_fmu_with_joint_friction_steps_and_replays_bit_for_bit(tmp_path):
    """A hydraulic-seal-like slider: prismatic joint with bristle friction and preload, pushed by the marker-load
    input; the FMU sticks under 20 N (breakaway 0.3 x 100 N preload), slides under 50 N, and a saved state replays
    bit for bit (also after serialisation)."""
    from fmpy import extract

    from fmu_mbs.adapters.fmu_build import build_fmu

    from fmu_harness import LoggedSlave

    b = ModelBuilder("seal_slider", dimension=2, gravity=(0.0, 0.0))
    b.add_planar_body("piston", 5.0, 0.05)
    b.add_marker("bore", "ground")
    b.add_marker("rod", "piston", port=True)   # the FMU input rod.F[1] below
    b.add_joint("stroke", "prismatic", "bore", "rod")
    b.add_joint_friction("seal", "stroke", friction="bristle", mu=0.2, mu_static=0.3, preload=100.0,
                         bristle_stiffness=1e6, bristle_damping=2.0 * math.sqrt(1e6 * 5.0), viscous=50.0)
    path = build_fmu(b.build(), tmp_path)
    s = LoggedSlave(extract(str(path)), "seal")
    s.fmu.setupExperiment(startTime=0.0)
    s.fmu.enterInitializationMode()
    s.fmu.exitInitializationMode()
    t = 0.0

    def run(force: float, n: int) -> np.ndarray:
        nonlocal t
        out = []
        for _ in range(n):
            s.set("rod.F[1]", force)
            s.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=0.01)
            t += 0.01
            out.append(s.fmu.getReal([s.vr[n] for n in ("stroke.s", "seal.force", "seal.slip", "seal.load")]))
        return np.array(out)

    held = run(20.0, 20)
    assert held[-1, 0] == pytest.approx(20.0 / 1e6, rel=1e-3) and held[-1, 1] == pytest.approx(-20.0, rel=1e-6)
    state = s.fmu.getFMUstate()
    blob = s.fmu.serializeFMUstate(state)
    t0 = t
    first = run(50.0, 20)
    t = t0
    s.fmu.setFMUstate(state)
    second = run(50.0, 20)
    t = t0
    s.fmu.setFMUstate(s.fmu.deSerializeFMUstate(blob))
    third = run(50.0, 20)
    s.fmu.freeFMUstate(state)
    s.close()
    assert np.array_equal(first, second) and np.array_equal(first, third)
    assert first[-1, 2] > 0.01 and first[-1, 3] == pytest.approx(100.0)       # sliding under 50 N > 30 N
