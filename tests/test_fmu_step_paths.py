"""The FMU's communication step: the one-call path (kernels/comm_step.py) gives the general path's numbers bit for
bit; the variable-step integrator inside the FMU equals the library's at the same tolerance and replays from
saved states exactly; a diverging explicit step and a NaN input end in fmi2Discard with the reason in the FMI log,
and the instance goes on."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from fmu_mbs.adapters.fmu_build import build_fmu
from fmu_mbs.adapters.fmu_fast_step import FastStep
from fmu_mbs.adapters.fmu_slave import MbsSlave
from fmu_mbs.analyses.channels import ChannelEvaluator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model

from fmu_harness import Slave, replays_from_saved_state

MODELS = Path(__file__).resolve().parents[1] / "models"


def _slave(tmp_path: Path, name: str) -> MbsSlave:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    shutil.copy(MODELS / f"{name}.json", folder / "model.json")
    s = MbsSlave(instance_name=name, resources=str(folder))
    s.setup_experiment(0.0)
    s.exit_initialization_mode()
    return s


@pytest.mark.parametrize("name, H", [("pendulum", 1e-3), ("fourbar", 2.5e-3), ("pendulum", 0.01),
                                     ("bouncing_ball", 0.01)])
def test_one_call_step_equals_the_general_path_bit_for_bit(tmp_path, monkeypatch, name, H):
    """Every channel after each of 300 steps with a varying input, a state restored at step 150 and replayed:
    identical doubles from the one-call step and from the general path (advance_to + ChannelEvaluator)."""
    runs = []
    for one_call in (True, False):
        if not one_call:                   # the general path only: the one-call step never applies
            monkeypatch.setattr(FastStep, "build", classmethod(lambda cls, slave, substeps=0: None))
        s = _slave(tmp_path, name)
        rows, t, saved = [], 0.0, None
        for k in range(300):
            s.u_set[:] = 0.5 * math.sin(2.0 * math.pi * t)
            assert s.do_step(t, H)
            t += H
            rows.append(s.y.copy())
            if k == 150:
                saved = s._get_fmu_state()
            if k == 220:                   # roll back to step 150 and go on from there
                s._set_fmu_state(saved)
                t = 151 * H
        assert isinstance(s._fast, FastStep) == one_call      # the path that was meant ran
        runs.append(np.array(rows))
    assert np.array_equal(runs[0], runs[1])


def test_one_call_step_falls_back_on_a_nan_input_and_changes_nothing(tmp_path):
    s = _slave(tmp_path, "pendulum")
    s.do_step(0.0, 0.01)
    before, t_before = s.y.copy(), s.integ.t
    s.u_set[:] = math.nan
    assert not s.do_step(0.01, 0.01)
    assert np.array_equal(s.y, before) and s.integ.t == t_before
    assert any("not finite" in str(m.msg) for m in s.log_queue)


@pytest.mark.parametrize("code, integrator, rtol", [(3, "variable", 1e-8), (4, "alf-variable", 1e-6)])
def test_variable_step_fmu_equals_the_library_at_the_same_rtol_and_replays_exactly(catalogue_fmu, code, integrator,
                                                                                  rtol):
    """solver.integrator = 3 (Dormand-Prince, solver.rtol = 1e-8) or 4 (trapezoidal ALF, 1e-6: at 1e-8 its error
    estimate meets its round-off floor on the pendulum, docs/design.md): the pendulum FMU's positions equal
    simulate(integrator=..., rtol=...) to 1e-3 rtol m (the same error-controlled steps; only the communication
    times are summed differently by the host, which moves the trapezoidal one's results by 2e-11 m), both within
    1e-5 m of the pendulum ODE integrated by scipy at rtol 1e-12; a restored state (also from bytes) replays bit
    for bit, the step size controller included."""
    from scipy.integrate import solve_ivp

    fmu = catalogue_fmu("pendulum")
    s = Slave(fmu, integrator).start(**{"solver.integrator": code, "solver.rtol": rtol})
    names = ["P1.r[1]", "P1.r[2]"]
    got = []
    for _ in range(200):
        s.step(0.01)
        got.append(s.get(*names))
    runs = replays_from_saved_state(s, names, 20, 0.01)
    s.close()
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    lib = simulate(cm, 2.0, 0.01, integrator=integrator, rtol=rtol, atol=rtol)
    chan = ChannelEvaluator(cm)
    ref = np.array([chan(t, q, qd, qdd, lam)[[chan.names.index(n) for n in names]]
                    for t, q, qd, qdd, lam in zip(lib.t, lib.q, lib.qd, lib.qdd, lib.lam)])[1:]
    assert np.max(np.abs(np.array(got) - ref)) < 1e-3 * rtol
    g = 9.81   # the model's gravity; the bob starts at (1, 0) m at rest on a 1 m rod about the origin:
    assert tuple(load_model(MODELS / "pendulum.json").gravity) == (0.0, -g)   # (cos th, -sin th), th'' = g cos th
    ode = solve_ivp(lambda t, y: (y[1], g * math.cos(y[0])), (0.0, 2.0), (0.0, 0.0), t_eval=lib.t[1:],
                    rtol=1e-12, atol=1e-12)
    exact = np.column_stack((np.cos(ode.y[0]), -np.sin(ode.y[0])))
    assert np.max(np.abs(np.array(got) - exact)) < 1e-5


def test_diverging_explicit_step_is_discarded_with_the_reason_and_the_instance_goes_on(tmp_path):
    """The seed 002 four-bar spun at 5 rad/s under the explicit integrator at h = 1 ms (the library raises within
    5 s, tests/test_explicit_monitor.py): the FMU returns fmi2Discard (status 2) at the step that
    drifts, with the reason in the FMI log, keeps the state of the start of that step, and still steps with
    a smaller communication step afterwards."""
    data = json.loads((MODELS / "fourbar.json").read_text())
    next(j for j in data["joints"] if j["name"] == "pin_O2")["sd_start"] = 5.0
    (tmp_path / "fourbar_spun.json").write_text(json.dumps(data))
    fmu = build_fmu(tmp_path / "fourbar_spun.json", tmp_path)
    s = Slave(fmu, "explicit").start(**{"solver.integrator": 2, "solver.h": 1e-3})
    failed = None
    for _ in range(500):
        before = s.get("pin_O2.s", "pin_O2.sd")
        try:
            s.step(0.01)
        except FMICallException as exc:
            failed = str(exc)
            break
    assert failed is not None and "status 2" in failed
    # the log names the failed check and its cause as the library does (tests/test_explicit_monitor.py): the energy
    # balance, and at this h omega the acceleration-level solve rather than the step size
    assert any("energy balance" in m and "acceleration-level constraint solve did not converge" in m for m in s.log)
    assert np.array_equal(s.get("pin_O2.s", "pin_O2.sd"), before)      # back at the start of the step
    assert np.all(np.isfinite(before))
    try:                   # the instance is not lost: another step is answered with OK or Discard, not an error
        s.fmu.doStep(currentCommunicationPoint=s.t, communicationStepSize=1e-3)
    except FMICallException as exc:
        assert "status 2" in str(exc)
    s.close()


def test_a_restored_state_gives_the_unwrapped_angles_of_the_run_that_saved_it(tmp_path):
    """The four-bar's crank driven round by its input torque: a state saved at 0.1 s and restored after more turns
    gives, one step later, the crank angle phi (continuous over turns) of the run that passed through it, bit for
    bit; the angle memory is part of the FMU state (it was not: the restored run unwrapped against the later
    angle, 2 pi k off)."""
    s = _slave(tmp_path, "fourbar")
    phi = [c.name for c in s._outputs].index("crank.phi")     # y holds every channel, declared outputs or not
    t, H = 0.0, 2.5e-3
    s.u_set[s.input_index["crank.T[3]"]] = 400.0     # N m on the crank: it turns over and over
    for _ in range(40):
        assert s.do_step(t, H)
        t += H
    saved, t_saved = s._get_fmu_state(), t
    assert s.do_step(t, H)
    expected = s.y[phi]
    for _ in range(400):
        assert s.do_step(t + H, H)
        t += H
    assert s.y[phi] > expected + 2.0 * math.pi          # the crank has turned on
    s._set_fmu_state(saved)
    assert s.do_step(t_saved, H)
    assert s.y[phi] == expected
