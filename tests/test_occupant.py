"""The ellipsoid-segment occupant (fmu_mbs.model.occupant) and the sled that carries it.

References from elsewhere:
- de Leva (1996) Table 4 (male) as printed: the segment masses sum to the body mass; the equimomental ellipsoid of
  a segment has its principal moments (m (b^2 + c^2) / 5 ...);
- a chain of three de Leva segments swinging under gravity from a pin, with linear joint tables between them,
  against an independent minimal-coordinate integration (absolute angles, mass matrix from the link Jacobians,
  scipy's solve_ivp at rtol 1e-10);
- the sled's prescribed half-sine pulse (A = pi V0 / (2 T) = 24.91 g at 60 ms), the energy balance with the driver's
  input work, and crash-report's HIC and 3 ms clip of the head and chest channels.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.adapters.cli import main
from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, load_model, model_to_dict
from fmu_mbs.model.joint_stop import JointStop
from fmu_mbs.model.names import channel_names
from fmu_mbs.model.occupant import DE_LEVA_MALE, LATERAL, MASS_REF, _quat_y, segment

ROOT = Path(__file__).resolve().parents[1]
G = 9.80665


def test_segment_table_masses_and_equimomental_ellipsoids():
    left_right = {"upper_arm", "forearm", "hand", "thigh", "shank", "foot"}
    total = sum(row[1] * (2 if name in left_right else 1) for name, row in DE_LEVA_MALE.items())
    assert total == pytest.approx(1.0, abs=1e-9)                     # de Leva's male fractions add up to 100 %
    for name in DE_LEVA_MALE:
        _, m, _, inertia, (a, b, c) = segment(name)
        assert inertia == pytest.approx([m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5],
                                        rel=1e-12)


CHAIN = ("thigh", "shank", "upper_arm")
K_JOINT = 40.0             # N m/rad, linear joint tables between the links
BETA0 = (1.2, 0.3, -0.5)   # rad: each link's z axis (sin b, 0, cos b), from the pin outwards


def _chain_model():
    b = ModelBuilder("chain", gravity=(0.0, 0.0, -G))
    joint = np.zeros(3)
    b.add_marker("pin_i", "ground", orientation=LATERAL)
    parent = None
    for i, (name, beta) in enumerate(zip(CHAIN, BETA0)):
        length, m, c, inertia, _ = segment(name)
        u = np.array([math.sin(beta), 0.0, math.cos(beta)])
        b.add_rigid_body(name, m, [float(x) for x in inertia], position=tuple(joint + c * u),
                         orientation=_quat_y(beta))
        b.add_marker(f"{name}_cm", name)
        b.add_marker(f"{name}_top", name, position=(0.0, 0.0, -c), orientation=LATERAL)
        b.add_marker(f"{name}_end", name, position=(0.0, 0.0, length - c), orientation=LATERAL)
        if parent is None:
            b.add_joint("pin", "revolute", "pin_i", f"{name}_top")
        else:
            b.add_joint(f"j{i}", "revolute", f"{parent}_end", f"{name}_top")
            b.add_force(JointStop(f"s{i}", f"{parent}_end", f"{name}_top",
                                  loading_curve=((-1.0, -K_JOINT), (0.0, 0.0), (1.0, K_JOINT)),
                                  free_angle=beta - BETA0[i - 1]))
        joint = joint + length * u
        parent = name
    return b.build()


def _chain_reference(t_out):
    """Absolute link angles by an independent minimal-coordinate integration of the same chain."""
    segs = [segment(n) for n in CHAIN]
    L = [s[0] for s in segs]
    m = [s[1] for s in segs]
    c = [s[2] for s in segs]
    iy = [s[3][1] for s in segs]
    n = len(segs)

    def rhs(t, y):
        b, bd = y[:n], y[n:]
        u = np.array([[math.sin(x), math.cos(x)] for x in b])           # (x, z) of each link axis
        du = np.array([[math.cos(x), -math.sin(x)] for x in b])         # d u / d beta
        M = np.diag(iy).astype(float)
        f = np.zeros(n)
        for i in range(n):
            J = np.zeros((2, n))
            acc = np.zeros(2)                                           # velocity-product acceleration of CM i
            for j in range(i + 1):
                arm = c[i] if j == i else L[j]
                J[:, j] = arm * du[j]
                acc += -arm * u[j] * bd[j] ** 2
            M += m[i] * J.T @ J
            f += m[i] * J.T @ (np.array([0.0, -G]) - acc)
        for i in range(1, n):                                           # joint table torques, T = k phi
            tq = K_JOINT * ((b[i] - b[i - 1]) - (BETA0[i] - BETA0[i - 1]))
            f[i] -= tq
            f[i - 1] += tq
        return np.concatenate([bd, np.linalg.solve(M, f)])

    sol = solve_ivp(rhs, (0.0, t_out[-1]), np.concatenate([BETA0, np.zeros(n)]), t_eval=t_out, rtol=1e-10,
                    atol=1e-12, method="DOP853")
    return sol.y[:n].T


def test_segment_chain_swings_like_the_minimal_coordinate_integration():
    cm = compile_model(_chain_model())
    tr = simulate(cm, 0.5, 1e-4)
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    beta = np.column_stack([2.0 * np.arctan2(ch[:, names.index(f"{n}_cm.q[3]")], ch[:, names.index(f"{n}_cm.q[1]")])
                            for n in CHAIN])
    ref = _chain_reference(tr.t)
    assert np.ptp(ref[:, 0]) > 0.5                                      # it really swings
    assert np.max(np.abs(np.unwrap(beta, axis=0) - ref)) < 1e-3        # rad
    i = tr.info
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"]
    assert np.max(np.abs(total - total[0])) < 1e-4 * np.max(i["energy_kinetic"])


def _make_sled():
    spec = importlib.util.spec_from_file_location("make_sled", ROOT / "examples" / "make_sled.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sled_occupant_pulse_injury_numbers_and_energy(tmp_path, monkeypatch):
    make_sled = _make_sled()
    model = make_sled.build()
    assert model_to_dict(load_model(ROOT / "models" / "sled.json")) == model_to_dict(model)
    occupant_mass = sum(bd.mass for bd in model.bodies if bd.name != "sled_body")
    assert occupant_mass == pytest.approx(MASS_REF, rel=1e-12)
    cm = compile_model(model)
    tr = simulate(cm, 0.15, 1e-4)
    i = tr.info
    e0 = 0.5 * sum(bd.mass for bd in model.bodies) * make_sled.V0 ** 2          # the impact energy, sled included
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"] - i["energy_input"]
    assert np.max(np.abs(total - total[0])) < 1e-3 * e0
    monkeypatch.chdir(tmp_path)
    nums = {}
    for fire in ("0.025", "-1"):
        assert main(["simulate", str(ROOT / "models" / "sled.json"), "--t-end", "0.15", "--step", "1e-4", "--out",
                     f"s{fire}.csv", "--set", f"belt.fire_time={fire}"]) == 0
        assert main(["crash-report", f"s{fire}.csv", "--pulse", "sled.a[1]", "--head", "head_cg.a[1]",
                     "head_cg.a[2]", "head_cg.a[3]", "--chest", "occupant.a[1]", "occupant.a[2]", "occupant.a[3]",
                     "--no-plot"]) == 0
        nums[fire] = json.loads((tmp_path / f"s{fire}_crash.json").read_text())
    n = nums["0.025"]
    a = math.pi * make_sled.V0 / (2 * 0.1)
    assert -n["peak_pulse_cfc60_g"]["value"] == pytest.approx(a / G, rel=2e-3)                # 24.91 g
    assert n["peak_pulse_cfc60_g"]["time_s"] == pytest.approx(0.060, abs=2e-4)
    assert n["time_to_zero_velocity_s"] == pytest.approx(0.110, abs=5e-4)                    # 10 ms + T
    for r in nums.values():                                # finite, reported, with their windows inside the run
        for key, width in (("HIC15", 0.015), ("HIC36", 0.036)):
            h = r[key]
            assert math.isfinite(h["value"]) and h["value"] > 0.0 and 0.0 <= h["t1_s"] < h["t2_s"] <= 0.15
            assert h["t2_s"] - h["t1_s"] <= width + 1e-9
        assert r["HIC36"]["value"] >= r["HIC15"]["value"]                   # a wider window never lowers HIC
        clip = r["chest_3ms_clip_g"]
        assert 0.0 < clip["continuous"] <= clip["cumulative"] <= r["chest_peak_cfc180_g"]
    assert nums["0.025"]["occupant_excursion"]["max_m"] < nums["-1"]["occupant_excursion"]["max_m"]
