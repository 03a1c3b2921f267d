"""Initial joint coordinates and rates (<joint>.s_start, <joint>.sd_start): assembly keeps them exactly, solves for
the other coordinates, and names the joints whose values the constraints cannot meet. The reference is the
closed-form four-bar position and velocity analysis (loop closure L2 e^{i t2} + L3 e^{i t3} = L1 + L4 e^{i t4} and
its time derivative), independent of the solver's constraint rows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AssemblyError, ModelError
from fmu_mbs.model import ModelBuilder, load_model, model_to_dict
from fmu_mbs.model.json_io import model_from_dict

MODELS = Path(__file__).resolve().parents[1] / "models"
L1, L2, L3, L4 = 2.5, 2.0, 4.0, 4.0          # seed 002 four-bar: ground, crank, coupler, follower (m)


def _fourbar(**joint_fields):
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    for name, fields in joint_fields.items():
        for field, value in fields.items():
            b.set_value(name, field, value)
    return b.build()


def _link_angles(q):
    """Crank, coupler and follower link directions (rad) from the body angles (links along body x)."""
    return q[2], q[5], q[8]


def test_crank_rate_kept_exactly_and_others_from_closed_form():
    """Crank at 5 rad/s from rest (issue 16: before, the velocity projection started it at 1.30 rad/s)."""
    res = assemble(compile_model(_fourbar(pin_O2={"sd_start": 5.0})))
    t2, t3, t4 = _link_angles(res.q)
    w2 = 5.0
    # d/dt loop closure: L3 w3 i e^{i t3} - L4 w4 i e^{i t4} = -L2 w2 i e^{i t2}, real and imaginary parts
    A = np.array([[-L3 * math.sin(t3), L4 * math.sin(t4)], [L3 * math.cos(t3), -L4 * math.cos(t4)]])
    rhs = np.array([L2 * w2 * math.sin(t2), -L2 * w2 * math.cos(t2)])
    w3, w4 = np.linalg.solve(A, rhs)
    assert res.qd[2] == pytest.approx(5.0, abs=1e-12)
    assert res.qd[5] == pytest.approx(w3, rel=1e-10)
    assert res.qd[8] == pytest.approx(w4, rel=1e-10)
    # the crank centre moves on its circle: v = w2 x r_cm (r_cm = 1 m along the crank)
    assert res.qd[0:2] == pytest.approx([-w2 * math.sin(t2), w2 * math.cos(t2)], rel=1e-10)


def test_crank_angle_kept_exactly_and_follower_from_closed_form():
    t2 = 1.2                                              # the model file starts it at 60 deg
    res = assemble(compile_model(_fourbar(pin_O2={"s_start": t2, "sd_start": -3.0})))
    assert res.q[2] == pytest.approx(t2, abs=1e-12)
    assert res.qd[2] == pytest.approx(-3.0, abs=1e-12)
    # B: intersection of the circles |B - A| = L3 and |B - O4| = L4, on the branch of the model's start (above)
    A = np.array([L2 * math.cos(t2), L2 * math.sin(t2)])
    O4 = np.array([L1, 0.0])
    d = np.linalg.norm(O4 - A)
    a = (L3 ** 2 - L4 ** 2 + d ** 2) / (2 * d)
    h = math.sqrt(L3 ** 2 - a ** 2)
    ex = (O4 - A) / d
    ey = np.array([-ex[1], ex[0]])
    B = max((A + a * ex + h * ey, A + a * ex - h * ey), key=lambda p: p[1])
    t4 = math.atan2(B[1], B[0] - L1)
    assert res.q[8] == pytest.approx(t4, abs=1e-9)
    assert res.q[6:8] == pytest.approx(O4 + 0.5 * (B - O4), abs=1e-9)   # follower centre halfway O4-B


def test_inconsistent_rates_name_the_joints():
    """A one-DOF mechanism given two independent rates: the error names both joints."""
    model = _fourbar(pin_O2={"sd_start": 5.0}, pin_O4={"sd_start": 5.0})
    with pytest.raises(AssemblyError, match=r"initial joint rates are inconsistent.*pin_O2\.sd_start = 5.*"
                                            r"pin_O4\.sd_start = 5"):
        assemble(compile_model(model))


def test_consistent_redundant_rates_are_accepted():
    """Two rates that agree with the closed form (crank and follower) are both kept."""
    res = assemble(compile_model(_fourbar(pin_O2={"sd_start": 5.0})))
    w4 = float(res.qd[8])
    res2 = assemble(compile_model(_fourbar(pin_O2={"sd_start": 5.0}, pin_O4={"sd_start": w4})))
    assert res2.qd == pytest.approx(res.qd, rel=1e-9, abs=1e-12)


def test_inconsistent_coordinates_name_the_joints():
    model = _fourbar(pin_O2={"s_start": 1.0}, pin_O4={"s_start": 0.2})
    with pytest.raises(AssemblyError, match=r"initial joint coordinates are inconsistent.*pin_O2\.s_start = 1 .*"
                                            r"pin_O4\.s_start = 0\.2"):
        assemble(compile_model(model))


def test_prismatic_rate_on_the_spatial_slider_crank():
    """Prismatic rate given: kept exactly; the velocity constraints hold."""
    model = load_model(MODELS / "slider_crank.json")
    prismatic = next(j.name for j in model.joints if j.type == "prismatic")
    b = ModelBuilder.from_model(model)
    b.set_value(prismatic, "sd_start", 0.3)
    cm = compile_model(b.build())
    res = assemble(cm)
    from fmu_mbs.analyses.evaluate import Evaluator
    from fmu_mbs.analyses.joint_starts import JointStarts
    ev = Evaluator(cm)
    ev.constraints(0.0, res.q, res.qd)
    assert np.max(np.abs(ev.J @ res.qd - ev.nu)) < 1e-10
    assert JointStarts(cm).rates(0.0, res.q, res.qd, [prismatic])[0] == pytest.approx(0.3, abs=1e-12)


def test_model_file_round_trip_and_validation():
    model = _fourbar(pin_O2={"s_start": 1.2, "sd_start": 5.0})
    data = model_to_dict(model)
    joint = next(j for j in data["joints"] if j["name"] == "pin_O2")
    assert joint["s_start"] == 1.2 and joint["sd_start"] == 5.0
    assert model_from_dict(data) == model
    b = ModelBuilder.from_model(model)
    b.add_driver("motor", "pin_O2", 0.5)
    with pytest.raises(ModelError, match=r"driver 'motor'.*s_start, sd_start"):
        b.build()
    with pytest.raises(ModelError, match=r"joint 'pin_A': 'sd_start' must be finite"):
        _fourbar(pin_A={"sd_start": math.inf})
    b = ModelBuilder.from_model(load_model(MODELS / "slider_crank.json"))
    spherical = next(j.name for j in b.joints if j.type == "spherical")
    b.set_value(spherical, "s_start", 0.1)
    with pytest.raises(ModelError, match=rf"joint '{spherical}': 's_start' needs a joint with one coordinate"):
        b.build()


def test_cli_set_initial_rate(tmp_path):
    """``--set <joint>.sd_start`` on the command line sets the field; the assembled CSV shows the joint rate."""
    import csv

    from fmu_mbs.adapters.cli import main
    out = tmp_path / "a.csv"
    assert main(["assemble", str(MODELS / "fourbar.json"), "--set", "pin_O2.sd_start=5", "--set",
                 "pin_O2.s_start=1.2", "--out", str(out)]) == 0
    row = next(csv.DictReader(out.open()))
    assert float(row["pin_O2.sd"]) == pytest.approx(5.0, abs=1e-12)
    assert float(row["pin_O2.s"]) == pytest.approx(1.2, abs=1e-9)


FMU_RUN = """
import json, sys
from fmu_mbs.adapters.fmu_build import build_fmu, vendored_package_name
from fmu_mbs.model import ModelBuilder, load_model
package = vendored_package_name()
imported = []
sys.addaudithook(lambda event, args: imported.append(str(args[0])) if event == "import"
                 and str(args[0]).split(".")[0] == package else None)
