"""The FMU binary's step lane (adapters/native/step_lane.c, adapters/step_lane.py): fmi2SetReal of inputs,
fmi2DoStep and fmi2GetReal of outputs without the bridge's Python. It must give the bridge's numbers bit for bit
(FMU_MBS_STEP_LANE=0 sends every call through the bridge) through the calls a master mixes in: FMU states and
rollback, a declined step (NaN input), a step longer than the kernel's report, parameter reads; it must be taken
(the bridge sees only the steps the lane leaves to it), and instances must not share it."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException

from fmu_harness import Slave

H = 1e-3


def _bridge_class():
    """The Instance class of the FMU's library copy (imported by its first fmi2Instantiate in this process)."""
    found = [m.Instance for name, m in sys.modules.items()
             if name.startswith("fmu_mbs_") and name.endswith(".adapters.fmi_bridge")]
    assert found, "no FMU library copy is loaded"
    return found


def _count_bridge_steps(monkeypatch) -> list:
    calls: list = []
    for cls in _bridge_class():
        original = cls.do_step

        def counting(self, *args, _original=original):
            calls.append(args)
            return _original(self, *args)

        monkeypatch.setattr(cls, "do_step", counting)
    return calls


def _session(fmu, monkeypatch, lane: bool) -> tuple[np.ndarray, int, list[float]]:
    """400 communication steps of the pendulum with a varying input force and the calls a master mixes in; returns
    the outputs after every step, how many doSteps reached the bridge, and fmi2LastSuccessfulTime at the end."""
    monkeypatch.setenv("FMU_MBS_STEP_LANE", "1" if lane else "0")
    outputs = [v.name for v in read_model_description(str(fmu)).modelVariables if v.causality == "output"]
    s = Slave(fmu, "lane" if lane else "bridge").start()
    calls = _count_bridge_steps(monkeypatch)
    rows, state, t_saved = [], None, 0.0
    for k in range(400):
        s.set("P1.F[1]", 0.5 * math.sin(2.0 * math.pi * s.t))
        if k == 100:
            state, t_saved = s.fmu.getFMUstate(), s.t
        if k == 150:
            assert s.get("solver.h")[0] == H          # a parameter read goes through the bridge
        if k == 200:
            s.fmu.setFMUstate(state)
            s.t = t_saved
        if k == 250:                                   # a NaN input: discarded, nothing changed
            s.set("P1.F[1]", math.nan)
            with pytest.raises(FMICallException):
                s.step(H)                              # (the clock does not advance)
            s.set("P1.F[1]", 0.25)
        s.step(0.2 if k == 300 else 2.5e-3 if k == 301 else H)   # longer than the report's 64 substeps; 3 substeps
        rows.append(s.get(*outputs))
    last = s.fmu.getRealStatus(2)                      # fmi2LastSuccessfulTime
    s.fmu.freeFMUstate(state)
    s.close()
    return np.array(rows), len(calls), [s.t, last]


def test_lane_gives_the_bridge_numbers_bit_for_bit_and_is_taken(catalogue_fmu, monkeypatch):
    fmu = catalogue_fmu("pendulum")
    lane, lane_calls, (t_lane, last_lane) = _session(fmu, monkeypatch, lane=True)
    monkeypatch.undo()
    bridge, bridge_calls, (t_bridge, last_bridge) = _session(fmu, monkeypatch, lane=False)
    assert lane.shape == bridge.shape and np.all(np.isfinite(lane))
    assert np.array_equal(lane, bridge), f"first difference at step {np.flatnonzero((lane != bridge).any(1))[:1]}"
    assert t_lane == t_bridge
    assert last_lane == last_bridge == pytest.approx(t_lane, abs=1e-12)
    assert bridge_calls == 401                        # every doStep, the discarded one included
    # the lane leaves to the bridge: the first steps (until the angle memory is valid), each step after a call that
    # disarmed it (getFMUstate, setFMUstate, the parameter read keeps it), the NaN step and the one after, the
    # long step and the one after it: about a dozen of 401
    assert lane_calls <= 15, f"{lane_calls} of 401 doSteps reached the bridge"


def test_two_instances_do_not_share_a_lane(catalogue_fmu, monkeypatch):
    """Two instances stepped alternately, with different inputs, each equal to the same instance run alone."""
    fmu = catalogue_fmu("pendulum")
    outputs = ["P1.r[1]", "P1.r[2]", "P1.v[1]", "P1.v[2]"]

    def force(which, t):
        return (0.5 if which == 0 else -2.0) * math.sin(2.0 * math.pi * t)

    def alone(which):
        s = Slave(fmu, f"alone{which}").start()
        rows = []
        for _ in range(300):
            s.set("P1.F[1]", force(which, s.t))
            s.step(H)
            rows.append(s.get(*outputs))
        s.close()
        return np.array(rows)

    pair = [Slave(fmu, "a").start(), Slave(fmu, "b").start()]
    rows: list[list] = [[], []]
    for _ in range(300):
        for which, s in enumerate(pair):
            s.set("P1.F[1]", force(which, s.t))
        for s in pair:
            s.step(H)
        for which, s in enumerate(pair):
            rows[which].append(s.get(*outputs))
    for s in pair:
        s.close()
    for which in (0, 1):
        assert np.array_equal(np.array(rows[which]), alone(which))
    assert not np.array_equal(np.array(rows[0]), np.array(rows[1]))
