"""The restraint-controller co-simulation (integration/crash_restraint.py): the frontal_crash FMU and the partner
RestraintController FMU under fmu_mbs.cosim.

Reference from elsewhere: the sensing rule applied here, in numpy, to the crash FMU's own pulse as the master
recorded it (cell.a[1] at the communication points): the velocity change over the last W seconds of the held
samples, dV_k = -H (a_{k-N+1} + ... + a_k), N = W/H; the first k with dV_k >= dv_fire gives the fire signal at
t_{k+1}; the crash FMU's belt takes it at its first force evaluation that sees it, the end of the implicit step
from t_{k+1} (t_{k+1} + solver.h), and its pretensioner starts the stroke table there (60 mm of pull-in 5 ms
later, the table of example_seated_occupant, while the load limiter has not yet paid out).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

import crash_restraint as cr  # noqa: E402

H = 1e-4


@pytest.fixture(scope="module")
def fmus(tmp_path_factory, catalogue_fmu):
    """The catalogue's crash FMU (shared with the other FMU tests) and the controller FMU."""
    return {"crash": catalogue_fmu("frontal_crash"),
            "controller": cr.build_partner("RestraintController", tmp_path_factory.mktemp("crash_restraint"))}


def test_controller_fires_the_pretensioner_when_the_sensing_rule_says(fmus):
    result = cr.restraint_system(fmus, True, h=H).run(0.030, H, record=["crash.belt.payout", "ctl.fire_time"])
    t, a = result.time, result["crash.cell.a[1]"]
    n = int(round(cr.SENSING["window"] / H))
    dv = -H * np.convolve(a, np.ones(n))[: a.size]              # window ending at t_{k+1}, samples k-n+1..k
    k = int(np.argmax(dv >= cr.SENSING["dv_fire"]))
    assert dv[k] >= cr.SENSING["dv_fire"] and 0.012 < t[k] < 0.024    # after the first contact at 10 ms
    t_fire = t[k + 1]
    assert result["ctl.fire_time"][-1] == pytest.approx(t_fire, abs=1e-9)
    fire = result["ctl.fire"]
    assert np.all(fire[: k + 1] == 0.0) and np.all(fire[k + 1:] == 1.0)
    # the belt takes its firing time from the first force evaluation that sees the input: the implicit step
    # from t_{k+1} evaluates at its end, t_{k+2} = t_{k+1} + solver.h, where the stroke table starts
    payout = result["crash.belt.payout"]
    assert np.all(payout[: k + 3] == 0.0)                          # nothing pulled in before
    j = k + 2 + int(round(0.005 / H))
    assert payout[j] == pytest.approx(-0.060, abs=1e-9)             # 60 mm of stroke 5 ms after it


def test_disabled_controller_never_fires(fmus):
    result = cr.restraint_system(fmus, False, h=H).run(0.030, H, record=["crash.belt.payout", "ctl.dv_window"])
    assert np.max(result["ctl.dv_window"]) > cr.SENSING["dv_fire"]     # the rule would have fired
    assert np.all(result["ctl.fire"] == 0.0) and np.all(result["crash.belt.payout"] >= 0.0)