b = ModelBuilder.from_model(load_model(sys.argv[1]))
b.exposed = [*b.exposed, "pin_O2.sd_start", "pin_O2.s_start"]
fmu = build_fmu(b.build(), sys.argv[2])
at_build = list(imported)
from fmpy import read_model_description, simulate_fmu
start = float({v.name: v for v in read_model_description(str(fmu)).modelVariables}["pin_O2.sd_start"].start)
res = simulate_fmu(str(fmu), stop_time=0.02, step_size=0.01, output=["pin_O2.s", "pin_O2.sd"],
                   start_values={"pin_O2.sd_start": 5.0, "pin_O2.s_start": 1.2})
misses = sum(sum(obj.stats.cache_misses.values()) for name, module in list(sys.modules.items())
             if name.startswith(package + ".kernels") for obj in vars(module).values()
             if hasattr(getattr(obj, "stats", None), "cache_misses"))
print(json.dumps({"imported at build": at_build, "sd_start": start, "s": float(res["pin_O2.s"][0]),
                  "sd": float(res["pin_O2.sd"][0]), "misses": misses}), flush=True)
"""


def test_fmu_parameters_s_start_and_sd_start(tmp_path):
    """Exposed as FMU parameters: the FMU starts the crank at the given angle and rate (its default rate is the
    assembled one, 0 for the four-bar at rest). Built and run in one process (a script that builds and then
    simulates): the build imports no module of the FMU's library copy here (pythonfmu's description step, which
    assembles the model for the parameters' start values, runs in a child process), and the run then compiles no
    kernel (it loads the FMU's shipped ones). Building in-process compiled 29 kernels for ~3 min on a fresh machine
    and typed the copy's arrays with the staged module's classes."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", FMU_RUN, str(MODELS / "fourbar.json"), str(tmp_path)],
                          capture_output=True, text=True, timeout=1800, cwd=tmp_path)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    result = json.loads(lines[-1])
    assert result["imported at build"] == []
    assert result["sd_start"] == 0.0
    assert result["s"] == pytest.approx(1.2, abs=1e-9)
    assert result["sd"] == pytest.approx(5.0, abs=1e-9)
    assert result["misses"] == 0, result
