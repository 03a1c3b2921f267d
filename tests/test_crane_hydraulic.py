"""The hydraulic crane co-simulation (integration/crane_hydraulic.py): the fmu-mbs crane FMU with the partner
cylinder + valve FMU. Static start, identical results under the project's master, OSP libcosim and an
fmu-manipulation-toolbox container (same calls -> same bits; see tests/test_masters.py for why bits), and the
closed loop with the partner PID FMU.

libcosim and the container run in child processes (this file is also their worker), as in test_masters.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

INTEGRATION = Path(__file__).resolve().parents[1] / "integration"
sys.path.insert(0, str(INTEGRATION))

import crane_hydraulic as ch  # noqa: E402

H = 5e-4                     # communication step (s)
H_NS = 500_000
DONE = "WORKER DONE"
WATCH = [("crane", "boom_hinge.s"), ("crane", "cylinder.length"), ("cyl", "F"), ("cyl", "p1"), ("cyl", "p2"),
         ("cyl", "U")]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    dist = tmp_path_factory.mktemp("crane_cosim")
    return ch.build(dist), ch.holding_force()


def test_holding_force_from_statics_matches_the_lever_rule(setup):
    """Independent check of the statics start: moments about the pivot at 30 deg (boom CM at 0.5 m, payload
    hanging under the tip at 1.0 m) over the lever dL/dtheta of the cylinder from (sqrt(3)/2, 0) to the boom CM,
    L(theta)^2 = 1 - (sqrt(3)/2) cos(theta), g = 9.81."""
    _, force = setup
    th = math.radians(30.0)
    torque = 9.81 * math.cos(th) * (500.0 * 0.5 + 100.0 * 1.0)
    lever = (math.sqrt(3.0) / 2 * math.sin(th)) / (2 * math.sqrt(1 - math.sqrt(3.0) / 2 * math.cos(th)))
    assert force == pytest.approx(torque / lever, rel=1e-8)
    p1, p2 = ch.equilibrium_pressures(force)
    a1, a2 = ch.areas()
    assert p1 * a1 - p2 * a2 == pytest.approx(force, rel=1e-13)
    assert (ch.P_PUMP - p1) / a1 ** 2 == pytest.approx((p2 - ch.P_TANK) / a2 ** 2, rel=1e-12)


def test_static_start_stays_at_rest(setup):
    """Valve centred for the first 0.5 s: the coupled system must not move. Bounds: boom angle within 1e-9 rad,
    pressures within 1 Pa (of 3.6 MPa), force within 1e-3 N of the statics value."""
    fmus, force = setup
    res = ch.crane_system(fmus, force).run(0.5, H, record=ch.RECORD)
    theta = res["crane.boom_hinge.s"]
    assert np.abs(theta - math.radians(30.0)).max() < 1e-9
    p1, p2 = ch.equilibrium_pressures(force)
    assert np.abs(res["cyl.p1"] - p1).max() < 1.0 and np.abs(res["cyl.p2"] - p2).max() < 1.0
    assert np.abs(res["cyl.F"] - force).max() < 1e-3
    assert np.abs(res.energy["cylinder"]).max() < 1e-9


# --- the same calls under three masters ---------------------------------------------------------------------------
T_EQUAL = 1.0                 # s: the valve opens at 0.5 s, so the last half second moves the crane
N_EQUAL = int(round(T_EQUAL / H))
INSTANCES = {"crane": "crane", "cyl": "cylinder", "valve": "source"}   # instance -> key of the built FMUs


def project_master(fmus, force, grid: str, init: str, sequence=None) -> np.ndarray:
    res = ch.crane_system(fmus, force, bond=None).run(T_EQUAL, H, grid=grid, init=init, sequence=sequence,
                                                       record=[f"{i}.{v}" for i, v in WATCH])
    return np.column_stack([res[f"{i}.{v}"] for i, v in WATCH])[1:]


def run_child(*args: str, timeout: float = 900) -> None:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], capture_output=True, text=True,
                          timeout=timeout)
    work, done, _ = proc.stderr.partition(DONE)
    assert done, f"worker {args[0]} failed with status {proc.returncode}:\n{proc.stderr[-3000:]}"
    for bad in ("Segmentation fault", "Fatal Python error", "Traceback"):
        assert bad not in work, work[-3000:]


def starts(force: float) -> dict:
    return {"cyl": ch.cylinder_parameters(force), "crane": {}, "valve": {}}


def test_libcosim_gives_the_same_numbers_as_the_project_master(setup, tmp_path):
    fmus, force = setup
    spec, out = tmp_path / "spec.json", tmp_path / "out.json"
    spec.write_text(json.dumps({"fmus": {i: str(fmus[k]) for i, k in INSTANCES.items()}, "starts": starts(force),
                                "links": list(ch.LINKS), "watch": WATCH, "n": N_EQUAL}))
    run_child("libcosim", str(spec), str(out))
    res = json.loads(out.read_text())
    assert res["times_ns"] == [k * H_NS for k in range(1, N_EQUAL + 1)]
    lc = np.array(res["values"])
    ours = project_master(fmus, force, grid="nanoseconds", init="libcosim")
    assert np.array_equal(lc, ours)
    assert math.degrees(ours[-1, 0]) - 30.0 > 0.02       # the boom did rise


def test_container_gives_the_same_numbers_as_the_project_master(setup, tmp_path):
    fmus, force = setup
    dist = Path(fmus["crane"]).parent
    desc = {"name": "crane_hydraulic_container.fmu", "step_size": H, "auto_link": False, "auto_input": False,
            "auto_output": False, "fmu": [f"{i}.fmu" for i in INSTANCES],
            "path": {f"{i}.fmu": Path(fmus[k]).name for i, k in INSTANCES.items()},
            "link": [[f"{a.split('.', 1)[0]}.fmu", a.split('.', 1)[1], f"{b.split('.', 1)[0]}.fmu", b.split('.', 1)[1]]
                     for a, b in (x.replace(" ", "").split("->") for x in ch.LINKS)],
            "start": [[f"{i}.fmu", var, value] for i, values in starts(force).items() for var, value in values.items()],
            "output": [[f"{i}.fmu", v, f"out.{i}.{v}"] for i, v in WATCH]}
    (dist / "crane_hydraulic_container.json").write_text(json.dumps(desc, indent=1))
    proc = subprocess.run([sys.executable, "-c", "import sys; from fmu_manipulation_toolbox.cli.fmucontainer "
                           "import fmucontainer; sys.argv[0] = 'fmucontainer'; fmucontainer()",
                           "-container", "crane_hydraulic_container.json", "-fmu-directory", "."],
                          cwd=dist, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = tmp_path / "box.json"
    run_child("container", str(dist / "crane_hydraulic_container.fmu"), str(out))
    res = json.loads(out.read_text())
    assert np.allclose(res["time"], [k * H for k in range(N_EQUAL + 1)], rtol=0, atol=1e-12)
    box = np.array(res["values"])[1:]
    # the container's initialization: FMUs leave initialization mode in the topological order of the links, the
    # loop cut before its first declared FMU: valve (no inputs), crane, cylinder; the cut link (cyl.F ->
    # crane.cylinder.f) is not set before the crane initializes, so the crane starts from 0 N (its initial
    # acceleration is not the static one) and the boom drops 7.7e-7 rad in the first step: a weakness of that
    # initialization order, reproduced here so that the calls are the same
    ours = project_master(fmus, force, grid="multiply", init="container", sequence=["valve", "crane", "cyl"])
    assert np.array_equal(box, ours)


# --- closed loop --------------------------------------------------------------------------------------------------
def test_closed_loop_tracks_the_boom_angle_profile(setup):
    """The PID FMU closes the loop from the boom angle to the valve; the reference (a signal source) rises by
    0.5 deg over 0.5 .. 1.5 s. Tolerance: within 0.1 deg of the reference throughout (measured 0.053 deg) and
    within 0.02 deg from 3 s on (measured 0.011 deg)."""
    import crane_closed_loop as cl

    fmus, force = setup
    profile = cl.reference_profile([(0.0, 30.0), (0.5, 30.0), (1.5, 30.5), (5.0, 30.5)])
    res = cl.closed_loop_system(fmus, force, profile).run(3.5, H, record=ch.RECORD)
    err = np.degrees(res["ref.y"] - res["crane.boom_hinge.s"])
    t = res.time
    print(f"closed loop: largest error {np.abs(err).max():.4f} deg, after 3 s {np.abs(err[t >= 3.0]).max():.4f} deg")
    assert np.abs(err).max() < 0.1
    assert np.abs(err[t >= 3.0]).max() < 0.02
    assert math.degrees(res["crane.boom_hinge.s"][-1]) > 30.45


# --- workers ------------------------------------------------------------------------------------------------------
def libcosim_worker(spec_path: str, out_path: str) -> None:
    from libcosimpy.CosimEnums import CosimVariableType
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    spec = json.loads(Path(spec_path).read_text())
    log_output_level(CosimLogLevel.WARNING)
    execution = CosimExecution.from_step_size(step_size=H_NS)
    index, vrs = {}, {}
    for name, path in spec["fmus"].items():
        index[name] = execution.add_local_slave(CosimLocalSlave(fmu_path=path, instance_name=name))
        vrs[name] = {v.name.decode(): v.reference for v in execution.slave_variables(index[name])}
        for var, value in spec["starts"][name].items():
            assert execution.real_initial_value(index[name], vrs[name][var], float(value))
    for link in spec["links"]:
        src, dst = (s.strip() for s in link.split("->"))
        (si, so), (di, dn) = src.split(".", 1), dst.split(".", 1)
        execution.connect_real_variables(index[si], vrs[si][so], index[di], vrs[di][dn])
    series = CosimObserver.create_time_series()
    execution.add_observer(series)
    for inst, var in spec["watch"]:
        series.start_time_series(index[inst], vrs[inst][var], CosimVariableType.REAL)
    n = spec["n"]
    assert execution.simulate_until(target_time=n * H_NS)
    columns, times = [], None
    for inst, var in spec["watch"]:
        t, _, values = series.time_series_real_samples(index[inst], vrs[inst][var], from_step=1, sample_count=n)
        columns.append(values)
        times = list(t)
    Path(out_path).write_text(json.dumps({"values": np.array(columns).T.tolist(), "times_ns": times}))


def container_worker(fmu_path: str, out_path: str) -> None:
    from fmpy import simulate_fmu

    names = [f"out.{i}.{v}" for i, v in WATCH]
    res = simulate_fmu(fmu_path, stop_time=N_EQUAL * H, output_interval=H, output=names)
    Path(out_path).write_text(json.dumps({"time": res["time"].tolist(),
                                          "values": np.column_stack([res[n] for n in names]).tolist()}))


if __name__ == "__main__":
    {"libcosim": libcosim_worker, "container": container_worker}[sys.argv[1]](*sys.argv[2:])
    print(DONE, file=sys.stderr, flush=True)
    sys.stdout.flush()
    import os
    os._exit(0)


def test_cosimulation_matches_the_monolithic_reference(setup):
    """The issue's target: explicit (Jacobi) coupling at 0.5 ms within 1 % (of the boom-angle range) of the
    monolithic model, where fmu-mbs integrates the same hydraulics with the multibody model in one solver
    (integration/crane_monolithic.py, h = 0.05 ms). 3 s cover the valve opening and the hold at 0.6."""
    import crane_monolithic as mono

    fmus, force = setup
    t_end = 3.0
    ref = mono.run(t_end, step=5e-5, output_step=H, force=force)
    res = ch.crane_system(fmus, force).run(t_end, H, record=ch.RECORD)
    theta = res["crane.boom_hinge.s"]
    th_ref = np.interp(res.time, ref["time"], ref["boom_hinge.s"])
    motion = ref["boom_hinge.s"].max() - ref["boom_hinge.s"].min()
    assert motion > math.radians(0.5)                   # the boom really moved (0.59 deg)
    err = np.abs(theta - th_ref).max()
    print(f"co-simulation vs monolithic: max boom-angle error {math.degrees(err):.3e} deg "
          f"({100 * err / motion:.3g} % of the motion)")
    assert err < 0.01 * motion
    p1_ref = np.interp(res.time, ref["time"], ref["cylinder.p1"])
    assert np.abs(res["cyl.p1"] - p1_ref).max() < 0.01 * ch.P_PUMP
