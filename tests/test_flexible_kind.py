"""The flexible body kind (kernels/bodies/flexible.py): a clamped Euler-Bernoulli cantilever of three 3D beam
elements (18 coordinates: more than any rigid kind has) assembled here with numpy, against closed forms and an
independent modal solution of the same M, K; and the refusal of unknown body kinds, by name.

Beam: L = 1 m, square 20 mm steel section (E = 210 GPa, G = 80 GPa, rho = 7850 kg/m^3): EI = 2800 N m^2,
rho A = 3.14 kg/m. Hermite cubic elements reproduce the nodal deflections of a point load and of the consistent
uniform load (gravity as M T g) exactly, so the statics below must match the closed forms to the solver's
tolerance."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.linalg import eigh

from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.reactions import joint_reactions
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.analyses.statics import statics
from fmu_mbs.compiler import compile_model
from fmu_mbs.kernels import model_arrays as ma
from fmu_mbs.kernels.bodies.dispatch import eval_body_frames
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.elements import Model
from fmu_mbs.model.validate import model_problems

L, N_EL = 1.0, 3
E, G_MOD, RHO, SIDE = 210e9, 80e9, 7850.0, 0.02
AREA = SIDE * SIDE
I_AREA = SIDE ** 4 / 12.0
J_TORSION = 0.1406 * SIDE ** 4
EI = E * I_AREA
RHO_A = RHO * AREA
G = 9.81


def beam_element(le: float) -> tuple[np.ndarray, np.ndarray]:
    """12 x 12 stiffness and consistent mass of a 3D Euler-Bernoulli beam element along x, DOFs per node
    (u, v, w, rx, ry, rz); bending in x-z uses ry = -dw/dx."""
    k, m = np.zeros((12, 12)), np.zeros((12, 12))
    ax = [0, 6]
    k[np.ix_(ax, ax)] = E * AREA / le * np.array([[1, -1], [-1, 1]])
    m[np.ix_(ax, ax)] = RHO_A * le / 6.0 * np.array([[2, 1], [1, 2]])
    tor = [3, 9]
    k[np.ix_(tor, tor)] = G_MOD * J_TORSION / le * np.array([[1, -1], [-1, 1]])
    m[np.ix_(tor, tor)] = RHO * 2.0 * I_AREA * le / 6.0 * np.array([[2, 1], [1, 2]])
    kb = EI / le ** 3 * np.array([[12, 6 * le, -12, 6 * le], [6 * le, 4 * le ** 2, -6 * le, 2 * le ** 2],
                                  [-12, -6 * le, 12, -6 * le], [6 * le, 2 * le ** 2, -6 * le, 4 * le ** 2]])
    mb = RHO_A * le / 420.0 * np.array([[156, 22 * le, 54, -13 * le], [22 * le, 4 * le ** 2, 13 * le, -3 * le ** 2],
                                        [54, 13 * le, 156, -22 * le], [-13 * le, -3 * le ** 2, -22 * le, 4 * le ** 2]])
    flip = np.diag([1.0, -1.0, 1.0, -1.0])
    for dofs, s in (([1, 5, 7, 11], np.eye(4)), ([2, 4, 8, 10], flip)):    # (v, rz) and (w, ry = -w')
        k[np.ix_(dofs, dofs)] = s @ kb @ s
        m[np.ix_(dofs, dofs)] = s @ mb @ s
    return k, m


def cantilever() -> tuple[np.ndarray, np.ndarray, list, list, np.ndarray]:
    """(K, M, node positions, node DOF maps, weight map) of the cantilever clamped at x = 0 (node 0 fixed). The
    weight map is M_full T_full restricted to the free coordinates: the consistent gravity load, with the mass
    coupling to the clamped node that the reduced M T leaves out."""
    n_nodes = N_EL + 1
    n_full = 6 * n_nodes
    K, M = np.zeros((n_full, n_full)), np.zeros((n_full, n_full))
    le = L / N_EL
    ke, me = beam_element(le)
    for e in range(N_EL):
        idx = list(range(6 * e, 6 * e + 12))
        K[np.ix_(idx, idx)] += ke
        M[np.ix_(idx, idx)] += me
    T = np.zeros((n_full, 3))
    for j in range(n_nodes):
        T[6 * j:6 * j + 3] = np.eye(3)
    free = slice(6, n_full)
    gdof = lambda node: [6 * (node - 1) + i if node > 0 else -1 for i in range(6)]  # noqa: E731
    return (K[free, free], M[free, free], [(le * j, 0.0, 0.0) for j in range(n_nodes)],
            [gdof(j) for j in range(n_nodes)], (M @ T)[free])


def beam_model(name: str, gravity: float = G, **kw) -> ModelBuilder:
    K, M, pos, dofs, weight = cantilever()
    b = ModelBuilder(name, dimension=3, gravity=(0.0, 0.0, -gravity))
    b.add_flexible_body("beam", M, K, pos, dofs, gravity_load=weight, **kw)
    b.add_marker("tip", "beam", (L, 0.0, 0.0))
    return b


def tip_w(cm, q) -> float:
    """The tip's z displacement (m)."""
    return float(q[cm.q_names.index("beam.n3_z")])


