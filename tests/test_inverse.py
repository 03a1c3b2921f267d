"""Inverse dynamics against closed-form equations of motion.

References, all evaluated here from the prescribed motion:
- two-link arm: the Lagrange equations of the planar two-link manipulator M(q) qdd + C(q, qd) qd + g(q)
  = tau (relative elbow angle), e.g. Spong, Hutchinson & Vidyasagar, Robot Modeling and Control §7.4;
- joint reactions: Newton's second law on the outer link, then on both links;
- seed 002 four-bar: the single-DOF virtual-work form (C18)-(C19) with velocity ratios (C9), CM
  accelerations (C11)-(C13), and the static holding torque of the digest §1.9 (39.7645299 N m, g = 9.81);
- energy: the work of the drivers equals the change of kinetic plus potential energy.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import simpson
from test_kinematics import FOURBAR, fourbar_angles, fourbar_rates

from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.inverse import driver_effort_history, inverse_dynamics, inverse_dynamics_at
from fmu_mbs.analyses.reactions import joint_reactions
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AnalysisError
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.functions import Constant, Harmonic, Polynomial

MODELS = Path(__file__).resolve().parent.parent / "models"
G = 9.81

# Arm data (SI): link lengths, CM distances from the proximal joint, masses, inertias about the CM.
L1, C1, M1, I1 = 1.0, 0.45, 2.0, 0.2
L2, C2, M2, I2 = 0.8, 0.35, 1.5, 0.1
Q1 = Harmonic(amplitude=0.8, omega=2.0, phase=0.3, offset=0.2)     # shoulder angle from world x (rad)
Q2 = Harmonic(amplitude=1.0, omega=3.0, phase=-0.5, offset=0.7)    # elbow angle, link 2 relative to link 1

# Kinematic positions are exact to ~1e-10 (Newton tolerance) and rates to ~1e-11 relative (see
# test_kinematics); torques of order 10-100 N m then carry errors ~1e-8 N m: 1e-7 relative is safe.
FORCE_RTOL = 1e-7


def harmonic(f: Harmonic, t):
    arg = f.omega * t + f.phase
    return (f.offset + f.amplitude * np.sin(arg), f.amplitude * f.omega * np.cos(arg),
            -f.amplitude * f.omega ** 2 * np.sin(arg))


def quat_z(angle):
    return (math.cos(angle / 2), 0.0, 0.0, math.sin(angle / 2))


def two_link_arm(spatial: bool):
    """The driven arm built with planar bodies or with r-p bodies and revolute axes along z."""
    q1, q2 = harmonic(Q1, 0.0)[0], harmonic(Q2, 0.0)[0]
    p1 = np.array([math.cos(q1), math.sin(q1)])
    p2 = np.array([math.cos(q1 + q2), math.sin(q1 + q2)])
    cm1, cm2 = C1 * p1, L1 * p1 + C2 * p2
    if spatial:
        b = ModelBuilder("arm_3d", dimension=3, gravity=(0.0, -G, 0.0))
        b.add_rigid_body("link1", M1, [0.01, I1, I1], position=(*cm1, 0.0), orientation=quat_z(q1))
        b.add_rigid_body("link2", M2, [0.01, I2, I2], position=(*cm2, 0.0), orientation=quat_z(q1 + q2))
        z = (0.0,)
    else:
        b = ModelBuilder("arm_2d", dimension=2, gravity=(0.0, -G))
        b.add_planar_body("link1", M1, I1, position=cm1, angle=q1)
        b.add_planar_body("link2", M2, I2, position=cm2, angle=q1 + q2)
        z = ()
    b.add_marker("O", "ground", (0.0, 0.0) + z)
    b.add_marker("l1_O", "link1", (-C1, 0.0) + z)
    b.add_marker("l1_E", "link1", (L1 - C1, 0.0) + z)
    b.add_marker("l2_E", "link2", (-C2, 0.0) + z)
    b.add_joint("shoulder", "revolute", "O", "l1_O")
    b.add_joint("elbow", "revolute", "l1_E", "l2_E")
    b.add_driver("d_shoulder", "shoulder", Q1)
    b.add_driver("d_elbow", "elbow", Q2)
    return b.build()


def arm_lagrange(t):
    """(tau1, tau2, a_cm1, a_cm2) from the closed-form two-link manipulator equations."""
    q1, q1d, q1dd = harmonic(Q1, t)
    q2, q2d, q2dd = harmonic(Q2, t)
    c2, s2 = np.cos(q2), np.sin(q2)
    m11 = M1 * C1 ** 2 + I1 + M2 * (L1 ** 2 + C2 ** 2 + 2 * L1 * C2 * c2) + I2
    m12 = M2 * (C2 ** 2 + L1 * C2 * c2) + I2
    m22 = M2 * C2 ** 2 + I2
    h = -M2 * L1 * C2 * s2
    g1 = (M1 * C1 + M2 * L1) * G * np.cos(q1) + M2 * C2 * G * np.cos(q1 + q2)
    g2 = M2 * C2 * G * np.cos(q1 + q2)
    tau1 = m11 * q1dd + m12 * q2dd + h * (2 * q1d * q2d + q2d ** 2) + g1
    tau2 = m12 * q1dd + m22 * q2dd - h * q1d ** 2 + g2
    # CM accelerations: rho (phi'' e_perp(phi) - phi'^2 e(phi)) summed along the chain
    def acc(rho, phi, w, a):
        return rho * np.stack([-a * np.sin(phi) - w ** 2 * np.cos(phi), a * np.cos(phi) - w ** 2 * np.sin(phi)], -1)
    a1 = acc(C1, q1, q1d, q1dd)
    a2 = acc(L1, q1, q1d, q1dd) + acc(C2, q1 + q2, q1d + q2d, q1dd + q2dd)
    return tau1, tau2, a1, a2


@pytest.mark.parametrize("spatial", [False, True], ids=["planar", "spatial"])
def test_two_link_arm_torques_match_lagrange(spatial):
    cm = compile_model(two_link_arm(spatial))
    tr = inverse_dynamics(cm, 3.0, 0.01)
    assert tr.analysis == "inverse_dynamics"
    tau1, tau2, _, _ = arm_lagrange(tr.t)
    eff = driver_effort_history(cm, tr)
    scale = max(np.max(np.abs(tau1)), np.max(np.abs(tau2)))
    np.testing.assert_allclose(eff["d_shoulder"], tau1, rtol=0, atol=FORCE_RTOL * scale)
    np.testing.assert_allclose(eff["d_elbow"], tau2, rtol=0, atol=FORCE_RTOL * scale)


@pytest.mark.parametrize("spatial", [False, True], ids=["planar", "spatial"])
def test_two_link_arm_reactions_match_newton(spatial):
    cm = compile_model(two_link_arm(spatial))
    tr = inverse_dynamics(cm, 2.0, 0.05)
    ev = Evaluator(cm)
    g = np.array([0.0, -G])
    for k, t in enumerate(tr.t):
        _, _, a1, a2 = arm_lagrange(t)
        ev.constraints(t, tr.q[k], tr.qd[k])
        ev.forces(t, tr.q[k], tr.qd[k])
        reac = joint_reactions(ev, tr.lam[k])
        F2, T2 = reac["elbow"]      # on link 2 (marker_j), about the elbow
        F1, T1 = reac["shoulder"]   # on link 1 (marker_j), about the shoulder
        f2 = M2 * (a2 - g)                        # Newton on link 2: F2 + m2 g = m2 a2
        f1 = M1 * (a1 - g) + M2 * (a2 - g)        # Newton on links 1 + 2
        scale = np.max(np.abs(f1)) + 1.0
        np.testing.assert_allclose(F2[:2], f2, atol=FORCE_RTOL * scale)
        np.testing.assert_allclose(F1[:2], f1, atol=FORCE_RTOL * scale)
        # a revolute joint carries no torque about its axis (the drivers do), nor, in plane motion of
        # bodies with a principal axis along z, about x and y; and no force along z
        np.testing.assert_allclose(np.concatenate([F1[2:], F2[2:], T1, T2]), 0.0, atol=FORCE_RTOL * scale)


def fourbar_with(function):
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.add_driver("motor", "pin_O2", function)
    return compile_model(b.build())


def fourbar_torque(th2, w2, a2):
    """Crank torque from (C18)-(C19) with T_L = 0: sum_i m_i a_i . dv_i/dw2 + I_i alpha_i dw_i/dw2
    + g sum_i m_i dvy_i/dw2, link data of seed 002 Table 5.1 (CM at mid-link)."""
    r1, r2, r3, r4 = (FOURBAR[k] for k in ("r1", "r2", "r3", "r4"))
    m, inertia, rg = (1.0, 2.25, 2.0), (0.3, 2.0, 1.35), (1.0, 2.0, 2.0)
    th3, th4 = fourbar_angles(th2, r1, r2, r3, r4)
    w3, w4, a3, a4 = fourbar_rates(th2, w2, a2, th3, th4, r2, r3, r4)
    k, p = fourbar_rates(th2, 1.0, 0.0, th3, th4, r2, r3, r4)[:2]     # velocity ratios (C14)-(C17)

    def e(a):
        return np.stack([np.cos(a), np.sin(a)], -1)

    def ep(a):
        return np.stack([-np.sin(a), np.cos(a)], -1)

    def acc(rho, th, w, al):
        return rho * (al[..., None] * ep(th) - (w ** 2)[..., None] * e(th))

    th2, w2, a2 = np.broadcast_arrays(th2, w2, a2)
    acc2 = acc(rg[0], th2, w2, a2)
    acc3 = acc(r2, th2, w2, a2) + acc(rg[1], th3, w3, a3)
    acc4 = acc(rg[2], th4, w4, a4)
    dv2 = rg[0] * ep(th2)
    dv3 = r2 * ep(th2) + rg[1] * k[..., None] * ep(th3)
    dv4 = rg[2] * p[..., None] * ep(th4)
    tau = 0.0
    for mi, Ii, ai, dvi, al, dw in ((m[0], inertia[0], acc2, dv2, a2, 1.0), (m[1], inertia[1], acc3, dv3, a3, k),
                                    (m[2], inertia[2], acc4, dv4, a4, p)):
        tau = tau + mi * np.sum(ai * dvi, -1) + Ii * al * dw + G * mi * dvi[..., 1]
    return tau


def test_fourbar_static_holding_torque_matches_seed_002_digest():
    cm = fourbar_with(Constant(math.pi / 3))
    tr = inverse_dynamics(cm, 0.0, 1.0)
    # digest §1.9: T_static(60 deg) = 39.7645299 N m with g = 9.81 (printed to 9 digits)
    assert driver_effort_history(cm, tr)["motor"][0] == pytest.approx(39.7645299, abs=1e-6)
    # the static reference formula itself, evaluated here: g [m2 rg2 c2 + m3 (r2 c2 + rg3 k c3) + m4 rg4 p c4]
    assert fourbar_torque(np.array(math.pi / 3), np.array(0.0), np.array(0.0)) == pytest.approx(39.7645299,
                                                                                                   abs=1e-6)
    # ground reactions carry the weight (no motion): vertical sum of pins O2 and O4 = 5.25 kg * g
    ev = Evaluator(cm)
    lam = inverse_dynamics_at(cm, 0.0, tr.q[0], tr.qd[0], tr.qdd[0], ev)
    reac = joint_reactions(ev, lam)
    assert reac["pin_O2"][0][1] + reac["pin_O4"][0][1] == pytest.approx(5.25 * G, rel=1e-9)


def test_fourbar_crank_torque_over_a_turn_matches_virtual_work():
    w0, alpha = 4.0, 2.0                      # theta2 = 60 deg + 4 t + t^2, 6 rad in 1 s
    cm = fourbar_with(Polynomial((math.pi / 3, w0, alpha / 2)))
    tr = inverse_dynamics(cm, 1.2, 0.01)
    th2 = math.pi / 3 + w0 * tr.t + alpha * tr.t ** 2 / 2
    ref = fourbar_torque(th2, w0 + alpha * tr.t, np.full_like(tr.t, alpha))
    got = driver_effort_history(cm, tr)["motor"]
    np.testing.assert_allclose(got, ref, rtol=0, atol=FORCE_RTOL * np.max(np.abs(ref)))
    # the point function gives the same multipliers as the analysis
    lam = inverse_dynamics_at(cm, tr.t[7], tr.q[7], tr.qd[7], tr.qdd[7])
    np.testing.assert_allclose(lam, tr.lam[7], atol=1e-9 * np.max(np.abs(lam)))


def test_driver_work_equals_energy_change():
    """Conservation: int P dt = Delta(T + V_g), no springs and no other loads (planar arm, 0..3 s)."""
    cm = compile_model(two_link_arm(False))
    tr = inverse_dynamics(cm, 3.0, 0.001)
    work = simpson(tr.info["driver_power"], x=tr.t)
    energy = tr.info["kinetic_energy"] + tr.info["gravity_energy"] + tr.info["spring_energy"]
    # Simpson error (h^4/180) (b - a) max|P''''| ~ 1e-12 * 3 * 1e4 for harmonics up to 3 rad/s: far below 1e-6
    assert work == pytest.approx(energy[-1] - energy[0], abs=1e-6)
    assert abs(energy[-1] - energy[0]) > 1.0       # the check is not trivially 0 = 0


def test_inverse_dynamics_refuses_free_degrees_of_freedom():
    cm = compile_model(load_model(MODELS / "fourbar.json"))
    with pytest.raises(AnalysisError, match=r"1 degree\(s\) of freedom"):
        inverse_dynamics(cm, 1.0, 0.1)
