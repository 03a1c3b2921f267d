"""The catalogue's flexible boom (models/flexible_boom.json, examples/make_flexible_boom.py): the hydraulic crane
with its boom a floating modal body.

- Statics against beam theory: with the hinge held at 30 deg, the boom is a beam on the hinge pin and the cylinder
  mount (a = 0.5 m) with a 0.5 m overhang, loaded across by its weight (w = rho A g cos 30 per metre) and the
  hanging payload at the tip (P = m g cos 30). The tip's deflection from the chord through hinge and mount follows
  from EI v'' = M(x), v(0) = v(a) = 0, v and v' continuous at a, integrated here in closed form (polynomials).
  The modal body is linear (its geometric stiffening switched off for this check: the reference has no axial
  force); the weight is a distributed load that the Craig-Bampton set (interfaces at hinge, mount and tip,
  4 normal modes) represents approximately.
- The stiff limit: with E, G x 1000 the holding force is the rigid crane's, 6867 N (tests/test_crane_hydraulic).
- The FMU: given the holding force it starts at rest (the file's start is the held equilibrium), and it replays
  bit for bit after a rollback and from serialized state. fmpy validate and FMU = library run: tests/test_fmu.py
  runs both on every catalogue model, this one included.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numpy.polynomial import Polynomial as Poly

from fmu_mbs.adapters.fmu_fast_step import FastStep
from fmu_mbs.adapters.fmu_slave import MbsSlave
from fmu_mbs.analyses.channels import ChannelEvaluator
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model, save_model
from fmu_mbs.model.names import channel_names

from fmu_harness import Slave, replays_from_saved_state

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration"))
import crane_pd_demo  # noqa: E402

spec = importlib.util.spec_from_file_location("make_flexible_boom", ROOT / "examples" / "make_flexible_boom.py")
mfb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mfb)

MODEL = ROOT / "models" / "flexible_boom.json"
G = 9.81


def overhang_tip_deflection(w: float, P: float, a: float, c: float, EI: float) -> float:  # noqa: N803
    """Tip deflection (m, along the load) of a beam pinned at 0 and supported at a with an overhang c, uniform load w
    (N/m) on all of it and P (N) at the tip, measured from the chord through the supports."""
    x = Poly([0.0, 1.0])
    L = a + c
    r0 = w * a / 2.0 - (w * c * c / 2.0 + P * c) / a       # support reaction at 0 (moments about a)
    m_span = r0 * x - w * x ** 2 / 2.0                        # sagging moment positive, load along -v
    m_over = -w * (L - x) ** 2 / 2.0 - P * (L - x)
    v_span = (m_span / EI).integ(2)                            # + k x; v(0) = 0 already
    k = -v_span(a) / a                                         # v(a) = 0
    v_span = v_span + k * x
    slope_a = v_span.deriv()(a)
    v_over = (m_over / EI).integ(2)
    v_over = v_over - v_over(a) - v_over.deriv()(a) * (x - a) + slope_a * (x - a)   # v(a) = 0, v'(a) continuous
    return -v_over(L)                                          # positive along the load


def _held(model, tmp_path):
    """(holding force (N), statics of the boom held at 30 deg under it) of ``model``."""
    path = tmp_path / f"{model.name}.json"
    save_model(model, path)
    force = crane_pd_demo.holding_force_by_statics(path)
    return force, crane_pd_demo.held_statics(path, force)[1]


def _variant(stiffening: bool = True, scale: float = 1.0):
    model = mfb.build(stiffness_scale=scale, static_start=False)
    return replace(model, bodies=tuple(replace(b, stiffening=stiffening) if b.name == "boom" else b
                                       for b in model.bodies))


def _tip_deflection(eq) -> float:
    """Deflection (m) of the tip marker from the chord through the hinge and mount markers, across the boom."""
    root, mount, tip = (np.array([eq[f"{m}.r[{k}]"][-1] for k in (1, 2)]) for m in ("boom_root", "boom_mount",
                                                                                      "boom_tip"))
    chord = (mount - root) / np.linalg.norm(mount - root)
    return float(-(tip - root) @ np.array([-chord[1], chord[0]]))


@pytest.mark.parametrize("scale, rel", [(1.0, 3e-3), (10.0, 4e-4)])
def test_held_boom_bends_as_the_overhanging_beam(scale, rel, tmp_path):
    """The solver's boom bends at its deformed angle (the hinge holds the root's tangent at 30 deg, the chord turns
    by the root's slope, 1.1 mrad), the reference at 30 deg: a difference of second order, measured -0.20 % at
    the catalogue's stiffness and -0.020 % ten times stiffer (it falls as 1/E, as such a term must)."""
    _, eq = _held(_variant(stiffening=False, scale=scale), tmp_path)
    cos30 = math.cos(math.radians(30.0))
    exact = overhang_tip_deflection(mfb.MASS / mfb.L * G * cos30, mfb.PAYLOAD * G * cos30, 0.5, 0.5,
                                    scale * mfb.E * mfb.I_BEND)
    assert exact > 2e-4 / scale                             # millimetres at scale 1: a visibly flexible boom
    assert _tip_deflection(eq) == pytest.approx(exact, rel=rel)
    # the channels say the same: the tip node's world position is the marker's; its elastic displacement is across
    assert eq["boom.node10.r[2]"][-1] == pytest.approx(eq["boom_tip.r[2]"][-1], abs=1e-12)
    assert eq["boom.node10.u[2]"][-1] < -exact