def test_tip_load_statics_matches_p_l3_over_3ei():
    """A 10 N point load down at the tip marker, no gravity: tip deflection P L^3 / (3 EI) = 1.190476e-3 m
    (asserted to 1e-9 relative, the statics tolerance) and tip rotation ry = P L^2 / (2 EI) (the node rotation)."""
    P = 10.0
    b = beam_model("tip_load", gravity=0.0)
    b.add_point_load("load", "tip", force=(0.0, 0.0, -P))
    cm = compile_model(b.build())
    assert cm.n_q == 18 and cm.arrays.row_cols.shape[1] == 36
    traj = statics(cm)
    assert tip_w(cm, traj.q[0]) == pytest.approx(-P * L ** 3 / (3 * EI), rel=1e-9)
    assert traj.q[0][cm.q_names.index("beam.n3_ry")] == pytest.approx(P * L ** 2 / (2 * EI), rel=1e-9)


def test_weight_map_defaults_to_m_t():
    """Without ``gravity_load`` gravity acts as M T g of the coordinates: the static deflection is K^-1 M T g
    (numpy), 1.362e-3 m at the tip, short of rho A g L^4 / (8 EI) = 1.375e-3 m by the clamped node's mass coupling
    (0.9 %), which the exact weight map of the other tests holds."""
    K, M, pos, dofs, _ = cantilever()
    b = ModelBuilder("m_t", dimension=3, gravity=(0.0, 0.0, -G))
    b.add_flexible_body("beam", M, K, pos, dofs)
    cm = compile_model(b.build())
    T = np.zeros((len(K), 3))
    for row in dofs:
        for c in range(3):
            if row[c] >= 0:
                T[row[c], c] = 1.0
    np.testing.assert_allclose(statics(cm).q[0], np.linalg.solve(K, M @ T @ [0.0, 0.0, -G]), rtol=1e-9, atol=1e-15)


def test_hung_point_mass_statics_deflection_and_reaction():
    """A 2 kg point mass hung from the tip marker by a spherical joint, gravity on beam and mass: tip deflection
    m g L^3 / (3 EI) + rho A g L^4 / (8 EI) (2.336e-3 + 1.375e-3 m) and the joint's reaction on the mass m g up."""
    mass = 2.0
    b = beam_model("hung")
    b.add_point_mass("bob", mass, position=(L, 0.0, 0.0))
    b.add_marker("bob_m", "bob")
    b.add_joint("ball", "spherical", "tip", "bob_m")
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    traj = statics(cm, evaluator=ev)
    expected = mass * G * L ** 3 / (3 * EI) + RHO_A * G * L ** 4 / (8 * EI)
    assert tip_w(cm, traj.q[0]) == pytest.approx(-expected, rel=1e-9)
    F, T = joint_reactions(ev, traj.lam[0])["ball"]
    np.testing.assert_allclose(F, [0.0, 0.0, mass * G], atol=1e-9)
    np.testing.assert_allclose(T, 0.0, atol=1e-9)


def test_plate_resting_on_a_sphere_on_the_tip():
    """A 1 kg plate on a vertical prismatic joint rests on a sphere contact shape (R = 0.1 m) centred on the tip
    marker (linear contact law, k = 1e5 N/m, plane on the plate facing down); the beam has mass-proportional
    damping C = 40 M; the beam starts in its loaded static shape, the plate 0.05 mm above its rest position. At rest
    after 1 s the contact carries the plate's weight into the beam: the tip deflects m g L^3 / (3 EI) +
    rho A g L^4 / (8 EI) (1.168e-3 + 1.375e-3 m) and the plate sits m g / k into the sphere.
    (The contact force acts through the sphere's centre, the node, so the tip's rotation does not matter.)"""
    mass, radius, k = 1.0, 0.1, 1e5
    K, M, _, _, weight = cantilever()
    f = weight @ [0.0, 0.0, -G]
    f[6 * (N_EL - 1) + 2] -= mass * G
    b = beam_model("resting", damping_matrix=40.0 * M, displacement=np.linalg.solve(K, f))
    w_tip = -(mass * G * L ** 3 / (3 * EI) + RHO_A * G * L ** 4 / (8 * EI))
    z0 = radius + w_tip - mass * G / k
    b.add_rigid_body("plate", mass, [0.1, 0.1, 0.2], position=(L, 0.0, z0 + 5e-5))     # dropped into place
    b.add_marker("face", "plate", orientation=(0.0, 1.0, 0.0, 0.0))      # z axis down: the plane faces the sphere
    b.add_marker("slide", "plate")
    b.add_marker("rail", "ground", (L, 0.0, 0.0))
    b.add_joint("guide", "prismatic", "rail", "slide")
    b.add_shape("ball", "tip", "sphere", [radius])
    b.add_shape("plane", "face", "plane", [])
    b.add_contact("rest", "ball", "plane", law="linear", stiffness=k, damping=2.0 * math.sqrt(k * mass),
                  damping_depth=1e-5)
    cm = compile_model(b.build())
    tr = simulate(cm, 1.0, 1e-3, output_step=0.1)
    assert tip_w(cm, tr.q[-1]) == pytest.approx(w_tip, rel=1e-6)
    assert tr.q[-1, cm.q_names.index("plate.z")] == pytest.approx(z0, abs=1e-9)


