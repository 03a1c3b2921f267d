"""Model layer: validation names the element and the problem; JSON round trips exactly; builder == loader."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fmu_mbs.errors import ModelError
from fmu_mbs.model import ModelBuilder, load_model, model_from_dict, model_to_dict, save_model

from models_for_tests import every_joint_planar, every_joint_spatial

MODELS = sorted(Path(__file__).resolve().parents[1].joinpath("models").glob("*.json"))


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_catalogue_round_trip_is_exact(path, tmp_path):
    model = load_model(path)
    out = tmp_path / "copy.json"
    save_model(model, out)
    assert load_model(out) == model
    # the file itself is in canonical form: writing it again gives the same JSON structure
    assert json.loads(out.read_text()) == json.loads(path.read_text())


@pytest.mark.parametrize("make", [every_joint_spatial, every_joint_planar])
def test_every_element_round_trips(make):
    model = make()
    assert model_from_dict(json.loads(json.dumps(model_to_dict(model)))) == model


def test_builder_and_loader_give_the_same_model():
    b = ModelBuilder("pendulum", dimension=2, gravity=(0.0, -9.81),
                     description="1 kg point mass on a 1 m massless link, released horizontally (IFToMM simple "
                                 "pendulum).")
    b.add_point_mass("bob", 1.0, position=(1.0, 0.0))
    b.add_marker("pivot", "ground")
    b.add_marker("P1", "bob", port=True)
    b.add_joint("rod", "distance", "pivot", "P1", length=1.0)
    b.expose("bob.mass", "rod.length")
    b.fmu_output("default", "rod.F")
    b.add_graphic("bob_ball", "P1", "sphere", (0.05,), color="#d62728")
    b.add_graphic("rod_bar", "pivot", "link", (0.008,), to_marker="P1", color="#7f7f7f")
    b.add_graphic("pivot_block", "pivot", "box", (0.03, 0.03, 0.03), color="#4d4d4d")
    assert b.build() == load_model(Path(__file__).resolve().parents[1] / "models" / "pendulum.json")


def _problems(build) -> str:
    with pytest.raises(ModelError) as info:
        build()
    return str(info.value)


def _base(dim=3):
    b = ModelBuilder("m", dimension=dim)
    if dim == 3:
        b.add_rigid_body("link", 1.0, [0.1, 0.1, 0.1])
    else:
        b.add_planar_body("link", 1.0, 0.1)
    b.add_marker("g", "ground")
    b.add_marker("p", "link")
    return b


def test_bad_bodies_are_named():
    b = _base()
    b.add_rigid_body("neg", -2.0, [0.1, 0.1, 0.1])
    b.add_rigid_body("tri", 1.0, [1.0, 1.0, 3.0])
    b.add_rigid_body("npd", 1.0, [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    b.add_rigid_body("quat", 1.0, [0.1, 0.1, 0.1], orientation=(1.0, 0.1, 0.0, 0.0))
    text = _problems(b.build)
    assert "body 'neg': 'mass' must be positive" in text
    assert "body 'tri': 'inertia' violates the triangle inequality" in text
    assert "body 'npd': 'inertia' is not positive definite" in text
    assert "body 'quat': 'orientation' must be a unit quaternion" in text


def test_bad_references_and_duplicates_are_named():
    b = _base()
    b.add_marker("p", "link")                       # duplicate
    b.add_marker("q", "nobody")                     # unknown body
    b.add_joint("j1", "revolute", "g", "missing")   # unknown marker
    b.add_joint("j2", "hinge", "g", "p")            # unknown type
    b.add_joint("j3", "revolute", "p", "p")         # same body
    b.add_driver("d1", "nojoint", 0.0)
    b.add_joint("sph", "spherical", "g", "p")
    b.add_driver("d2", "sph", 0.0)                  # spherical has no coordinate
    b.add_spring_damper("s", "g", "p", stiffness=-1.0)
    b.add_marker("pin-A", "link")                   # not an identifier
    text = _problems(b.build)
    for expected in ("marker 'p': duplicate name",
                     "marker 'q': body 'nobody' is not defined",
                     "joint 'j1': 'marker_j' refers to marker 'missing', which is not defined",
                     "joint 'j2': type 'hinge' is not a spatial joint type",
                     "joint 'j3': markers 'p' and 'p' are on the same body 'link'",
                     "driver 'd1': joint 'nojoint' is not defined",
                     "driver 'd2': joint 'sph' of type 'spherical' has no coordinate",
                     "force element 's': 'stiffness' must be finite and >= 0",
                     "marker 'pin-A': names must be identifiers"):
        assert expected in text, expected


def test_dimension_mismatches_are_named():
    b = _base(dim=2)
    b.add_rigid_body("r3", 1.0, [0.1, 0.1, 0.1])
    b.add_marker("bad_len", "link", position=(1.0, 2.0, 3.0))
    b.add_joint("u", "universal", "g", "p")
    text = _problems(b.build)
    assert "body 'r3': a rigid (spatial) body is not allowed in a planar model" in text
    assert "marker 'bad_len': 'position' needs 2 components, got 3" in text
    assert "joint 'u': type 'universal' is not a planar joint type" in text


def test_point_mass_cannot_take_orienting_joints():
    b = ModelBuilder("m", dimension=3)
    b.add_point_mass("pm", 1.0)
    b.add_marker("g", "ground")
    b.add_marker("p", "pm")
    b.add_joint("rev", "revolute", "g", "p")
    assert "joint 'rev': a revolute joint constrains orientation, but marker 'p' is on point mass 'pm'" \
        in _problems(b.build)


def test_bad_time_functions_and_json_are_named(tmp_path):
    b = _base()
    b.add_joint("rev", "revolute", "g", "p")
    from fmu_mbs.model.functions import SmoothRamp, Table
    b.add_driver("d", "rev", Table((0.0, 1.0, 0.5), (0.0, 1.0, 2.0)))
    b.add_spring_damper("s", "g", "p", force=SmoothRamp(1.0, 0.5, 0.0, 1.0))
    text = _problems(b.build)
    assert "driver 'd': table times must be strictly increasing" in text
    assert "force element 's': smooth_ramp needs t_end > t_start" in text
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "dimension": 2,, }')
    assert "is not valid JSON: line 1" in _problems(lambda: load_model(bad))
    data = model_to_dict(_base().build())
    data["bodies"][0]["colour"] = "red"
    assert "body 'link': unknown field(s) ['colour']" in _problems(lambda: model_from_dict(data))
    data = model_to_dict(_base().build())
    data["format_version"] = 99
    assert "format_version 99 is not supported" in _problems(lambda: model_from_dict(data))


def test_bad_exposed_parameters_are_named():
    b = _base()
    b.add_joint("sph", "spherical", "g", "p")
    b.add_actuator("act", "g", "p")
    b.expose("link.mass", "link.colour", "act.force", "sph.s_start", "ghost.mass", "link.mass")
    text = _problems(b.build)
    assert "exposed parameter 'link.colour': 'colour' cannot be exposed on a RigidBody (exposable: mass)" in text
    assert "exposed parameter 'act.force': 'force' cannot be exposed on a Actuator" in text
    assert "exposed parameter 'sph.s_start': s_start needs a joint with one coordinate" in text
    assert "exposed parameter 'ghost.mass': element 'ghost' is not a body, joint or force element" in text
    assert "'exposed' lists a parameter twice" in text


def test_inertia_forms_are_equivalent():
    a = ModelBuilder("a").add_rigid_body("b", 1.0, [1.0, 2.0, 2.5])
    assert a == "b"
    b1, b2 = ModelBuilder("a"), ModelBuilder("a")
    b1.add_rigid_body("b", 1.0, [1.0, 2.0, 2.5, 0.1, 0.0, 0.0])
    b2.add_rigid_body("b", 1.0, [[1.0, 0.1, 0.0], [0.1, 2.0, 0.0], [0.0, 0.0, 2.5]])
    assert b1.build() == b2.build()
    assert math.isclose(b1.build().bodies[0].inertia[0][1], 0.1)


def test_function_fields_are_found_from_their_type():
    """A field is written as a time function when its annotation says so: a hydraulic cylinder's float `stroke` stays
    a number and its `valve` function survives the round trip (before, a field-name list did the opposite: saving
    any model with a hydraulic cylinder raised)."""
    from fmu_mbs.model.functions import Harmonic, Linear
    b = ModelBuilder("hyd", dimension=2, gravity=(0.0, 0.0))
    b.add_planar_body("rod", 1.0, 0.01, position=(0.5, 0.0))
    b.add_marker("base", "ground", (0.0, 0.0))
    b.add_marker("end", "rod", (0.0, 0.0))
    b.add_hydraulic_cylinder("cyl", "base", "end", 0.3, valve=Harmonic(0.5, 2.0, 0.1, 0.2), stroke=0.4)
    b.add_passive_cylinder("pc", "base", "end", stroke=Linear(0.3, 0.1))
    m = b.build()
    back = model_from_dict(json.loads(json.dumps(model_to_dict(m))))
    assert back == m
    assert back.forces[0].valve == Harmonic(0.5, 2.0, 0.1, 0.2) and back.forces[0].stroke == 0.4
