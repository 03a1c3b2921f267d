"""The error-controlled trapezoidal ALF (integrator 'alf-variable', kernels/alf_variable.py): its error against an
independent reference falls with rtol and stays within 10x of it on the pendulum (the pendulum ODE by scipy at
rtol 1e-13) and the seed 002 four-bar turning over (the scipy index-1 reference integrator at rtol 1e-12); a
rejected attempt leaves no trace (the accepted steps replayed one by one by the fixed-step ALF give the same
positions and element states); the step grows in free flight and shrinks at contact; simulate's 'alf' with a
tolerance selects it. Measured errors are in the comments."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.integrators import ALFIntegrator, ALFVariableIntegrator, integrate_reference
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, load_model

MODELS = Path(__file__).resolve().parents[1] / "models"
G = 9.81
OUT = 0.05


def _errors(cm, t, reference_q, rtols):
    errs = []
    for rtol in rtols:
        ig = ALFVariableIntegrator(cm, OUT, rtol=rtol)
        _, q, *_ = ig.advance_times(t[1:], record=True)
        assert ig.t == t[-1]
        errs.append(float(np.max(np.abs(q - reference_q[1:]))))
    return errs


def _check(rtols, errs):
    """Within 10x of rtol, and 100x smaller rtol gives more than 10x smaller errors."""
    for rtol, err in zip(rtols, errs):
        assert err < 10.0 * rtol, (rtol, err)
    for a, b in zip(errs, errs[1:]):
        assert b < 0.1 * a, errs


def test_pendulum_against_the_pendulum_ode():
    """1 kg on a 1 m link released horizontally, 3 s; theta'' = -g cos(theta) (measured 0.34-0.36x rtol at rtol
    1e-4 ... 1e-7)."""
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    t = np.arange(0.0, 3.0 + 0.5 * OUT, OUT)
    sol = solve_ivp(lambda _, y: [y[1], -G * math.cos(y[0])], (0.0, t[-1]), [0.0, 0.0], t_eval=t, rtol=1e-13,
                    atol=1e-13, method="DOP853")
    ref = np.stack([np.cos(sol.y[0]), np.sin(sol.y[0])], axis=1)
    rtols = (1e-4, 1e-6)
    _check(rtols, _errors(cm, t, ref, rtols))


def test_fourbar_against_the_scipy_reference():
    """Seed 002 four-bar, crank from 5 rad/s, 2 s (measured 1.13x rtol at 1e-4, 1e-5 and 1e-6; at 1e-7 the step
    collapses on the estimate's round-off floor)."""
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.set_value("pin_O2", "sd_start", 5.0)
    cm = compile_model(b.build())
    t = np.arange(0.0, 2.0 + 0.5 * OUT, OUT)
    ref = integrate_reference(cm, t, assemble(cm), rtol=1e-12, atol=1e-12)
    rtols = (1e-4, 1e-6)
    _check(rtols, _errors(cm, t, ref.q, rtols))


@pytest.fixture(scope="module")
def ball_run():
    """The bouncing ball (contact with element states) over 1 s at rtol 1e-5, with its accepted step times."""
    cm = compile_model(load_model(MODELS / "bouncing_ball.json"))
    ig = ALFVariableIntegrator(cm, 0.1, rtol=1e-5, step_log=100_000)      # 3,039 steps
    ig.advance_times(np.arange(0.1, 1.0 + 1e-9, 0.1))
    return cm, ig


def test_rejected_attempts_leave_no_trace(ball_run):
    """The accepted steps replayed one by one by the fixed-step ALF from the same start: the same contact states
    and positions to 6e-9 m over 3,000 steps (the replayed step sizes are differences of the logged end times, one
    ulp off the run's, and the impact amplifies that), although the run rejected attempts on its error estimate and
    on Newton failures, so a rejected attempt committed nothing."""
    cm, ig = ball_run
    assert ig.steps_rejected > 0 and ig.newton_failures > 0
    times = ig.accepted_times
    assert len(times) == ig.steps_taken and times[-1] == pytest.approx(1.0, abs=1e-12)
    fixed = ALFIntegrator(cm, 0.1, tol=ig.opt.tol)
    previous = 0.0
    for t in times:
        fixed.advance(1, t - previous)
        fixed.sc[0] = t
        previous = t
    assert fixed.rejected == 0
    assert np.max(np.abs(fixed.q - ig.q)) < 1e-7
    assert np.max(np.abs(fixed.zs - ig.zs)) < 1e-9


def test_step_grows_in_flight_and_shrinks_at_contact(ball_run):
    """Free fall (qddd = 0: the estimate vanishes) lets the step grow to the output interval; the impact, about
    0.45 s after the 1 m drop (sqrt(2 / g) less the radius), needs steps 100x smaller (measured: 0.1 s in
    flight, down to 1e-7 s in contact; 3 steps in 0.1-0.4 s, 2,576 in 0.42-0.46 s)."""
    _, ig = ball_run
    times = ig.accepted_times
    h = np.diff(np.concatenate([[0.0], times]))
    flight = (times > 0.1) & (times <= 0.4)
    impact = (times > 0.42) & (times <= 0.46)
    assert h[flight].max() >= 0.05
    assert h[impact].min() < 1e-4
    assert impact.sum() > 10 * flight.sum()


def test_alf_with_a_tolerance_selects_it_and_bad_options():
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    tr = simulate(cm, 0.5, 0.1, integrator="alf", rtol=1e-6)
    assert "alf-variable" in tr.analysis and tr.t[-1] == 0.5
    fixed = simulate(cm, 0.5, 1e-4)
    assert np.max(np.abs(tr.q[-1] - fixed.q[-1])) < 1e-5
    with pytest.raises(ValueError, match="rtol must be positive"):
        ALFVariableIntegrator(cm, 0.1, rtol=0.0)
    with pytest.raises(ValueError, match="norm must be"):
        ALFVariableIntegrator(cm, 0.1, norm="l1")
    with pytest.raises(ValueError, match="rho_inf"):
        ALFVariableIntegrator(cm, 0.1, rho_inf=0.8)


def test_a_tolerance_below_the_implicit_steps_floor_is_refused_up_front():
    """rtol 1e-8 asked each step for a local error of 3e-14 (local_share): the step collapsed on the estimate's
    round-off after 0.04 s of the pendulum (bench/work_precision.py). It is refused with the smallest rtol the
    integrator takes and the integrator that reaches further; that smallest rtol is accepted."""
    from fmu_mbs.analyses.integrators.alf_variable import LOCAL_FLOOR, SMALLEST_RTOL, local_share

    assert local_share(SMALLEST_RTOL) * SMALLEST_RTOL == pytest.approx(LOCAL_FLOOR, rel=0.01)
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    with pytest.raises(ValueError, match=r"(?s)local error of 3.2e-14.*rtol and atol >= 1e-07.*'variable'"):
        ALFVariableIntegrator(cm, 0.1, rtol=1e-8)
    with pytest.raises(ValueError, match="local error"):
        simulate(cm, 0.5, 0.1, integrator="alf", rtol=1e-6, atol=1e-9)
    ALFVariableIntegrator(cm, 0.1, rtol=SMALLEST_RTOL)
