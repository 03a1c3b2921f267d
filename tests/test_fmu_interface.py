"""The declared FMU interface in the model file (model/fmu_interface.py): bad declarations are errors that name the
entry; an element name or "<element>.<quantity>" declares every component."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fmu_mbs.errors import ModelError
from fmu_mbs.model import load_model, model_from_dict
from fmu_mbs.model.fmu_interface import fmu_inputs, fmu_outputs
from fmu_mbs.model.names import channels, input_channels

PENDULUM = Path(__file__).resolve().parents[1] / "models" / "pendulum.json"


def _pendulum(**changes) -> dict:
    data = json.loads(PENDULUM.read_text())
    data.update(changes)
    return data


def test_unknown_output_is_an_error_with_close_matches():
    with pytest.raises(ModelError) as err:
        model_from_dict(_pendulum(fmu_outputs=["default", "P1.r[4]", "rod.f"]))
    text = str(err.value)
    assert "'P1.r[4]'" in text and "'rod.f'" in text and "rod.F" in text


def test_port_must_be_a_boolean():
    data = _pendulum()
    data["markers"][1]["port"] = "yes"
    with pytest.raises(ModelError, match="marker 'P1'.*port"):
        model_from_dict(data)


def test_entries_select_elements_quantities_and_channels():
    """A marker name selects its every channel, '<marker>.<quantity>' one quantity; a planar marker's channels are
    x-y position, velocity and acceleration, the frame angle phi and the scalar w (no z, quaternion, 3D w)."""
    model = model_from_dict(_pendulum(fmu_outputs=["pivot", "P1.phi", "energy.total"]))
    names = [channels(model)[k].name for k in fmu_outputs(model)]
    assert names == ([f"pivot.{q}[{k}]" for q in ("r", "v", "a") for k in (1, 2)] + ["pivot.phi", "pivot.w",
                     "P1.phi", "energy.total"])
    with pytest.raises(ModelError, match="'P1.q' is no channel"):
        model_from_dict(_pendulum(fmu_outputs=["P1.q"]))


def test_only_port_markers_take_inputs():
    model = load_model(PENDULUM)
    assert [input_channels(model)[k].name for k in fmu_inputs(model)] == \
        [f"P1.{q}[{k}]" for q in "FT" for k in (1, 2, 3)]
