"""The modal body in the model layer: builder == JSON loader, an exact save/load round trip, FE files found relative
to the model file, and mode data from the built-in beam, an MBDyn .fem file and Matrix Market files that agree
(the .fem written by fe.write_fem from the same mode set; the Matrix Market files are the beam's own M and K)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.io

from fmu_mbs.errors import ModelError
from fmu_mbs.fe import write_fem
from fmu_mbs.model import ModelBuilder, load_model, model_to_dict, save_model
from fmu_mbs.model.elements import ModalBody
from fmu_mbs.model.modal_data import modal_data

SECTION = dict(E=2.1e11, G=8.0e10, rho=7850.0, area=4e-4, Iy=2.1e-8, Iz=1.3e-8, J=3.0e-8)
NODES = [(0.1 * i, 0.0, 0.0) for i in range(11)]


def _model(**extra):
    b = ModelBuilder("modal_model", 3)
    b.add_modal_body("rod", nodes=NODES, n_modes=3, interfaces=[[0], [10]], interface_kinds=["rigid", "nodes"],
                     damping=0.01, position=(0.0, 1.0, 0.0), **SECTION, **extra)
    b.add_marker("end", "rod", position=(1.0, 0.0, 0.0))
    return b.build()


def test_modal_body_round_trips_through_json(tmp_path):
    model = _model()
    body = model.bodies[0]
    assert isinstance(body, ModalBody) and body.stiffening and body.interfaces == ((0,), (10,))
    path = tmp_path / "m.json"
    save_model(model, path)
    data = json.loads(path.read_text())
    assert data["bodies"][0]["type"] == "modal" and "source_dir" not in data["bodies"][0]
    assert load_model(path) == model
    assert model_to_dict(load_model(data)) == model_to_dict(model)


def test_fe_files_are_relative_to_the_model_file(tmp_path):
    beam = _model()
    ms = modal_data(beam.bodies[0]).modes
    (tmp_path / "fe").mkdir()
    write_fem(tmp_path / "fe" / "rod.fem", ms)
    d = model_to_dict(beam)
    body = d["bodies"][0]
    body.update(nodes=[], fe_file="fe/rod.fem")
    d["markers"] = []
    path = tmp_path / "m.json"
    path.write_text(json.dumps(d))
    loaded = load_model(path)
    fem = modal_data(loaded.bodies[0])
    ref = modal_data(beam.bodies[0])
    # .fem stores the lumped masses of fe.write_fem: the frequencies of the reduced matrices agree to the file's
    # precision, the mass exactly
    lam = np.sort(np.linalg.eigvals(np.linalg.solve(fem.inv.M_ff, fem.inv.K_ff)).real)
    lam_ref = np.sort(np.linalg.eigvals(np.linalg.solve(ref.inv.M_ff, ref.inv.K_ff)).real)
    assert np.allclose(np.sqrt(np.clip(lam, 0, None)), np.sqrt(np.clip(lam_ref, 0, None)), rtol=1e-6, atol=1e-6)
    assert fem.inv.mass == pytest.approx(ref.inv.mass, rel=1e-6)
    d["bodies"][0]["fe_file"] = "missing.fem"
    path.write_text(json.dumps(d))
    with pytest.raises(ModelError, match="body 'rod': fe_file 'missing.fem' does not exist"):
        load_model(path)


def test_matrix_market_import_gives_the_built_in_beams_modes(tmp_path):
    beam = _model()
    ref = modal_data(beam.bodies[0])
    fe_body = ref.modes.body
    scipy.io.mmwrite(str(tmp_path / "M.mtx"), fe_body.M)
    scipy.io.mmwrite(str(tmp_path / "K.mtx"), fe_body.K)
    (tmp_path / "dofs.txt").write_text("".join(f"{n + 1} {c + 1}\n" for n in range(11) for c in range(6)))
    (tmp_path / "nodes.txt").write_text("".join(f"{n + 1} {x} {y} {z}\n" for n, (x, y, z) in enumerate(NODES)))
    d = model_to_dict(beam)
    d["bodies"][0].update(nodes=[], fe_file="M.mtx", fe_stiffness="K.mtx", fe_dof_map="dofs.txt",
                          fe_nodes="nodes.txt")
    (tmp_path / "m.json").write_text(json.dumps(d))
    imp = modal_data(load_model(tmp_path / "m.json").bodies[0])
    assert np.allclose(np.linalg.eigvalsh(imp.inv.K_ff), np.linalg.eigvalsh(ref.inv.K_ff), rtol=1e-6)
    assert imp.inv.mass == pytest.approx(ref.inv.mass, rel=1e-12)
    assert np.allclose(imp.inv.inertia, ref.inv.inertia, rtol=1e-10, atol=1e-14)
