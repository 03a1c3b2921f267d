"""Static equilibrium (analyses/statics.py, relaxation.py) against closed forms, a published derived value
(seed 002 four-bar holding torque, digest seeds-002-003-004 §1.9) and independent minimal-coordinate solutions."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq, minimize, root
from scipy.spatial.transform import Rotation

from fmu_mbs.analyses.assembly import assemble_positions
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.reactions import driver_efforts, joint_reactions
from fmu_mbs.analyses.relaxation import dynamic_relaxation
from fmu_mbs.analyses.statics import force_scale, statics
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AnalysisError, ConvergenceError
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.functions import Linear

MODELS = Path(__file__).resolve().parent.parent / "models"
G = 9.81


def wrap(a: float) -> float:
    return math.atan2(math.sin(a), math.cos(a))


# --- 1. seed 002 four-bar: holding torque -------------------------------------------------------

R1, R2, R3, R4 = 2.5, 2.0, 4.0, 4.0          # ground, crank, coupler, follower (m), Table 5.1
M2, M3, M4 = 1.0, 2.25, 2.0                  # kg
RG2, RG3, RG4 = 1.0, 2.0, 2.0                # CM distance from the proximal joint (m)


def fourbar_closed_form(th2: float) -> tuple[float, float, float]:
    """(T_static, th3, th4): (C8) with the ERRATUM squares and atan2, open branch; T from §1.9."""
    A, B = R1 - R2 * math.cos(th2), R2 * math.sin(th2)
    C = (A * A + B * B + R4 * R4 - R3 * R3) / (-2.0 * R4)
    th4 = math.acos(C / math.hypot(A, B)) - math.atan2(B, A)
    th3 = math.atan2(R4 * math.sin(th4) - B, A + R4 * math.cos(th4))
    k = -R2 * math.sin(th4 - th2) / (R3 * math.sin(th4 - th3))
    p = R2 * math.sin(th3 - th2) / (R4 * math.sin(th3 - th4))
    T = G * (M2 * RG2 * math.cos(th2) + M3 * (R2 * math.cos(th2) + RG3 * k * math.cos(th3))
             + M4 * RG4 * p * math.cos(th4))
    return T, th3, th4


def held_fourbar(function):
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.add_driver("hold", "pin_O2", function)
    return compile_model(b.build())


def test_fourbar_holding_torque_at_60_deg():
    cm = held_fourbar(math.pi / 3)
    ev = Evaluator(cm)
    traj = statics(cm, evaluator=ev)
    assert traj.analysis == "statics (newton)" and len(traj) == 1
    assert np.all(traj.qd == 0.0) and np.all(traj.qdd == 0.0) and traj.lam.shape == (1, cm.n_rows)
    effort = driver_efforts(ev, traj.lam[0])["hold"]
    # the digest prints 39.7645299 (7 decimals: +-5e-8); positions are solved to 1e-9 m and the
    # multipliers to round-off, so 1e-7 N m covers both
    assert effort == pytest.approx(39.7645299, abs=1e-7)
    assert effort == pytest.approx(fourbar_closed_form(math.pi / 3)[0], abs=1e-7)
    # the ground pins carry the whole weight: Sum F_y = (m2 + m3 + m4) g, Sum F_x = 0 (the driver adds a
    # torque only); round-off level of the multipliers (~1e-12 N), 1e-8 N allowed
    react = joint_reactions(ev, traj.lam[0])
    total = react["pin_O2"][0] + react["pin_O4"][0]
    assert total[1] == pytest.approx((M2 + M3 + M4) * G, abs=1e-8)
    assert total[0] == pytest.approx(0.0, abs=1e-8)


@pytest.mark.parametrize("deg", [30.0, 100.0, 150.0, 200.0, 300.0])
def test_fourbar_holding_torque_closed_form(deg):
    """Time-dependent driver th2(t) = th2 - 0.5 + 0.25 t evaluated at t = 2 s (statics at a given time)."""
    th2 = math.radians(deg)
    cm = held_fourbar(Linear(th2 - 0.5, 0.25))
    ev = Evaluator(cm)
    traj = statics(cm, t=2.0, evaluator=ev)
    T, th3, th4 = fourbar_closed_form(th2)
    q = traj.q[0]
    # same (open) assembly branch as the closed form; angles solved to 1e-9 rad
    assert abs(wrap(q[2] - th2)) < 1e-8 and abs(wrap(q[5] - th3)) < 1e-8 and abs(wrap(q[8] - th4)) < 1e-8
    # |dT/dth2| < 120 N m/rad at these angles (closed form; it reaches ~1300 near th2 = 0), so 1e-9 rad
    # of position error gives < 1.2e-7 N m; 1e-6 N m allowed
    assert driver_efforts(ev, traj.lam[0])["hold"] == pytest.approx(T, abs=1e-6)


def fourbar_omega2(th2: float) -> float:
    """d2V/dth2^2 / I_eff at an equilibrium: dT_static/dth2 (central difference of the closed form, error
    ~1e-9 relative) over the (C21) denominator, the generalized inertia in th2."""
    h = 1e-5
    dT = (fourbar_closed_form(th2 + h)[0] - fourbar_closed_form(th2 - h)[0]) / (2.0 * h)
    _, th3, th4 = fourbar_closed_form(th2)
    k = -R2 * math.sin(th4 - th2) / (R3 * math.sin(th4 - th3))
    p = R2 * math.sin(th3 - th2) / (R4 * math.sin(th3 - th4))
    I2, I3, I4 = 0.3, 2.0, 1.35
    inertia = ((M2 * RG2 ** 2 + I2) + k * k * (M3 * RG3 ** 2 + I3)
               + M3 * (R2 ** 2 + 2 * R2 * RG3 * k * math.cos(th2 - th3)) + p * p * (M4 * RG4 ** 2 + I4))
    return dT / inertia


def test_free_fourbar_equilibria():
    """Without a driver the four-bar rests where T_static(th2) = 0. Newton from 60 deg finds the unstable root
    (dT/dth2 < 0, near 102 deg); dynamic relaxation finds the stable one between 15 and 30 deg."""
    cm = compile_model(load_model(MODELS / "fourbar.json"))
    newton = statics(cm, method="newton")
    th_n = newton.q[0, 2]
    # |dT/dth2| ~ 35 N m/rad near 102 deg: 1e-9 rad of position error is < 1e-7 N m
    assert fourbar_closed_form(th_n)[0] == pytest.approx(0.0, abs=1e-6)
    assert newton.info["omega2_min"][0] == pytest.approx(fourbar_omega2(th_n), rel=1e-6)
    assert newton.info["omega2_min"][0] < 0.0
    relaxed = statics(cm, method="relaxation")
    th_ref = brentq(lambda x: fourbar_closed_form(x)[0], math.radians(15.0), math.radians(30.0), xtol=1e-15)
    assert relaxed.q[0, 2] == pytest.approx(th_ref, abs=1e-9)
    assert relaxed.info["omega2_min"][0] == pytest.approx(fourbar_omega2(th_ref), rel=1e-6)
    assert relaxed.info["omega2_min"][0] > 0.0
    # "auto" must not settle for the unstable root Newton finds: it goes on to the stable one
    auto = statics(cm)
    assert auto.q[0, 2] == pytest.approx(th_ref, abs=1e-9)
    assert auto.analysis == "statics (dynamic relaxation + newton)"


# --- 2. spring-loaded mechanisms ----------------------------------------------------------------

PM, PC, PI = 2.0, 0.5, 0.2   # pendulum link: mass (kg), pivot-to-CM distance (m), inertia about the CM (kg m^2)


def link_pendulum(theta: float, k: float = 0.0, theta0: float = 0.0, torque: float | None = None):
    """Planar link pinned at the origin, CM at PC along the body x axis, initial angle theta."""
    b = ModelBuilder("link_pendulum", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("link", PM, PI, position=(PC * math.cos(theta), PC * math.sin(theta)), angle=theta)
    b.add_marker("O", "ground")
    b.add_marker("pin", "link", (-PC, 0.0))
    b.add_joint("pivot", "revolute", "O", "pin")
    if k:
        b.add_rotational_spring_damper("spring", "O", "pin", stiffness=k, free_angle=theta0)
    if torque is not None:
        b.add_point_load("motor", "pin", torque=torque)
    return compile_model(b.build())


def test_pendulum_with_rotational_spring():
    k, th0 = 50.0, 0.5
    cm = link_pendulum(0.0, k, th0)
    ev = Evaluator(cm)
    traj = statics(cm, evaluator=ev)
    # k (th - th0) = -m g c cos th, unique because k > m g c (f is monotone on the bracket)
    th = brentq(lambda x: k * (x - th0) + PM * G * PC * math.cos(x), th0 - 1.0, th0, xtol=1e-15)
    assert traj.q[0, 2] == pytest.approx(th, abs=1e-9)   # statics solves angles to 1e-9 rad
    F, T = joint_reactions(ev, traj.lam[0])["pivot"]
    assert F[:2] == pytest.approx([0.0, PM * G], abs=1e-8)
    # small oscillations: omega^2 = V''/I_O = (k - m g c sin th) / (I + m c^2); the FD tangent is
    # accurate to ~1e-9 relative, 1e-6 relative allowed
    w2 = (k - PM * G * PC * math.sin(th)) / (PI + PM * PC ** 2)
    assert traj.info["omega2_min"][0] == pytest.approx(w2, rel=1e-6)


def test_rotational_spring_wound_over_several_turns():
    """A drum on an axle, torque T against a coil spring k, no gravity: th = th0 + T / k = 10.3 rad (1.6 turns).
    The spring must count turns along the way (seed 000 eqs. 4.123-4.127), which relaxation does."""
    k, th0, T = 2.0, 0.3, 20.0
    b = ModelBuilder("wound_spring", dimension=2, gravity=(0.0, 0.0))
    b.add_planar_body("drum", 1.0, 0.05)
    b.add_marker("O", "ground")
    b.add_marker("hub", "drum")
    b.add_joint("axle", "revolute", "O", "hub")
    b.add_rotational_spring_damper("coil", "O", "hub", stiffness=k, free_angle=th0)
    b.add_point_load("motor", "hub", torque=T)
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    traj = statics(cm, evaluator=ev)
    assert traj.q[0, 2] == pytest.approx(th0 + T / k, abs=1e-9)
    assert ev.rsda_out[0, 2] == pytest.approx(T, abs=1e-8)   # spring torque balances the motor


def test_spring_block_on_incline_with_redundant_guide():
    """Block on a 30 deg downward rail held by a spring from the rail origin: s = l0 + m g sin(30 deg) / k.
    A second, parallel prismatic guide makes two rows redundant; the guides share the normal load."""
    m, k, l0, beta = 3.0, 400.0, 0.6, -math.pi / 6
    ex = np.array([math.cos(beta), math.sin(beta)])
    b = ModelBuilder("incline", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("block", m, 0.05, position=tuple(0.9 * ex))
    b.add_marker("rail", "ground", angle=beta)
    b.add_marker("rail2", "ground", tuple(-0.5 * ex), angle=beta)
    b.add_marker("shoe", "block", angle=beta)
    b.add_marker("shoe2", "block", tuple(0.2 * ex), angle=beta)
    b.add_joint("guide", "prismatic", "rail", "shoe")
    b.add_joint("guide2", "prismatic", "rail2", "shoe2")
    b.add_spring_damper("spring", "rail", "shoe", stiffness=k, free_length=l0)
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    traj = statics(cm, evaluator=ev)
    s = float(traj.q[0, :2] @ ex)
    assert s == pytest.approx(l0 + m * G * math.sin(-beta) / k, abs=1e-9)
    react = joint_reactions(ev, traj.lam[0])
    total = react["guide"][0][:2] + react["guide2"][0][:2]
    normal = np.array([-ex[1], ex[0]])
    assert total @ normal == pytest.approx(m * G * math.cos(beta), abs=1e-8)   # frictionless: normal load only
    assert total @ ex == pytest.approx(0.0, abs=1e-8)


# --- 3./4. hanging chain: minimal-coordinate energy minimum; Newton vs dynamic relaxation ---------

CL, CD, CH = 0.5, 2.0, 0.4                      # link length, end-point offset (m)
CM_ = (1.0, 1.5, 0.8, 1.2, 2.0, 0.7, 1.1)       # link masses (kg), uniform rods
HANGING = np.linspace(-0.6, 0.8, len(CM_))      # start angles below the chord
ARCHED = np.linspace(0.9, -0.7, len(CM_))       # start angles above it


def chain(angles):
    b = ModelBuilder("chain", dimension=2, gravity=(0.0, -G))
    b.add_marker("A", "ground")
    b.add_marker("B", "ground", (CD, CH))
    p = np.zeros(2)
    for i, (m, th) in enumerate(zip(CM_, angles)):
        e = np.array([math.cos(th), math.sin(th)])
        b.add_planar_body(f"link{i}", m, m * CL * CL / 12.0, position=tuple(p + 0.5 * CL * e), angle=th)
        b.add_marker(f"l{i}", f"link{i}", (-CL / 2, 0.0))
        b.add_marker(f"r{i}", f"link{i}", (CL / 2, 0.0))
        p = p + CL * e
    b.add_joint("pin_A", "revolute", "A", "l0")
    for i in range(len(CM_) - 1):
        b.add_joint(f"pin_{i}", "revolute", f"r{i}", f"l{i + 1}")
    b.add_joint("pin_B", "revolute", "B", f"r{len(CM_) - 1}")
    return compile_model(b.build())


def _chain_kkt(z):
    """Stationarity of V(th) + mu . (end point - B) in the link angles (minimal coordinates)."""
    n = len(CM_)
    th, mux, muy = z[:n], z[n], z[n + 1]
    below = np.array([sum(CM_[i + 1:]) for i in range(n)])
    g = G * CL * np.cos(th) * (0.5 * np.array(CM_) + below) - mux * CL * np.sin(th) + muy * CL * np.cos(th)
    return np.concatenate([g, [CL * np.sum(np.cos(th)) - CD, CL * np.sum(np.sin(th)) - CH]])


def chain_equilibrium(start, minimise: bool = True) -> np.ndarray:
    """Link angles: SLSQP minimum of the potential energy with the end-point constraints (if ``minimise``),
    then the KKT equations solved to ~1e-14 (SLSQP alone stops at ~1e-8)."""
    n = len(CM_)
    th = np.asarray(start, dtype=float)
    if minimise:
        def energy(a):
            y = np.concatenate([[0.0], np.cumsum(CL * np.sin(a))[:-1]])
            return G * float(np.sum(np.array(CM_) * (y + 0.5 * CL * np.sin(a))))
        cons = [{"type": "eq", "fun": lambda a: CL * np.sum(np.cos(a)) - CD},
                {"type": "eq", "fun": lambda a: CL * np.sum(np.sin(a)) - CH}]
        th = minimize(energy, th, constraints=cons, method="SLSQP", options={"ftol": 1e-15, "maxiter": 500}).x
    sol = root(_chain_kkt, np.concatenate([th, [0.0, 0.0]]), tol=1e-14)
    # the residual is the criterion: root() may report "xtol too small" once it is already at round-off
    assert np.max(np.abs(_chain_kkt(sol.x))) < 1e-12, sol.message
    return sol.x[:n]


def test_hanging_chain_matches_energy_minimum():
    ref = chain_equilibrium(np.linspace(-0.9, 0.9, len(CM_)))
    traj = statics(chain(HANGING))
    assert traj.analysis == "statics (newton)"
    # angles solved to 1e-9 rad (constraint tol) / reference to ~1e-14: 1e-8 rad allowed
    assert np.max(np.abs(traj.q[0, 2::3] - ref)) < 1e-8
    assert traj.info["omega2_min"][0] > 0.0   # a minimum of the potential: stable


def test_relaxation_agrees_with_newton_on_chain():
    ref = chain_equilibrium(np.linspace(-0.9, 0.9, len(CM_)))
    cm = chain(HANGING)
    newton, relaxed = statics(cm, method="newton"), statics(cm, method="relaxation")
    assert relaxed.analysis == "statics (dynamic relaxation + newton)"
    assert relaxed.info["relaxation_steps"][0] > 0
    assert np.max(np.abs(relaxed.q[0] - newton.q[0])) < 1e-8        # both solve to 1e-9
    assert np.max(np.abs(relaxed.lam[0] - newton.lam[0])) < 1e-6    # N; fscale ~ 80 N times tol 1e-9 ~ 1e-7
    # relaxation alone (before the Newton polish) stops at an unbalanced force of 1e-6 of the force scale
    # (~8e-5 N); against the chain's lowest modal stiffness (omega^2 ~ 15 1/s^2 on ~1 kg m^2) that is
    # ~1e-5 rad; 1e-4 rad allowed
    ev = Evaluator(cm)
    q, _ = assemble_positions(ev, 0.0, cm.q0)
    rel = dynamic_relaxation(ev, 0.0, q, fscale=force_scale(ev, 0.0, q))
    assert rel.converged and rel.residual <= 1e-6
    assert np.max(np.abs(rel.q[2::3] - ref)) < 1e-4


def test_arched_chain_newton_finds_inverted_relaxation_finds_hanging():
    """From an arch, Newton converges to the inverted (unstable) stationary shape, flagged by omega2_min < 0;
    dynamic relaxation settles in the stable hanging shape."""
    cm = chain(ARCHED)
    newton = statics(cm, method="newton")
    inverted = chain_equilibrium(newton.q[0, 2::3], minimise=False)   # KKT root near Newton's answer
    assert np.max(np.abs(newton.q[0, 2::3] - inverted)) < 1e-8
    assert np.all(inverted[:3] > 0.0)   # the first links rise: it is the arch, not the hanging chain
    assert newton.info["omega2_min"][0] < 0.0
    relaxed = statics(cm, method="relaxation")
    ref = chain_equilibrium(np.linspace(-0.9, 0.9, len(CM_)))
    assert np.max(np.abs(relaxed.q[0, 2::3] - ref)) < 1e-8
    assert relaxed.info["omega2_min"][0] > 0.0


def test_newton_failure_falls_back_to_relaxation():
    """A pendulum released horizontally: the tangent is singular there (dQ/dth = m g c sin th = 0) while the
    gravity torque m g c is not, so Newton cannot move; relaxation lets it hang at th = -pi/2."""
    cm = link_pendulum(0.0)
    with pytest.raises(ConvergenceError, match="link_pendulum"):
        statics(cm, method="newton")
    traj = statics(cm)
    assert traj.analysis == "statics (dynamic relaxation + newton)"
    assert traj.q[0, 2] == pytest.approx(-math.pi / 2, abs=1e-9)
    assert traj.info["omega2_min"][0] == pytest.approx(PM * G * PC / (PI + PM * PC ** 2), rel=1e-6)


def test_upright_pendulum_is_an_unstable_equilibrium():
    traj = statics(link_pendulum(math.pi / 2))
    assert traj.q[0, 2] == pytest.approx(math.pi / 2, abs=1e-12)
    assert traj.info["omega2_min"][0] == pytest.approx(-PM * G * PC / (PI + PM * PC ** 2), rel=1e-6)


# --- 5. spatial: r-p body on a horizontal hinge with a torsion spring -----------------------------

def test_spatial_torsion_pendulum():
    m, c, d, k, th0 = 3.0, 0.4, 0.15, 40.0, 0.9   # CM at c from the hinge axis and d along it
    h = np.array([1.0, -1.0, 0.0]) / math.sqrt(2.0)
    up = np.array([0.0, 0.0, 1.0])
    zi = np.cross(h, up)
    Ri = np.column_stack([h, up, zi])              # hinge frame: x horizontal, y up, z = axis (horizontal)
    pivot = np.array([0.3, -0.2, 1.0])
    th_start = 0.2
    Rj = np.column_stack([math.cos(th_start) * h + math.sin(th_start) * up,
                          -math.sin(th_start) * h + math.cos(th_start) * up, zi])
    Rm = Rotation.from_euler("xyz", [0.3, -0.2, 0.5]).as_matrix()   # marker frame in the body frame
    A = Rj @ Rm.T
    inertia = np.array([[0.05, 0.01, 0.0], [0.01, 0.08, 0.02], [0.0, 0.02, 0.06]])
    cg = pivot + c * Rj[:, 0] + d * zi

    def wxyz(R):
        x, y, z, w = Rotation.from_matrix(R).as_quat()
        return (w, x, y, z)

    b = ModelBuilder("torsion_pendulum", dimension=3, gravity=(0.0, 0.0, -G))
    b.add_rigid_body("arm", m, inertia.tolist(), position=tuple(cg), orientation=wxyz(A))
    b.add_marker("P", "ground", tuple(pivot), orientation=wxyz(Ri))
    b.add_marker("hinge", "arm", tuple(A.T @ (pivot - cg)), orientation=wxyz(Rm))
    b.add_joint("rev", "revolute", "P", "hinge")
    b.add_rotational_spring_damper("torsion", "P", "hinge", stiffness=k, free_angle=th0)
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    traj = statics(cm, evaluator=ev)
    # V = m g c sin th + k (th - th0)^2 / 2  ->  k (th - th0) = -m g c cos th
    th = brentq(lambda x: k * (x - th0) + m * G * c * math.cos(x), th0 - 3.0, th0, xtol=1e-15)
    q = traj.q[0]
    e0, e1, e2, e3 = q[3:7]
    A_eq = Rotation.from_quat([e1, e2, e3, e0]).as_matrix()
    xj = A_eq @ Rm[:, 0]
    assert math.atan2(xj @ up, xj @ h) == pytest.approx(th, abs=1e-9)
    assert q[:3] == pytest.approx(pivot + c * (math.cos(th) * h + math.sin(th) * up) + d * zi, abs=1e-9)
    # the hinge carries the weight and the moment of the axial CM offset d: T = d m g (z_i x up)
    F, T = joint_reactions(ev, traj.lam[0])["rev"]
    assert F == pytest.approx([0.0, 0.0, m * G], abs=1e-8)
    assert T == pytest.approx(d * m * G * np.cross(zi, up), abs=1e-8)
    # omega^2 = (k - m g c sin th) / I_axis, I_axis = z^T (A I A^T) z + m c^2 (parallel axes)
    I_axis = zi @ A_eq @ inertia @ A_eq.T @ zi + m * c * c
    assert traj.info["omega2_min"][0] == pytest.approx((k - m * G * c * math.sin(th)) / I_axis, rel=1e-6)
    relaxed = statics(cm, method="relaxation")
    assert relaxed.q[0] == pytest.approx(q, abs=1e-8)


# --- 6. no equilibrium --------------------------------------------------------------------------

def test_free_body_has_no_equilibrium():
    b = ModelBuilder("free_fall", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("stone", 1.0, 0.1)
    with pytest.raises(ConvergenceError) as err:
        statics(compile_model(b.build()))
    msg = str(err.value)
    assert "free_fall" in msg and "stone.y = -9.81" in msg


def test_torque_beyond_gravity_has_no_equilibrium():
    """A motor torque of 2 m g c on the pendulum exceeds the largest gravity torque m g c at any angle."""
    with pytest.raises(ConvergenceError) as err:
        statics(link_pendulum(0.0, torque=2.0 * PM * G * PC))
    msg = str(err.value)
    assert "link_pendulum" in msg and "link.theta" in msg and "dynamic relaxation" in msg


def test_unknown_method():
    with pytest.raises(AnalysisError, match="link_pendulum"):
        statics(link_pendulum(0.0), method="penalty")


# --- the equilibrium is not where the model starts -----------------------------------------------------

def test_statics_says_so_when_the_crane_without_its_actuator_held_settles_elsewhere():
    """The crane's boom is lifted by the actuator input cylinder.f: left at 0 N the boom sinks (its equilibrium is
    far from the start, and statics says so); at the moment-balance holding force (6867 N, the README's catalogue
    reference) it rests where it starts and nothing is said."""
    cm = compile_model(load_model(MODELS / "crane.json"))
    traj = statics(cm)
    assert traj.info["moved"][0] > 0.1
    assert len(traj.notes) == 1
    note = traj.notes[0]
    assert note.startswith("model 'crane': the static equilibrium is not where the model starts")
    assert "boom" in note and "largest unbalanced generalized forces" in note
    ev = Evaluator(cm)
    ev.u[cm.input_names.index("cylinder.f")] = 6867.0
    held = statics(cm, evaluator=ev)
    assert held.notes == [] and held.info["moved"][0] < 1e-3


def test_statics_of_a_pendulum_hanging_at_rest_has_nothing_to_say():
    b = ModelBuilder("hanging", dimension=2)
    b.add_point_mass("bob", 1.0, position=(0.0, -1.0))
    b.add_marker("B", "bob")
    b.add_marker("O", "ground")
    b.add_joint("rod", "distance", "O", "B", length=1.0)
    traj = statics(compile_model(b.build()))
    assert traj.notes == [] and traj.info["moved"][0] < 1e-9
