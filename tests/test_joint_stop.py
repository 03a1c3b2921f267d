"""The joint stop (kernels/families/joint_stop.py): a tabulated, hysteretic joint characteristic with a stiff stop
at the range-of-motion limits, added through the element-family registry.

References from elsewhere: the law evaluated by hand in plain Python along a prescribed (kinematic) angle history,
with the angle read from the arm marker's quaternion and the rate from its angular velocity; the energy balance
kinetic + potential + dissipated = initial kinetic energy of an arm swinging into the stops; bad input refused by
name.
"""

from __future__ import annotations

import numpy as np
import pytest

from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.kinematics import kinematics
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ModelError
from fmu_mbs.model import ModelBuilder, load_model, model_to_dict
from fmu_mbs.model.functions import Polynomial
from fmu_mbs.model.joint_stop import JointStop
from fmu_mbs.model.names import channel_names

TABLE = ((-0.2, -30.0), (0.0, 0.0), (0.2, 20.0), (0.4, 25.0), (0.8, 60.0))     # rad, N m
KU, LOWER, UPPER, KS, C = 400.0, -0.05, 0.5, 2000.0, 3.0


def _lin(x):
    xs, ys = (np.array(c) for c in zip(*TABLE))
    i = 0 if x <= xs[0] else (len(xs) - 2 if x >= xs[-1] else int(np.searchsorted(xs, x)) - 1)
    return ys[i] + (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) * (x - xs[i])


def _law(phis, rates):
    """The joint-stop torque along an angle history, by hand (the kernel module's docstring)."""
    p_max = t_p = n_max = t_n = 0.0
    out = []
    for phi, rate in zip(phis, rates):
        fl = _lin(phi)
        if phi >= 0.0:
            if phi >= p_max:
                th, p_max, t_p = fl, phi, fl
            else:
                th = max(min(fl, t_p - KU * (p_max - phi)), 0.0)
        else:
            if phi <= n_max:
                th, n_max, t_n = fl, phi, fl
            else:
                th = min(max(fl, t_n + KU * (phi - n_max)), 0.0)
        e = phi - UPPER if phi > UPPER else (phi - LOWER if phi < LOWER else 0.0)
        out.append(th + KS * e + C * rate)
    return np.array(out)


def _arm(b, damping=C):
    b.add_marker("pivot", "ground")
    b.add_marker("hinge", "arm")
    b.add_joint("pin", "revolute", "pivot", "hinge")
    b.add_force(JointStop("neck", "pivot", "hinge", loading_curve=TABLE, unloading_stiffness=KU, lower=LOWER,
                          upper=UPPER, stop_stiffness=KS, damping=damping))


def test_a_prescribed_angle_history_follows_the_table_the_hysteresis_and_the_stops():
    b = ModelBuilder("arm", gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("arm", 1.0, [0.1, 0.1, 0.1])
    _arm(b)
    # 0.59 rad (past the upper stop) at 30 ms, back to -0.08 rad (past the lower one), then on to 0.72 rad
    b.add_driver("swing", "pin", Polynomial((0.0, 16 * 2.7367094, -16 * 59.05555556, 16 * 312.82051282)))
    cm = compile_model(load_model(model_to_dict(b.build())))       # through the model file too
    tr = kinematics(cm, t_end=0.13, step=2e-4)
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    q0, q3 = ch[:, names.index("hinge.q[1]")], ch[:, names.index("hinge.q[4]")]
    phi = 2.0 * np.arctan2(q3, q0)
    rate = ch[:, names.index("hinge.w[3]")]
    assert np.max(np.abs(ch[:, names.index("neck.angle")] - phi)) < 1e-9
    assert phi.max() > UPPER and phi.min() < LOWER and phi[-1] > phi[:400].max()
    ref = _law(phi, rate)
    torque = ch[:, names.index("neck.T")]
    assert np.max(np.abs(torque - ref)) < 1e-6 * np.max(np.abs(ref))
    # the hysteresis did something: unloading below the loading table somewhere on the way back
    back = (rate < 0.0) & (phi > 0.05) & (phi < UPPER)
    assert np.any(ref[back] - C * rate[back] < np.array([_lin(p) for p in phi[back]]) - 1.0)


def test_an_arm_swinging_into_the_stops_keeps_the_energy_balance():
    # the table stores ~9.4 J up to the upper stop: 20 J of spin reaches it; a light damper (I / c = 0.33 s) lets
    # the arm get there and swing back past the lower stop
    w0 = 20.0
    b = ModelBuilder("arm", gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("arm", 1.0, [0.1, 0.1, 0.1], angular_velocity=(0.0, 0.0, w0))
    _arm(b, damping=0.3)
    cm = compile_model(b.build())
    tr = simulate(cm, 0.6, 1e-4)
    e0 = 0.5 * 0.1 * w0 ** 2
    i = tr.info
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"]
    assert np.max(np.abs(total - e0)) < 1e-3 * e0
    names = channel_names(cm.model)
    phi = evaluate_channels(cm, tr)[:, names.index("neck.angle")]
    assert phi.max() > UPPER and phi.min() < LOWER                 # it hit the stop and came back
    assert i["energy_dissipated"][-1] > 0.1 * e0                    # the loop and the damper took their share


def test_bad_joint_stops_are_refused_by_name():
    b = ModelBuilder("bad", gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("arm", 1.0, [0.1, 0.1, 0.1])
    b.add_marker("pivot", "ground")
    b.add_marker("hinge", "arm")
    b.add_force(JointStop("knee", "pivot", "hinge", loading_curve=((0.0, 1.0), (0.1, 0.0)), lower=0.2))
    b.add_force(JointStop("hip", "pivot", "hinge", loading_curve=((-0.1, -10.0), (0.0, 0.0), (0.1, 10.0)),
                          unloading_stiffness=50.0))
    with pytest.raises(ModelError) as info:
        b.build()
    text = str(info.value)
    assert "knee" in text and "non-decreasing" in text and "range" in text
    assert "hip" in text and "steepest loading slope" in text
