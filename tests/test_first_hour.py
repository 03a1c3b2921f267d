"""The traps a new user met in the first hour (issue 18), one test each: discoverable channels, --set on every
verb, a units row, every problem of a model file in one check, a schema that agrees with check, README examples on
shipped models, and the documented Python API (docs/python-api.md as doctests)."""

from __future__ import annotations

import doctest
import json
import math
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipk

from fmu_mbs import load_model
from fmu_mbs.adapters.cli import _EXAMPLES, build_parser, main
from fmu_mbs.adapters.recording import read_csv
from fmu_mbs.cli import STUDY_VERBS
from fmu_mbs.model import model_from_dict
from fmu_mbs.model.names import channels
from fmu_mbs.model.schema import json_schema
from fmu_mbs.studies.cli import build_parser as build_study_parser

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
PENDULUM = str(MODELS / "pendulum.json")


def _csv(path: Path) -> dict[str, np.ndarray]:
    return read_csv(path)


def test_channels_lists_every_channel_with_unit_and_meaning(capsys):
    for name in ("pendulum", "crane", "bouncing_ball"):
        assert main(["channels", str(MODELS / f"{name}.json")]) == 0
        lines = capsys.readouterr().out.splitlines()
        for c in channels(load_model(MODELS / f"{name}.json")):
            assert any(line.split()[:2] == [c.name, c.unit] and c.description in line for line in lines), c.name


def test_set_changes_gravity_and_length_before_a_simulation(tmp_path):
    """A 2 m pendulum on the Moon released horizontally is at the bottom after T/4 = sqrt(L/g) K(1/2)."""
    length, g = 2.0, 1.62
    quarter = float(math.sqrt(length / g) * ellipk(0.5))
    out = tmp_path / "moon.csv"
    assert main(["simulate", PENDULUM, "--t-end", f"{quarter!r}", "--step", "1e-3", "--out", str(out),
                 "--progress", "never", "--set", f"rod.length={length}", f"g[2]={-g}"]) == 0
    data = _csv(out)
    assert data["P1.r[1]"][-1] == pytest.approx(0.0, abs=2e-3 * length)
    assert data["P1.r[2]"][-1] == pytest.approx(-length, abs=1e-5)


def test_set_solver_options_reach_the_integrator(tmp_path, capsys):
    args = ["simulate", PENDULUM, "--t-end", "0.01", "--step", "1e-3", "--out", str(tmp_path / "a.csv"),
            "--progress", "never", "--set"]
    assert main(args + ["solver.integrator=galpha", "solver.rho_inf=0.5"]) == 0
    assert main(args + ["solver.rho_inf=0.5"]) == 1                      # rho_inf belongs to galpha
    assert "--rho-inf applies to --integrator galpha" in capsys.readouterr().err
    assert main(args + ["solver.integrator=nonsense"]) == 1
    assert "unknown integrator 'nonsense'" in capsys.readouterr().err
    assert main(args + ["solver.accept_first=1"]) == 0
    assert main(args + ["solver.accept_first=maybe"]) == 1
    assert "'maybe' is not a switch" in capsys.readouterr().err
    assert main(args + ["solver.integrator=explicit", "solver.accept_first=true"]) == 1
    assert "accept_first" in capsys.readouterr().err                  # not an option of the explicit integrator
    assert main(args + ["solver.project_accelerations=0"]) == 0
    assert main(args + ["solver.tangent_every=5"]) == 0
    assert main(args + ["solver.tangent_every=2.5"]) == 1
    assert "'2.5' is not a positive whole number" in capsys.readouterr().err
    assert main(args + ["solver.scheme=energy", "solver.project_accelerations=0"]) == 1
    assert "project_accelerations=False does not apply to scheme 'energy'" in capsys.readouterr().err


def test_set_names_a_misspelt_value_and_its_close_matches(capsys):
    assert main(["check", PENDULUM, "--set", "rod.lenght=2"]) == 1
    assert "did you mean rod.length?" in capsys.readouterr().err
    assert main(["check", PENDULUM, "--set", "rod.length"]) == 1
    assert "NAME=VALUE" in capsys.readouterr().err


