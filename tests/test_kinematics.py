"""Kinematic analysis against closed-form mechanism kinematics.

References (computed here from geometry, never from the solver):
- slider-crank: x = r cos th + sqrt(l^2 - r^2 sin^2 th) and its derivatives (by hand, checked below by
  central differences of the closed form);
- seed 002 four-bar: (C8) with the digest's ERRATUM (squares in C, atan2), (C9), (C10); velocity ratios
  at 60 deg from the seed 002 digest §1.9 (k = 0.0391574493535, p = 0.532271122075).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.kinematics import kinematics, solve_state, time_grid
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import AnalysisError, AssemblyError
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.functions import Linear, Polynomial

MODELS = Path(__file__).resolve().parent.parent / "models"

# Newton-Raphson stops at max |Phi| <= 1e-10 (assembly.POSITION_TOL); Phi_q is well conditioned away
# from dead points (|Phi_q^-1| of order 10 for these geometries), so coordinates are within ~1e-9.
POS_TOL = 1e-9
# velocities / accelerations solve Phi_q x = rhs at that position; their error is the position error
# times d(Phi_q^-1 rhs)/dq (rates up to ~10 rad/s, accelerations up to ~100 rad/s^2): 1e-8 relative.
RATE_RTOL = 1e-8


def wrap(a):
    """Angle difference mapped to (-pi, pi] (body angles are continuous, closed forms are not)."""
    return (np.asarray(a) + np.pi) % (2.0 * np.pi) - np.pi


# --- closed forms -------------------------------------------------------------------------------


def slider_x(th, r, l):
    """Slider position and its first two derivatives with respect to the crank angle (zero offset)."""
    s, c = np.sin(th), np.cos(th)
    D = np.sqrt(l * l - r * r * s * s)
    x = r * c + D
    dx = -r * s - r * r * s * c / D
    ddx = -r * c - r * r * (c * c - s * s) / D - r ** 4 * s * s * c * c / D ** 3
    return x, dx, ddx


def fourbar_angles(th2, r1, r2, r3, r4):
    """theta3, theta4 from seed 002 (C8), corrected: C = (A^2 + B^2 + r4^2 - r3^2)/(-2 r4), open branch,
    theta3 from the coupler vector with atan2."""
    A = r1 - r2 * np.cos(th2)
    B = r2 * np.sin(th2)
    C = (A * A + B * B + r4 * r4 - r3 * r3) / (-2.0 * r4)
    th4 = np.arccos(C / np.sqrt(A * A + B * B)) - np.arctan2(B, A)
    th3 = np.arctan2(r4 * np.sin(th4) - B, A + r4 * np.cos(th4))
    return th3, th4


def fourbar_rates(th2, w2, a2, th3, th4, r2, r3, r4):
    """(C9) and (C10) of seed 002: angular velocities and accelerations of coupler and follower."""
    w3 = -r2 * w2 * np.sin(th4 - th2) / (r3 * np.sin(th4 - th3))
    w4 = r2 * w2 * np.sin(th3 - th2) / (r4 * np.sin(th3 - th4))
    a3 = (-r2 * a2 * np.sin(th4 - th2) + r2 * w2 ** 2 * np.cos(th4 - th2) + r3 * w3 ** 2 * np.cos(th4 - th3)
          - r4 * w4 ** 2) / (r3 * np.sin(th4 - th3))
    a4 = (r2 * a2 * np.sin(th3 - th2) - r2 * w2 ** 2 * np.cos(th3 - th2) + r4 * w4 ** 2 * np.cos(th3 - th4)
          - r3 * w3 ** 2) / (r4 * np.sin(th3 - th4))
    return w3, w4, a3, a4


FOURBAR = dict(r1=2.5, r2=2.0, r3=4.0, r4=4.0)   # seed 002 Table 5.1 (m)


# --- models -------------------------------------------------------------------------------------


def planar_slider_crank(r=0.3, l=1.0, drive=None):
    """Crank r on a ground pin, rod l, slider on a prismatic joint along world x (no offset)."""
    b = ModelBuilder("slider_crank_2d", dimension=2)
    b.add_planar_body("crank", 1.0, 0.01, position=(r / 2, 0.0))
    b.add_planar_body("rod", 2.0, 0.2, position=(r + l / 2, 0.0))
    b.add_planar_body("slider", 1.0, 0.001, position=(r + l, 0.0))
    b.add_marker("O", "ground")
    b.add_marker("rail", "ground")
    b.add_marker("c_O", "crank", (-r / 2, 0.0))
    b.add_marker("c_A", "crank", (r / 2, 0.0))
    b.add_marker("r_A", "rod", (-l / 2, 0.0))
    b.add_marker("r_B", "rod", (l / 2, 0.0))
    b.add_marker("s_B", "slider")
    b.add_joint("pivot", "revolute", "O", "c_O")
    b.add_joint("pin_A", "revolute", "c_A", "r_A")
    b.add_joint("pin_B", "revolute", "r_B", "s_B")
    b.add_joint("guide", "prismatic", "rail", "s_B")
    if drive is not None:
        b.add_driver("motor", drive[0], drive[1])
    return b.build()


def fourbar_driven(function):
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.add_driver("motor", "pin_O2", function)
    return b.build()


# --- tests --------------------------------------------------------------------------------------


def test_slider_closed_form_derivatives_by_central_differences():
    """The hand-derived derivatives of the reference itself (so the reference cannot be the error)."""
    th = np.linspace(0.0, 2 * np.pi, 37)
    h = 1e-4
    x, dx, ddx = slider_x(th, 0.3, 1.0)
    xp, xm = slider_x(th + h, 0.3, 1.0)[0], slider_x(th - h, 0.3, 1.0)[0]
    # central differences: truncation h^2/6 x''' ~ 1e-9, round-off 1e-16/h^2 ~ 1e-8 for the second one
    np.testing.assert_allclose((xp - xm) / (2 * h), dx, atol=1e-8)
    np.testing.assert_allclose((xp - 2 * x + xm) / h ** 2, ddx, atol=1e-6)


def test_planar_slider_crank_full_turn():
    r, l = 0.3, 1.0
    w0, alpha = 2 * np.pi, 1.0              # crank angle th = w0 t + alpha t^2 / 2: more than a full turn in 1 s
    cm = compile_model(planar_slider_crank(r, l, ("pivot", Polynomial((0.0, w0, alpha / 2)))))
    tr = kinematics(cm, 1.0, 0.01)
    assert tr.analysis == "kinematics" and len(tr) == 101
    th = w0 * tr.t + alpha * tr.t ** 2 / 2
    thd, thdd = w0 + alpha * tr.t, alpha
    x, dx, ddx = slider_x(th, r, l)
    i = cm.q_names.index("slider.x")
    np.testing.assert_allclose(tr.q[:, i], x, atol=POS_TOL)
    np.testing.assert_allclose(tr.qd[:, i], dx * thd, rtol=0, atol=RATE_RTOL * np.max(np.abs(dx * thd)))
    acc = ddx * thd ** 2 + dx * thdd
    np.testing.assert_allclose(tr.qdd[:, i], acc, rtol=0, atol=RATE_RTOL * np.max(np.abs(acc)))
    # the crank angle itself follows the driver (continuous body angle)
    np.testing.assert_allclose(wrap(tr.q[:, cm.q_names.index("crank.theta")] - th), 0.0, atol=POS_TOL)
    assert np.all(tr.info["residual_position"] <= 1e-10)
    # the predictor starts each step close: Newton needs only a few iterations (6 is a loose bound)
    assert np.max(tr.info["iterations"][1:]) <= 6


def test_spatial_slider_crank_catalogue_model():
    """models/slider_crank.json (crank 0.3 m, rod 1 m, planar in x-y) with a rotation driver on crank_pivot."""
    r, l = 0.3, 1.0
    b = ModelBuilder.from_model(load_model(MODELS / "slider_crank.json"))
    b.add_driver("motor", "crank_pivot", Linear(math.pi / 6, 2 * math.pi))   # catalogue crank angle 30 deg
    cm = compile_model(b.build())
    tr = kinematics(cm, 1.0, 0.02)
    th = math.pi / 6 + 2 * math.pi * tr.t
    x, dx, ddx = slider_x(th, r, l)
    i = cm.q_names.index("slider_block.x")
    np.testing.assert_allclose(tr.q[:, i], x, atol=POS_TOL)
    v, a = dx * 2 * math.pi, ddx * (2 * math.pi) ** 2
    np.testing.assert_allclose(tr.qd[:, i], v, rtol=0, atol=RATE_RTOL * np.max(np.abs(v)))
    np.testing.assert_allclose(tr.qdd[:, i], a, rtol=0, atol=RATE_RTOL * np.max(np.abs(a)))
    # the slider stays on the guide (world x axis)
    np.testing.assert_allclose(tr.q[:, [i + 1, i + 2]], 0.0, atol=POS_TOL)


def test_fourbar_velocity_ratios_at_60_degrees_match_seed_002_digest():
    cm = compile_model(fourbar_driven(Linear(math.pi / 3, 1.0)))   # theta2 = 60 deg, unit crank speed
    tr = kinematics(cm, 0.0, 0.1)
    assert len(tr) == 1
    iq3, iq4 = cm.q_names.index("coupler.theta"), cm.q_names.index("follower.theta")
    # digest §1.9 DERIVED values printed to 12 digits; our velocities are exact up to RATE_RTOL
    assert tr.qd[0, iq3] == pytest.approx(0.0391574493535, abs=1e-10)
    assert tr.qd[0, iq4] == pytest.approx(0.532271122075, abs=1e-10)
    assert tr.q[0, iq3] == pytest.approx(0.423245598299, abs=1e-9)
    assert tr.q[0, iq4] == pytest.approx(1.00420315959, abs=1e-9)


def test_fourbar_full_turn_against_c8_c9_c10():
    w0, alpha = 5.0, 3.0                       # theta2 = 60 deg + 5 t + 1.5 t^2: 6.5 rad in 1 s
    cm = compile_model(fourbar_driven(Polynomial((math.pi / 3, w0, alpha / 2))))
    tr = kinematics(cm, 1.0, 0.005)
    th2 = math.pi / 3 + w0 * tr.t + alpha * tr.t ** 2 / 2
    w2 = w0 + alpha * tr.t
    th3, th4 = fourbar_angles(th2, **FOURBAR)
    w3, w4, a3, a4 = fourbar_rates(th2, w2, alpha, th3, th4, FOURBAR["r2"], FOURBAR["r3"], FOURBAR["r4"])
    names = cm.q_names
    iq2, iq3, iq4 = (names.index(f"{b}.theta") for b in ("crank_link", "coupler", "follower"))
    assert np.max(th2) - np.min(th2) > 2 * np.pi          # a full crank turn is covered
    np.testing.assert_allclose(wrap(tr.q[:, iq2] - th2), 0.0, atol=POS_TOL)
    np.testing.assert_allclose(wrap(tr.q[:, iq3] - th3), 0.0, atol=POS_TOL)
    np.testing.assert_allclose(wrap(tr.q[:, iq4] - th4), 0.0, atol=POS_TOL)
    for got, ref in ((tr.qd[:, iq3], w3), (tr.qd[:, iq4], w4), (tr.qdd[:, iq3], a3), (tr.qdd[:, iq4], a4)):
        np.testing.assert_allclose(got, ref, rtol=0, atol=RATE_RTOL * np.max(np.abs(ref)))
    # the follower pivot point B lies on the circle of radius r4 about O4 (geometry, not a solver output)
    ix4, iy4 = names.index("follower.x"), names.index("follower.y")
    np.testing.assert_allclose(np.hypot(tr.q[:, ix4] - 2.5, tr.q[:, iy4]), 2.0, atol=POS_TOL)


def test_free_degrees_of_freedom_are_refused_with_their_count():
    cm = compile_model(load_model(MODELS / "double_pendulum.json"))
    with pytest.raises(AnalysisError, match=r"2 degree\(s\) of freedom.*0 driver"):
        kinematics(cm, 1.0, 0.1)


def test_driving_beyond_reach_raises_assembly_error_with_time():
    # slider driven out to x = 1.2 + 0.08 k: x = 1.36 > r + l = 1.3 cannot be reached at t = 2 s
    model = planar_slider_crank(0.3, 1.0, ("guide", Linear(1.2, 0.08)))
    cm = compile_model(_start_at(model, 1.2))
    with pytest.raises(AssemblyError, match=r"t = 2 s"):
        kinematics(cm, 2.0, 1.0)


def _start_at(model, x):
    """Same slider-crank with its bodies placed near the configuration where the slider is at x."""
    r, l = 0.3, 1.0
    th = math.acos((x * x + r * r - l * l) / (2 * x * r))
    A = (r * math.cos(th), r * math.sin(th))
    b = ModelBuilder.from_model(model)
    for name, pos, ang in (("crank", (A[0] / 2, A[1] / 2), th),
                           ("rod", ((A[0] + x) / 2, A[1] / 2), math.atan2(-A[1], x - A[0])),
                           ("slider", (x, 0.0), 0.0)):
        old = model.element(name)
        b.remove(name)
        b.add_planar_body(name, old.mass, old.inertia, position=pos, angle=ang)
    return b.build()


def test_progress_and_time_grid():
    cm = compile_model(planar_slider_crank(drive=("pivot", Linear(0.0, 1.0))))
    seen = []
    tr = kinematics(cm, 0.25, 0.1, progress=seen.append)
    np.testing.assert_allclose(tr.t, [0.0, 0.1, 0.2, 0.25])      # last interval shortened to end at t_end
    assert seen[0] == 0.0 and seen[-1] == 1.0 and all(b >= a for a, b in zip(seen, seen[1:]))
    np.testing.assert_allclose(time_grid(1.0, 2.0, 0.25), [1.0, 1.25, 1.5, 1.75, 2.0])
    with pytest.raises(AnalysisError, match="positive"):
        time_grid(0.0, 1.0, 0.0)


def test_exact_rank_loss_is_reported():
    """A point held by two unit rods from (0, 0) and (2, 0): the circles touch at (1, 0), where both rod
    directions are parallel (rank Phi_q = 1 < 2), so velocities are not determined."""
    b = ModelBuilder("tangent_circles", dimension=2)
    b.add_point_mass("P", 1.0, position=(1.0, 0.0))
    b.add_marker("A", "ground", (0.0, 0.0))
    b.add_marker("B", "ground", (2.0, 0.0))
    b.add_marker("p", "P")
    b.add_joint("rod_A", "distance", "A", "p", length=1.0)
    b.add_joint("rod_B", "distance", "B", "p", length=1.0)
    cm = compile_model(b.build())
    with pytest.raises(AnalysisError, match=r"rank 1 < n_q = 2 at t = 0 s"):
        solve_state(Evaluator(cm), 0.0, np.array([1.0, 0.0]))
