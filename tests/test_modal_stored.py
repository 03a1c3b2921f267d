"""Mode data stored with an FMU (model/modal_data.to_arrays / use_stored): read back without pickle, it gives the
modal bodies the same arrays and the same channel values as the computation it replaces, it is used only for the
bodies it was computed for, a process that uses it neither computes modes nor imports fmu_mbs.fe or scipy.linalg,
and a malformed file is refused with the reason."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.modal_channels import ModalChannels
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model
from fmu_mbs.model import modal_data as md
from fmu_mbs.model.elements import ModalBody
from fmu_mbs.model.names import channels
from fmu_mbs.model.rotations import quat_matrix

MODELS = Path(__file__).resolve().parents[1] / "models"


def _modal_bodies(model) -> list[ModalBody]:
    return [b for b in model.bodies if isinstance(b, ModalBody)]


@pytest.fixture()
def isolated(monkeypatch):
    """Empty registries (the module's caches) for one test."""
    monkeypatch.setattr(md, "_STORED", {})
    monkeypatch.setattr(md, "_CACHE", {})


@pytest.mark.parametrize("name", ["flexible_boom", "flexible_slider_crank"])
def test_stored_mode_data_gives_the_computed_arrays_and_channel_values(name, tmp_path, isolated):
    model = load_model(MODELS / f"{name}.json")
    bodies = _modal_bodies(model)
    computed = {b.name: md.modal_data(b) for b in bodies}
    path = tmp_path / md.STORED_FILE
    with path.open("wb") as f:
        np.savez(f, **md.to_arrays(bodies))
    cm_computed = compile_model(model)
    md._CACHE.clear()
    assert md.use_stored_file(path, bodies) is None
    for b in bodies:
        stored, ref = md.modal_data(b), computed[b.name]
        assert stored is not ref and stored.modes is None
        for field in ("nodes", "rows", "k_geo", "stress"):
            np.testing.assert_array_equal(getattr(stored, field), getattr(ref, field), err_msg=field)
        assert stored.names == ref.names and stored.inv.n_modes == ref.inv.n_modes
        for f in dataclasses.fields(ref.inv):
            value = getattr(ref.inv, f.name)
            if value is None:
                assert getattr(stored.inv, f.name) is None
            else:
                np.testing.assert_array_equal(getattr(stored.inv, f.name), value, err_msg=f.name)
        np.testing.assert_array_equal(stored.inv.inertia_at_com, ref.inv.inertia_at_com)
    cm_stored = compile_model(model)
    np.testing.assert_array_equal(cm_stored.arrays.flex.modal.pool, cm_computed.arrays.flex.modal.pool)
    chans = channels(model)
    rng = np.random.default_rng(3)
    q = np.asarray(cm_computed.q0, float) + 0.01 * rng.standard_normal(len(cm_computed.q0))
    qd = rng.standard_normal(len(q))
    values = []
    for cm in (cm_computed, cm_stored):
        ch = ModalChannels(cm, chans)
        out = np.zeros(len(ch.names))
        ch.fill(q, qd, out)
        values.append(out)
    assert len(values[0]) > 0
    np.testing.assert_array_equal(values[1], values[0])


def test_stored_data_is_used_only_for_the_bodies_it_was_computed_for(tmp_path, isolated):
    body = _modal_bodies(load_model(MODELS / "flexible_boom.json"))[0]
    path = tmp_path / md.STORED_FILE
    with path.open("wb") as f:
        np.savez(f, **md.to_arrays([body]))
    md._CACHE.clear()
    other = dataclasses.replace(body, damping=body.damping + 0.01)     # an FMU parameter changed a field
    moved = dataclasses.replace(body, source_dir=str(tmp_path))          # another extraction folder: the same body
    assert md.use_stored_file(path, [other, moved]) is None
    assert md.modal_data(moved).modes is None                            # stored
    assert md.modal_data(other).modes is not None                        # computed
    assert md.modal_data(body).modes is not None                         # not registered: computed


def test_a_process_with_stored_data_neither_computes_modes_nor_imports_the_fe_layer(tmp_path):
    model = load_model(MODELS / "flexible_boom.json")
    path = tmp_path / md.STORED_FILE
    with path.open("wb") as f:
        np.savez(f, **md.to_arrays(_modal_bodies(model)))
    code = (
        "import json, sys\n"
        "from fmu_mbs.model import load_model\nfrom fmu_mbs.model.elements import ModalBody\n"
        "from fmu_mbs.model.modal_data import use_stored_file\nfrom fmu_mbs.compiler import compile_model\n"
        "from fmu_mbs.analyses.channels import ChannelEvaluator\n"
        "m = load_model(sys.argv[1])\n"
        "print(use_stored_file(sys.argv[2], [b for b in m.bodies if isinstance(b, ModalBody)]))\n"
        "cm = compile_model(m)\n"
        "from fmu_mbs.analyses.modal_channels import ModalChannels\n"
        "from fmu_mbs.model.names import channels\n"
        "ModalChannels(cm, channels(m))\n"
        "print(json.dumps(sorted(n for n in ('fmu_mbs.fe', 'scipy.linalg', 'scipy.sparse') if n in sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code, str(MODELS / "flexible_boom.json"), str(path)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "None" and json.loads(out[1]) == []


def test_a_malformed_file_is_refused_with_the_reason(tmp_path, isolated):
    body = _modal_bodies(load_model(MODELS / "flexible_boom.json"))[0]
    arrays = md.to_arrays([body])
    key = md.stored_key(body)
    cases = {
        "missing": ({k: v for k, v in arrays.items() if not k.endswith("/rows")}, "malformed ['rows']"),
        "object": ({**arrays, f"{key}/rows": np.array([{"a": 1}], dtype=object)}, "allow_pickle=False"),
        "text": ({**arrays, f"{key}/nodes": np.array(["x"])}, "malformed ['arrays']"),
    }
    for label, (case, message) in cases.items():
        path = tmp_path / f"{label}.npz"
        with path.open("wb") as f:
            np.savez(f, **case)
        reason = md.use_stored_file(path, [body])
        assert reason is not None and message in reason, (label, reason)
        assert "'boom'" in reason or label == "object"
        assert not md._STORED
    (tmp_path / "garbage.npz").write_bytes(b"PK\x03\x04 not a zip")
    assert md.use_stored_file(tmp_path / "garbage.npz", [body]).startswith("BadZipFile")


def test_the_node_position_rotation_is_that_of_the_ffrf_formulas():
    from fmu_mbs.fe.ffrf import euler_parameter_matrices

    p = np.random.default_rng(5).standard_normal(4)
    p /= np.linalg.norm(p)
    np.testing.assert_allclose(quat_matrix(p), euler_parameter_matrices(p)[0], rtol=0, atol=1e-15)


def test_the_registry_keeps_the_latest_bodies_only(tmp_path, isolated, monkeypatch):
    """A body with FE files carries the FMU's extraction folder in its fields, so each instance of such an FMU adds
    an entry: a long study in one process must not keep them all."""
    monkeypatch.setattr(md, "_STORED_MAX", 3)
    body = _modal_bodies(load_model(MODELS / "flexible_boom.json"))[0]
    path = tmp_path / md.STORED_FILE
    with path.open("wb") as f:
        np.savez(f, **md.to_arrays([body]))
    folders = [dataclasses.replace(body, source_dir=str(tmp_path / f"run{k}")) for k in range(5)]
    for b in folders:
        assert md.use_stored_file(path, [b]) is None
    assert list(md._STORED) == [repr(b) for b in folders[2:]]
    assert md.modal_data(folders[-1]).modes is None
