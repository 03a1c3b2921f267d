"""The belt family (kernels/families/belt.py): webbing through a slip ring, load limiter, pretensioner.

References from elsewhere:
- the capstan (Euler-Eytelwein) law: a slipping ring holds F_high = F_low e^(mu alpha), alpha the wrap angle
  computed here from the marker positions (mu = 0.3, alpha = pi gives 2.5663); a sticking ring keeps the webbing
  on each side, so the low side's force stays constant while the high side unloads;
- conservation of webbing with mu = 0 (the OpenRadioss #1681 check): both segments carry one force, and the
  total elongation of the webbing plus nothing else equals the pulled length; the slip is what the pulled
  segment took from the other (s_i = l_i / (1 + F/EA) from each segment's force);
- the load limiter and the pretensioner (a pull-in time function plus the stroke table after the firing time)
  along prescribed histories, in plain Python (the law of the module docstring: F = EA (l - s)/s,
  s = l/(1 + L/EA) while the limiter pays out, s = S - pull);
- the energy split of a dynamic run (kinetic + potential + dissipated = initial; the belt's work is dissipated).
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
from fmu_mbs.model.force_elements import Belt
from fmu_mbs.model.functions import Polynomial
from fmu_mbs.model.names import channel_names

EA = 1e5                                       # N per unit strain


def _ram(anchor, rings=(), stroke=(0.0, 0.2, -2.0), **belt):
    """A ram driven along x from (1, -0.05) by stroke(t) (out 5 mm at 50 ms, back at 100 ms), a belt from it
    (the retractor end) through ground rings to a ground anchor."""
    b = ModelBuilder("belt", dimension=2, gravity=(0.0, 0.0))
    b.add_planar_body("ram", 1.0, 1e-3, position=(1.0, -0.05))
    b.add_marker("guide", "ground", position=(1.0, -0.05))
    b.add_marker("slide", "ram")
    b.add_marker("anchor", "ground", position=anchor)
    for k, p in enumerate(rings):
        b.add_marker(f"ring{k}", "ground", position=p)
    b.add_joint("rail", "prismatic", "guide", "slide")
    b.add_driver("stroke", "rail", Polynomial(stroke))
    b.add_force(Belt("belt", "slide", "anchor", stiffness=EA, rings=tuple(f"ring{k}" for k in range(len(rings))),
                     **belt))
    cm = compile_model(load_model(model_to_dict(b.build())))            # through the model file
    tr = kinematics(cm, t_end=0.1, step=1e-3)
    return cm, tr, {n: v for n, v in zip(channel_names(cm.model), evaluate_channels(cm, tr).T)}


def _path_geometry(ch, points):
    """Segment lengths and the wrap angle at the ring from the channel positions of the moving end."""
    x, y = ch["slide.r[1]"], ch["slide.r[2]"]
    ring, anchor = points
    d0 = np.stack([ring[0] - x, ring[1] - y], axis=1)
    d1 = np.tile(np.subtract(anchor, ring), (len(x), 1))
    l0, l1 = np.linalg.norm(d0, axis=1), np.linalg.norm(d1, axis=1)
    alpha = np.arccos(np.clip(np.sum(d0 * d1, axis=1) / (l0 * l1), -1.0, 1.0))
    return l0, l1, alpha


def test_slip_ring_holds_the_capstan_ratio_and_sticks_on_unloading():
    ring, anchor = (0.0, 0.0), (1.0, 0.05)
    mu = 0.3
    cm, tr, ch = _ram(anchor, rings=(ring,), mu=mu)
    l0, l1, alpha = _path_geometry(ch, (ring, anchor))
    assert alpha[0] == pytest.approx(math.pi - 2 * math.atan(0.05), abs=1e-12)
    assert math.exp(0.3 * math.pi) == pytest.approx(2.5663, abs=1e-4)            # the digest's value at alpha = pi
    f0, f1 = ch["belt.force[1]"], ch["belt.force[2]"]
    loading = slice(1, 51)                                                       # pulled out: slipping
    assert np.allclose(f0[loading] / f1[loading], np.exp(mu * alpha[loading]), rtol=1e-9)
    # webbing is conserved through the ring: s0 + s1 from the two forces = the initial lengths
    s = l0 / (1 + f0 / EA) + l1 / (1 + f1 / EA)
    assert np.allclose(s[loading], l0[0] + l1[0], rtol=1e-12)
    assert np.allclose(ch["belt.slip[1]"][loading], l0[loading] / (1 + f0[loading] / EA) - l0[0], rtol=1e-9)
    back = slice(51, 80)                                                         # unloading: the ring sticks
    stick = f0[back] <= np.exp(mu * alpha[back]) * f1[back] * (1 + 1e-9)
    assert stick.sum() > 20 and np.ptp(f1[back][stick]) < 1e-9 * f1[50]
    late = np.flatnonzero((f0 > 0) & (f1 > np.exp(mu * alpha) * f0 * (1 - 1e-9)))
    assert late.size > 0 and np.allclose(f1[late] / f0[late], np.exp(mu * alpha[late]), rtol=1e-9)  # slips back
    assert ch["belt.length"] == pytest.approx(l0 + l1, rel=1e-12)


def test_frictionless_ring_conserves_webbing():
    ring, anchor = (0.0, 0.0), (1.0, 0.05)
    cm, tr, ch = _ram(anchor, rings=(ring,), mu=0.0)
    l0, l1, _ = _path_geometry(ch, (ring, anchor))
    f0, f1 = ch["belt.force[1]"], ch["belt.force[2]"]
    assert np.allclose(f0, f1, rtol=1e-9, atol=1e-9)
    pulled = (l0 + l1) - (l0[0] + l1[0])
    elongation = (l0 + l1) - (l0 + l1) / (1 + f0 / EA)
    assert np.max(np.abs(elongation - pulled)) < 1e-12                          # all webbing is accounted for
    slip = ch["belt.slip[1]"]
    assert np.allclose(slip, l1[0] - l1 / (1 + f1 / EA), atol=1e-12)           # what the pulled side took
    assert np.max(f0) == pytest.approx(EA * pulled[50] / (l0[0] + l1[0]), rel=1e-9)


def _limited(l, limit, pull=None):
    s0 = l[0]
    out = []
    for k, lk in enumerate(l):
        s = s0 - (pull[k] if pull is not None else 0.0)
        if limit and EA * (lk - s) / s > limit:
            s0 += lk / (1 + limit / EA) - s
            s = lk / (1 + limit / EA)
        out.append(EA * max(lk - s, 0.0) / s)
    return np.array(out), s0 - l[0]


def test_load_limiter_pays_out_and_keeps_the_webbing():
    cm, tr, ch = _ram((0.0, -0.05), load_limit=300.0)
    l = ch["belt.length"]
    ref, payout = _limited(l, 300.0)
    assert np.max(ref) == pytest.approx(300.0) and ref[-1] == 0.0
    assert np.allclose(ch["belt.force[1]"], ref, rtol=1e-9, atol=1e-9)
    assert ch["belt.payout"][-1] == pytest.approx(payout, rel=1e-9) and payout > 0.0
    assert np.all(np.diff(ch["belt.payout"]) >= -1e-15)                           # never taken back


def test_pretensioner_pulls_webbing_in():
    stroke = ((0.0, 0.0), (0.01, 0.004), (0.02, 0.006), (0.03, 0.006))    # 6 mm in 20 ms after firing, held
    cm, tr, ch = _ram((0.0, -0.05), stroke=(0.0,), pull_in=Polynomial((0.0, 0.01)), pretensioner_stroke=stroke,
                      fire_time=0.05)
    ts, ps = np.array(stroke).T
    pull = 0.01 * tr.t + np.where(tr.t >= 0.05, np.interp(tr.t - 0.05, ts, ps), 0.0)
    ref, _ = _limited(ch["belt.length"], 0.0, pull)
    assert np.allclose(ch["belt.force[1]"], ref, rtol=1e-9, atol=1e-9)
    assert ch["belt.force[1]"][-1] == pytest.approx(EA * 0.007 / (1.0 - 0.007), rel=1e-9)   # 1 mm + 6 mm
    assert np.allclose(ch["belt.payout"], -pull, atol=1e-15)
    assert "belt.fire" in cm.input_names
    with pytest.raises(ModelError, match="'pretensioner_stroke' must end flat"):
        _ram((0.0, -0.05), pretensioner_stroke=((0.0, 0.0), (0.01, 0.004)), fire_time=0.0)


def test_mass_caught_by_a_belt_balances_its_energy():
    b = ModelBuilder("catch", dimension=2, gravity=(0.0, 0.0))
    b.add_point_mass("dummy", 75.0, position=(0.3, -0.3), velocity=(10.0, 0.0))
    b.add_marker("chest", "dummy")
    b.add_marker("retractor", "ground", position=(0.0, -0.6))
    b.add_marker("d_ring", "ground", position=(0.0, 0.0))
    b.add_marker("buckle", "ground", position=(0.0, -0.5))
    b.add_force(Belt("belt", "retractor", "buckle", stiffness=2e5, rings=("d_ring", "chest"), mu=0.2,
                     slack=0.01, load_limit=6e3))
    cm = compile_model(b.build())
    tr = simulate(cm, 0.12, 5e-5)
    e0 = 0.5 * 75.0 * 100.0
    split = tr.info["energy_kinetic"] + tr.info["energy_potential"] + tr.info["energy_dissipated"]
    assert np.max(np.abs(split - e0)) < 1e-3 * e0
    ch = {n: v for n, v in zip(channel_names(cm.model), evaluate_channels(cm, tr).T)}
    assert np.max(ch["belt.force[1]"]) == pytest.approx(6e3, rel=1e-6)           # the limiter held
    assert ch["belt.payout"][-1] > 0.0 and np.min(ch["chest.v[1]"]) < 5.0        # paid out, caught


def test_bad_belts_are_refused_by_name():
    b = ModelBuilder("bad", dimension=2, gravity=(0.0, 0.0))
    b.add_point_mass("m", 1.0)
    b.add_marker("a", "m")
    b.add_marker("b", "ground", position=(1.0, 0.0))
    b.add_force(Belt("lap", "a", "b", stiffness=0.0, rings=("nowhere",)))
    with pytest.raises(ModelError) as err:
        b.build()
    text = str(err.value)
    assert "force element 'lap': 'rings' refers to marker 'nowhere'" in text
    assert "force element 'lap': 'stiffness' (EA) must be finite and > 0" in text