def test_flexible_body_round_trips_through_json():
    """The model file keeps every field of a flexible body."""
    from fmu_mbs.model import model_from_dict, model_to_dict
    model = beam_model("json", damping_matrix=np.eye(18).tolist()).build()
    assert model_from_dict(model_to_dict(model)) == model


def test_free_vibration_matches_the_modal_solution_and_keeps_energy():
    """Released from the static shape of a 10 N tip load (no gravity), over one period of the first mode
    (w_1 = 105.0 rad/s, h = 0.05 ms) the tip follows the modal solution of the same M, K (scipy eigh,
    u(t) = sum phi_i phi_i^T M u0 cos(w_i t)) to 1.35e-3 of the amplitude (measured 1.603e-6 m of 1.19e-3 m: the
    trapezoid's phase error on the element-level modes up to 4.9e4 rad/s) and the trapezoid's own modal solution
    (each mode turning by 2 atan(w_i h / 2) per step) to round-off (measured 8.6e-15 m); kinetic + elastic energy
    stays constant to 1e-9 relative (trapezoidal rule on a linear system)."""
    K, M, _, _, _ = cantilever()
    f = np.zeros(len(K))
    f[6 * (N_EL - 1) + 2] = -10.0
    u0 = np.linalg.solve(K, f)
    b = beam_model("vibration", gravity=0.0, displacement=u0)
    cm = compile_model(b.build())
    w2, phi = eigh(K, M)
    w1 = math.sqrt(w2[0])
    assert w1 == pytest.approx(1.875104 ** 2 * math.sqrt(EI / (RHO_A * L ** 4)), rel=2e-3)   # FE vs exact beam
    h = 5e-5
    t_end = round(2 * math.pi / w1 / h) * h            # whole steps: every row is a step of h
    traj = simulate(cm, t_end, h)
    modal = (np.cos(np.outer(traj.t, np.sqrt(w2))) * (phi.T @ M @ u0)) @ phi.T
    iz = cm.q_names.index("beam.n3_z")
    err = np.max(np.abs(traj.q[:, iz] - modal[:, iz]))
    assert err < 2e-3 * abs(u0[iz])
    steps = np.rint(traj.t / h)
    assert np.max(np.abs(traj.t / h - steps)) < 1e-6
    discrete = (np.cos(np.outer(steps, 2.0 * np.arctan(np.sqrt(w2) * h / 2.0))) * (phi.T @ M @ u0)) @ phi.T
    np.testing.assert_allclose(traj.q, discrete, rtol=0.0, atol=1e-9 * np.max(np.abs(u0)))
    energy = traj.info["energy_kinetic"] + traj.info["energy_potential"]
    assert energy[0] == pytest.approx(0.5 * u0 @ K @ u0, rel=1e-12)
    assert np.max(np.abs(energy - energy[0])) < 1e-9 * energy[0]


def test_unknown_body_kind_is_refused_by_name():
    """A body of a class no kind module provides is refused by validation and by the compiler, naming the body and
    its class; a kind code no module provides makes the kernel dispatcher raise."""

    @dataclass(frozen=True)
    class Jelly:
        name: str
        mass: float = 1.0

    model = Model("weird", 3, (0.0, 0.0, -G), bodies=(Jelly("blob"),))
    assert any("body 'blob'" in p and "Jelly" in p for p in model_problems(model))
    with pytest.raises(TypeError, match="body 'blob'.*Jelly"):
        compile_model(model)
    b = ModelBuilder("one", dimension=3, gravity=(0.0, 0.0, -G))
    b.add_point_mass("p", 1.0)
    m = compile_model(b.build()).arrays
    m = m._replace(body_kind=np.array([ma.FLEXIBLE + 7], dtype=np.int64))
    q = np.zeros(3)
    with pytest.raises(ValueError, match="unknown body kind"):
        eval_body_frames(m, q, q, np.zeros((1, 3)), np.zeros((1, 3, 3)), np.zeros((1, 3)), np.zeros((1, 3)))
