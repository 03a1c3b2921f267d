"""An FMU of a model whose modal body comes from FE files carries those files (adapters/fmu_build._fe_files:
``resources/fe/<body>/<sha256>-<name>``, model.json pointed at them) and runs where the originals are gone, as the
library runs the original model: every declared output at every communication point, to round-off."""

from __future__ import annotations

import json
import shutil
import zipfile

import numpy as np
import scipy.io
from fmpy import simulate_fmu

from fmu_mbs.adapters.fmu_build import build_fmu
from fmu_mbs.analyses.channels import ChannelEvaluator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, load_model, model_to_dict
from fmu_mbs.model.fmu_interface import fmu_outputs
from fmu_mbs.model.modal_data import modal_data
from fmu_mbs.model.names import channel_names

SECTION = dict(E=2.1e11, G=8.0e10, rho=7850.0, area=4e-4, Iy=2.1e-8, Iz=1.3e-8, J=3.0e-8)


def test_an_fmu_carries_its_fe_files_and_runs_without_the_originals(tmp_path):
    """The rod of tests/test_modal_model.py imported from Matrix Market files (the built-in beam's own M and K, a
    DOF map and node positions, in two folders), spinning and deformed at the start."""
    nodes = [(0.1 * i, 0.0, 0.0) for i in range(11)]
    b = ModelBuilder("fe_rod", 3)
    b.add_modal_body("rod", nodes=nodes, n_modes=3, interfaces=[[0], [10]], interface_kinds=["rigid", "nodes"],
                     damping=0.01, **SECTION)
    beam = b.build()
    fe_body = modal_data(beam.bodies[0]).modes.body
    src = tmp_path / "src"
    (src / "matrices").mkdir(parents=True)
    scipy.io.mmwrite(str(src / "matrices" / "M.mtx"), fe_body.M)
    scipy.io.mmwrite(str(src / "matrices" / "K.mtx"), fe_body.K)
    (src / "dofs.txt").write_text("".join(f"{n + 1} {c + 1}\n" for n in range(11) for c in range(6)))
    (src / "nodes.txt").write_text("".join(f"{n + 1} {x} {y} {z}\n" for n, (x, y, z) in enumerate(nodes)))
    d = model_to_dict(beam)
    d["bodies"][0].update(nodes=[], fe_file="matrices/M.mtx", fe_stiffness="matrices/K.mtx", fe_dof_map="dofs.txt",
                          fe_nodes="nodes.txt", angular_velocity=[0.0, 0.5, 2.0])
    d["markers"] = []
    (src / "m.json").write_text(json.dumps(d))
    m = modal_data(load_model(src / "m.json").bodies[0]).inv.n_modes
    d["bodies"][0]["modal_coordinates"] = [1e-3 * (-0.5) ** k for k in range(m)]
    (src / "m.json").write_text(json.dumps(d))
    model = load_model(src / "m.json")
    fmu = build_fmu(model, tmp_path / "dist")
    with zipfile.ZipFile(fmu) as z:
        carried = json.loads(z.read("resources/model.json"))["bodies"][0]
        for field, original in (("fe_file", "matrices/M.mtx"), ("fe_stiffness", "matrices/K.mtx"),
                                ("fe_dof_map", "dofs.txt"), ("fe_nodes", "nodes.txt")):
            name = carried[field]
            assert name.startswith("fe/rod/") and name.endswith("-" + original.split("/")[-1]), name
            assert z.read(f"resources/{name}") == (src / original).read_bytes()
    cm = compile_model(model)
    declared = fmu_outputs(cm.model)
    names = [channel_names(cm.model)[k] for k in declared]
    lib = simulate(cm, 0.05, 1e-3, output_step=0.01)
    chan = ChannelEvaluator(cm)
    sums = zip(lib.info["energy_dissipated"], lib.info["energy_input"], strict=True)
    ref = np.array([chan(t, q, qd, qdd, lam, dissipated=dd, energy_input=w) for t, q, qd, qdd, lam, (dd, w)
                    in zip(lib.t, lib.q, lib.qd, lib.qdd, lib.lam, sums, strict=True)])[:, declared]
    shutil.rmtree(src)                                   # the FMU needs none of the originals
    res = simulate_fmu(str(fmu), stop_time=0.05, step_size=0.01, output_interval=0.01, output=names)
    got = np.column_stack([res[n] for n in names])
    keep = [k for k, n in enumerate(names) if not n.startswith("solver.")]
    assert any(n.startswith("rod.eta") for n in names) and np.abs(ref[:, keep]).max() > 0
    scale = np.maximum(1.0, np.abs(ref).max(axis=0))
    assert np.max(np.abs(got[:, keep] - ref[:, keep]) / scale[keep]) < 1e-9
