"""Beams built by fmu_mbs.fe run in the solver's flexible body kind (kernels/bodies/flexible.py): the solver's
statics of a Timoshenko cantilever against beam theory, tip load and gravity."""

from __future__ import annotations

import numpy as np
import pytest

from fmu_mbs.analyses.statics import statics
from fmu_mbs.compiler import compile_model
from fmu_mbs.fe import BeamSection, flexible_body_fields, straight_beam
from fmu_mbs.model import ModelBuilder

SEC = BeamSection.rectangle(0.03, 0.06, 2.1e11, 0.3, 7850.0)      # 0.06 m along local z: bending in x-z uses Iy
L, N_EL, G = 0.5, 4, 9.81                                          # short (L/h = 8.3): shear matters


def _model(name, gravity, load=None):
    beam = straight_beam(L, N_EL, SEC, theory="timoshenko")
    b = ModelBuilder(name, dimension=3, gravity=(0.0, 0.0, -gravity))
    b.add_flexible_body("beam", **flexible_body_fields(beam, beam.dofs({0: "all"})))
    b.add_marker("tip", "beam", (L, 0.0, 0.0))
    if load is not None:
        b.add_point_load("load", "tip", force=(0.0, 0.0, -load))
    cm = compile_model(b.build())
    q = statics(cm).q[0]
    return float(q[cm.q_names.index(f"beam.n{N_EL}_z")])


def test_solver_statics_of_a_timoshenko_cantilever_from_fe():
    P = 2.0e4
    EI, kGA = SEC.E * SEC.Iy, SEC.kz * SEC.G * SEC.A
    assert _model("tip", 0.0, P) == pytest.approx(-(P * L**3 / (3 * EI) + P * L / kGA), rel=1e-8)
    q = SEC.rho * SEC.A * G              # uniform weight: q L^4/(8 EI) + q L^2/(2 kGA), nodally exact element
    assert _model("weight", G) == pytest.approx(-(q * L**4 / (8 * EI) + q * L**2 / (2 * kGA)), rel=1e-8)
    assert (P * L / kGA) / (P * L**3 / (3 * EI)) > 0.01     # shear adds 1.1 %, far above the tolerance


def test_fields_map_the_supported_dofs():
    beam = straight_beam(L, 2, SEC)
    f = flexible_body_fields(beam, beam.dofs({0: "all", 2: ["uy"]}))
    assert f["node_dofs"][0] == [-1] * 6 and f["node_dofs"][2][1] == -1 and f["mass_matrix"].shape == (11, 11)
    assert f["node_dofs"][1] == list(range(6)) and f["gravity_load"].shape == (11, 3)


def test_craig_bampton_reduced_cantilever_in_the_solver():
    """A 20-element cantilever reduced to 6 tip coordinates + 2 normal modes (+ a static correction mode for the
    weight), held at its root (tangent reference), as the solver's flexible body: the tip interface's constraint
    modes make the tip-load statics exact, the weight's static mode makes the gravity statics exact."""
    from fmu_mbs.errors import ModelError
    from fmu_mbs.fe import Interface, craig_bampton, reduced_flexible_body_fields, with_static_correction
    from fmu_mbs.fe.modeset import augment

    beam = straight_beam(L, 20, SEC, theory="timoshenko")
    ms = craig_bampton(beam, [Interface("root", (0,), "nodes"), Interface("tip", (20,), "nodes")], 2)
    weight = beam.M @ np.tile([0.0, 0.0, -1.0, 0.0, 0.0, 0.0], beam.n_nodes)
    with pytest.raises(ModelError, match="does not move with its own coordinates"):
        reduced_flexible_body_fields(augment(ms, weight[:, None], "static"))     # a mixed-in column is refused
    ms = with_static_correction(ms, loads=weight[:, None])
    assert ms.n_modes == 9
    EI, kGA = SEC.E * SEC.Iy, SEC.kz * SEC.G * SEC.A
    for gravity, P, expected in ((0.0, 2.0e4, 2.0e4 * (L**3 / (3 * EI) + L / kGA)),
                                 (G, 0.0, SEC.rho * SEC.A * G * (L**4 / (8 * EI) + L**2 / (2 * kGA)))):
        b = ModelBuilder("cb", dimension=3, gravity=(0.0, 0.0, -gravity))
        b.add_flexible_body("beam", **reduced_flexible_body_fields(ms))
        b.add_marker("tip", "beam", (L, 0.0, 0.0))
        b.add_point_load("load", "tip", force=(0.0, 0.0, -P))
        cm = compile_model(b.build())
        assert cm.n_q == 9
        q = statics(cm).q[0]
        assert q[ms.names.index("tip.20.uz")] == pytest.approx(-expected, rel=1e-8)


