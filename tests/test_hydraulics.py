"""Hydraulic cylinder element: pressure build-up against an independent integration of its ODE, a crane held
at rest by its static pressures, the force law, and the energy the valve puts in."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ModelError
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.functions import Constant, Table
from fmu_mbs.model.names import channel_names

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "integration"))

from crane_pd_demo import holding_force  # noqa: E402  (fmu-mbs statics with the boom held at 30 deg)

A1 = math.pi * 0.08 ** 2 / 4
A2 = A1 - math.pi * 0.035 ** 2 / 4
CV = 2e-5 / math.sqrt(3.5e6)
TAU = 1.0 / (2.0 * math.pi * 35.0)


def blocked_piston(valve, x0=0.2, p0=1e6):
    """A cylinder whose rod end is fixed (piston at x0): only the pressures and the spool move."""
    b = ModelBuilder("blocked", dimension=2, gravity=(0.0, 0.0))
    b.add_planar_body("rod", 1.0, 0.01, position=(0.3 + x0, 0.0))
    b.add_marker("base", "ground", (0.0, 0.0))
    b.add_marker("end", "rod", (0.0, 0.0))
    b.add_marker("anchor", "ground", (0.3 + x0, 0.0))
    b.add_joint("fix", "fixed", "anchor", "end")
    b.add_hydraulic_cylinder("cyl", "base", "end", 0.3, valve=valve, p1_start=p0, p2_start=p0)
    return compile_model(b.build())


def chamber_stiffness(x, A, V_hose):
    vc = A * x
    v = V_hose + vc
    B = 1.0 / (1.0 / 1.5e9 + vc / v / 3.15e10 + V_hose / v / 1.5e8)
    return B / v


def test_blocked_piston_pressures_follow_the_compressibility_ode():
    """Valve step to 0.5 with the piston held: dp1/dt = B1/V1 Cv U g(p_pump - p1), dp2/dt = -B2/V2 Cv U
    g(p2 - p_tank), U a first-order lag; integrated here with solve_ivp at rtol 1e-10."""
    x0, p0 = 0.2, 1e6
    cm = blocked_piston(Constant(0.5), x0, p0)
    tr = simulate(cm, 0.05, 1e-4, output_step=0.005)
    ch = evaluate_channels(cm, tr)
    names = channel_names(cm.model)
    p1, p2, U = (ch[:, names.index(f"cyl.{q}")] for q in ("p1", "p2", "U"))

    k1 = chamber_stiffness(x0, A1, 3.14e-5)
    k2 = chamber_stiffness(0.442 - x0, A2, 7.85e-5)

    def g(dp):
        lam = 2e5
        return math.copysign(math.sqrt(abs(dp)), dp) if abs(dp) >= lam else dp / math.sqrt(lam)

    def rhs(t, y):
        P1, P2, u = y
        return [k1 * CV * u * g(7.6e6 - P1), -k2 * CV * u * g(P2 - 0.1e6), (0.5 - u) / TAU]

    ref = solve_ivp(rhs, (0.0, 0.05), [p0, p0, 0.0], t_eval=tr.t, rtol=1e-10, atol=1e-6, method="LSODA")
    assert p1[-1] > 1.5e6 and p2[-1] < 0.85e6        # the valve really moved the pressures
    assert np.max(np.abs(p1 - ref.y[0])) < 2e-4 * 7.6e6
    assert np.max(np.abs(p2 - ref.y[1])) < 2e-4 * 7.6e6
    assert np.max(np.abs(U - ref.y[2])) < 1e-4
    # the force is the pressure balance (the piston is mid-stroke: no end stop, no speed)
    F = ch[:, names.index("cyl.force")]
    assert np.allclose(F, p1 * A1 - p2 * A2, rtol=1e-12, atol=1e-6)


def test_blocked_piston_is_second_order_in_the_step():
    """Trapezoidal rule inside the element: halving h quarters the pressure error."""
    errs = []
    ref = None
    for h in (4e-4, 2e-4, 1e-4, 2.5e-5):
        cm = blocked_piston(Table((0.0, 0.01, 0.03), (0.0, 0.8, -0.4), "linear"))
        tr = simulate(cm, 0.03, h, output_step=0.01)
        p1 = evaluate_channels(cm, tr)[:, channel_names(cm.model).index("cyl.p1")]
        if h == 2.5e-5:
            ref = p1
        else:
            errs.append(p1)
    e = [np.max(np.abs(x - ref)) for x in errs]
    orders = [math.log2(e[i] / e[i + 1]) for i in range(2)]
    assert all(1.7 < o < 2.3 for o in orders), (e, orders)


def crane_with_cylinder(valve, p2=2.73e6):
    """The catalogue crane with its actuator replaced by the hydraulic cylinder, started from statics: the
    holding force of the moment balance (6867.0 N, tests/test_fmu.py) sets p1 for the chosen p2."""
    b = ModelBuilder.from_model(load_model(ROOT / "models" / "crane.json"))
    b.remove("cylinder")
    F0 = holding_force(ROOT / "models" / "crane.json")
    p1 = (F0 + p2 * A2) / A1
    b.add_hydraulic_cylinder("cyl", "cylinder_base", "boom_mount", 0.279, valve=valve, p1_start=p1, p2_start=p2)
    return compile_model(b.build()), F0


def test_crane_held_by_its_static_pressures_stays_at_rest():
    cm, F0 = crane_with_cylinder(0.0)
    tr = simulate(cm, 1.0, 1e-3, output_step=0.1)
    ch = evaluate_channels(cm, tr)
    names = channel_names(cm.model)
    th = ch[:, names.index("boom_hinge.s")]
    assert np.max(np.abs(th - math.radians(30.0))) < 1e-6
    assert abs(ch[0, names.index("cyl.force")] - F0) < 1e-6 * F0


def test_valve_opening_extends_the_cylinder_at_the_flow_rate():
    """U = 1 after the spool settles: the piston speed approaches Q1/A1 with Q1 = Cv sqrt(p_pump - p1)."""
    cm, _ = crane_with_cylinder(Table((0.0, 0.2), (0.0, 1.0), "linear"))
    tr = simulate(cm, 2.0, 1e-3, output_step=0.05)
    ch = evaluate_channels(cm, tr)
    names = channel_names(cm.model)
    sd, p1 = ch[-1, names.index("cyl.speed")], ch[-1, names.index("cyl.p1")]
    q1 = ch[-1, names.index("cyl.Q1")]
    assert q1 == pytest.approx(CV * math.sqrt(7.6e6 - p1), rel=1e-9)
    # quasi-steady: the chamber-1 flow goes into the piston motion (compressibility share below 2 %)
    assert sd == pytest.approx(q1 / A1, rel=0.02)
    assert sd > 1e-3


def test_bad_cylinder_data_is_named():
    b = ModelBuilder.from_model(load_model(ROOT / "models" / "crane.json"))
    b.add_hydraulic_cylinder("cyl", "cylinder_base", "boom_mount", 0.279, rod_diameter=0.1)
    with pytest.raises(ModelError, match="cyl.*rod_diameter"):
        b.build()


def test_energy_balance_closes_with_the_cylinder_as_a_power_port():
    """kinetic + potential + dissipated - input stays constant; the input is the cylinder's work F l'."""
    cm, _ = crane_with_cylinder(Table((0.0, 0.2, 0.8, 1.0), (0.0, 1.0, 1.0, -1.0), "linear"))
    tr = simulate(cm, 1.5, 5e-4, output_step=0.01)
    i = tr.info
    total = i["energy_kinetic"] + i["energy_potential"] + i["energy_dissipated"] - i["energy_input"]
    assert abs(i["energy_input"][-1]) > 1.0                      # the cylinder did work
    assert np.max(np.abs(total - total[0])) < 1e-3 * np.max(np.abs(i["energy_input"]))
    # the input equals the integral of F l' (trapezoidal over the output rows, 100 steps per row)
    ch = evaluate_channels(cm, tr)
    names = channel_names(cm.model)
    power = ch[:, names.index("cyl.force")] * ch[:, names.index("cyl.speed")]
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(tr.t))])
    assert np.max(np.abs(work - i["energy_input"])) < 1e-3 * np.max(np.abs(work))
