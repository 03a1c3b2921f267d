"""Cost of one ALF step (microseconds) for planar and spatial pendulum chains, as in numba-spike §3.

Chain: N uniform links of 0.5 m and 1 kg on revolute joints about z, released horizontally under gravity;
planar bodies (x, y, theta) or spatial r-p bodies (7 coordinates, Euler-parameter normalisation rows).
Reported: median and best time per step over repeated runs of ``--steps`` steps (one call into numba per
run), Newton iterations per step, and the fixed cost of one advance() call (dispatch of the arrays plus
the start-of-call work). Compile once before timing (the first run of a fresh kernel cache takes about a
minute). Run on an otherwise idle machine: wall timings of a loaded 2-core box are up to 3x higher; the CPU
column (median thread CPU time per step) is what a step costs when the core is not shared.

    OPENBLAS_NUM_THREADS=1 python bench/chain_step_cost.py --links 10 50 --tol 1e-10 1e-9
"""

from __future__ import annotations

import argparse
import statistics
import time

from fmu_mbs.analyses.integrators.alf import ALFIntegrator
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder


def chain(n: int, spatial: bool, L: float = 0.5, mass: float = 1.0):
    b = ModelBuilder(f"chain{n}_{'3d' if spatial else '2d'}", dimension=3 if spatial else 2,
                     gravity=(0.0, -9.81, 0.0) if spatial else (0.0, -9.81))
    inertia = mass * L * L / 12.0
    for k in range(n):
        x = L / 2 + k * L
        if spatial:
            b.add_rigid_body(f"link{k}", mass, (1e-3, inertia, inertia), position=(x, 0.0, 0.0))
            b.add_marker(f"a{k}", f"link{k}", (-L / 2, 0.0, 0.0))
            b.add_marker(f"b{k}", f"link{k}", (L / 2, 0.0, 0.0))
        else:
            b.add_planar_body(f"link{k}", mass, inertia, position=(x, 0.0))
            b.add_marker(f"a{k}", f"link{k}", (-L / 2, 0.0))
            b.add_marker(f"b{k}", f"link{k}", (L / 2, 0.0))
    b.add_marker("pivot", "ground")
    for k in range(n):
        b.add_joint(f"j{k}", "revolute", "pivot" if k == 0 else f"b{k - 1}", f"a{k}")
    return compile_model(b.build())


def measure(n: int, spatial: bool, tol: float, steps: int, repeat: int, h: float = 1e-3) -> dict:
    cm = chain(n, spatial)
    ig = ALFIntegrator(cm, h, tol=tol)
    ig.advance(2)                                   # compile / load the kernel
    per_step, cpu, iters = [], [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.thread_time()
        rep = ig.advance(steps)
        per_step.append((time.perf_counter() - t0) / steps * 1e6)
        cpu.append((time.thread_time() - c0) / steps * 1e6)
        iters.append(rep[:, 0].mean())
    calls = []
    for _ in range(repeat):                         # advance(0): dispatch + start-of-call work only
        t0 = time.perf_counter()
        for _ in range(200):
            ig.advance(0)
        calls.append((time.perf_counter() - t0) / 200 * 1e6)
    return {"n_q": cm.n_q, "rows": cm.n_rows, "envelope": ig.pattern.size, "median": statistics.median(per_step),
            "best": min(per_step), "cpu": statistics.median(cpu), "iterations": statistics.mean(iters),
            "call": min(calls), "t": ig.t}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--links", type=int, nargs="+", default=[10])
    ap.add_argument("--tol", type=float, nargs="+", default=[1e-10, 1e-9])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'chain':>10} {'n_q':>4} {'rows':>4} {'env':>6} {'tol':>7} {'it/step':>7} {'median us':>9} "
          f"{'best us':>8} {'CPU us':>7} {'call us':>8} {'x real time (h=1ms)':>20}")
    for n in args.links:
        for spatial in (False, True):
            for tol in args.tol:
                r = measure(n, spatial, tol, args.steps, args.repeat)
                print(f"{('3D' if spatial else '2D') + f' N={n}':>10} {r['n_q']:4d} {r['rows']:4d} {r['envelope']:6d} "
                      f"{tol:7.0e} {r['iterations']:7.2f} {r['median']:9.1f} {r['best']:8.1f} {r['cpu']:7.1f} "
                      f"{r['call']:8.1f} {1000.0 / r['median']:20.1f}")


if __name__ == "__main__":
    main()
