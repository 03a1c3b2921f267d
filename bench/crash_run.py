"""Time per crash run: 150 ms of ``frontal_crash`` (lumped-mass car with the belted ellipsoid-segment occupant) at
h = 0.1 ms with warm kernel caches, against issue 15's target (<= 2 s on one core: crash studies are sweeps of
hundreds of runs), side by side with its two parts run alone as peers: the same occupant on the deceleration
``sled`` (prescribed pulse) and the vehicle with the point-mass occupant (the planar model the catalogue had before).

Each case: one warm-up run (loads the cached kernels), then --repeats runs; wall time and process CPU time (numba
runs on one thread, so CPU time is the one-core cost even on a loaded machine), median and minimum, and each
case's CPU median as a ratio to the target and to frontal_crash.

    OPENBLAS_NUM_THREADS=1 python bench/crash_run.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model
from fmu_mbs.model.crash import crash, example_occupant, example_vehicle

ROOT = Path(__file__).resolve().parents[1]
TARGET = 2.0           # s of one core per 150 ms crash run (issue 15)


def cases() -> dict:
    masses, links = example_vehicle()
    return {"frontal_crash": compile_model(load_model(ROOT / "models" / "frontal_crash.json")),
            "sled (occupant alone)": compile_model(load_model(ROOT / "models" / "sled.json")),
            "planar vehicle + point-mass occupant": compile_model(crash("planar", masses, links,
                                                                        occupant=example_occupant()))}


def measure(cm, t_end: float, step: float, repeats: int) -> tuple[list[float], list[float]]:
    simulate(cm, t_end, step)
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        simulate(cm, t_end, step)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--t-end", type=float, default=0.15)
    ap.add_argument("--step", type=float, default=1e-4)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.1f} "
          f"(1 min), {os.cpu_count()} CPUs; {args.t_end * 1e3:g} ms at h = {args.step:g} s, {args.repeats} repeats")
    print(f"| case | CPU median s | CPU min s | wall median s | CPU / {TARGET:g} s target | CPU / frontal_crash |")
    print("|---|---|---|---|---|---|")
    ref = None
    for name, cm in cases().items():
        wall, cpu = measure(cm, args.t_end, args.step, args.repeats)
        med = statistics.median(cpu)
        ref = med if ref is None else ref
        print(f"| {name} | {med:.3f} | {min(cpu):.3f} | {statistics.median(wall):.3f} | {med / TARGET:.2f} | "
              f"{med / ref:.2f} |", flush=True)
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
