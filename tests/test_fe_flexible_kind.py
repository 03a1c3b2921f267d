"""Beams built by fmu_mbs.fe run in the solver's flexible body kind (kernels/bodies/flexible.py): the solver's
statics of a Timoshenko cantilever against beam theory, tip load and gravity."""

from __future__ import annotations

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
