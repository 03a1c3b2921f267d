"""Coupling study of the hydraulic crane (docs/cosimulation.md): error against a reference versus communication
step for each scheme, the stability limit of each, and the cost.

    python integration/cosim_study.py [OUT_DIR] [--t-end 4] [--docs docs]

Every run is the open-loop crane of crane_hydraulic.py (Chrono's valve profile) over ``t_end``. The error of a run
is max |theta - theta_ref| over the run's communication points, divided by the range of the reference boom angle
over the run (the motion), in percent. A run counts as unstable if it fails (an FMU discards a step, the iteration
does not converge) or its error exceeds 100 %.

The reference is one pluggable function ``reference(fmus, force, t_end) -> (times, theta, info)``: by default the
monolithic model (crane_monolithic.py: fmu-mbs's hydraulic-cylinder element integrated with the crane in one
solver, h = 0.05 ms); ``--reference iterative`` uses the iterative scheme (linear input interpolation) at 0.05 ms,
converged to 1e-10, instead. The two agree to 2e-6 % of the motion (tests/test_crane_hydraulic.py).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import crane_hydraulic as ch  # noqa: E402
import crane_monolithic as mono  # noqa: E402

from fmu_mbs.errors import CosimError  # noqa: E402

STEPS = [2.5e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1]
CASES = [("jacobi", 0), ("jacobi", 1), ("jacobi", 2), ("gauss-seidel", 0), ("gauss-seidel", 1), ("gauss-seidel", 2),
         ("iterative", 0), ("iterative", 1)]
REFERENCE_STEP = 5e-5
SEQUENCE = ["valve", "cyl", "crane"]          # Gauss-Seidel: the cylinder first, the crane on its new force


def run_case(fmus, force, scheme: str, order: int, step: float, t_end: float, **kw):
    sim = ch.crane_system(fmus, force, order)
    return sim.run(t_end, step, scheme=scheme, order=order, sequence=SEQUENCE, record=ch.RECORD, **kw)


def iterative_reference(fmus, force, t_end: float) -> tuple[np.ndarray, np.ndarray, dict]:
    """Iterative scheme, linear interpolation, H = 0.05 ms, |u - G(u)| <= 1e-10 relative."""
    res = run_case(fmus, force, "iterative", 1, REFERENCE_STEP, t_end, tolerance=1e-10)
    return res.time, res["crane.boom_hinge.s"], {"label": "iterative scheme at 0.05 ms",
                                                 "wall_time": res.wall_time}


REFERENCES = {"monolithic": mono.monolithic_reference, "iterative": iterative_reference}


def study(out: Path, t_end: float, docs: Path, reference=mono.monolithic_reference) -> dict:
    force = ch.holding_force()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        fmus = ch.build(tmp)
        ref_path = out / f"cosim_reference_{reference.__name__}_{t_end:g}s.npz"
        if ref_path.exists():
            data = np.load(ref_path)
            t_ref, th_ref, ref_info = data["t"], data["theta"], json.loads(str(data["info"]))
        else:
            t_ref, th_ref, ref_info = reference(fmus, force, t_end)
            np.savez(ref_path, t=t_ref, theta=th_ref, info=json.dumps(ref_info))
        motion = float(th_ref.max() - th_ref.min())
        print(f"reference ({ref_info['label']}): boom angle range {math.degrees(motion):.4f} deg", flush=True)
        for scheme, order in CASES:
            for step in STEPS:
                row = {"scheme": scheme, "order": order, "step": step}
                try:
                    res = run_case(fmus, force, scheme, order, step, t_end)
                    theta = res["crane.boom_hinge.s"]
                    err = np.abs(theta - np.interp(res.time, t_ref, th_ref)).max() / motion * 100
                    row.update(error_percent=float(err) if np.isfinite(err) else math.inf,
                               wall_time=res.wall_time, do_steps=res.do_steps,
                               evaluations=float(res.evaluations.mean()), jacobians=int(res.jacobians.sum()),
                               energy_residual=float(np.sum(res.energy["cylinder"])),
                               energy_residual_abs=float(np.sum(np.abs(res.energy["cylinder"]))))
                except (CosimError, FloatingPointError) as exc:
                    row.update(error_percent=math.inf, failure=str(exc).splitlines()[0])
                row["stable"] = bool(row["error_percent"] <= 100.0)
                rows.append(row)
                print(json.dumps(row), flush=True)
                if not row["stable"]:
                    break                  # larger steps of this scheme are not tried
    summary = {"t_end": t_end, "reference": ref_info, "motion_deg": math.degrees(motion), "rows": rows}
    (out / "cosim_study.json").write_text(json.dumps(summary, indent=1))
    plot(summary, docs)
    return summary


def plot(summary: dict, docs: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["rows"]
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.8))
    for scheme, order in CASES:
        sel = [r for r in rows if r["scheme"] == scheme and r["order"] == order and r["stable"]]
        if not sel:
            continue
        label = f"{scheme}, order {order}"
        style = {"jacobi": "-o", "gauss-seidel": "--s", "iterative": ":^"}[scheme]
        ax[0].loglog([r["step"] * 1e3 for r in sel], [r["error_percent"] for r in sel], style, label=label)
        ax[1].loglog([r["wall_time"] for r in sel], [r["error_percent"] for r in sel], style, label=label)
    ax[0].axhline(1.0, color="grey", lw=0.8)
    ax[0].set_xlabel("communication step (ms)")
    ax[0].set_ylabel("boom-angle error (% of the motion)")
    ax[0].set_title(f"error vs step, {summary['t_end']:g} s; reference: {summary['reference']['label']}",
                    fontsize=9)
    ax[1].set_xlabel("wall time (s)")
    ax[1].set_ylabel("boom-angle error (% of the motion)")
    ax[1].set_title("cost", fontsize=9)
    ax[0].legend(fontsize=8)
    fig.tight_layout()
    docs.mkdir(parents=True, exist_ok=True)
    fig.savefig(docs / "cosimulation_error.png", dpi=100)
    plt.close(fig)
    # stability limit: the largest stable step of each scheme (steps are tried in increasing order)
    labels, limits = [], []
    for scheme, order in CASES:
        sel = [r["step"] for r in rows if r["scheme"] == scheme and r["order"] == order and r["stable"]]
        labels.append(f"{scheme}\norder {order}")
        limits.append(max(sel) * 1e3 if sel else 0.0)
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.bar(range(len(labels)), limits, color=["C0"] * 3 + ["C1"] * 3 + ["C2"] * 2)
    ax.set_yscale("log")
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylabel("largest stable step tried (ms)")
    ax.set_title(f"stability limit (steps tried: {', '.join(f'{h * 1e3:g}' for h in STEPS)} ms; grey: 0.5 ms)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(docs / "cosimulation_stability.png", dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="out")
    parser.add_argument("--t-end", type=float, default=4.0)
    parser.add_argument("--docs", default="docs")
    parser.add_argument("--reference", default="monolithic", choices=sorted(REFERENCES))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    study(out, args.t_end, Path(args.docs), REFERENCES[args.reference])
    print(f"study done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
