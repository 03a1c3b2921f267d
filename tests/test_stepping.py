"""A run's numbers do not depend on how it is split into calls (issue 18, the output-step question).

``simulate`` records rows one step apart in chunks of many steps per call into numba, rows m steps apart in calls
that keep every m-th step, and rows off the step grid with one ``advance_to`` per row, as an FMU's communication
steps do. Before the step clock (kernels.integrate_alf.step_clock) these forms differed: each call restarted the
time t = t0 + k h from its own start and advance_to took steps of span / n, so step times and sizes differed by
round-off, which discrete decisions (a rejected and halved step, Newton's iteration count at the tolerance, contact
onset) amplified: the sled at h = 1 ms by 1.9e-3 m in q and 0.34 in an element state after 0.3 s (a tenth of the
discretisation error there, 1.5e-2 m against h = 10 us), the pendulum by 1.8e-9. The two forms run the same scheme,
so neither was wrong; now both give the same numbers bit for bit, which the tests below check against the
per-row form (the FMU's), on models with element states, rejected steps and a tangent kept over steps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.channels import ChannelEvaluator, evaluate_channels
from fmu_mbs.analyses.integrators import STEPPERS
from fmu_mbs.analyses.simulate import output_times, simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model

MODELS = Path(__file__).resolve().parents[1] / "models"


def _per_row(cm, t_end, step, output_step, integrator="alf", **options):
    """The FMU's form: one advance_to per output row, t from output_times (q, z per row, rejected steps)."""
    t_out = output_times(0.0, t_end, output_step)
    ig = STEPPERS[integrator](cm, step, assemble(cm, t=0.0), **options)
    q, z, rejected = [ig.q.copy()], [ig.zs.copy()], 0
    for t in t_out[1:]:
        ig.advance_to(t)
        q.append(ig.q.copy())
        z.append(ig.zs.copy())
        rejected += ig.rejected
    return np.array(q), np.array(z), rejected


@pytest.fixture(scope="module")
def sled():
    return compile_model(load_model(MODELS / "sled.json"))


@pytest.fixture(scope="module")
def pendulum():
    return compile_model(load_model(MODELS / "pendulum.json"))


@pytest.mark.parametrize("tangent_every", [1, 3])
def test_sled_rows_do_not_depend_on_calls(sled, tangent_every):
    """The sled (contact table law with permanent set, belts, joint stops, bristle friction) at h = 1 ms, where
    steps fail and are redone with halved steps: rows one step apart in chunks, rows two steps apart, and one
    advance_to per row give the same q and element states bit for bit; with the tangent kept over 3 steps too."""
    h, t_end = 1e-3, 0.12
    opts = {"tangent_every": tangent_every}
    every_step = simulate(sled, t_end, h, **opts)
    q, z, rejected = _per_row(sled, t_end, h, h, **opts)
    assert rejected > 0                      # the redo of failed steps is part of what must not depend on calls
    assert np.array_equal(every_step.q, q)
    assert np.array_equal(every_step.z, z)
    second = simulate(sled, t_end, h, output_step=2 * h, **opts)
    assert np.array_equal(second.q, every_step.q[::2])
    assert np.array_equal(second.z, every_step.z[::2])
    assert np.array_equal(second.info["iterations"][1:],
                          every_step.info["iterations"][1:].reshape(-1, 2).sum(axis=1))


def test_pendulum_bit_identical_whatever_the_rows(pendulum):
    """A rigid model: rows every step, every 2nd and 5th step, and one advance_to per row are the same numbers."""
    h, t_end = 1e-3, 1.0
    every_step = simulate(pendulum, t_end, h)
    q, _, _ = _per_row(pendulum, t_end, h, h)
    assert np.array_equal(every_step.q, q)
    for m in (2, 5):
        rows = simulate(pendulum, t_end, h, output_step=m * h)
        assert np.array_equal(rows.q, every_step.q[::m]), m
        assert np.array_equal(rows.lam, every_step.lam[::m]), m
        q, _, _ = _per_row(pendulum, t_end, h, m * h)
        assert np.array_equal(q, rows.q), m


def test_explicit_rows_do_not_depend_on_calls():
    """The explicit midpoint integrator on the bouncing ball (contact states): chunked, every 4th step and per row."""
    cm = compile_model(load_model(MODELS / "bouncing_ball.json"))
    h, t_end = 2e-4, 0.6
    every_step = simulate(cm, t_end, h, integrator="explicit")
    assert every_step["impact.fn"].max() > 0.0        # the ball hits the ground within the run
    q, z, _ = _per_row(cm, t_end, h, h, integrator="explicit")
    assert np.array_equal(every_step.q, q)
    assert np.array_equal(every_step.z, z)
    rows = simulate(cm, t_end, h, output_step=4 * h, integrator="explicit")
    assert np.array_equal(rows.q, every_step.q[::4])


