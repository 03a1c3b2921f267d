"""Throughput of ``fmu-mbs sweep`` on a LocalCluster of 1 and 2 worker processes, on the catalogue's crane and
bouncing-ball FMUs (built into a temporary folder), and the per-run overhead of the engine.

For each FMU and worker count: a fresh LocalCluster, the warm-up (not timed), then N runs of a factorial design;
``run_time`` is the wall time from the first submission to the last stored result. Reported per case:

- runs per minute = N / run_time * 60, and the speed-up of 2 workers over 1;
- per-run time inside the worker: ``wall_time`` (the whole run: instantiate, set-up, doStep loop, free),
  ``sim_time`` (the doStep loop alone) and ``cpu_time`` (CPU time the run's thread got), medians; the CPU share
  sum(cpu_time) / sum(wall_time) shows how much of a core each worker actually had, and sum(cpu_time) / run_time
  how many cores the runs got together (the speed-up cannot exceed the ratio of those);
- engine overhead per run = run_time * workers / N - mean(wall_time): what dask, the journal, the Parquet
  writes and the progress add per run beyond the run itself; and the driver's time storing results per run
  (histories, journal, table: it overlaps the runs, but bounds the throughput at 1 / that time);
  and the FMU set-up per run = wall_time - sim_time (instantiate, initialize, free).

The machine's load average before and after each case is printed: on a shared machine the speed-up is bounded by
the cores actually free.

    python bench/sweep_scaling.py [--runs 16] [--workers 1 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    # FMU: (fixed parameters, factor levels (8 x 4 = 32 runs at most), t_end (s), communication step (s), history)
    "bouncing_ball": ({"solver.integrator": 2, "solver.h": 1e-4},
                      {"impact.restitution": [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95],
                       "impact.mu": [0.1, 0.2, 0.3, 0.4]},
                      1.0, 1e-3, "centre.r[3]"),
    "crane": ({"cylinder.f": 6867.0},
              {"payload.mass": [65.0, 75.0, 85.0, 95.0, 105.0, 115.0, 125.0, 135.0],
               "boom.mass": [450.0, 500.0, 550.0, 600.0]},
              1.0, 1e-3, "cylinder.length"),
}


def _study(name: str, fmu: Path, runs: int):
    from fmu_mbs.studies.study import Scalar, Study, factorial

    fixed, factors, t_end, step, hist = CASES[name]
    design = factorial(factors)[:runs]
    if len(design) < runs:
        raise SystemExit(f"--runs {runs}: the {name} design has {len(design)} runs")
    return Study(name=f"bench_{name}", kind="fmu", target=str(fmu), t_end=t_end, step=step, runs=design,
                 fixed=fixed, histories=[hist], scalars=[Scalar("peak", hist, "max")])


def measure(name: str, fmu: Path, runs: int, workers: int, out: Path) -> dict:
    from fmu_mbs.studies import read_table, run_study

    load0 = os.getloadavg()
    s = run_study(_study(name, fmu, runs), out, workers=workers, restart=True, progress=False)
    load1 = os.getloadavg()
    t = read_table(out)
    wall, sim, cpu = t["wall_time"], t["sim_time"], t["cpu_time"]
    assert s.ok == runs, f"{name}: {s.failed} runs failed: {set(t['reason'])}"
    return {"fmu": name, "workers": workers, "runs": runs, "run_time_s": s.run_time,
            "runs_per_minute": runs / s.run_time * 60.0, "warm_s": s.warm_times,
            "median_run_wall_s": statistics.median(wall), "median_sim_s": statistics.median(sim),
            "fmu_setup_per_run_s": statistics.median(w - x for w, x in zip(wall, sim)),
            "median_run_cpu_s": statistics.median(cpu), "cpu_share": sum(cpu) / sum(wall),
            "cores_used": sum(cpu) / s.run_time,
            "engine_overhead_per_run_s": s.run_time * workers / runs - statistics.fmean(wall),
            "driver_store_per_run_s": s.store_time / runs,
            "load_before": load0[0], "load_after": load1[0]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=16)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--fmus", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--json", help="write the results here too")
    args = ap.parse_args(argv)
    from fmu_mbs.adapters.fmu_build import build_fmu

    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f} at the start; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    results = []
    with tempfile.TemporaryDirectory(prefix="sweep_bench_") as tmp:
        for name in args.fmus:
            fmu = build_fmu(ROOT / "models" / f"{name}.json", tmp)
            for w in args.workers:
                r = measure(name, fmu, args.runs, w, Path(tmp) / f"{name}_{w}")
                results.append(r)
                print(f"{name:14s} {w} worker(s): {r['runs']} runs in {r['run_time_s']:.1f} s = "
                      f"{r['runs_per_minute']:.1f} runs/min; per run: {r['median_run_wall_s'] * 1e3:.0f} ms "
                      f"(doStep loop {r['median_sim_s'] * 1e3:.0f} ms, FMU set-up "
                      f"{r['fmu_setup_per_run_s'] * 1e3:.0f} ms; CPU {r['median_run_cpu_s'] * 1e3:.0f} ms, "
                      f"{r['cpu_share']:.0%} of the wall time), engine overhead "
                      f"{r['engine_overhead_per_run_s'] * 1e3:.0f} ms; the driver's storing "
                      f"{r['driver_store_per_run_s'] * 1e3:.1f} ms per run (overlaps the runs); "
                      f"cores the runs got {r['cores_used']:.2f}; load {r['load_before']:.2f} -> "
                      f"{r['load_after']:.2f}", flush=True)
            by = {r["workers"]: r for r in results if r["fmu"] == name}
            if 1 in by and 2 in by:
                print(f"{name:14s} speed-up 2 vs 1 worker: "
                      f"{by[2]['runs_per_minute'] / by[1]['runs_per_minute']:.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
