"""The table contact law (kernels/contact.py ``_table_force``): loading along a force-penetration table, unloading
and reloading along the unloading table shifted through the largest depth, a permanent set that outlives the
contact, a potential that is the recoverable energy (zero once apart) and a depth channel that reads zero when the
force is zero.

References from elsewhere: the law evaluated by hand in plain Python along a prescribed (kinematic) depth history;
the energies of one impact computed by hand from the two tables (the largest depth from the loading table's area
= the impact energy, the rebound energy = the area under the shifted unloading table); the energy balance
kinetic + potential + dissipated = initial kinetic energy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.kinematics import kinematics
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.functions import Polynomial
from fmu_mbs.model.names import channel_names

R = 0.1
LOAD = ((0.0, 0.0), (0.01, 5e3), (0.03, 6e3), (0.05, 9e3))        # m, N: rise, plateau, stiffening
UNLOAD = ((0.0, 0.0), (0.002, 2e3), (0.004, 9e3))                   # m, N: steep, nonlinear


def _lin(curve, x):
    """A piecewise-linear table with linear extrapolation at both ends (as the kernels evaluate it)."""
    xs, ys = (np.array(c, dtype=float) for c in zip(*curve))
    if x <= xs[0]:
        i = 0
    elif x >= xs[-1]:
        i = len(xs) - 2
    else:
        i = int(np.searchsorted(xs, x)) - 1
    return ys[i] + (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) * (x - xs[i])


def _inv(curve, y):
    """x with U(x) = y on the increasing table (linear extrapolation)."""
    xs, ys = (np.array(c, dtype=float) for c in zip(*curve))
    i = min(max(int(np.searchsorted(ys, y)) - 1, 0), len(xs) - 2)
    return xs[i] + (y - ys[i]) * (xs[i + 1] - xs[i]) / (ys[i + 1] - ys[i])


def _law(depths, keep_set=True):
    """Normal force along a depth history, by hand (the module docstring of kernels/contact.py): the largest depth
    d_m is remembered (also while apart, unless ``keep_set`` is False: the old law that forgot it)."""
    d_m = 0.0
    out = []
    for d in depths:
        if d <= 0.0:
            out.append(0.0)
            if not keep_set:
                d_m = 0.0
            continue
        if d >= d_m:
            d_m = d
            out.append(_lin(LOAD, d))
            continue
        x = d + _inv(UNLOAD, _lin(LOAD, d_m)) - d_m
        out.append(max(min(_lin(LOAD, d), _lin(UNLOAD, x)), 0.0) if x > _inv(UNLOAD, 0.0) else 0.0)
    return np.array(out)


def test_loading_unloading_separation_and_reloading_follow_the_tables():
    b = ModelBuilder("press", gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("ram", 1.0, [1e-3] * 3, position=(0.0, 0.0, R))
    b.add_marker("guide", "ground", position=(0.0, 0.0, R))
    b.add_marker("slide", "ram")
    b.add_marker("origin", "ground")
    b.add_joint("rail", "prismatic", "guide", "slide")
    # depth x(t) = -s(t): 37 mm at 30 ms, back out and 5 mm apart, in again to 45 mm at 130 ms
    b.add_driver("stroke", "rail", Polynomial((0.0, -2.7367094, 59.05555556, -312.82051282)))
    b.add_shape("ball", "slide", "sphere", [R])
    b.add_shape("floor", "origin", "plane", [])
    b.add_contact("press", "ball", "floor", law="table", loading_curve=[list(p) for p in LOAD],
                  unloading_curve=[list(p) for p in UNLOAD], include_joined=True)   # the rail joins ram and ground
    cm = compile_model(b.build())
    tr = kinematics(cm, t_end=0.13, step=2e-4)
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    depth_geo = R - ch[:, names.index("slide.r[3]")]
    fn = ch[:, names.index("press.fn")]
    depth = ch[:, names.index("press.depth")]
    ref = _law(depth_geo)
    first = int(np.argmax(depth_geo[:300]))
    apart = np.flatnonzero(depth_geo < -1e-3)
    assert depth_geo[first] > 0.03 and apart.size and depth_geo[-1] > depth_geo[first]
    assert np.max(np.abs(fn - ref)) < 1e-6 * np.max(ref)
    # the permanent set outlives the separation: on the way back in, no force until the set is reached
    back_in = np.arange(apart[-1] + 1, len(fn))
    lost = back_in[(ref[back_in] == 0.0) & (depth_geo[back_in] > 0.0)]
    assert lost.size > 5
    forgot = _law(depth_geo, keep_set=False)[lost]                   # a law that forgot it would push there
    assert np.all(forgot > 0.0) and forgot.max() > 1e3
    # the depth channel reads zero where the force is zero, the penetration where it is not
    assert np.all(depth[fn == 0.0] == 0.0)
    on = fn > 0.0
    assert np.max(np.abs(depth[on] - depth_geo[on])) < 1e-12


def _area(curve, a, b):
    """Integral of the table from a to b (b >= a), by hand on a fine grid of its straight pieces."""
    xs = np.linspace(a, b, 20001)
    ys = np.array([_lin(curve, x) for x in xs])
    return float(np.trapezoid(ys, xs))


def test_impact_energy_is_split_into_rebound_and_dissipation_by_the_tables():
    m, v0 = 1.0, 1.0
    load = ((0.0, 0.0), (0.002, 200.0), (0.01, 600.0))
    unload = ((0.0, 0.0), (0.0005, 100.0), (0.001, 400.0))
    b = ModelBuilder("drop", gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("ball", m, [0.4 * m * R * R] * 3, position=(0.0, 0.0, R + 1e-4), velocity=(0.0, 0.0, -v0))
    b.add_marker("centre", "ball")
    b.add_marker("origin", "ground")
    b.add_shape("sphere", "centre", "sphere", [R])
    b.add_shape("floor", "origin", "plane", [])
    b.add_contact("impact", "sphere", "floor", law="table", loading_curve=[list(p) for p in load],
                  unloading_curve=[list(p) for p in unload])
    cm = compile_model(b.build())
    tr = simulate(cm, 0.03, 1e-5)
    e0 = 0.5 * m * v0 ** 2
    # by hand: the largest depth stores e0 under the loading table; the shifted unloading table gives back its area
    d_m = 0.002 + (-200.0 + math.sqrt(200.0 ** 2 + 4 * 25000.0 * (e0 - 0.2))) / (2 * 25000.0)
    f_m = 200.0 + 50000.0 * (d_m - 0.002)
    x_m = 0.0005 + (f_m - 100.0) / 600000.0            # U^-1(f_m) on the unloading table's second piece
    back = _area(unload, 0.0, x_m)
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    depth = ch[:, names.index("impact.depth")]
    assert depth.max() == pytest.approx(d_m, rel=2e-3)
    assert 0.5 * m * tr.qd[-1, 2] ** 2 == pytest.approx(back, rel=2e-3)        # rebound energy
    i = tr.info
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"]
    assert np.max(np.abs(total - e0)) < 1e-3 * e0
    assert i["energy_dissipated"][-1] == pytest.approx(e0 - back, rel=2e-3)
    k = int(np.argmax(depth))
    assert i["energy_potential"][k] == pytest.approx(back, rel=2e-2)            # what it can still give back
    assert i["energy_potential"][-1] == 0.0                                     # apart: nothing stored
    assert depth[-1] == 0.0
