"""Cold and warm numba JIT cost of the whole kernel set, each in a fresh process.

Cold: an empty kernel cache folder (FMU_MBS_CACHE_DIR points at a new temporary folder), so every kernel the
workload touches is compiled. Warm: the same folder again, so every kernel loads from the cache.
The workload evaluates every kernel entry point of the analyses on a planar and a spatial model that contain every
joint type and force element, then runs the ALF integrator on the planar double pendulum and the spatial
slider-crank of the catalogue.

    python bench/jit_cost.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

WORKLOAD = textwrap.dedent("""
    import json, sys, time
    t0 = time.perf_counter()
    import numpy as np
    sys.path.insert(0, {tests!r})
    from models_for_tests import every_joint_planar, every_joint_spatial
    from fmu_mbs.compiler import compile_model
    from fmu_mbs.analyses.assembly import assemble
    from fmu_mbs.analyses.evaluate import Evaluator
    t_import = time.perf_counter() - t0
    stages = {{}}
    for name, make in (("planar", every_joint_planar), ("spatial", every_joint_spatial)):
        t1 = time.perf_counter()
        cm = compile_model(make())
        ev = Evaluator(cm)
        ev.constraints(0.0, cm.q0, cm.qd0); ev.mass(cm.q0); ev.forces(0.0, cm.q0, cm.qd0)
        ev.kinetic_energy(cm.q0, cm.qd0); ev.gravity_energy(cm.q0)
        stages[name] = time.perf_counter() - t1
    from fmu_mbs.analyses.simulate import simulate
    from fmu_mbs.model import load_model
    for name in ("double_pendulum", "slider_crank"):
        t1 = time.perf_counter()
        simulate(compile_model(load_model({models!r} + "/" + name + ".json")), 0.002, 0.001)
        stages["simulate " + name + " (2 steps)"] = time.perf_counter() - t1
    print(json.dumps({{"import": t_import, "total": time.perf_counter() - t0, **stages}}))
""")


def run_once(cache_dir: str) -> dict:
    env = dict(os.environ, FMU_MBS_CACHE_DIR=cache_dir)
    env.pop("NUMBA_CACHE_DIR", None)
    root = Path(__file__).resolve().parents[1]
    code = WORKLOAD.format(tests=str(root / "tests"), models=str(root / "models"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(run_once(cache))
            warm.append(run_once(cache))
    for label, runs in (("cold cache", cold), ("warm cache", warm)):
        keys = runs[0].keys()
        print(f"{label} (median of {len(runs)} fresh processes):")
        for k in keys:
            print(f"  {k:28s} {statistics.median(r[k] for r in runs):8.2f} s")


if __name__ == "__main__":
    main()
