"""The hysteretic crush spring (kernels/families/crush_spring.py), added through the element-family registry.

References from elsewhere:
- a mass m at V0 into a rigid wall through a linear loading curve L = k d with unloading stiffness k_u (closed
  forms of the two half-oscillations): largest compression d_m = V0 sqrt(m/k) at t = pi/2 sqrt(m/k), rebound
  speed V0 sqrt(k/k_u) (restitution e = sqrt(k/k_u)), permanent set d_m (1 - k/k_u), absorbed energy
  m V0^2 (1 - k/k_u) / 2;
- energy conservation with the dissipated work of the energy split: E_kin + E_pot + W_diss = E_0;
- the constitutive law along a prescribed compression history (a driven ram: kinematics), evaluated here in
  plain Python: a nonlinear loading table, the unloading line, zero force below the permanent set, reloading, and
  the Cowper-Symonds rate factor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.kinematics import kinematics
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ModelError
from fmu_mbs.model import ModelBuilder, load_model, model_to_dict
from fmu_mbs.model.force_elements import CrushSpring
from fmu_mbs.model.functions import Polynomial
from fmu_mbs.model.names import channel_names

M, V0, K, KU = 2.0, 3.0, 2.0e4, 8.0e4          # kg, m/s, N/m, N/m: e = 0.5, d_m = 0.03 m, t_m = 15.7 ms


def _impact(k=K, ku=KU, v0=V0):
    b = ModelBuilder("crash_1d", dimension=2, gravity=(0.0, 0.0))
    b.add_point_mass("car", M, position=(0.0, 0.0), velocity=(v0, 0.0))
    b.add_marker("front", "car")
    b.add_marker("wall", "ground", position=(0.5, 0.0))
    b.add_force(CrushSpring("rail", "wall", "front", free_length=0.5, loading_curve=((0.0, 0.0), (1.0, k)),
                            unloading_stiffness=ku))
    return b.build()


def test_mass_into_a_wall_matches_the_closed_forms():
    cm = compile_model(_impact())
    h = 2e-5
    tr = simulate(cm, 0.06, h)                  # 60 ms: in, out and clear of the wall
    t, qd = tr.t, tr.qd
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    d, f, absorbed = (ch[:, names.index(f"rail.{x}")] for x in ("deflection", "force", "absorbed"))
    w = math.sqrt(K / M)
    d_max = V0 / w
    i = int(np.argmax(d))
    assert d[i] == pytest.approx(d_max, rel=1e-5)                    # measured -3.2e-7 at h = 20 us
    assert t[i] == pytest.approx(math.pi / 2 / w, abs=h)             # the sample of the peak (8e-6 s off)
    assert f[i] == pytest.approx(K * d_max, rel=1e-5)
    e = math.sqrt(K / KU)
    assert qd[-1, 0] == pytest.approx(-e * V0, rel=2e-5)              # restitution sqrt(k/k_u); measured 1.7e-6
    off = np.flatnonzero(f[i:] == 0.0)[0] + i                         # first sample with the force gone
    set_ = d_max * (1.0 - K / KU)
    assert d[off - 1] >= set_ - 1e-9 and d[off] <= set_ + 1e-9       # the force vanishes at the permanent set
    assert absorbed[-1] == pytest.approx(0.5 * M * V0 ** 2 * (1.0 - K / KU), rel=2e-5)   # measured -1.1e-6
    # energy balance of the integrator's split: kinetic + recoverable potential + dissipated = initial
    e0 = 0.5 * M * V0 ** 2
    total = tr.info["energy_kinetic"] + tr.info["energy_potential"] + tr.info["energy_dissipated"]
    assert np.max(np.abs(total - e0)) < 1e-5 * e0                    # measured 8.4e-7
    assert tr.info["energy_dissipated"][-1] == pytest.approx(0.5 * M * V0 ** 2 * (1.0 - K / KU), rel=1e-6)


def test_potential_is_the_recoverable_energy_and_vanishes_at_the_permanent_set():
    """energy.potential is what the element gives back by unloading along k_u, F^2 / (2 k_u): zero from the moment
    the force vanishes at the permanent set, while the crush d is still positive (the old bookkeeping kept the
    loading curve's area, 1/2 k d^2, there); the rest of the work is dissipated."""
    cm = compile_model(_impact())
    tr = simulate(cm, 0.035, 2e-5)              # leaves the spring at 23.6 ms, crosses d = 0 only at 38.6 ms
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    d, f = ch[:, names.index("rail.deflection")], ch[:, names.index("rail.force")]
    pot = tr.info["energy_potential"]
    gone = (f == 0.0) & (d > 0.0) & (tr.t > 0.02)
    assert gone.sum() > 100 and d[gone].max() > 0.02                 # apart, still crushed beyond 20 mm
    assert np.all(pot[gone] == 0.0)
    on = f > 0.0
    assert np.max(np.abs(pot[on] - f[on] ** 2 / (2.0 * KU))) < 1e-9 * 0.5 * M * V0 ** 2
    e0 = 0.5 * M * V0 ** 2
    assert tr.info["energy_dissipated"][-1] == pytest.approx(e0 * (1.0 - K / KU), rel=1e-5)


def _law(curve, ku, rate_d, rate_p, ds, dds):
    """The crush law along a compression history, in plain Python (module docstring of the kernel)."""
    xs, ys = np.array(curve).T
    d_max = f_max = 0.0
    out = []
    for d, dd in zip(ds, dds):
        if d <= 0.0:
            out.append(0.0)
            continue
        fl = float(np.interp(d, xs, ys)) if d <= xs[-1] else ys[-1] + (ys[-1] - ys[-2]) / (xs[-1] - xs[-2]) * (
            d - xs[-1])
        if d >= d_max:
            f = fl * (1.0 + (dd / rate_d) ** (1.0 / rate_p) if rate_d > 0.0 and dd > 0.0 else 1.0)
            d_max, f_max = d, fl
        else:
            f = max(min(fl, f_max - ku * (d_max - d)), 0.0)
        out.append(f)
    return np.array(out)


@pytest.mark.parametrize("rate_d", [0.0, 0.5])
def test_a_prescribed_compression_history_follows_the_law(rate_d):
    curve = ((0.0, 0.0), (0.01, 5e3), (0.03, 6e3), (0.05, 9e3))      # N: rise, plateau, stiffening
    ku = 6e5
    b = ModelBuilder("ram", dimension=2, gravity=(0.0, 0.0))
    b.add_planar_body("ram", 1.0, 1e-3)
    b.add_marker("guide", "ground")
    b.add_marker("slide", "ram")
    b.add_marker("wall", "ground", position=(0.1, 0.0))
    b.add_joint("rail", "prismatic", "guide", "slide")
    # x(t): into the stiffening segment (0.037 m at 30 ms), back out past the permanent set (-0.005 m), and in
    # again deeper than before (0.045 m at 130 ms)
    b.add_driver("stroke", "rail", Polynomial((0.0, 2.7367094, -59.05555556, 312.82051282)))
    b.add_force(CrushSpring("can", "wall", "slide", free_length=0.1, loading_curve=curve, unloading_stiffness=ku,
                            rate_constant=rate_d, rate_exponent=2.0))
    model = load_model(model_to_dict(b.build()))           # the family goes through the model file too
    cm = compile_model(model)
    tr = kinematics(cm, t_end=0.13, step=2e-4)
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    x = ch[:, names.index("slide.r[1]")]
    v = ch[:, names.index("slide.v[1]")]
    f = ch[:, names.index("can.force")]
    ref = _law(curve, ku, rate_d, 2.0, x, v)
    first = int(np.argmax(x[:300]))
    assert x[first] > 0.03 and np.min(x[first:]) < 0.0 and x[-1] > x[first]   # in, out past zero, deeper in
    assert np.max(np.abs(f - ref)) < 1e-6 * np.max(ref)
    assert np.any(ref[first:] == 0.0)                               # the unloading reached the permanent set


def test_bad_crush_springs_are_refused_by_name():
    b = ModelBuilder("bad", dimension=2, gravity=(0.0, 0.0))
    b.add_point_mass("car", 1.0, position=(0.0, 0.0))
    b.add_marker("front", "car")
    b.add_marker("wall", "ground")
    b.add_force(CrushSpring("rail", "wall", "front", free_length=0.5, loading_curve=((0.0, 0.0), (0.1, 1e4)),
                            unloading_stiffness=1e3))
    with pytest.raises(ModelError, match="rail.*unloading_stiffness.*steepest loading slope"):
        b.build()
