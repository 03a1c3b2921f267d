"""Assembly, consistent velocities and the index-1 accelerations/multipliers against independent values."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.reactions import joint_reactions
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AssemblyError
from fmu_mbs.model import ModelBuilder, load_model

MODELS = Path(__file__).resolve().parents[1] / "models"

# seed 002 four-bar, digest seeds-002-003-004.md §1.9 (derived values, g = 9.81, T_in = 39.75 N m, at rest)
Q0_DIGEST = [0.5, 0.866025403784, 1.0471975512, 2.82352141362, 2.5534944478, 0.423245598299, 3.57352141362,
             1.68746904401, 1.00420315959]
QDD_DIGEST = [9.29487963e-4, -5.36640125e-4, -1.07328025e-3, 1.89349867e-3, -1.14991723e-3, -4.20269171e-5,
              9.64010706e-4, -6.13277109e-4, -5.71276083e-4]


@pytest.mark.parametrize("name,dof", [("pendulum", 1), ("double_pendulum", 2), ("fourbar", 1), ("slider_crank", 1),
                                      ("crane", 2)])
def test_catalogue_mobility_matches_grubler(name, dof):
    """Grubler-Kutzbach counts: planar 3(n-1) - 2 per pin; spatial slider-crank 6*3 - 5 - 3 - 4 - 5 = 1;
    crane: boom 3 - 2 (pin) plus point mass 2 - 1 (distance) = 2."""
    res = assemble(compile_model(load_model(MODELS / f"{name}.json")))
    assert res.dof == dof
    assert res.redundant == []


def _fourbar_from_rough_guess():
    """The four-bar with the crank held at 60 deg by a driver and every link guessed 0.2 rad / 0.3 m off."""
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.add_driver("hold", "pin_O2", math.pi / 3)
    b.bodies = [type(x)(x.name, x.mass, x.inertia, (x.position[0] + 0.3, x.position[1] - 0.2), x.angle + 0.2)
                for x in b.bodies]
    return compile_model(b.build())


def test_fourbar_assembles_to_the_closed_form_configuration():
    res = assemble(_fourbar_from_rough_guess())
    # closed form (C8 with the erratum, open branch): theta3 = 0.423245598299, theta4 = 1.00420315959
    assert np.allclose(res.q, Q0_DIGEST, atol=1e-9)
    assert res.residual < 1e-10 and res.dof == 0


def test_fourbar_initial_accelerations_multipliers_and_reactions():
    cm = compile_model(load_model(MODELS / "fourbar.json"))
    ev = Evaluator(cm)
    ev.u[cm.input_names.index("crank.T[3]")] = 39.75          # the thesis input torque, through the FMU port
    res = assemble(cm, evaluator=ev)
    assert np.allclose(res.qdd, QDD_DIGEST, rtol=1e-6, atol=1e-12)   # digest prints 9 digits
    ev.constraints(0.0, res.q, res.qd)
    ev.forces(0.0, res.q, res.qd)
    reac = joint_reactions(ev, res.lam)
    # ground reactions on the crank at O2 and on the follower at O4 (digest: (-18.580, 12.474) and (18.587, 39.025))
    assert np.allclose(reac["pin_O2"][0][:2], [-18.57955735, 12.4735114], atol=1e-6)
    assert np.allclose(reac["pin_O4"][0][:2], [18.58667523, 39.02463809], atol=1e-6)
    # Newton on the whole mechanism: sum of ground reactions = sum m (a - g)
    masses = np.array([1.0, 2.25, 2.0])
    acc = res.qdd.reshape(3, 3)[:, :2]
    total = reac["pin_O2"][0][:2] + reac["pin_O4"][0][:2]
    assert np.allclose(total, (masses[:, None] * (acc - [0.0, -9.81])).sum(axis=0), atol=1e-9)
    # a pin exerts no torque about its own marker
    assert all(np.abs(T).max() < 1e-9 for _, T in reac.values())


def test_assembly_gives_the_closest_configuration_and_velocity():
    b = ModelBuilder.from_model(load_model(MODELS / "pendulum.json"))
    b.bodies = [type(b.bodies[0])("bob", 1.0, (0.8, 0.3), (1.0, 1.0))]
    res = assemble(compile_model(b.build()))
    # nearest point of the unit circle to (0.8, 0.3) is the radial projection; velocity loses its radial part
    r = np.array([0.8, 0.3]) / math.hypot(0.8, 0.3)
    assert np.allclose(res.q, r, atol=1e-12)
    tangent = np.array([-r[1], r[0]])
    assert np.allclose(res.qd, tangent * (tangent @ [1.0, 1.0]), atol=1e-12)
    # free fall along the circle: tangential acceleration g cos(angle), centripetal |v|^2 / L
    v2 = (tangent @ [1.0, 1.0]) ** 2
    a_t = np.array([0.0, -9.81]) @ tangent * tangent
    assert np.allclose(res.qdd, a_t - v2 * r, atol=1e-10)


def test_unreachable_assembly_names_the_constraint():
    b = ModelBuilder("too_short", 2)
    b.add_planar_body("a", 1.0, 0.1, position=(0.5, 0.0))
    b.add_planar_body("c", 1.0, 0.1, position=(2.5, 0.0))
    b.add_marker("g1", "ground", (0.0, 0.0))
    b.add_marker("g2", "ground", (3.0, 0.0))
    b.add_marker("a0", "a", (-0.5, 0.0))
    b.add_marker("a1", "a", (0.5, 0.0))
    b.add_marker("c0", "c", (-0.5, 0.0))
    b.add_marker("c1", "c", (0.5, 0.0))
    b.add_joint("left", "revolute", "g1", "a0")
    b.add_joint("middle", "revolute", "a1", "c0")
    b.add_joint("right", "revolute", "c1", "g2")
    with pytest.raises(AssemblyError, match=r"model 'too_short': constraints cannot be satisfied at t = 0 s.*joint '"):
        assemble(compile_model(b.build()))


def test_spatial_rigid_pendulum_accelerations_match_euler_equations():
    """Rigid body on a spherical joint, at rest, gravity: alpha = I_P^-1 (s x m g) about the pivot (Euler)."""
    J = np.array([[0.2, 0.01, 0.0], [0.01, 0.3, 0.02], [0.0, 0.02, 0.25]])
    s = np.array([0.4, -0.1, 0.2])                 # CM relative to the pivot (body axes = world at start)
    b = ModelBuilder("sph", 3, (0.0, 0.0, -9.81))
    b.add_rigid_body("b", 3.0, J, position=tuple(s))
    b.add_marker("g", "ground")
    b.add_marker("p", "b", tuple(-s))
    b.add_joint("ball", "spherical", "g", "p")
    res = assemble(compile_model(b.build()))
    I_P = J + 3.0 * (s @ s * np.eye(3) - np.outer(s, s))
    alpha = np.linalg.solve(I_P, np.cross(s, 3.0 * np.array([0.0, 0.0, -9.81])))
    p, pdd = res.q[3:7], res.qdd[3:7]
    E = np.array([[-p[1], p[0], -p[3], p[2]], [-p[2], p[3], p[0], -p[1]], [-p[3], -p[2], p[1], p[0]]])
    assert np.allclose(2 * E @ pdd, alpha, atol=1e-12)
    assert np.allclose(res.qdd[:3], np.cross(alpha, s), atol=1e-12)
