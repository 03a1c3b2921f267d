"""Output channels of a modal body (model/modal_outputs.py, analyses/modal_channels.py): modal coordinates and
rates, node displacements, stresses and strains at stress points, against closed forms of a clamped cantilever.

Beam as in tests/test_modal_body.py (steel, L = 1 m, 20 Euler-Bernoulli elements, Craig-Bampton interfaces at
root and tip). A tip load P gives the deflection w(x) = P x^2 (3L - x) / (6EI): P L^3/(3EI) at the tip and
5 P L^3/(48 EI) at mid-span, exactly (cubic Hermite elements, the static shape is in the interface modes), and the
root bending moment P L: sigma = -M c / I at the fibre c on the loaded side (compression), strain sigma/E."""

from __future__ import annotations

import numpy as np
import pytest

from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.analyses.statics import statics
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ModelError
from fmu_mbs.model import ModelBuilder, model_from_dict, model_to_dict
from fmu_mbs.model.names import channel_names, channels

E, RHO, AREA, IZ, IY, L, N_EL = 2.1e11, 7850.0, 4e-4, 1.3e-8, 2.1e-8, 1.0, 20
SECTION = dict(E=E, G=8.0e10, rho=RHO, area=AREA, Iy=IY, Iz=IZ, J=3.0e-8)
NODES = [(L * i / N_EL, 0.0, 0.0) for i in range(N_EL + 1)]
C_Y, C_Z, P = 0.01, 0.02, 40.0
# stress points: root section (element 0, first node) at y = c_y and at z = c_z; the free end (element 19, 2nd node)
POINTS = [(0, 0, C_Y, 0.0), (0, 0, 0.0, C_Z), (N_EL - 1, 1, C_Y, 0.0)]


def _cantilever(load, orientation=(1.0, 0.0, 0.0, 0.0), gravity=(0.0, 0.0, 0.0)):
    b = ModelBuilder("modal_outputs", 3, gravity=gravity)
    b.add_modal_body("beam", nodes=NODES, n_modes=4, interfaces=((0,), (N_EL,)), output_nodes=(N_EL, N_EL // 2),
                     stress_points=POINTS, orientation=orientation, **SECTION)
    b.add_marker("root", "beam", position=(0.0, 0.0, 0.0))
    b.add_marker("tip", "beam", position=(L, 0.0, 0.0))
    b.add_marker("wall", "ground", orientation=orientation)
    b.add_joint("clamp", "fixed", "wall", "root")
    b.add_point_load("P", "tip", force=load)
    return b.build()


def test_tip_load_gives_beam_theory_deflections_and_root_stress_from_the_channels():
    model = _cantilever((0.0, P, P))
    eq = statics(compile_model(model), tol=1e-12)
    for axis, EI in ((2, E * IZ), (3, E * IY)):
        tip = P * L ** 3 / (3.0 * EI)
        assert eq[f"beam.node{N_EL}.u[{axis}]"][-1] == pytest.approx(tip, rel=1e-7)
        assert eq[f"beam.node{N_EL}.r[{axis}]"][-1] == pytest.approx(tip, rel=1e-7)
        assert eq[f"beam.node{N_EL // 2}.u[{axis}]"][-1] == pytest.approx(5.0 * P * L ** 3 / (48.0 * EI), rel=1e-7)
    assert eq[f"beam.node{N_EL}.r[1]"][-1] == pytest.approx(L, abs=1e-12)
    sigma_y, sigma_z = -P * L * C_Y / IZ, -P * L * C_Z / IY
    assert eq["beam.stress[1]"][-1] == pytest.approx(sigma_y, rel=1e-7)
    assert eq["beam.stress[2]"][-1] == pytest.approx(sigma_z, rel=1e-7)
    assert abs(eq["beam.stress[3]"][-1]) < 1e-6 * abs(sigma_y)             # no moment at the free end
    assert eq["beam.strain[1]"][-1] == pytest.approx(sigma_y / E, rel=1e-7)
    # eta channels are the body's modal coordinates
    cm = compile_model(model)
    a = cm.q_names.index("beam.eta[1]")
    m = sum(n.startswith("beam.eta[") for n in channel_names(model))
    assert np.array_equal([eq[f"beam.eta[{k}]"][-1] for k in range(1, m + 1)], eq.q[-1, a:a + m])


def test_node_world_position_follows_the_rotated_frame_as_the_marker_on_it_does():
    s = np.sqrt(0.5)
    eq = statics(compile_model(_cantilever((0.0, 0.0, P), orientation=(s, 0.0, 0.0, s))), tol=1e-12)
    for k in (1, 2, 3):                     # the tip marker's origin, from the kernels, is the same point
        assert eq[f"beam.node{N_EL}.r[{k}]"][-1] == pytest.approx(eq[f"tip.r[{k}]"][-1], abs=1e-12)
    assert eq[f"beam.node{N_EL}.r[2]"][-1] == pytest.approx(L, abs=1e-12)    # the beam points along world y
    assert eq[f"beam.node{N_EL}.u[3]"][-1] == pytest.approx(P * L ** 3 / (3.0 * E * IY), rel=1e-7)


def test_modal_rates_are_the_time_derivative_of_the_modal_coordinates():
    traj = simulate(_cantilever((0.0, 0.0, 0.0), gravity=(0.0, -9.81, 0.0)), t_end=0.004, step=1e-4)
    eta, etad = traj["beam.eta[2]"], traj["beam.etad[2]"]
    assert np.ptp(eta) > 1e-7
    central = (eta[2:] - eta[:-2]) / 2e-4
    assert np.allclose(etad[1:-1], central, rtol=0, atol=0.05 * np.abs(etad).max())


def test_outputs_are_listed_round_trip_and_bad_ones_name_the_body():
    model = _cantilever((0.0, P, 0.0))
    names = {c.name: c for c in channels(model)}
    assert names["beam.stress[2]"].unit == "Pa" and names["beam.etad[1]"].unit == "1/s"
    assert names[f"beam.node{N_EL}.u[3]"].unit == "m" and "body frame" in names[f"beam.node{N_EL}.u[3]"].description
    again = model_from_dict(model_to_dict(model))
    assert again.bodies[0].output_nodes == (N_EL, N_EL // 2)
    assert again.bodies[0].stress_points == model.bodies[0].stress_points
    b = ModelBuilder("bad", 3)
    b.add_modal_body("rod", nodes=NODES[:3], n_modes=2, output_nodes=(5,), stress_points=[(4, 0, 0.0, 0.0),
                                                                                           (0, 2, 0.0, 0.0)], **SECTION)
    with pytest.raises(ModelError) as err:
        b.build()
    text = str(err.value)
    assert "body 'rod': output node 5 must be a node row 0..2" in text
    assert "body 'rod': stress point 1 [4.0, 0.0, 0.0, 0.0] must be [element row 0..1, end 0 or 1, y, z]" in text
    assert "stress point 2" in text
