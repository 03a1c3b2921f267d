"""Output-step cost: ``simulate`` with rows every m integration steps beside recording every step (the peer), and
the cost of evaluating the channels of a row beside the cost of an integration step.

For each m in --multiples: process CPU time of simulate(pendulum, t_end, h, output_step=m h) over the time of
output_step = h (ratio <= 1: fewer rows cost no more, issue 18), then the channels of the every-step result:
evaluate_channels (all rows in one kernel call) beside its peer, one ChannelEvaluator call per row (the form
before the batch, and the FMU's per communication step), in microseconds per row. Median of --repeats runs after
one warm-up run (kernels compiled); process CPU time.

    OPENBLAS_NUM_THREADS=1 python bench/output_step.py --t-end 10 --step 1e-3 --multiples 1 2 10 100
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from fmu_mbs.analyses.channels import ChannelEvaluator, evaluate_channels
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model

ROOT = Path(__file__).resolve().parents[1]


def _time(f, repeats: int) -> float:
    """Median process CPU time (s) of ``repeats`` calls after a warm-up call (CPU time: a busy machine inflates it
    less than wall time)."""
    f()
    runs = []
    for _ in range(repeats):
        t0 = time.process_time()
        f()
        runs.append(time.process_time() - t0)
    return statistics.median(runs)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(ROOT / "models" / "pendulum.json"))
    ap.add_argument("--t-end", type=float, default=10.0)
    ap.add_argument("--step", type=float, default=1e-3)
    ap.add_argument("--multiples", type=int, nargs="+", default=[1, 2, 10, 100])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    cm = compile_model(load_model(args.model))
    h, n_steps = args.step, round(args.t_end / args.step)
    base = _time(lambda: simulate(cm, args.t_end, h), args.repeats)
    print(f"model {Path(args.model).name}, {n_steps} steps of {h:g} s")
    print("| output step | simulate CPU (s) | vs every step | µs per integration step |")
    print("|---|---|---|---|")
    for m in args.multiples:
        w = base if m == 1 else _time(lambda m=m: simulate(cm, args.t_end, h, output_step=m * h), args.repeats)
        print(f"| {m} h | {w:.3f} | {w / base:.2f} | {1e6 * w / n_steps:.1f} |")
    traj = simulate(cm, args.t_end, h)
    n = len(traj.t)

    def per_row():
        ce = ChannelEvaluator(cm)
        for i in range(n):
            ce(traj.t[i], traj.q[i], traj.qd[i], traj.qdd[i], traj.lam[i], traj.u[i], z=traj.z[i])

    w = _time(lambda: evaluate_channels(cm, traj), args.repeats)
    w1 = _time(per_row, args.repeats)
    print(f"channels of {n} rows: one kernel call {w:.3f} s = {1e6 * w / n:.1f} µs per row; one call per row "
          f"{w1:.3f} s = {1e6 * w1 / n:.1f} µs per row; ratio {w1 / w:.1f} (an integration step: "
          f"{1e6 * base / n_steps:.1f} µs)")


if __name__ == "__main__":
    main()
