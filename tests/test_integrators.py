"""The ALF integrator (index-3 augmented Lagrangian, trapezoidal rule, mass-orthogonal projections) and the
scipy reference path: agreement with each other and with conservation laws on models that use every force
element, spatial against planar motion, redundant constraints, energy bookkeeping, state save/restore,
substeps, and failure reporting. Comments give the measured values behind each tolerance."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.assembly import AssemblyResult, assemble
from fmu_mbs.analyses.integrators import REPORT_KEYS, ALFIntegrator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AnalysisError, ConvergenceError
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.functions import Harmonic

MODELS = Path(__file__).resolve().parents[1] / "models"
S = math.sqrt(0.5)


def mixed(dimension: int, passive: bool = False):
    """A pendulum, a body sliding on it (prismatic/cylindrical) and a point mass, with a TSDA, an RSDA, a
    bushing, a point load and an actuator; ``passive`` keeps only springs (conservative)."""
    d3 = dimension == 3
    v = (lambda *x: x) if d3 else (lambda *x: x[:2])
    b = ModelBuilder(f"mixed_{dimension}d", dimension=dimension, gravity=v(0.0, -9.81, 0.0))
    if d3:
        b.add_rigid_body("A", 2.0, (0.01, 0.2, 0.2), position=(0.5, 0.0, 0.0))
        b.add_rigid_body("B", 1.0, (0.02, 0.05, 0.05), position=(0.8, 0.0, 0.0))
    else:
        b.add_planar_body("A", 2.0, 0.2, position=(0.5, 0.0))
        b.add_planar_body("B", 1.0, 0.05, position=(0.8, 0.0))
    b.add_point_mass("P", 0.5, position=v(0.8, -0.3, 0.1))
    xz = dict(orientation=(S, 0.0, S, 0.0)) if d3 else {}      # spatial: slide axis z_i along the arm (x)
    b.add_marker("O", "ground", v(0.0, 0.0, 0.0))
    b.add_marker("G1", "ground", v(1.0, 0.5, 0.2))
    b.add_marker("A0", "A", v(-0.5, 0.0, 0.0))
    b.add_marker("A1", "A", v(0.0, 0.0, 0.0), **xz)
    b.add_marker("A2", "A", v(0.2, 0.1, 0.0))
    b.add_marker("B0", "B", v(0.0, 0.0, 0.0), **xz)
    b.add_marker("P0", "P", v(0.0, 0.0, 0.0))
    b.add_joint("pin", "revolute", "O", "A0")
    b.add_joint("slide", "cylindrical" if d3 else "prismatic", "A1", "B0")
    damp = 0.0 if passive else 1.0
    b.add_spring_damper("spring", "G1", "B0", stiffness=200.0, free_length=0.4, damping=3.0 * damp,
                        force=0.0 if passive else Harmonic(amplitude=5.0, omega=7.0, phase=0.0, offset=1.0))
    b.add_rotational_spring_damper("torsion", "O", "A0", stiffness=10.0, damping=0.5 * damp,
                                   torque=0.0 if passive else Harmonic(amplitude=2.0, omega=3.0, phase=0.5, offset=0.0))
    b.add_bushing("bush", "B0", "P0", stiffness=(300.0, 300.0, 300.0 if d3 else 0.0),
                  damping=(2.0 * damp, 2.0 * damp, 2.0 * damp if d3 else 0.0))
    if not passive:
        b.add_point_load("load", "P0", force=v(Harmonic(amplitude=3.0, omega=5.0, phase=0.0, offset=0.0), 1.0, 0.0),
                         torque=(0.0, 0.0, 0.0) if d3 else 0.0)
        b.add_actuator("act", "G1", "A2", force=4.0)
    return compile_model(b.build())


def balance(tr):
    """kinetic + potential + dissipated - input (J): constant for the exact solution."""
    i = tr.info
    return i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"] - i["energy_input"]


# --- ALF against the reference on every force element --------------------------------------------------------------

@pytest.mark.parametrize("dimension", [2, 3])
@pytest.mark.parametrize("passive", [False, True])
def test_alf_matches_reference_with_every_force_element(dimension, passive):
    cm = mixed(dimension, passive)
    ref = simulate(cm, 1.0, 0.01, integrator="reference")
    # the reference integrates the dissipated and input powers as extra states: its balance closes to
    # round-off (measured <= 2.2e-10 J over 1 s with ~13 J dissipated), which checks the power split
    assert np.max(np.abs(balance(ref) - balance(ref)[0])) < 1e-8
    err, bal = {}, {}
    for h in (1e-3, 5e-4):
        tr = simulate(cm, 1.0, h, output_step=0.01)
        err[h] = np.max(np.abs(tr.q - ref.q))
        bal[h] = np.max(np.abs(balance(tr) - balance(tr)[0]))
        assert set(REPORT_KEYS) <= set(tr.info)
        assert np.all(tr.info["iterations"][1:] >= 2)
    # measured max |q - q_ref| at h = 1e-3: 5.1e-5 / 1.5e-4 (damped 2D / 3D), 3.8e-4 / 3.8e-4 (passive);
    # second order: each halving of h divides the error by ~4 (measured 3.9-4.0)
    assert err[1e-3] < 1e-3
    assert err[1e-3] / err[5e-4] > 3.5
    # ALF balance: measured 2.3e-3 / 2.5e-3 J (damped 2D / 3D, of 13 J dissipated), 2.2e-4 J (passive),
    # falling 4.0x per halving; dissipated and input work agree with the reference within 5e-5 (relative)
    assert bal[1e-3] < 5e-3
    assert bal[1e-3] / bal[5e-4] > 3.0
    if not passive:
        assert tr.info["energy_dissipated"][-1] == pytest.approx(ref.info["energy_dissipated"][-1], rel=1e-3)
        assert tr.info["energy_input"][-1] == pytest.approx(ref.info["energy_input"][-1], rel=1e-3)


def test_driver_work_enters_the_energy_balance():
    """A driven joint (rheonomic constraint) does work -lam . nu on the system."""
    b = ModelBuilder.from_model(load_model(MODELS / "double_pendulum.json"))
    b.add_driver("swing", "joint1", Harmonic(amplitude=0.8, omega=4.0, phase=0.0, offset=0.0))
    cm = compile_model(b.build())
    ref = simulate(cm, 2.0, 0.01, integrator="reference")
    tr = simulate(cm, 2.0, 1e-3, output_step=0.01)
    assert np.max(np.abs(ref.info["energy_input"])) > 10.0           # the driver really pumps energy
    assert np.max(np.abs(balance(ref) - balance(ref)[0])) < 1e-8       # measured 1.5e-13 J
    # the multipliers (hence -lam . nu) are second order in the ALF: measured 5.5e-5 J of 27 J put in
    assert np.max(np.abs(balance(tr) - balance(tr)[0])) < 2e-4
    assert np.max(np.abs(tr.q - ref.q)) < 2e-5                         # measured 4.0e-6 (h = 1e-3)


# --- chains: planar, spatial, spatial in a tilted plane --------------------------------------------------------------

def chain(n: int, spatial: bool, tilt: np.ndarray | None = None, L: float = 0.5, mass: float = 1.0):
    """n uniform links (L m, mass kg) on revolute joints about z, released horizontally under gravity -y.
    ``tilt`` (unit quaternion) rotates the whole spatial model, gravity included."""
    from fmu_mbs.kernels.rotation import quat_to_matrix
    Rt = np.eye(3)
    if tilt is not None:
        quat_to_matrix(np.asarray(tilt, dtype=float), Rt)
    rot = tuple(tilt) if tilt is not None else (1.0, 0.0, 0.0, 0.0)
    b = ModelBuilder(f"chain{n}", dimension=3 if spatial else 2,
                     gravity=tuple(Rt @ (0.0, -9.81, 0.0)) if spatial else (0.0, -9.81))
    I = mass * L * L / 12.0
    for k in range(n):
        x = L / 2 + k * L
        if spatial:
            b.add_rigid_body(f"link{k}", mass, (1e-3, I, I), position=tuple(Rt @ (x, 0.0, 0.0)), orientation=rot)
            b.add_marker(f"a{k}", f"link{k}", (-L / 2, 0.0, 0.0))
            b.add_marker(f"b{k}", f"link{k}", (L / 2, 0.0, 0.0))
        else:
            b.add_planar_body(f"link{k}", mass, I, position=(x, 0.0))
            b.add_marker(f"a{k}", f"link{k}", (-L / 2, 0.0))
            b.add_marker(f"b{k}", f"link{k}", (L / 2, 0.0))
    b.add_marker("pivot", "ground", orientation=rot) if spatial else b.add_marker("pivot", "ground")
    for k in range(n):
        b.add_joint(f"j{k}", "revolute", "pivot" if k == 0 else f"b{k - 1}", f"a{k}")
    return compile_model(b.build())


def _link_angles(tr, n, spatial, tilt=None):
    if not spatial:
        return tr.q[:, 2::3]
    from fmu_mbs.kernels.rotation import quat_to_matrix
    out = np.zeros((len(tr.t), n))
    Rt, A = np.eye(3), np.eye(3)
    if tilt is not None:
        quat_to_matrix(np.asarray(tilt, dtype=float), Rt)
    for i, q in enumerate(tr.q):
        for k in range(n):
            quat_to_matrix(q[7 * k + 3:7 * k + 7], A)
            x = Rt.T @ A[:, 0]                       # link axis in the untilted frame
            out[i, k] = math.atan2(x[1], x[0])
    return out


def _wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def test_planar_chain_against_reference_and_spatial_chains_against_planar():
    n, T = 4, 3.0
    tilt = np.array([math.cos(0.35), *(math.sin(0.35) * np.array([1.0, 2.0, 2.0]) / 3.0)])
    ref = simulate(chain(n, False), T, 0.01, integrator="reference")
    planar = {h: simulate(chain(n, False), T, h, output_step=0.01) for h in (1e-3, 5e-4)}
    err = {h: np.max(np.abs(_wrap(_link_angles(tr, n, False) - ref.q[:, 2::3]))) for h, tr in planar.items()}
    # measured 6.2e-3 rad at h = 1e-3, 1.5e-3 at 5e-4 (the tip link whips through 10+ rad in 3 s)
    assert err[1e-3] < 1.3e-2
    assert err[1e-3] / err[5e-4] > 3.5
    a2 = _link_angles(planar[1e-3], n, False)
    for tl in (None, tilt):
        cm3 = chain(n, True, tl)
        tr3 = simulate(cm3, T, 1e-3, output_step=0.01)
        # same motion in Euler parameters: differs from the planar ALF by discretisation only
        # (measured 1.6e-3 rad at h = 1e-3 with both; the spatial one is 7.8e-3 from the reference)
        assert np.max(np.abs(_wrap(_link_angles(tr3, n, True, tl) - a2))) < 5e-3
        Rt = np.eye(3)
        if tl is not None:
            from fmu_mbs.kernels.rotation import quat_to_matrix
            quat_to_matrix(tl, Rt)
        r = np.stack([tr3.q[:, 7 * k:7 * k + 3] @ Rt for k in range(n)], axis=1)   # CM positions, untilted
        assert np.max(np.abs(r[:, :, 2])) < 1e-9                                     # stays in its plane
        E = tr3.info["energy_kinetic"] + tr3.info["energy_potential"]
        assert np.max(np.abs(E - E[0])) < 0.05                                        # measured 0.025 J of 39 J
        assert np.max(tr3.info["residual_position"]) < 1e-9                          # measured 9.2e-12 m


def test_chain_energy_and_constraint_drift_over_a_long_run():
    """Conservative 10-link spatial chain, 20 s: energy stays within 2 % of the potential-energy drop to
    hanging (m g L N^2 / 2 = 245 J). The motion is chaotic and the energy error comes in whip events, so
    round-off-level changes of the code move max |E - E0| between 0.9 and 2.0 J (numba-spike §3: 0.41-0.70 J
    over 10 s); the constraint residuals stay bounded (measured 5e-11 m, 3.5e-8 m/s, 2.7e-5 m/s^2)."""
    tr = simulate(chain(10, True), 20.0, 1e-3, output_step=0.01)
    E = tr.info["energy_kinetic"] + tr.info["energy_potential"]
    assert np.max(np.abs(E - E[0])) < 4.9
    assert np.max(tr.info["residual_position"]) < 1e-9
    assert np.max(tr.info["residual_velocity"]) < 1e-6
    assert np.max(tr.info["residual_acceleration"]) < 1e-3


# --- redundant constraints -----------------------------------------------------------------------------------------

def test_spatial_fourbar_with_redundant_constraints_moves_like_the_planar_one():
    """Four revolute joints with parallel axes over-constrain a spatial four-bar (20 joint rows + 3 norms on
    21 coordinates, 1 DOF): the penalty formulation tolerates the redundancy."""
    planar = load_model(MODELS / "fourbar.json")
    b = ModelBuilder("fourbar_3d", dimension=3, gravity=(0.0, -9.81, 0.0))
    for body in planar.bodies:
        I = body.inertia
        b.add_rigid_body(body.name, body.mass, (0.6 * I, 0.6 * I, I), position=(*body.position, 0.0),
                         orientation=(math.cos(body.angle / 2), 0.0, 0.0, math.sin(body.angle / 2)))
    for mk in planar.markers:
        b.add_marker(mk.name, mk.body, (*mk.position, 0.0))
    for j in planar.joints:
        b.add_joint(j.name, j.type, j.marker_i, j.marker_j)
    torque = 60.0                                        # well above the 39.75 N m holding torque: it turns
    b.add_point_load("T", "crank", torque=(0.0, 0.0, torque))
    cm3 = compile_model(b.build())
    p = ModelBuilder.from_model(planar)
    p.add_point_load("T", "crank", torque=torque)
    cm2 = compile_model(p.build())
    a3 = assemble(cm3)
    assert a3.redundant                                   # the assembly sees the dependent rows
    t3 = simulate(cm3, 2.0, 1e-3, initial=a3, output_step=0.01)
    ref = simulate(cm2, 2.0, 0.01, integrator="reference")
    th3 = 2.0 * np.arctan2(t3.q[:, 6], t3.q[:, 3])
    assert np.ptp(ref.q[:, 2]) > 6.0                       # the crank turns a full revolution in 2 s
    # measured 5.0e-4 rad (the planar ALF: 4.9e-4); the penalty absorbs the 3 dependent rows
    assert np.max(np.abs(_wrap(th3 - ref.q[:, 2]))) < 1.5e-3
    assert np.max(t3.info["residual_position"]) < 1e-9
    assert np.max(t3.info["residual_velocity"]) < 1e-7     # measured 2.4e-9 m/s
    # the multipliers of the independent in-plane rows are unique; over the first 0.3 s (speeds still
    # moderate, |lam| up to 32 N) they match the index-1 solution (measured 2.1e-7 N)
    lam_ref = simulate(cm3, 0.3, 0.01, integrator="reference", initial=a3).lam
    assert np.max(np.abs(t3.lam[:31, :2] - lam_ref[:, :2])) < 1e-5


# --- linear algebra ------------------------------------------------------------------------------------------------

def test_envelope_and_dense_cholesky_solve_like_numpy():
    from fmu_mbs.kernels.linalg import dense_cholesky, dense_cholesky_solve, env_cholesky, env_solve_permuted
    rng = np.random.default_rng(7)
    n = 12
    first = np.array([0, 0, 1, 0, 3, 3, 5, 2, 7, 7, 9, 10], dtype=np.int64)      # a ragged envelope
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(first[i], i):
            A[i, j] = A[j, i] = rng.uniform(-1.0, 1.0)
    A += n * np.eye(n)                                                            # diagonally dominant: SPD
    ptr = np.concatenate([[0], np.cumsum(np.arange(n) - first + 1)])
    val = np.concatenate([A[i, first[i]:i + 1] for i in range(n)])
    pos = rng.permutation(n)                        # coordinate i sits in envelope row pos[i]
    Ap = A[np.ix_(pos, pos)]                        # the matrix in coordinate order
    b = rng.normal(size=n)
    assert env_cholesky(first, ptr, val, 1e-13) == -1
    x = b.copy()
    env_solve_permuted(first, ptr, val, pos, x, np.zeros(n))
    assert np.allclose(x, np.linalg.solve(Ap, b), rtol=0.0, atol=1e-12)
    L = A.copy()
    assert dense_cholesky(L, 1e-13) == -1
    y = b.copy()
    dense_cholesky_solve(L, y)
    assert np.allclose(y, np.linalg.solve(A, b), rtol=0.0, atol=1e-12)
    A[5, 5] = -1.0                                   # not positive definite: the failing row is reported
    assert dense_cholesky(A.copy(), 1e-13) == 5


# --- integrator object: state, substeps, inputs, failures ---------------------------------------------------------

def test_save_restore_and_replay_are_bit_for_bit():
    cm = mixed(3)
    ig = ALFIntegrator(cm, 1e-3)
    ig.advance(50)
    saved = ig.save()
    ig.u[:] = 0.5
    ig.advance(30)
    first = [a.copy() for a in (ig.q, ig.qd, ig.qdd, ig.lam)] + [ig.t, ig.energy_dissipated, ig.energy_input]
    ig.restore(saved)
    assert ig.t == pytest.approx(0.05, abs=1e-15) and np.all(ig.u == 0.0)
    ig.u[:] = 0.5
    ig.advance(30)
    second = [a.copy() for a in (ig.q, ig.qd, ig.qdd, ig.lam)] + [ig.t, ig.energy_dissipated, ig.energy_input]
    for x, y in zip(first, second):
        assert np.array_equal(x, y)


def test_advance_to_takes_equal_substeps_of_at_most_the_step():
    cm = load_model(MODELS / "pendulum.json")
    cm = compile_model(cm)
    ig = ALFIntegrator(cm, 1e-3)
    rep = ig.advance_to(0.0105)
    assert len(rep) == 11 and ig.t == 0.0105
    ig2 = ALFIntegrator(cm, 0.0105 / 11)
    ig2.advance(11)
    assert np.allclose(ig.q, ig2.q, rtol=0.0, atol=1e-15)
    with pytest.raises(ValueError, match="backwards"):
        ig.advance_to(0.01)


def test_marker_input_equals_the_same_point_load():
    """Input-vector loads (FMU inputs) and a constant point load at the same marker give the same motion."""
    base = load_model(MODELS / "double_pendulum.json")
    b = ModelBuilder.from_model(base)
    b.add_point_load("push", "P2", force=(3.0, -2.0), torque=0.7)
    cm_load = compile_model(b.build())
    cm = compile_model(base)
    a = assemble(cm_load)             # initial accelerations with the load, for both
    ig = ALFIntegrator(cm, 1e-3, a)
    k = cm.input_names.index("P2.F[1]")
    ig.u[k:k + 2] = (3.0, -2.0)
    ig.u[cm.input_names.index("P2.T[3]")] = 0.7
    ig.advance(500)
    ref = ALFIntegrator(cm_load, 1e-3, a)
    ref.advance(500)
    assert np.allclose(ig.q, ref.q, rtol=0.0, atol=1e-12)
    assert ig.energy_input == pytest.approx(ref.energy_input, rel=1e-12)
    assert abs(ig.energy_input) > 0.1                     # measured 0.53 J: the load does work


def test_too_large_a_step_for_a_stiff_spring_raises_with_the_time():
    """1 kg on a 1e8 N/m spring, h = 0.01 s: without the spring in the iteration matrix the Newton
    iteration multiplies errors by h^2 k / 4m = 2500 per iteration, and still by 9.8 after the four halvings
    of the step the integrator tries before it gives up (h = 6.25e-4 s)."""
    b = ModelBuilder("stiff", dimension=2, gravity=(0.0, -9.81))
    b.add_point_mass("m", 1.0, position=(0.0, -1.0))
    b.add_marker("top", "ground")
    b.add_marker("m0", "m")
    b.add_spring_damper("spring", "top", "m0", stiffness=1e8, free_length=0.9)
    cm = compile_model(b.build())
    with pytest.raises(ConvergenceError, match=r"at t = 0\.01 s .*Newton diverged.*m\.y"):
        simulate(cm, 1.0, 0.01, tangent="constraints", max_halvings=0)
    with pytest.raises(ConvergenceError, match=r"at t = 0\.000625 s \(step 0\.000625 s, after 4 halving\(s\) of the "
                                               r"step 0\.01 s\): Newton diverged.*m\.y"):
        simulate(cm, 1.0, 0.01, tangent="constraints")
    # with the spring in the tangent the same step converges (trapezoidal rule: A-stable)
    tr = simulate(cm, 0.1, 0.01)
    assert np.all(np.isfinite(tr.q))


def test_a_coordinate_without_mass_or_constraint_is_named():
    """A planar body of zero inertia hung by a distance joint at its centre: nothing determines its angle."""
    b = ModelBuilder("loose", dimension=2)
    b.add_planar_body("bob", 1.0, 0.0, position=(1.0, 0.0))
    b.add_marker("pivot", "ground")
    b.add_marker("c", "bob")
    b.add_joint("rod", "distance", "pivot", "c", length=1.0)
    cm = compile_model(b.build())
    state = AssemblyResult(0.0, cm.q0, cm.qd0, np.zeros(cm.n_q), np.zeros(cm.n_rows), dof=2)
    with pytest.raises(ConvergenceError, match=r"t = 0\.001 s .*singular iteration matrix.*bob\.theta"):
        ALFIntegrator(cm, 1e-3, state, max_halvings=0).advance(1)
    ig = ALFIntegrator(cm, 1e-3, state, max_halvings=2)
    with pytest.raises(ConvergenceError, match=r"t = 0\.00025 s .*after 2 halving.*singular iteration matrix.*bob"):
        ig.advance(1)
    assert ig.t == 0.0 and len(ig.last_report) == 0        # nothing accepted: the state is the start state


def test_simulate_interface():
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    seen = []
    tr = simulate(cm, 0.1, 1e-3, output_step=0.03, progress=seen.append)
    assert np.allclose(tr.t, [0.0, 0.03, 0.06, 0.09, 0.1])
    assert seen[-1] == pytest.approx(1.0)
    assert tr.info["iterations"][1] >= 2 * 30               # Newton iterations summed over the interval
    assert tr.q.shape == (5, cm.n_q) and tr.lam.shape == (5, cm.n_rows) and tr.u.shape == (5, cm.n_inputs)
    every = simulate(cm, 0.1, 1e-3)
    assert np.allclose(tr.q[1:4], every.q[[30, 60, 90]], atol=1e-12)
    with pytest.raises(AnalysisError, match="unknown integrator 'rk4'"):
        simulate(cm, 1.0, 1e-3, integrator="rk4")
    with pytest.raises(ValueError, match="max_iter"):
        simulate(cm, 1.0, 1e-3, max_iter=1)
    with pytest.raises(AnalysisError, match="'reference' does not take option.*rho_inf"):
        simulate(cm, 1.0, 1e-3, integrator="reference", rho_inf=0.5)
    with pytest.raises(AnalysisError, match="'galpha' does not take option.*tolerance.*max_halvings"):
        simulate(cm, 1.0, 1e-3, integrator="galpha", tolerance=1e-9)     # the option is called tol


def check_second_order_against_reference(cm, **options) -> None:
    """1 s of ``cm`` at h = 1 and 0.5 ms (simulate ``options``) against the scipy reference: position error below
    5e-4 and falling more than 3.5x per halving (second order), the energy balance likewise (below 5e-3 J),
    dissipated and input work within 1e-3 of the reference's, constraints held (shared by the integrator tests)."""
    ref = simulate(cm, 1.0, 0.01, integrator="reference")
    err, bal = {}, {}
    for h in (1e-3, 5e-4):
        tr = simulate(cm, 1.0, h, output_step=0.01, **options)
        err[h] = np.max(np.abs(tr.q - ref.q))
        bal[h] = np.max(np.abs(balance(tr) - balance(tr)[0]))
    assert err[1e-3] < 5e-4 and err[1e-3] / err[5e-4] > 3.5
    assert bal[1e-3] < 5e-3 and bal[1e-3] / bal[5e-4] > 3.5
    assert tr.info["energy_dissipated"][-1] == pytest.approx(ref.info["energy_dissipated"][-1], rel=1e-3)
    assert tr.info["energy_input"][-1] == pytest.approx(ref.info["energy_input"][-1], rel=1e-3)
    assert np.max(tr.info["residual_position"]) < 1e-9 and np.max(tr.info["residual_velocity"]) < 1e-8


