"""Where the cold numba compile goes: compile time per kernel for a first `simulate` of a catalogue model.

One fresh process with an empty kernel cache runs ``fmu_mbs.simulate(MODEL, 2 steps)`` (what the CLI's first
``simulate`` does) with numba's "numba:compile" events recorded. A kernel's compile includes the compiles of the
kernels it calls for the first time (nested events); the table gives each kernel's own time (its events minus the
nested ones), largest first, with the number of signatures compiled, and the total; the process's CPU time is the
figure to compare between runs on a shared machine (wall time grows with the load, CPU time far less).

    python bench/jit_per_kernel.py [--model models/pendulum.json] [--top 25]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKLOAD = textwrap.dedent("""
    import json, sys, time
    from numba.core import event
    own, count, stack = {}, {}, []
    class Timer(event.Listener):
        def on_start(self, ev):
            stack.append([ev.data["dispatcher"], time.perf_counter(), 0.0])
        def on_end(self, ev):
            disp, t0, nested = stack.pop()
            took = time.perf_counter() - t0
            f = disp.py_func
            name = f.__module__.split(".", 1)[-1] + "." + f.__qualname__
            own[name] = own.get(name, 0.0) + took - nested
            count[name] = count.get(name, 0) + 1
            if stack:
                stack[-1][2] += took
    event.register("numba:compile", Timer())
    t0, c0 = time.perf_counter(), time.process_time()
    import fmu_mbs
    fmu_mbs.simulate(sys.argv[1], t_end=0.002, step=0.001)
    print(json.dumps({"total": time.perf_counter() - t0, "cpu": time.process_time() - c0, "own": own,
                      "count": count}))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(ROOT / "models" / "pendulum.json"))
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jit_per_kernel_") as cache:
        env = dict(os.environ, FMU_MBS_CACHE_DIR=cache, NUMBA_CACHE_DIR=cache, OPENBLAS_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", WORKLOAD, args.model], env=env, capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode or not lines:
        raise SystemExit(f"workload failed ({out.returncode}):\n{out.stderr[-3000:]}")
    res = json.loads(lines[-1])
    own = sorted(res["own"].items(), key=lambda kv: -kv[1])
    compiled = sum(res["own"].values())
    print(f"first simulate of {Path(args.model).name}, empty cache: {res['total']:.1f} s wall, {res['cpu']:.1f} s "
          f"CPU, {compiled:.1f} s compiling {len(own)} kernels ({sum(res['count'].values())} signatures)")
    print(f"  {'kernel':60s} {'own s':>8s} {'share':>6s} {'sigs':>5s}")
    for name, t in own[:args.top]:
        print(f"  {name:60s} {t:8.1f} {100 * t / compiled:5.1f}% {res['count'][name]:5d}")


if __name__ == "__main__":
    main()