def test_set_initial_joint_coordinate_on_assemble_and_check(tmp_path, capsys):
    out = tmp_path / "a.csv"
    assert main(["assemble", str(MODELS / "friction_pendulum.json"), "--set", "pin.s_start=0.3", "--out",
                 str(out)]) == 0
    assert _csv(out)["pin.s"][0] == pytest.approx(0.3, abs=1e-9)
    assert main(["check", str(MODELS / "friction_pendulum.json"), "--set", "pin.s_start=0.3"]) == 0
    assert "ok" in capsys.readouterr().out


def test_set_mass_on_statics_inverse_and_kinematics(tmp_path):
    """Fully driven four-bar: one more kg on the crank adds its weight's moment about the crank pivot to the motor
    torque, at rest (statics) and at constant crank speed (inverse: the crank's own inertia needs no torque), and
    changes no position (kinematics)."""
    model = load_model(MODELS / "fourbar_driven.json")
    g = -model.gravity[1]
    runs = {}
    for verb, extra in (("statics", []), ("inverse", ["--t-end", "0.5", "--step", "0.05"]),
                        ("kinematics", ["--t-end", "0.5", "--step", "0.05"])):
        for mass in (None, 2.0):
            out = tmp_path / f"{verb}_{mass}.csv"
            sets = [] if mass is None else ["--set", f"crank_link.mass={mass}"]
            assert main([verb, str(MODELS / "fourbar_driven.json"), "--out", str(out), *extra, *sets,
                         *(["--progress", "never"] if extra else [])]) == 0
            runs[verb, mass] = _csv(out)
    base, heavy = runs["kinematics", None], runs["kinematics", 2.0]
    assert np.array_equal(base["B_coupler.r[1]"], heavy["B_coupler.r[1]"])
    pivot = [m for m in model.markers if m.name == "O2"][0].position[0]
    extra_mass = 2.0 - model.element("crank_link").mass
    for verb in ("statics", "inverse"):
        base, heavy = runs[verb, None], runs[verb, 2.0]
        # the crank's CM is the midpoint of its two joint markers
        cm_x = 0.5 * (base["crank.r[1]"] + base["A_crank.r[1]"])
        moment = extra_mass * g * (cm_x - pivot)
        assert np.allclose(np.abs(heavy["motor.f"] - base["motor.f"]), np.abs(moment), rtol=1e-6, atol=1e-6), verb


def test_units_row(tmp_path):
    out = tmp_path / "u.csv"
    assert main(["assemble", PENDULUM, "--units", "--out", str(out)]) == 0
    header, units = out.read_text().splitlines()[:2]
    chans = channels(load_model(PENDULUM))
    assert header.split(",") == ["time"] + [c.name for c in chans]
    assert units.split(",") == ["s"] + [c.unit for c in chans]
    assert len(_csv(out)["time"]) == 1                                     # readers skip the row of units


def _broken_fourbar() -> dict:
    data = json.loads((MODELS / "fourbar.json").read_text())
    data["bodies"][0]["colour"] = "red"                  # unknown field
    data["bodies"][1]["mass"] = -1.0                     # invalid value
    data["joints"][0]["marker_j"] = "nowhere"            # bad reference
    data["joints"][1]["type"] = "hinge"                  # unknown joint type
    return data


def test_check_reports_every_problem_of_a_file_in_one_run(tmp_path, capsys):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(_broken_fourbar()))
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    for needle in ("body 'crank_link': unknown field(s) ['colour']", "body 'coupler': 'mass' must be positive",
                   "joint 'pin_O2': 'marker_j' refers to marker 'nowhere'", "joint 'pin_A': type 'hinge'"):
        assert needle in err
    assert "body 'crank_link' is not defined" not in err                   # no consequences of the unreadable body