def test_accept_first_ends_smooth_steps_after_one_evaluation_with_the_checked_accuracy():
    """``accept_first`` on the planar 4-link chain (smooth motion, h = 0.5 ms, tol = 1e-6 rad): a first Newton
    correction below tol ends the step, so most steps take one evaluation instead of two, and the angles keep the
    checked steps' error against the scipy reference (Newton leaves about rho x tol after an unchecked correction).
    Measured 2026-11-27: 2.00 -> 1.00 evaluations per step; errors 4.17e-5 and 4.11e-5 rad."""
    n, T = 4, 1.0
    cm = chain(n, False)
    ref = simulate(cm, T, 0.01, integrator="reference")
    err, its = {}, {}
    for first in (False, True):
        tr = simulate(cm, T, 5e-4, output_step=0.01, tol=1e-6, accept_first=first)
        err[first] = float(np.max(np.abs(_wrap(_link_angles(tr, n, False) - ref.q[:, 2::3]))))
        its[first] = float(np.sum(tr.info["iterations"]) / (T / 5e-4))
        assert np.max(tr.info["residual_position"]) < 1e-9
    assert its[False] >= 2.0 and its[True] < 1.5
    assert err[True] < 1.1 * err[False] + 1e-5


@pytest.mark.parametrize("integrator, extra", [("alf", {}), ("galpha", {"rho_inf": 0.9})])
def test_without_acceleration_projection_positions_stay_second_order(integrator, extra):
    """``project_accelerations=False`` on the planar 4-link chain against the scipy reference (minimal-coordinate
    free of constraints: an independent integration) at h = 1 and 0.5 ms: the angles stay second order and within
    10 % of the projected run's error; the multipliers become the augmented-Lagrangian ones, first order (their error
    halves with h) against second order with the projection; the accelerations are not projected (their residual is
    O(h), not round-off). With energy_balance on, the end state is evaluated for the powers only: the same positions
    bit for bit. Measured 2026-11-28 (alf): angles 1.66e-4 / 4.17e-5 projected, 1.77e-4 / 4.43e-5 not;
    multipliers 0.071 / 0.018 N and 0.38 / 0.18 N (peak 142 N)."""
    n, T = 4, 1.0
    cm = chain(n, False)
    ref = simulate(cm, T, 0.01, integrator="reference")
    err, lam = {}, {}
    for projected in (True, False):
        for h in (1e-3, 5e-4):
            tr = simulate(cm, T, h, output_step=0.01, integrator=integrator, energy_balance=False,
                          project_accelerations=projected, **extra)
            err[projected, h] = float(np.max(np.abs(_wrap(_link_angles(tr, n, False) - ref.q[:, 2::3]))))
            lam[projected, h] = float(np.max(np.abs(tr.lam - ref.lam)))
            acc = float(np.max(tr.info["residual_acceleration"]))
            assert acc < 1e-6 if projected else acc > 1e-3
            assert np.max(tr.info["residual_position"]) < 1e-9
    assert err[False, 1e-3] / err[False, 5e-4] > 3.5
    assert err[False, 1e-3] < 1.1 * err[True, 1e-3] and err[False, 5e-4] < 1.1 * err[True, 5e-4]
    assert lam[True, 1e-3] / lam[True, 5e-4] > 3.5
    assert 1.6 < lam[False, 1e-3] / lam[False, 5e-4] < 2.5
    assert lam[False, 1e-3] < 5e-3 * float(np.max(np.abs(ref.lam)))
    tb = simulate(cm, 0.2, 1e-3, integrator=integrator, project_accelerations=False, **extra)
    tn = simulate(cm, 0.2, 1e-3, integrator=integrator, project_accelerations=False, energy_balance=False, **extra)
    assert np.array_equal(tb.q, tn.q) and np.array_equal(tb.lam, tn.lam)
    assert np.isfinite(tb.info["energy_dissipated"][-1]) and np.isnan(tn.info["energy_dissipated"][-1])


def test_acceleration_projection_is_kept_where_the_scheme_needs_it():
    """The energy-consistent scheme and the error-controlled ALF refuse project_accelerations=False by name."""
    cm = chain(2, False)
    with pytest.raises(ValueError, match="project_accelerations=False does not apply to scheme 'energy'"):
        simulate(cm, 0.01, 1e-3, scheme="energy", project_accelerations=False)
    with pytest.raises(ValueError, match="'project_accelerations' does not apply"):
        simulate(cm, 0.01, 1e-3, integrator="alf-variable", project_accelerations=False)
