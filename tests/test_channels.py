"""Channel names (model/names.py) and values (analyses/channels.py) against closed-form mechanics.

References: point-mass and rigid-body kinematics (a = a_cm + alpha x s + w x (w x s)), Newton's second
law for the rod force, T = 1/2 m v^2 and V = m g y, scipy's Rotation for spatial orientations, the
driven-joint laws s(t) themselves, and the seed 002 four-bar values of the digest §1.9 (derived there
by the DAE and cross-checked with the single-DOF Lagrange equation C21).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.channels import ChannelEvaluator, evaluate_channels
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.trajectory import Trajectory
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.functions import Constant, Linear, Polynomial
from fmu_mbs.model.names import UNITS, channel_names, channels, input_channels

from models_for_tests import every_joint_planar, every_joint_spatial

MODELS = Path(__file__).resolve().parents[1] / "models"
G = 9.81
# Modelica-style name: dotted identifiers, an optional 1-based index at the end
MODELICA = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\[[1-9][0-9]*\])?")
# assembled positions satisfy |Phi| <= 1e-10 (assembly.POSITION_TOL); everything below is exact
# arithmetic on such states, so 1e-9 in m, m/s, m/s2, N or J leaves a margin of 10x
TOL = 1e-9


def _frame(cm, traj) -> dict[str, np.ndarray]:
    values = evaluate_channels(cm, traj)
    return {name: values[:, k] for k, name in enumerate(channel_names(cm.model))}


def _single(cm, res, **info) -> Trajectory:
    return Trajectory.single(res.t, res.q, res.qd, res.qdd, res.lam, **info)


def _vec(ch: dict, name: str, n: int = 3, row: int = 0) -> np.ndarray:
    return np.array([ch[f"{name}[{k}]"][row] for k in range(1, n + 1)])


# --- names ------------------------------------------------------------------------------------------

ALL_MODELS = [every_joint_spatial(), every_joint_planar()] + [load_model(p) for p in sorted(MODELS.glob("*.json"))]


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda m: m.name)
def test_names_unique_modelica_and_si(model):
    outs, ins = channels(model), input_channels(model)
    names = [c.name for c in outs + ins]
    assert len(names) == len(set(names)), "an FMU needs unique variable names (inputs and outputs together)"
    for c in outs + ins:
        assert MODELICA.fullmatch(c.name), c.name
        assert c.unit in UNITS, (c.name, c.unit)
        assert c.name.startswith(c.element + "." + c.quantity)
    # the inputs are exactly the compiled model's input vector, in order
    assert [c.name for c in ins] == compile_model(model).input_names


def test_channel_counts_and_units_follow_the_element_catalogue():
    model = every_joint_spatial()
    outs = channels(model)
    kinds = [c.kind for c in outs]
    # 16 per marker (r3 v3 a3 q4 w3); joints: 6 reaction values each, plus 2 (s, sd) per coordinate
    n_coords = {"revolute": 1, "prismatic": 1, "cylindrical": 2}
    assert kinds.count("marker") == 16 * len(model.markers)
    assert kinds.count("joint") == sum(6 + 2 * n_coords.get(j.type, 0) for j in model.joints)
    unit = {c.name: c.unit for c in outs}
    assert unit["j_revolute.s"] == "rad" and unit["j_prismatic.sd"] == "m/s"
    assert (unit["j_cylindrical.s[1]"], unit["j_cylindrical.s[2]"]) == ("m", "rad")
    assert unit["d_rot.f"] == "N.m" and unit["d_trans.f"] == "N" and unit["d_rot2.f"] == "N.m"
    assert unit["a0.a[1]"] == "m/s2" and unit["bush.T[3]"] == "N.m" and unit["energy.total"] == "J"
    assert "j_spherical.s" not in unit and "act.force" in unit and "tsda.length" in unit


# --- pendulum: point-mass kinematics, Newton's law, energies --------------------------------------

def _pendulum(theta: float, omega: float, L: float = 1.5, m: float = 2.0):
    b = ModelBuilder("pend", dimension=2, gravity=(0.0, -G))
    e, t = np.array([math.cos(theta), math.sin(theta)]), np.array([-math.sin(theta), math.cos(theta)])
    b.add_point_mass("bob", m, position=tuple(L * e), velocity=tuple(L * omega * t))
    b.add_marker("pivot", "ground")
    b.add_marker("P1", "bob")
    b.add_joint("rod", "distance", "pivot", "P1", length=L)
    return compile_model(b.build()), e, t


def test_pendulum_kinematics_reaction_and_energy():
    theta, omega, L, m = 0.7, 1.3, 1.5, 2.0
    cm, e, t = _pendulum(theta, omega, L, m)
    ch = _frame(cm, _single(cm, assemble(cm)))
    thdd = -G / L * math.cos(theta)                   # m L^2 thdd = -m g L cos(theta)
    a = L * thdd * t - L * omega**2 * e
    np.testing.assert_allclose(_vec(ch, "P1.r", 2), [L * e[0], L * e[1]], atol=TOL)      # planar: x-y only
    np.testing.assert_allclose(_vec(ch, "P1.v", 2), [L * omega * t[0], L * omega * t[1]], atol=TOL)
    np.testing.assert_allclose(_vec(ch, "P1.a", 2), [a[0], a[1]], atol=TOL)
    np.testing.assert_allclose(_vec(ch, "pivot.r", 2), 0.0, atol=0.0)
    # the rod's force on the bob: m a = F + m g
    np.testing.assert_allclose(_vec(ch, "rod.F", 2), [m * a[0], m * (a[1] + G)], atol=TOL)   # planar: F[1..2]
    T, V = 0.5 * m * (L * omega) ** 2, m * G * L * math.sin(theta)
    assert ch["energy.kinetic"][0] == pytest.approx(T, abs=TOL)
    assert ch["energy.potential"][0] == pytest.approx(V, abs=TOL)
    assert ch["energy.total"][0] == pytest.approx(T + V, abs=TOL)
    assert ch["solver.iterations"][0] == 0.0 and ch["solver.residual"][0] == 0.0   # no info given


# --- a driven planar body: r w^2, r alpha, quaternion about z ----------------------------------------

def test_marker_acceleration_and_quaternion_of_a_rotating_planar_body():
    th0, w0, alpha, t = 2.0, 1.5, -0.8, 0.9
    th = th0 + w0 * t + 0.5 * alpha * t**2
    r, beta, mk_angle = 0.6, 0.4, 1.7
    b = ModelBuilder("spin", dimension=2)
    b.add_planar_body("disk", 3.0, 0.2, angle=th)
    b.add_marker("O", "ground")
    b.add_marker("centre", "disk")
    b.add_marker("M", "disk", (r * math.cos(beta), r * math.sin(beta)), angle=mk_angle)
    b.add_joint("pin", "revolute", "O", "centre")
    b.add_driver("motor", "pin", Polynomial((th0, w0, 0.5 * alpha)))
    cm = compile_model(b.build())
    ch = _frame(cm, _single(cm, assemble(cm, t=t)))
    wd = w0 + alpha * t
    s_hat = np.array([math.cos(th + beta), math.sin(th + beta), 0.0])
    t_hat = np.array([-s_hat[1], s_hat[0], 0.0])
    acc = np.append(_vec(ch, "M.a", 2), 0.0)
    assert acc @ -s_hat == pytest.approx(r * wd**2, abs=TOL)      # centripetal r w^2
    assert acc @ t_hat == pytest.approx(r * alpha, abs=TOL)       # tangential r alpha
    np.testing.assert_allclose(_vec(ch, "M.v", 2), r * wd * t_hat[:2], atol=TOL)
    assert ch["M.w"][0] == pytest.approx(wd, abs=TOL)
    a = th + mk_angle                                              # 4.26 rad: past pi on purpose
    assert ch["M.phi"][0] == pytest.approx(math.remainder(a, 2 * math.pi), abs=TOL)   # a first state: in (-pi, pi]
    assert ch["O.phi"][0] == 0.0
    assert ch["pin.s"][0] == pytest.approx(math.remainder(th, 2 * math.pi), abs=TOL)
    assert ch["pin.sd"][0] == pytest.approx(wd, abs=TOL)


# --- a free spinning rigid body: scipy rotations, Euler's equations ------------------------------------

def test_spatial_marker_frame_of_a_spinning_rigid_body():
    p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    q_mk = np.array([0.9, 0.3, 0.1, -0.3]) / np.linalg.norm([0.9, 0.3, 0.1, -0.3])
    s_body, spin, g = np.array([0.3, -0.2, 0.5]), 4.0, np.array([0.0, 0.0, -G])
    rot = Rotation.from_quat(np.roll(p, -1))                     # scipy: [x, y, z, w]
    w = rot.apply([0.0, 0.0, spin])                               # spin about the principal axis z_body
    b = ModelBuilder("top", dimension=3, gravity=tuple(g))
    b.add_rigid_body("body", 2.0, [0.1, 0.2, 0.3], position=(1.0, 2.0, 3.0), orientation=tuple(p),
                     velocity=(0.5, 0.0, -1.0), angular_velocity=tuple(w))
    b.add_marker("M", "body", tuple(s_body), orientation=tuple(q_mk))
    cm = compile_model(b.build())
    ch = _frame(cm, _single(cm, assemble(cm)))
    s = rot.apply(s_body)
    np.testing.assert_allclose(_vec(ch, "M.r"), [1.0, 2.0, 3.0] + s, atol=TOL)
    np.testing.assert_allclose(_vec(ch, "M.v"), [0.5, 0.0, -1.0] + np.cross(w, s), atol=TOL)
    np.testing.assert_allclose(_vec(ch, "M.w"), w, atol=TOL)
    # Euler: J w' + w x J w = 0 with w along a principal axis -> w' = 0, so a = g + w x (w x s)
    np.testing.assert_allclose(_vec(ch, "M.a"), g + np.cross(w, np.cross(w, s)), atol=TOL)
    expected = np.roll((rot * Rotation.from_quat(np.roll(q_mk, -1))).as_quat(), 1)
    got = _vec(ch, "M.q", 4)
    assert min(np.abs(got - expected).max(), np.abs(got + expected).max()) < TOL   # q and -q: same frame
    assert ch["energy.kinetic"][0] == pytest.approx(0.5 * 2.0 * 1.25 + 0.5 * 0.3 * spin**2, abs=TOL)


# --- joint coordinates over several turns ------------------------------------------------------------

def _driven_history(cm, times) -> Trajectory:
    """Assemble at each time from the previous state (stand-in for the kinematic analysis)."""
    rows, q, qd = [], None, None
    for t in times:
        res = assemble(cm, t=float(t), q=q, qd=qd)
        q, qd = res.q, res.qd
        rows.append(res)
    stack = lambda k: np.array([getattr(r, k) for r in rows])   # noqa: E731
    return Trajectory(np.asarray(times, dtype=float), stack("q"), stack("qd"), stack("qdd"), stack("lam"))


def test_revolute_angle_is_continuous_over_several_turns():
    w = 5.0
    b = ModelBuilder("crank", dimension=2)
    b.add_planar_body("crank", 1.0, 0.1, position=(0.5, 0.0))
    b.add_marker("O", "ground", angle=0.3)
    b.add_marker("C", "crank", (-0.5, 0.0), angle=0.3)
    b.add_marker("tip", "crank", (0.5, 0.0))
    b.add_joint("pin", "revolute", "O", "C")
    b.add_driver("motor", "pin", Linear(0.0, w))
    cm = compile_model(b.build())
    times = np.arange(0.0, 3.0001, 0.05)                          # 15 rad = 2.4 turns, 0.25 rad per row
    ch = _frame(cm, _driven_history(cm, times))
    np.testing.assert_allclose(ch["pin.s"], w * times, atol=TOL)  # s = w t, no 2 pi jumps
    np.testing.assert_allclose(ch["pin.sd"], w, atol=TOL)
    np.testing.assert_allclose(ch["tip.r[1]"], np.cos(w * times), atol=TOL)


def test_cylindrical_coordinates_translation_and_rotation():
    s2 = math.sqrt(0.5)
    b = ModelBuilder("cyl", dimension=3, gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("rod", 1.0, [0.1, 0.1, 0.02])
    b.add_marker("guide", "ground", (0.1, 0.2, 0.3), orientation=(s2, s2, 0.0, 0.0))   # z_i along -y world
    b.add_marker("R", "rod", orientation=(s2, s2, 0.0, 0.0))
    b.add_joint("cyl", "cylindrical", "guide", "R")
    b.add_driver("push", "cyl", Linear(0.2, -0.4), coordinate=1)
    b.add_driver("turn", "cyl", Linear(0.5, 3.0), coordinate=2)
    cm = compile_model(b.build())
    times = np.arange(0.0, 4.0001, 0.1)                           # rotation 0.5 .. 12.5 rad
    ch = _frame(cm, _driven_history(cm, times))
    np.testing.assert_allclose(ch["cyl.s[1]"], 0.2 - 0.4 * times, atol=TOL)
    np.testing.assert_allclose(ch["cyl.s[2]"], 0.5 + 3.0 * times, atol=TOL)
    np.testing.assert_allclose(ch["cyl.sd[1]"], -0.4, atol=TOL)
    np.testing.assert_allclose(ch["cyl.sd[2]"], 3.0, atol=TOL)
    np.testing.assert_allclose(ch["R.r[2]"], 0.2 - (0.2 - 0.4 * times), atol=TOL)   # slides along -y


# --- force elements ------------------------------------------------------------------------------------

def test_spring_damper_actuator_and_rotational_spring_outputs():
    k, l0, c, h = 50.0, 0.4, 3.0, 2.0
    m, pos, vel = 1.2, np.array([0.3, -0.9]), np.array([0.7, 0.2])
    kr, th0, cr, spin = 4.0, 0.2, 0.5, 2.5
    b = ModelBuilder("springs", dimension=2, gravity=(0.0, -G))
    b.add_point_mass("bob", m, position=tuple(pos), velocity=tuple(vel))
    b.add_planar_body("wheel", 1.0, 0.3, position=(2.0, 0.0), angular_velocity=spin)
    b.add_marker("anchor", "ground", (0.1, 0.1))
    b.add_marker("hub", "ground", (2.0, 0.0))
    b.add_marker("P", "bob")
    b.add_marker("W", "wheel")
    b.add_spring_damper("spring", "anchor", "P", stiffness=k, free_length=l0, damping=c, force=h)
    b.add_actuator("jack", "anchor", "P", force=1.5)
    b.add_rotational_spring_damper("coil", "hub", "W", stiffness=kr, free_angle=th0, damping=cr)
    cm = compile_model(b.build())
    # free motion, written as a stand-in trajectory: the bob at rest state, the wheel turning at 'spin'
    times = np.arange(0.0, 5.0001, 0.1)                           # wheel angle 0 .. 12.5 rad
    n = len(times)
    q = np.tile(np.r_[pos, 2.0, 0.0, 0.0], (n, 1))
    q[:, 4] = spin * times
    qd = np.tile(np.r_[vel, 0.0, 0.0, spin], (n, 1))
    u = np.zeros((n, cm.n_inputs))
    u[:, cm.input_names.index("jack.f")] = 0.25
    traj = Trajectory(times, q, qd, np.zeros_like(q), np.zeros((n, 0)), u)
    ch = _frame(cm, traj)
    d = pos - [0.1, 0.1]
    L = np.linalg.norm(d)
    Ld = d @ vel / L
    np.testing.assert_allclose(ch["spring.length"], L, atol=TOL)
    np.testing.assert_allclose(ch["spring.speed"], Ld, atol=TOL)
    np.testing.assert_allclose(ch["spring.f"], k * (L - l0) + c * Ld + h, atol=TOL)
    np.testing.assert_allclose(ch["jack.force"], 1.5 + 0.25, atol=TOL)     # time function + input
    np.testing.assert_allclose(ch["jack.length"], L, atol=TOL)
    np.testing.assert_allclose(ch["coil.angle"], spin * times, atol=TOL)   # turns counted
    np.testing.assert_allclose(ch["coil.T"], kr * (spin * times - th0) + cr * spin, atol=TOL)
    V = m * G * pos[1] + 0.5 * k * (L - l0) ** 2 + 0.5 * kr * (spin * times - th0) ** 2
    T = 0.5 * m * vel @ vel + 0.5 * 0.3 * spin**2
    np.testing.assert_allclose(ch["energy.potential"], V, atol=1e-8)     # |V| ~ 300 J: 1e-8 is ~1e-11 rel
    np.testing.assert_allclose(ch["energy.kinetic"], T, atol=TOL)


# --- the seed 002 four-bar (digest §1.9, g = 9.81) ----------------------------------------------------

def test_fourbar_reactions_and_acceleration_against_seed_002():
    """Input torque 39.75 N m on the crank, from rest: theta2'' and the ground reactions of §1.9."""
    cm = compile_model(load_model(MODELS / "fourbar.json"))
    ev = Evaluator(cm)
    ev.u[cm.input_names.index("crank.T[3]")] = 39.75
    res = assemble(cm, evaluator=ev)
    traj = Trajectory(np.array([0.0]), res.q[None], res.qd[None], res.qdd[None], res.lam[None], ev.u[None].copy())
    ch = _frame(cm, traj)
    th2, thdd2 = math.pi / 3, -1.07328025e-3
    # digest values have 9 significant digits: 1e-11 m/s2 on ~1e-3, 2e-7 N on ~40 N
    np.testing.assert_allclose(_vec(ch, "A_crank.a", 2), 2.0 * thdd2 * np.array([-math.sin(th2), math.cos(th2)]),
                               atol=1e-11)
    np.testing.assert_allclose(_vec(ch, "pin_O2.F", 2), [-18.57955735, 12.4735114], atol=2e-7)
    np.testing.assert_allclose(_vec(ch, "pin_O4.F", 2), [18.58667523, 39.02463809], atol=2e-7)
    assert abs(ch["pin_O2.T"][0]) < 1e-9                           # a pin carries no moment (planar: T about z)


def test_fourbar_holding_torque_is_the_driver_effort():
    """Driven at rest at 60 deg, the driver effort is the static holding torque 39.7645299 N m (§1.9)."""
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.add_driver("motor", "pin_O2", Constant(math.pi / 3))
    cm = compile_model(b.build())
    ch = _frame(cm, _single(cm, assemble(cm), iterations=3, residual=1e-13))
    assert ch["motor.f"][0] == pytest.approx(39.7645299, abs=1e-6)   # 9 digits printed
    assert ch["solver.iterations"][0] == 3 and ch["solver.residual"][0] == 1e-13


def test_step_by_step_evaluation_equals_the_trajectory_evaluation():
    """The FMU path (ChannelEvaluator per state) and the CSV path give identical numbers."""
    cm = compile_model(every_joint_spatial())                      # any state will do: not assembled
    rng = np.random.default_rng(1)
    q = np.array([cm.q0, cm.q0 + 0.01])
    traj = Trajectory(np.array([0.0, 0.1]), q, rng.normal(size=q.shape), rng.normal(size=q.shape),
                      rng.normal(size=(2, cm.n_rows)), rng.normal(size=(2, cm.n_inputs)))
    whole = evaluate_channels(cm, traj)
    ce = ChannelEvaluator(cm)
    for i in range(2):
        np.testing.assert_array_equal(ce(traj.t[i], traj.q[i], traj.qd[i], traj.qdd[i], traj.lam[i], traj.u[i]),
                                      whole[i])