def test_schema_and_check_agree():
    """A variant that check rejects for one local problem is rejected by the schema too; the inertia forms the docs
    allow (3 moments, 6 values, 3x3) pass both."""
    jsonschema = pytest.importorskip("jsonschema")
    schema = json_schema()
    spatial = json.loads((MODELS / "slider_crank.json").read_text())

    def variant(change):
        data = json.loads(json.dumps(spatial))
        change(data)
        return data

    body = spatial["bodies"][0]["name"]
    good = [variant(lambda d: d["bodies"][0].update(inertia=[0.1, 0.2, 0.25])),
            variant(lambda d: d["bodies"][0].update(inertia=[0.1, 0.2, 0.25, 0.0, 0.0, 0.0]))]
    bad = [variant(lambda d: d["bodies"][0].update(colour="red")),
           variant(lambda d: d["bodies"][0].update(mass=-1.0)),
           variant(lambda d: d["joints"][0].update(type="hinge")),
           variant(lambda d: d["markers"][0].update(orientation=[1.0, 0.0, 0.0])),
           variant(lambda d: d["bodies"][0].update(inertia=[0.1, 0.2])),
           variant(lambda d: d["bodies"][0].update(name="crank-link")),
           variant(lambda d: d.update(shapes=[{"name": "s", "marker": d["markers"][0]["name"], "kind": "cube"}]))]
    for data in good:
        jsonschema.validate(data, schema)
        assert model_from_dict(data).element(body).inertia[2][2] == 0.25
    for k, data in enumerate(bad):
        with pytest.raises(Exception) as checked:
            model_from_dict(data)
        assert type(checked.value).__name__ == "ModelError", k
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, schema)


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("fmu-mbs ")] + [cmd for cmd, _ in _EXAMPLES.values()]


@pytest.mark.parametrize("command", _readme_commands())
def test_readme_and_help_examples_use_shipped_models(command):
    words = shlex.split(command)[1:]
    if words[0] in STUDY_VERBS:                             # the study verbs have their own parser
        build_study_parser().parse_args(words)
    else:
        build_parser().parse_args(words)                    # the options exist
    for word in words:
        if word.endswith(".json"):
            assert (ROOT / word).is_file(), f"'{command}' uses {word}, which is not shipped"
    assert "MODEL" not in words


def test_driven_catalogue_models_follow_their_drivers(tmp_path):
    for name, joint in (("fourbar_driven", "pin_O2"), ("slider_crank_driven", "crank_pivot")):
        out = tmp_path / f"{name}.csv"
        assert main(["kinematics", str(MODELS / f"{name}.json"), "--t-end", "1", "--step", "0.125", "--out",
                     str(out), "--progress", "never"]) == 0
        data = _csv(out)
        motor = load_model(MODELS / f"{name}.json").element("motor").function
        assert np.allclose(data[f"{joint}.s"], motor.initial + motor.rate * data["time"], atol=1e-9)
        assert motor.rate == pytest.approx(2.0 * math.pi)


def test_python_api_doc_examples(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(ROOT / "docs" / "python-api.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 40 and result.failed == 0


def test_result_channels_by_name_match_the_csv(tmp_path):
    import fmu_mbs
    result = fmu_mbs.simulate(PENDULUM, t_end=0.05, step=1e-3)
    out = tmp_path / "p.csv"
    assert main(["simulate", PENDULUM, "--t-end", "0.05", "--step", "1e-3", "--out", str(out),
                 "--progress", "never"]) == 0
    data = _csv(out)
    for name in ("P1.r[1]", "rod.F[2]", "energy.total"):
        assert np.array_equal(result[name], data[name])
    with pytest.raises(KeyError, match="did you mean P1.r"):
        result["P1.r[4]"]


def test_set_on_build_bakes_the_value_into_the_fmu(tmp_path, capsys):
    import zipfile
    assert main(["build", PENDULUM, "-o", str(tmp_path), "--set", "rod.length=2", "g[2]=-1.62"]) == 0
    model = json.loads(zipfile.ZipFile(tmp_path / "pendulum.fmu").read("resources/model.json"))
    assert model["joints"][0]["length"] == 2.0 and model["gravity"] == [0.0, -1.62]
    assert main(["build", PENDULUM, "-o", str(tmp_path), "--set", "solver.penalty=1"]) == 1
    assert "FMU parameters" in capsys.readouterr().err
