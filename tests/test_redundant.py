"""Redundant (over-constrained) mechanisms: Grubler's count is wrong, the rank of Phi_q is right.

- planar parallelogram with a third, redundant crank (Grubler 0, mobility 1): its motion and crank torque
  in closed form (the coupler translates, every crank turns by the input angle);
- Bricard's orthogonal 6R loop (IFToMM MBS benchmark A04: five 1 m rods of 1 kg along the edges of a unit
  cube, each joint axis normal to both rods it joins; Grubler 0, mobility 1), checked against an
  independent loop-closure solution of the serial chain by scipy least squares;
- the seed 002 four-bar built from spatial bodies and 3D revolute joints (Grubler -2, mobility 1) against
  the closed form (C8) and the planar crank torque.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import least_squares
from scipy.spatial.transform import Rotation
from test_inverse import fourbar_torque
from test_kinematics import FOURBAR, POS_TOL, RATE_RTOL, fourbar_angles, wrap

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.inverse import driver_effort_history, inverse_dynamics
from fmu_mbs.analyses.kinematics import kinematics
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.functions import Constant, Linear, Polynomial

G = 9.81
FORCE_RTOL = 1e-7   # as in test_inverse: torques from positions exact to ~1e-10


def rank_without_drivers(cm, t, q) -> int:
    """Rank of the joint (and normalization) rows of Phi_q by SVD. The position is converged to
    |Phi| <= 1e-10, which leaves a singular value of that order where the exact one is 0; the smallest
    true singular values here are > 0.1 (relative > 1e-2), so 1e-8 relative separates them safely."""
    ev = Evaluator(cm)
    ev.constraints(t, q)
    keep = [i for i in range(cm.n_rows) if i not in set(cm.driver_rows.values())]
    J = ev.J[keep]
    return int(np.linalg.matrix_rank(J, tol=1e-8 * np.linalg.norm(J, 2)))


# --- (a) parallelogram with a redundant crank ---------------------------------------------------

A_GND, R_CRANK, B_EXTRA = 2.0, 0.8, 0.9            # ground pivots at x = 0, 2.0 and 0.9 m; cranks 0.8 m
CRANKS = {"crank": (0.0, 1.0, 0.06), "follower": (A_GND, 1.2, 0.07), "extra": (B_EXTRA, 0.8, 0.05)}  # x0, m, I
COUPLER_M, COUPLER_I = 2.0, 0.7


def parallelogram(theta0: float, drive=None, perturb: float = 0.0):
    b = ModelBuilder("parallelogram", dimension=2, gravity=(0.0, -G))
    rng = np.random.default_rng(3)
    e = np.array([math.cos(theta0), math.sin(theta0)])
    for name, (x0, m, inertia) in CRANKS.items():
        centre = np.array([x0, 0.0]) + R_CRANK / 2 * e + perturb * rng.normal(size=2)
        b.add_planar_body(name, m, inertia, position=centre, angle=theta0 + perturb * rng.normal())
        b.add_marker(f"{name}_g", "ground", (x0, 0.0))
        b.add_marker(f"{name}_0", name, (-R_CRANK / 2, 0.0))
        b.add_marker(f"{name}_1", name, (R_CRANK / 2, 0.0))
        b.add_marker(f"cp_{name}", "coupler", (x0 - A_GND / 2, 0.0))
        b.add_joint(f"pivot_{name}", "revolute", f"{name}_g", f"{name}_0")
        b.add_joint(f"pin_{name}", "revolute", f"{name}_1", f"cp_{name}")
    b.add_planar_body("coupler", COUPLER_M, COUPLER_I, position=np.array([A_GND / 2, 0.0]) + R_CRANK * e
                      + perturb * rng.normal(size=2), angle=perturb * rng.normal())
    if drive is not None:
        b.add_driver("motor", "pivot_crank", drive)
    return b.build()


def test_parallelogram_assembles_with_true_mobility_one():
    cm = compile_model(parallelogram(0.7, perturb=0.03))
    res = assemble(cm)
    assert cm.n_q == 12 and cm.n_rows == 12          # Grubler: 3 * 4 - 2 * 6 = 0
    assert res.dof == 1                              # the classic Grubler exception
    assert len(res.redundant) == 1 and res.redundant[0].startswith("joint '")
    assert res.residual <= 1e-10


def test_parallelogram_kinematics_and_crank_torque():
    th0, w0, alpha = 0.3, 2.0, 0.5                  # theta = 0.3 + 2 t + t^2 / 4 stays inside (0, pi)
    cm = compile_model(parallelogram(th0, Polynomial((th0, w0, alpha / 2)), perturb=0.02))
    assert assemble(cm).dof == 0
    tr = inverse_dynamics(cm, 1.0, 0.02)
    th = th0 + w0 * tr.t + alpha * tr.t ** 2 / 2
    thd = w0 + alpha * tr.t
    n = cm.q_names
    for name in CRANKS:
        np.testing.assert_allclose(wrap(tr.q[:, n.index(f"{name}.theta")] - th), 0.0, atol=POS_TOL)
    np.testing.assert_allclose(tr.q[:, n.index("coupler.theta")], 0.0, atol=POS_TOL)   # pure translation
    np.testing.assert_allclose(tr.q[:, n.index("coupler.x")], A_GND / 2 + R_CRANK * np.cos(th), atol=POS_TOL)
    np.testing.assert_allclose(tr.q[:, n.index("coupler.y")], R_CRANK * np.sin(th), atol=POS_TOL)
    vy = R_CRANK * np.cos(th) * thd
    np.testing.assert_allclose(tr.qd[:, n.index("coupler.y")], vy, atol=RATE_RTOL * np.max(np.abs(vy)))
    # Lagrange with the crank angle: T = J thd^2 / 2, J = sum_cranks (I + m r^2 / 4) + m_c r^2,
    # V = g sin(th) (sum_cranks m r / 2 + m_c r)  ->  tau = J thdd + g cos(th) (...)
    J = sum(i + m * R_CRANK ** 2 / 4 for _, m, i in CRANKS.values()) + COUPLER_M * R_CRANK ** 2
    mg = sum(m * R_CRANK / 2 for _, m, _ in CRANKS.values()) + COUPLER_M * R_CRANK
    tau = J * alpha + G * np.cos(th) * mg
    # the driver effort is unique although lam is not (the driver row is independent of the joint rows)
    np.testing.assert_allclose(driver_effort_history(cm, tr)["motor"], tau, atol=FORCE_RTOL * np.max(np.abs(tau)))
    for k in (0, len(tr) // 2, len(tr) - 1):
        assert rank_without_drivers(cm, tr.t[k], tr.q[k]) == cm.n_q - 1


def test_parallelogram_driven_through_its_singular_position():
    """At theta = 0 the cranks lie on the ground line and Phi_q is (nearly) singular: the run must go on
    along the parallelogram branch without jumping (the coupler keeps angle 0, every crank follows theta),
    and info['condition'] must flag that row only."""
    cm = compile_model(parallelogram(0.5, Linear(0.5, -1.0)))
    tr = kinematics(cm, 1.0, 0.25)                      # theta = 0.5, 0.25, 0, -0.25, -0.5
    th = 0.5 - tr.t
    n = cm.q_names
    np.testing.assert_allclose(tr.q[:, n.index("crank.theta")], th, atol=POS_TOL)
    # at the singular row Newton stops at |Phi| <= 1e-10, i.e. ~1e-5 away in the singular direction
    np.testing.assert_allclose(tr.q[:, n.index("coupler.theta")], 0.0, atol=1e-4)
    np.testing.assert_allclose(np.delete(tr.q[:, n.index("coupler.theta")], 2), 0.0, atol=POS_TOL)
    cond = tr.info["condition"]
    assert cond[2] > 1e4 and np.all(np.delete(cond, 2) < 1e3)


# --- (b) Bricard's mechanism ---------------------------------------------------------------------

S = math.sqrt(0.5)
Z_ALONG = {"x": (S, 0.0, S, 0.0), "y": (S, -S, 0.0, 0.0), "z": (1.0, 0.0, 0.0, 0.0)}   # marker z -> world axis
CUBE = np.array([(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)], dtype=float)
AXES = "yzxyzx"     # joint k at CUBE[k], axis normal to the rods CUBE[k-1]-CUBE[k] and CUBE[k]-CUBE[k+1]


def bricard(drive=None, perturb: float = 0.0):
    """Five rods along cube edges, ground is the sixth edge CUBE[5] -> CUBE[0]; joint R0 at the origin."""
    b = ModelBuilder("bricard", dimension=3, gravity=(0.0, -G, 0.0))
    rng = np.random.default_rng(5)
    mid = [(CUBE[k] + CUBE[k + 1]) / 2 for k in range(5)]
    for k in range(5):
        axial = np.abs(CUBE[k + 1] - CUBE[k]) > 0.5
        inertia = [0.1 ** 2 / 6 if a else 1.0 / 12 + 0.1 ** 2 / 12 for a in axial]   # 1 kg, 1 m x 0.1 m x 0.1 m
        b.add_rigid_body(f"rod{k + 1}", 1.0, inertia, position=tuple(mid[k] + perturb * rng.normal(size=3)))
    for k in range(6):
        body_i, body_j = ("ground" if k == 0 else f"rod{k}"), ("ground" if k == 5 else f"rod{k + 1}")
        ci = np.zeros(3) if k == 0 else mid[k - 1]
        cj = np.zeros(3) if k == 5 else mid[k]
        b.add_marker(f"J{k}i", body_i, tuple(CUBE[k] - ci), orientation=Z_ALONG[AXES[k]])
        b.add_marker(f"J{k}j", body_j, tuple(CUBE[k] - cj), orientation=Z_ALONG[AXES[k]])
        b.add_joint(f"R{k}", "revolute", f"J{k}i", f"J{k}j")
    if drive is not None:
        b.add_driver("motor", "R0", drive)
    return b.build()


def bricard_chain(theta):
    """Rod orientations R_k and joint points of the serial chain R0..R5 with joint angles ``theta`` (6)."""
    unit = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}
    R, pts, rots = np.eye(3), [CUBE[0]], []
    for k in range(6):
        R = R @ Rotation.from_rotvec(theta[k] * np.array(unit[AXES[k]], dtype=float)).as_matrix()
        rots.append(R)
        pts.append(pts[-1] + R @ (CUBE[(k + 1) % 6] - CUBE[k]))
    return rots, pts


def bricard_closure(theta1, guess):
    """Independent minimal-coordinate solution: joint angles 2..6 with the loop closed (R_6 = I, back at O)."""
    def residual(x):
        rots, pts = bricard_chain(np.concatenate([[theta1], x]))
        return np.concatenate([(rots[5] - np.eye(3)).ravel(), pts[6] - CUBE[0]])
    sol = least_squares(residual, guess, xtol=1e-15, ftol=1e-15, gtol=1e-15)
    assert np.max(np.abs(sol.fun)) < 1e-12
    return sol.x


def test_bricard_assembles_with_mobility_one_and_one_redundant_row():
    cm = compile_model(bricard(perturb=0.02))
    assert cm.n_q == 35 and cm.n_rows == 35         # 5 rods x 7 coordinates; 6 x 5 joint rows + 5 norms
    res = assemble(cm)
    assert res.dof == 1 and len(res.redundant) == 1


def test_bricard_motion_matches_independent_loop_closure():
    cm = compile_model(bricard(Linear(0.0, 1.0)))
    tr = kinematics(cm, 1.5, 0.05)                  # joint R0 turns 1.5 rad
    n = cm.q_names
    x = np.zeros(5)
    for k in range(0, len(tr), 3):
        x = bricard_closure(tr.t[k], x)
        rots, pts = bricard_chain(np.concatenate([[tr.t[k]], x]))
        for j in range(5):                           # rod j+1: centre between joint points j and j+1
            got = tr.q[k, [n.index(f"rod{j + 1}.{c}") for c in "xyz"]]
            np.testing.assert_allclose(got, (pts[j] + pts[j + 1]) / 2, atol=POS_TOL)
        assert rank_without_drivers(cm, tr.t[k], tr.q[k]) == cm.n_q - 1
    assert np.ptp(tr.q[:, n.index("rod3.y")]) > 0.1    # a finite motion, not a shaky structure


# --- (c) planar four-bar with spatial bodies and 3D revolute joints ------------------------------


def fourbar_3d(drive):
    """Seed 002 four-bar (Table 5.1) as r-p bodies; the revolute axes are all along z."""
    r1, r2, r3, r4 = (FOURBAR[k] for k in ("r1", "r2", "r3", "r4"))
    th2 = math.pi / 3
    th3, th4 = (float(a) for a in fourbar_angles(th2, r1, r2, r3, r4))
    def e(a):
        return np.array([math.cos(a), math.sin(a)])

    A = r2 * e(th2)
    b = ModelBuilder("fourbar_3d", dimension=3, gravity=(0.0, -G, 0.0))
    links = (("crank_link", 1.0, 0.3, A / 2, th2, r2),                            # name, m, Izz, CM, angle, length
             ("coupler", 2.25, 2.0, A + r3 / 2 * e(th3), th3, r3),
             ("follower", 2.0, 1.35, np.array([r1, 0.0]) + r4 / 2 * e(th4), th4, r4))
    for name, m, inertia, c, th, length in links:
        b.add_rigid_body(name, m, [0.01, inertia, inertia], position=(*c, 0.0),
                         orientation=(math.cos(th / 2), 0.0, 0.0, math.sin(th / 2)))
        b.add_marker(f"{name}_0", name, (-length / 2, 0.0, 0.0))
        b.add_marker(f"{name}_1", name, (length / 2, 0.0, 0.0))
    b.add_marker("O2", "ground", (0.0, 0.0, 0.0))
    b.add_marker("O4", "ground", (r1, 0.0, 0.0))
    b.add_joint("pin_O2", "revolute", "O2", "crank_link_0")
    b.add_joint("pin_A", "revolute", "crank_link_1", "coupler_0")
    b.add_joint("pin_B", "revolute", "coupler_1", "follower_1")
    b.add_joint("pin_O4", "revolute", "O4", "follower_0")
    if drive is not None:
        b.add_driver("motor", "pin_O2", drive)
    return b.build()


def test_spatial_fourbar_has_mobility_one_and_three_redundant_rows():
    cm = compile_model(fourbar_3d(None))
    res = assemble(cm)
    assert 6 * 3 - 5 * 4 == -2                        # Grubler for spatial revolutes
    assert res.dof == 1 and len(res.redundant) == 3


def test_spatial_fourbar_kinematics_and_torque_match_planar_closed_forms():
    w0, alpha = 4.0, 2.0
    cm = compile_model(fourbar_3d(Polynomial((math.pi / 3, w0, alpha / 2))))
    tr = inverse_dynamics(cm, 1.2, 0.02)
    th2 = math.pi / 3 + w0 * tr.t + alpha * tr.t ** 2 / 2
    th3, th4 = fourbar_angles(th2, **FOURBAR)
    n = cm.q_names
    for name, ref in (("coupler", th3), ("follower", th4)):
        e0, e3 = tr.q[:, n.index(f"{name}.e0")], tr.q[:, n.index(f"{name}.e3")]
        np.testing.assert_allclose(wrap(2 * np.arctan2(e3, e0) - ref), 0.0, atol=POS_TOL)
    np.testing.assert_allclose(tr.q[:, [n.index(f"{b}.z") for b in ("crank_link", "coupler", "follower")]], 0.0,
                               atol=POS_TOL)
    tau = fourbar_torque(th2, w0 + alpha * tr.t, np.full_like(tr.t, alpha))
    np.testing.assert_allclose(driver_effort_history(cm, tr)["motor"], tau, atol=FORCE_RTOL * np.max(np.abs(tau)))


def test_spatial_fourbar_static_holding_torque():
    cm = compile_model(fourbar_3d(Constant(math.pi / 3)))
    tr = inverse_dynamics(cm, 0.0, 1.0)
    # seed 002 digest §1.9: 39.7645299 N m at 60 deg with g = 9.81
    assert driver_effort_history(cm, tr)["motor"][0] == pytest.approx(39.7645299, abs=1e-6)
