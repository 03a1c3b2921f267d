"""The hydraulic-crane co-simulation (crane_hydraulic.py) with the rigid boom (models/crane.json) and with the
flexible one (models/flexible_boom.json) side by side: the same partner cylinder and valve FMUs, each crane from
its own static start; boom-tip motion, hinge angle and the flexible boom's elastic tip deflection.

    python integration/crane_flexible_compare.py [OUT_DIR] [--t-end 10] [--step 5e-4]   # writes OUT_DIR/
        crane_flexible_compare.png and prints a markdown table

``--library`` runs the two models in the library instead (no FMUs, no hydraulics): the cylinder pushes with its
holding force plus 10 % for 0.05 s from t = 0.2 s (a linear table), 1 s at h = 0.5 ms; this wrote
docs/flexible_boom.png. Without the hydraulics the boom keeps rising after the pulse (a constant force holds it
only in an unstable balance), in both models alike.
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


def library_pulse(out: Path, t_end: float = 1.0, step: float = 5e-4) -> None:
    """The ``--library`` comparison (module docstring): prints the numbers, writes out/flexible_boom.png."""
    from dataclasses import replace

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fmu_mbs.analyses.simulate import simulate
    from fmu_mbs.model import load_model
    from fmu_mbs.model.functions import Table
    runs = {}
    for label, path in (("rigid", ch.MODEL), ("flexible", ch.FLEXIBLE)):
        f0 = ch.holding_force(path)
        pulse = Table((0.0, 0.2, 0.22, 0.27, 0.29, t_end), (f0, f0, 1.1 * f0, 1.1 * f0, f0, f0), "linear")
        m = load_model(path)
        m = replace(m, forces=tuple(replace(f, force=pulse) for f in m.forces))
        c0 = time.process_time()
        runs[label] = (simulate(m, t_end, step, output_step=0.005), time.process_time() - c0)
    (rig, c_r), (flx, c_f) = runs["rigid"], runs["flexible"]
    th_r, th_f = np.degrees(rig["boom_hinge.s"]), np.degrees(flx["boom_hinge.s"])
    dy = 1e3 * (flx["boom_tip.r[2]"] - rig["boom_tip.r[2]"])
    u, sigma = 1e3 * flx["boom.node10.u[2]"], flx["boom.stress[1]"] / 1e6
    print("| quantity | rigid boom | flexible boom |\n|---|---|---|")
    print(f"| boom angle at {t_end:g} s (deg) | {th_r[-1]:.3f} | {th_f[-1]:.3f} |")
    print(f"| largest boom angle difference (deg) | | {np.abs(th_f - th_r).max():.4f} |")
    print(f"| tip height flexible - rigid (mm) | | {dy.min():.3f} .. {dy.max():.3f} |")
    print(f"| elastic tip deflection boom.node10.u[2] (mm) | - | {u.min():.3f} .. {u.max():.3f} |")
    print(f"| bending stress at the mount boom.stress[1] (MPa) | - | {sigma.min():.1f} .. {sigma.max():.1f} |")
    print(f"| CPU time (s) | {c_r:.2f} | {c_f:.2f} |")
    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(8, 7.5))
    ax[0].plot(rig.t, th_r, label="rigid boom (crane.json)")
    ax[0].plot(flx.t, th_f, "--", label="flexible boom (flexible_boom.json)")
    ax[0].set_ylabel("boom angle (deg)")
    ax[0].legend(fontsize=8)
    ax[1].plot(rig.t, dy)
    ax[1].set_ylabel("tip height,\nflexible - rigid (mm)")
    ax[2].plot(flx.t, u)
    ax[2].set_ylabel("elastic tip deflection\nboom.node10.u[2] (mm)")
    ax[2].set_xlabel("time (s)")
    fig.suptitle("Holding force + 10 % for 0.05 s at 0.2 s: rigid and flexible boom")
    fig.tight_layout()
    fig.savefig(out / "flexible_boom.png", dpi=90)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="out")
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--step", type=float, default=5e-4)
    parser.add_argument("--library", action="store_true", help="the library comparison (module docstring)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.library:
        library_pulse(out, 1.0, args.step)
        return
    runs = run_both(args.t_end, args.step)
    plot(runs, out / "crane_flexible_compare.png")
    print(f"{args.t_end} s at H = {args.step} s:\n" + report(runs))


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)           # as crane_hydraulic.py: leave without library destructors (PythonFMU#228)