def test_a_shorter_last_row_and_rows_off_the_grid(pendulum):
    """Rows off the step grid (an output step of 2.5 h) and a shorter last row still end exactly at their times."""
    h = 1e-3
    rows = simulate(pendulum, 0.0113, h, output_step=2.5e-3)
    assert rows.t[-1] == 0.0113 and len(rows.t) == 6
    reference = simulate(pendulum, 0.0113, h / 10, output_step=2.5e-3)
    assert np.max(np.abs(rows.q - reference.q)) < 1e-5      # second order: (h / 2.5 ms)^2-scaled local error


def test_batch_channels_equal_one_call_per_row(sled):
    """Channels of a whole run in one kernel call (ChannelEvaluator.rows) equal one evaluator call per row (the
    FMU's form), with the element states, energy sums and angle unwrapping carried from row to row."""
    traj = simulate(sled, 0.02, 1e-3)
    batch = evaluate_channels(sled, traj)
    ce = ChannelEvaluator(sled)
    info = traj.info
    one = np.array([ce(traj.t[i], traj.q[i], traj.qd[i], traj.qdd[i], traj.lam[i], traj.u[i],
                       info["iterations"][i], info["residual_position"][i], traj.z[i], info["energy_dissipated"][i],
                       info["energy_input"][i]) for i in range(len(traj.t))])
    assert np.array_equal(batch, one)


def test_batch_channels_planar_angles_unwrap():
    """A planar model's frame angle phi is continuous over turns in the batch as in per-row calls: the double
    pendulum's first link swings past pi within 2 s (where unwrapping acts), and phi equals the per-row
    evaluator's bit for bit."""
    cm = compile_model(load_model(MODELS / "double_pendulum.json"))
    assert cm.model.planar
    traj = simulate(cm, 2.0, 1e-3)
    batch = evaluate_channels(cm, traj)
    ce = ChannelEvaluator(cm)
    one = np.array([ce(traj.t[i], traj.q[i], traj.qd[i], traj.qdd[i], traj.lam[i], traj.u[i], z=traj.z[i])
                    for i in range(len(traj.t))])
    phi = [k for k, name in enumerate(ce.names) if name.endswith(".phi")]
    assert np.abs(one[:, phi]).max() > np.pi
    assert np.array_equal(batch[:, phi], one[:, phi])


def test_planar_joint_reactions_are_planar():
    """A planar model's joint reaction is F[1..2] and the scalar T about z (no F[3], T[1..2]): a 2 kg, 1 m bar
    on a prismatic joint along x at its left end, at rest under gravity -9.81 y. Statics of the bar: the joint
    carries its weight, F = (0, m g), and the moment of the weight about the joint marker, T = m g L / 2."""
    from fmu_mbs.model.json_io import model_from_dict
    model = model_from_dict({
        "format": "fmu-mbs-model", "format_version": 1, "name": "slider_bar", "dimension": 2, "gravity": [0.0, -9.81],
        "bodies": [{"name": "bar", "type": "planar", "mass": 2.0, "inertia": 2.0 / 12.0, "position": [0.5, 0.0],
                    "angle": 0.0, "velocity": [0.0, 0.0], "angular_velocity": 0.0}],
        "markers": [{"name": "rail", "body": "ground", "position": [0.0, 0.0], "angle": 0.0},
                    {"name": "end", "body": "bar", "position": [-0.5, 0.0], "angle": 0.0}],
        "joints": [{"name": "slide", "type": "prismatic", "marker_i": "rail", "marker_j": "end"}]})
    traj = simulate(compile_model(model), 0.01, 1e-3)
    names = traj.channel_names()
    assert {"slide.F[1]", "slide.F[2]", "slide.T"} <= set(names)
    assert not {"slide.F[3]", "slide.T[1]", "slide.T[3]"} & set(names)
    assert np.allclose(traj["slide.F[1]"], 0.0, atol=1e-6)
    assert np.allclose(traj["slide.F[2]"], 2.0 * 9.81, rtol=1e-9)
    assert np.allclose(traj["slide.T"], 2.0 * 9.81 * 0.5, rtol=1e-9)