def test_stiff_boom_holds_with_the_rigid_cranes_force(tmp_path):
    rigid = 6867.0                                          # tests/test_crane_hydraulic.py: the lever rule
    flexible, _ = _held(_variant(), tmp_path)
    stiff, eq = _held(_variant(scale=1e3), tmp_path)
    assert abs(flexible - rigid) > 1e-3 * rigid              # the flexible boom needs a different force ...
    assert stiff == pytest.approx(rigid, rel=1e-5)           # ... the stiff one the rigid crane's
    assert abs(eq["boom.node10.u[2]"][-1]) < 1e-5


def test_slave_fills_the_modal_channels_on_both_step_paths(tmp_path, monkeypatch):
    """The FMU's slave in this process (no FMU build): the one-call step (its kernel knows nothing of modal
    channels; the slave fills them after it) and the general path give the same outputs bit for bit, and they are
    the library's ChannelEvaluator at the slave's state; a restored state (the FMU's getFMUstate) replays bit for
    bit."""
    (tmp_path / "model.json").write_text(MODEL.read_text())
    runs = []
    for one_call in (True, False):
        if not one_call:
            monkeypatch.setattr(FastStep, "build", classmethod(lambda cls, slave, substeps=0: None))
        s = MbsSlave(instance_name="boom", resources=str(tmp_path))
        s.setup_experiment(0.0)
        s.exit_initialization_mode()
        k = [c.name for c in s._inputs].index("cylinder.f")
        t, rows, saved = 0.0, [], None
        for n in range(20):
            s.u_set[k] = 6884.571528041161 * (1.0 + 0.3 * math.sin(20.0 * t))
            assert s.do_step(t, 0.01)
            t += 0.01
            rows.append(s.y.copy())
            if n == 7:
                saved = s._get_fmu_state()
            if n == 14:                        # roll back to step 7 and go on: steps 8..14 again
                s._set_fmu_state(saved)
                t = 0.08
        assert isinstance(s._fast, FastStep) == one_call
        rows = np.array(rows)
        assert np.array_equal(rows[15:20], rows[8:13])       # the replay after the rollback, bit for bit
        runs.append(rows)
    assert np.array_equal(runs[0], runs[1])
    names = channel_names(load_model(MODEL))
    modal = [i for i, n in enumerate(names) if n.startswith("boom.")]
    assert len(modal) == 2 * 16 + 6 + 2
    assert np.ptp(runs[0][:, names.index("boom.node10.u[2]")]) > 1e-5
    i = s.integ
    lib = ChannelEvaluator(compile_model(load_model(MODEL)))(i.t, i.q, i.qd, i.qdd, i.lam, u=i.u)
    assert np.array_equal(lib[modal], s.y[modal])


@pytest.fixture(scope="module")
def fmu(catalogue_fmu):
    return catalogue_fmu("flexible_boom")


def test_fmu_starts_at_rest_and_replays_bit_for_bit_after_rollback(fmu):
    """The holding force is the input's start value: set only after initialization, the first communication step
    would ramp the input from its initial 0 (first-order hold of inputs) and the boom would drop."""
    force = 6884.571528041161                               # examples/make_flexible_boom.py's static start
    s = Slave(fmu, "boom").start(**{"cylinder.f": force})
    watch = ["boom_hinge.s", "boom.node10.u[2]", "boom.eta[2]", "boom.etad[2]", "boom.stress[1]", "hook.r[1]"]
    start = s.get(*watch)
    for _ in range(20):
        s.step(0.01)
    held = s.get(*watch)
    assert held[0] == pytest.approx(math.radians(30.0), abs=1e-8)
    assert held[1] == pytest.approx(start[1], rel=1e-6) and start[1] < -1e-3
    assert abs(held[3]) < 1e-6
    first, second, third = replays_from_saved_state(
        s, watch, 10, 0.01, before_step=lambda s: s.set("cylinder.f", force * (1.0 + 0.2 * math.sin(10.0 * s.t))))
    s.close()
    assert np.ptp(first[:, 1]) > 1e-5                        # the boom does bend under the changing force
    assert np.array_equal(first, second) and np.array_equal(first, third)
