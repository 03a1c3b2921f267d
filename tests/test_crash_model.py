"""The lumped-mass crash builder (model/crash.py), the frontal_crash catalogue model and ``fmu-mbs crash-report``.

References from elsewhere:
- a single mass m at V0 into a rigid wall through a linear crush link L = k d (closed forms of the two
  half-oscillations, shared reference anchors-flex-crash §3.1): dynamic crush C = V0/w at pi/(2w) after contact,
  peak deceleration V0 w, restitution sqrt(k/k_u), permanent set C (1 - k/k_u); with m = 1500 kg and C = 0.60 m
  at 56 km/h: t_m = 60.588 ms, peak 41.124 g (digest values, re-derived here);
- a Kelvin link (spring k and damper c = 2 zeta sqrt(k m)): x = V0/w_d exp(-zeta w t) sin(w_d t), so the largest
  crush is at t_m = atan(sqrt(1 - zeta^2)/zeta)/w_d with C = (V0/w) exp(-zeta/sqrt(1 - zeta^2) atan(...));
- the energy balance of a multi-mass crash: kinetic + the crush links' absorbed work + the dampers' dissipation
  = the impact energy (the integrator's own split), and kinetic + absorbed alone when the model has only crush links.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from fmu_mbs.adapters.cli import main
from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ModelError
from fmu_mbs.model import crash as crash_builder
from fmu_mbs.model import load_model, model_to_dict
from fmu_mbs.model.crash import DeformableBarrier, Link, Mass, Pole, crash, example_occupant, example_vehicle
from fmu_mbs.model.names import channel_names

V0 = 56.0 / 3.6
M, C = 1500.0, 0.60
K = M * (V0 / C) ** 2
PRE = 0.010                                   # the builder's free flight before contact (s)


def _run(model, t_end, h=1e-4):
    cm = compile_model(model)
    tr = simulate(cm, t_end, h)
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    return tr, {n: ch[:, k] for k, n in enumerate(names)}


def test_single_mass_into_a_rigid_wall_matches_the_closed_forms():
    w = math.sqrt(K / M)
    assert math.pi / (2 * w) == pytest.approx(0.060588, abs=1e-6) and V0 * w / 9.80665 == pytest.approx(41.124,
                                                                                                         abs=1e-3)
    model = crash("single", [Mass("car", M, 0.5)], [Link("front", "barrier", "car", curve=((0.0, 0.0), (1.0, K)),
                                                         unloading_stiffness=2.0 * K)])
    h = 1e-4
    tr, ch = _run(model, 0.2, h)
    d, f = ch["front.deflection"], ch["front.force"]
    i = int(np.argmax(d))
    assert d[i] == pytest.approx(V0 / w, rel=1e-6)                           # 0.600 m
    assert tr.t[i] - PRE == pytest.approx(math.pi / (2 * w), abs=h)          # 60.588 ms after contact
    assert -np.min(ch["car.a[1]"]) == pytest.approx(V0 * w, rel=1e-6)        # 41.124 g
    assert ch["car.v[1]"][-1] == pytest.approx(-V0 * math.sqrt(0.5), rel=1e-4)   # restitution sqrt(k/k_u)
    off = np.flatnonzero(f[i:] == 0.0)[0] + i
    assert d[off - 1] >= C * 0.5 - 1e-9 and d[off] <= C * 0.5 + 1e-9         # permanent set C (1 - k/k_u)


@pytest.mark.parametrize("zeta, t_ref, c_ref", [(0.1, 57.0100e-3, 0.51756), (0.3, 51.1934e-3, 0.40293)])
def test_kelvin_link_matches_its_closed_form(zeta, t_ref, c_ref):
    w = V0 / C
    k = M * w * w
    wd = w * math.sqrt(1.0 - zeta ** 2)
    t_m = math.atan(math.sqrt(1 - zeta ** 2) / zeta) / wd
    c_m = V0 / w * math.exp(-zeta / math.sqrt(1 - zeta ** 2) * math.atan(math.sqrt(1 - zeta ** 2) / zeta))
    assert t_m == pytest.approx(t_ref, abs=1e-7) and c_m == pytest.approx(c_ref, abs=1e-5)   # the digest values
    model = crash("kelvin", [Mass("car", M, 0.5)], [Link("front", "barrier", "car", stiffness=k,
                                                         damping=2 * zeta * math.sqrt(k * M))], pre_time=0.0)
    h = 5e-5
    tr, ch = _run(model, 0.08, h)
    travel = ch["car.r[1]"] - ch["car.r[1]"][0]
    i = int(np.argmax(travel))
    assert travel[i] == pytest.approx(c_m, rel=1e-5)
    assert tr.t[i] == pytest.approx(t_m, abs=h)


def test_lumped_mass_crash_energy_balance_closes():
    masses, links = example_vehicle()
    e0 = 0.5 * sum(m.mass for m in masses) * V0 ** 2
    tr, ch = _run(crash("car", masses, links), 0.15)
    split = tr.info["energy_kinetic"] + tr.info["energy_potential"] + tr.info["energy_dissipated"]
    assert np.max(np.abs(split - e0)) < 1e-3 * e0                            # measured 7.3e-5
    # crush links only: kinetic energy + absorbed work of the links = impact energy, from the channels alone
    crush_only = tuple(lk for lk in links if lk.curve is not None)
    tr, ch = _run(crash("car", masses, crush_only), 0.15)
    absorbed = sum(v for n, v in ch.items() if n.endswith(".absorbed"))
    assert np.max(np.abs(ch["energy.kinetic"] + absorbed - e0)) < 1e-3 * e0


def test_pole_and_offset_deformable_barrier():
    masses, links = example_vehicle()
    wall = crash("wall", masses, links)
    pole = crash("pole", masses, links, barrier=Pole(("engine_stack",)))
    assert {f.name for f in wall.forces} - {f.name for f in pole.forces} == {"crash_boxes", "subframe_front"}
    honeycomb = tuple(Link(f"block{k}", "face", "ground", curve=((0.0, 0.0), (0.01, 150e3), (0.5, 170e3),
                                                                 (0.55, 2e6))) for k in range(2))
    odb = crash("odb", masses, links, barrier=DeformableBarrier(honeycomb, face_mass=20.0, depth=0.6,
                                                               engaged=("crash_boxes", "engine_stack")))
    e0 = 0.5 * sum(m.mass for m in masses) * V0 ** 2
    tr, ch = _run(load_model(model_to_dict(odb)), 0.2)                       # through the model file too
    assert max(np.max(ch["block0.deflection"]), 0.0) > 0.1                   # the barrier crushed
    split = tr.info["energy_kinetic"] + tr.info["energy_potential"] + tr.info["energy_dissipated"]
    assert np.max(np.abs(split - e0)) < 1e-3 * e0
    assert np.max(ch["block0.absorbed"] + ch["block1.absorbed"]) > 0.1 * e0


def test_bad_crash_input_is_refused_by_name():
    with pytest.raises(ModelError, match="link 'x': unknown mass 'nose'"):
        crash("bad", [Mass("car", 1.0, 0.5)], [Link("x", "barrier", "nose", curve=((0, 0), (1, 1)))])
    with pytest.raises(ModelError, match="link 'x': the gap 0.6 m must be shorter"):
        crash("bad", [Mass("car", 1.0, 0.5)], [Link("x", "barrier", "car", gap=0.6, curve=((0, 0), (1, 1)))])
    with pytest.raises(ModelError, match="mass 'car': mass must be positive"):
        crash("bad", [Mass("car", 0.0, 0.5)], [])
    with pytest.raises(ModelError, match="engaged link 'y' is not a link"):
        crash("bad", [Mass("car", 1.0, 0.5)], [], barrier=Pole(("y",)))


def test_belted_occupant_energy_balance_and_restraint():
    masses, links = example_vehicle()
    occ = example_occupant()
    e0 = 0.5 * (sum(m.mass for m in masses) + occ.mass) * V0 ** 2
    tr, ch = _run(crash("car", masses, links, occupant=occ), 0.15)
    split = tr.info["energy_kinetic"] + tr.info["energy_potential"] + tr.info["energy_dissipated"]
    assert np.max(np.abs(split - e0)) < 1e-3 * e0                            # belt and dampers: dissipated
    assert np.max(ch["belt.force[1]"]) == pytest.approx(occ.load_limit, rel=1e-6)   # the limiter held
    k = int(np.argmin(np.abs(tr.t - (occ.fire_time + 0.005))))
    assert ch["belt.payout"][k] == pytest.approx(-0.060, abs=1e-12)          # 60 mm of stroke 5 ms after firing
    assert np.all(ch["belt.payout"][tr.t < occ.fire_time] == 0.0)          # and nothing before
    rel = (ch["occupant.r[1]"] - ch["occupant.r[1]"][0]) - (ch["cell.r[1]"] - ch["cell.r[1]"][0])
    assert 0.1 < np.max(rel) < 0.4                                           # restrained within the cell


def test_catalogue_model_is_the_example_vehicle_and_crash_report_reads_its_run(tmp_path, monkeypatch):
    masses, links = example_vehicle()
    catalogue = load_model("models/frontal_crash.json")
    built = crash("frontal_crash", masses, links, description=catalogue.description,
                  occupant=crash_builder.example_seated_occupant())
    assert model_to_dict(catalogue) == dict(model_to_dict(built), exposed=["belt.fire_time", "belt.load_limit"])
    monkeypatch.chdir(tmp_path)
    from pathlib import Path
    model = Path(__file__).resolve().parents[1] / "models" / "frontal_crash.json"
    assert main(["simulate", str(model), "--t-end", "0.15", "--step", "1e-4", "--out", "fc.csv"]) == 0
    assert main(["crash-report", "fc.csv"]) == 0
    nums = json.loads((tmp_path / "fc_crash.json").read_text())
    assert (tmp_path / "fc_crash.png").stat().st_size > 20_000
    assert nums["impact_speed_km_h"] == pytest.approx(56.0, rel=1e-9)
    assert nums["dynamic_crush"]["contact_s"] == pytest.approx(PRE, abs=2e-4)
    # the report's numbers against the run's own channels
    from fmu_mbs.adapters.recording import read_csv
    ch = read_csv("fc.csv")
    r_contact = np.interp(nums["dynamic_crush"]["contact_s"], ch["time"], ch["cell.r[1]"])
    assert nums["dynamic_crush"]["max_m"] == pytest.approx(np.max(ch["cell.r[1]"]) - r_contact, abs=1e-9)
    assert nums["crush"]["front_rails"]["max_m"] == pytest.approx(np.max(ch["front_rails.deflection"]))
    assert nums["belts"]["belt"]["peak_force_N"][0] == pytest.approx(8e3, rel=1e-6)
    en = nums["energy_J"]
    assert en["initial"] == pytest.approx(0.5 * 1573.0 * V0 ** 2, rel=1e-9)   # 1500 kg car, 73 kg occupant
    assert sum(v for k, v in en.items() if k.startswith("absorbed:")) > 0.8 * en["initial"]
    assert 0.0 < en["other"] < 0.1 * en["initial"]                            # belt, mounts' dampers and springs
    assert 30.0 < -nums["peak_pulse_cfc60_g"]["value"] < 60.0
    assert 0.0 < nums["time_to_zero_velocity_s"] < 0.15
    assert nums["chest_3ms_clip_g"]["cumulative"] >= nums["chest_3ms_clip_g"]["continuous"] > 10.0


def test_crash_report_reads_an_fmu_run_like_a_command_line_run(tmp_path, monkeypatch, catalogue_fmu):
    """The frontal_crash FMU under fmpy (result CSV by fmpy's write_csv) gives the report of the library run."""
    from pathlib import Path

    from fmpy import simulate_fmu
    from fmpy.util import write_csv

    model = Path(__file__).resolve().parents[1] / "models" / "frontal_crash.json"
    fmu = catalogue_fmu("frontal_crash")
    res = simulate_fmu(str(fmu), stop_time=0.15, step_size=1e-4, output_interval=1e-4,
                       start_values={"solver.h": 1e-4})
    write_csv(tmp_path / "fmu.csv", res)
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", str(model), "--t-end", "0.15", "--step", "1e-4", "--out", "cli.csv"]) == 0
    for stem in ("fmu", "cli"):
        assert main(["crash-report", f"{stem}.csv", "--no-plot"]) == 0
    fmu_nums, cli_nums = (json.loads((tmp_path / f"{s}_crash.json").read_text()) for s in ("fmu", "cli"))
    assert fmu_nums["result_rows"] == cli_nums["result_rows"] == 1501
    for e, c in cli_nums["crush"].items():
        assert fmu_nums["crush"][e]["max_m"] == pytest.approx(c["max_m"], rel=1e-6, abs=1e-9), e
    assert fmu_nums["peak_pulse_cfc60_g"]["value"] == pytest.approx(cli_nums["peak_pulse_cfc60_g"]["value"],
                                                                    rel=1e-6)
    assert fmu_nums["dynamic_crush"]["max_m"] == pytest.approx(cli_nums["dynamic_crush"]["max_m"], rel=1e-6)
    # the pretensioner fired by the FMU input (crash sensing in a master) instead of by time
    res = simulate_fmu(str(fmu), stop_time=0.15, step_size=1e-4, output_interval=1e-4,
                       start_values={"solver.h": 1e-4, "belt.fire_time": -1.0},
                       input=np.array([(0.0, 0.0), (0.025, 0.0), (0.025, 1.0), (0.15, 1.0)],
                                      dtype=[("time", float), ("belt.fire", float)]))
    assert res["belt.payout"][np.searchsorted(res["time"], 0.030)] < -0.05      # webbing pulled in
    assert np.min(res["belt.payout"][res["time"] < 0.025]) == 0.0               # not before the signal
    excursion = (res["occupant.r[1]"] - res["occupant.r[1]"][0]) - (res["cell.r[1]"] - res["cell.r[1]"][0])
    assert np.max(excursion) == pytest.approx(cli_nums["occupant_excursion"]["max_m"], rel=0.02)