def test_reduced_cantilever_vibrates_at_its_first_frequency_in_the_solver():
    """Released from its first mode shape, the reduced cantilever's tip follows A cos(w1 t) in the solver's
    trapezoidal integrator (period error (w h)^2/12 = 2e-5 at 400 steps a period), w1 the reduced model's own
    first eigenvalue: the solver's mass, stiffness and marker-free coordinates are the reduced ones."""
    import scipy.linalg as la

    from fmu_mbs.analyses.simulate import simulate
    from fmu_mbs.fe import Interface, craig_bampton, reduced_flexible_body_fields

    beam = straight_beam(L, 20, SEC, theory="timoshenko")
    ms = craig_bampton(beam, [Interface("root", (0,), "nodes"), Interface("tip", (20,), "nodes")], 4)
    lam, V = la.eigh(ms.stiffness, ms.mass)
    w1 = np.sqrt(lam[0])
    tip = ms.names.index("tip.20.uz") if abs(V[ms.names.index("tip.20.uz"), 0]) > 1e-12 else \
        ms.names.index("tip.20.uy")
    u0 = V[:, 0] * (1e-4 / V[tip, 0])                              # 0.1 mm at the tip
    b = ModelBuilder("ring", dimension=3, gravity=(0.0, 0.0, 0.0))
    b.add_flexible_body("beam", displacement=u0, **reduced_flexible_body_fields(ms))
    cm = compile_model(b.build())
    period = 2 * np.pi / w1
    traj = simulate(cm, t_end=period, step=period / 400)
    q_tip = traj.q[:, tip]
    assert q_tip[0] == pytest.approx(1e-4, rel=1e-12)
    assert q_tip[200] == pytest.approx(-1e-4, rel=1e-3) and q_tip[-1] == pytest.approx(1e-4, rel=1e-3)
    assert np.allclose(q_tip, 1e-4 * np.cos(w1 * traj.t), atol=2e-3 * 1e-4)


def test_point_mass_hung_from_the_reduced_beam_by_a_joint():
    """A 5 kg point mass hung from the tip node of the CB-reduced beam by a spherical joint, gravity on both: tip
    deflection m g (L^3/(3EI) + L/(kGA)) + q (L^4/(8EI) + L^2/(2kGA)) (q = rho A g), and the joint carries m g:
    joints attach to the interface node's coordinates."""
    from fmu_mbs.analyses.evaluate import Evaluator
    from fmu_mbs.analyses.reactions import joint_reactions
    from fmu_mbs.fe import Interface, craig_bampton, reduced_flexible_body_fields, with_static_correction

    beam = straight_beam(L, 20, SEC, theory="timoshenko")
    ms = craig_bampton(beam, [Interface("root", (0,), "nodes"), Interface("tip", (20,), "nodes")], 2)
    ms = with_static_correction(ms, loads=(beam.M @ np.tile([0.0, 0.0, -1.0, 0.0, 0.0, 0.0], beam.n_nodes))[:, None])
    mass = 5.0
    b = ModelBuilder("hung", dimension=3, gravity=(0.0, 0.0, -G))
    b.add_flexible_body("beam", **reduced_flexible_body_fields(ms))
    b.add_marker("tip", "beam", (L, 0.0, 0.0))
    b.add_point_mass("bob", mass, position=(L, 0.0, 0.0))
    b.add_marker("bob_m", "bob")
    b.add_joint("ball", "spherical", "tip", "bob_m")
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    traj = statics(cm, evaluator=ev)
    EI, kGA, q = SEC.E * SEC.Iy, SEC.kz * SEC.G * SEC.A, SEC.rho * SEC.A * G
    expected = mass * G * (L**3 / (3 * EI) + L / kGA) + q * (L**4 / (8 * EI) + L**2 / (2 * kGA))
    assert traj.q[0][cm.q_names.index("beam.n1_z")] == pytest.approx(-expected, rel=1e-8)
    F, _ = joint_reactions(ev, traj.lam[0])["ball"]
    np.testing.assert_allclose(F, [0.0, 0.0, mass * G], atol=1e-8)
