"""The hydraulic-crane co-simulation (crane_hydraulic.py) with the rigid boom (models/crane.json) and with the
flexible one (models/flexible_boom.json) side by side: the same partner cylinder and valve FMUs, each crane from
its own static start; boom-tip motion, hinge angle and the flexible boom's elastic tip deflection.

    python integration/crane_flexible_compare.py [OUT_DIR] [--t-end 10] [--step 5e-4]   # writes OUT_DIR/
        crane_flexible_compare.png and prints a markdown table (docs/flexible-bodies.md shows both)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import crane_hydraulic as ch  # noqa: E402

TIP = ("crane.boom_tip.r[1]", "crane.boom_tip.r[2]")


def run_both(t_end: float, step: float) -> dict:
    out = {}
    for label, model, extra in (("rigid", ch.MODEL, ()), ("flexible", ch.FLEXIBLE, ch.FLEXIBLE_RECORD)):
        force = ch.holding_force(model)
        with tempfile.TemporaryDirectory() as tmp:
            fmus = ch.build(tmp, model)
            wall = time.perf_counter()
            res = ch.crane_system(fmus, force).run(t_end, step, record=ch.RECORD + TIP + extra)
            out[label] = (res, time.perf_counter() - wall, force)
    return out


def report(runs: dict) -> str:
    (rig, w_r, f_r), (flx, w_f, f_f) = runs["rigid"], runs["flexible"]
    tip = {k: np.column_stack([r[n] for n in TIP]) for k, (r, _, _) in runs.items()}
    d = np.linalg.norm(tip["flexible"] - tip["rigid"], axis=1)
    u = flx["crane.boom.node10.u[2]"]
    th_r, th_f = (np.degrees(r["crane.boom_hinge.s"]) for r in (rig, flx))
    rows = [("holding force (N)", f"{f_r:.1f}", f"{f_f:.1f}"),
            ("boom angle range (deg)", f"{th_r.min():.3f} .. {th_r.max():.3f}",
             f"{th_f.min():.3f} .. {th_f.max():.3f}"),
            ("largest boom angle difference (deg)", "", f"{np.abs(th_f - th_r).max():.4f}"),
            ("boom tip height range (m)", f"{tip['rigid'][:, 1].min():.4f} .. {tip['rigid'][:, 1].max():.4f}",
             f"{tip['flexible'][:, 1].min():.4f} .. {tip['flexible'][:, 1].max():.4f}"),
            ("elastic tip deflection boom.node10.u[2] (mm)", "-", f"{1e3 * u.min():.3f} .. {1e3 * u.max():.3f}"),
            ("largest tip distance flexible - rigid (mm)", "", f"{1e3 * d.max():.3f}"),
            ("co-simulation wall time (s)", f"{w_r:.1f}", f"{w_f:.1f}")]
    lines = ["| quantity | rigid boom | flexible boom |", "|---|---|---|"]
    return "\n".join(lines + [f"| {a} | {b} | {c} |" for a, b, c in rows])


def plot(runs: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(8, 8))
    for label, (res, _, _) in runs.items():
        ax[0].plot(res.time, np.degrees(res["crane.boom_hinge.s"]), label=label)
        ax[1].plot(res.time, res["crane.boom_tip.r[2]"], label=label)
    flx, rig = runs["flexible"][0], runs["rigid"][0]
    dy = 1e3 * (flx["crane.boom_tip.r[2]"] - rig["crane.boom_tip.r[2]"])
    ax[2].plot(flx.time, dy, label="tip height, flexible - rigid")
    ax[2].plot(flx.time, 1e3 * flx["crane.boom.node10.u[2]"], "--", label="elastic tip deflection u[2] (boom frame)")
    ax[0].set_ylabel("boom angle (deg)")
    ax[1].set_ylabel("boom tip height (m)")
    ax[2].set_ylabel("mm")
    ax[2].set_xlabel("time (s)")
    for a in ax:
        a.legend(fontsize=8)
    fig.suptitle(f"Hydraulic crane co-simulation, rigid and flexible boom (H = {rig.step} s)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="out")
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--step", type=float, default=5e-4)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = run_both(args.t_end, args.step)
    plot(runs, out / "crane_flexible_compare.png")
    print(f"{args.t_end} s at H = {args.step} s:\n" + report(runs))


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)           # as crane_hydraulic.py: leave without library destructors (PythonFMU#228)
