"""The achieved-accuracy estimate (analyses/accuracy.py): on the pendulum, whose exact motion scipy gives to 1e-13,
the step-doubling estimate of the ALF's (and generalized-alpha's) error and the rtol/100 estimate of the variable
integrator's are within 20 % of the true error (measured: 0.999, 0.999 and 0.995 of it); `fmu-mbs simulate
--error-estimate` prints it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.adapters.cli import main
from fmu_mbs.analyses.accuracy import estimate_error
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AnalysisError
from fmu_mbs.model import load_model

PENDULUM = Path(__file__).resolve().parents[1] / "models" / "pendulum.json"
G = 9.81


def _exact(t):
    """The bob of the pendulum (1 m, released horizontally): theta'' = -g cos(theta), theta from the x axis."""
    sol = solve_ivp(lambda _, y: [y[1], -G * math.cos(y[0])], (0.0, t[-1]), [0.0, 0.0], t_eval=t, rtol=1e-13,
                    atol=1e-13, method="DOP853")
    return np.stack([np.cos(sol.y[0]), np.sin(sol.y[0])], axis=1)


@pytest.mark.parametrize("integrator,step,options", [("alf", 2e-3, {}), ("galpha", 2e-3, {}),
                                                     ("variable", 0.05, {"rtol": 1e-6})])
def test_estimate_within_20_percent_of_the_true_error(integrator, step, options):
    cm = compile_model(load_model(PENDULUM))
    tr = simulate(cm, 3.0, step, integrator=integrator, output_step=0.05, **options)
    true = np.abs(tr.q - _exact(tr.t)).max(axis=1)
    est = estimate_error(cm, tr, step, integrator, **options)
    ratio = est.position.max() / true.max()
    assert 0.8 < ratio < 1.2, (ratio, true.max(), est.summary())
    assert "bob" in est.worst


def test_reference_has_no_estimate_and_the_cli_prints_it(capsys, tmp_path):
    cm = compile_model(load_model(PENDULUM))
    tr = simulate(cm, 0.2, 0.05, integrator="reference")
    with pytest.raises(AnalysisError, match="no error estimate for integrator 'reference'"):
        estimate_error(cm, tr, 0.05, "reference")
    out = tmp_path / "p.csv"
    assert main(["simulate", str(PENDULUM), "--t-end", "0.5", "--step", "1e-3", "--out", str(out),
                 "--error-estimate", "--progress", "never"]) == 0
    err = capsys.readouterr().err
    assert "estimated error (step doubling, h and h/2 = 0.0005 s, order 2): positions <=" in err, err
