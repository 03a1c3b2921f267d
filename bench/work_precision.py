"""Work-precision diagrams: error against CPU time for every fmu-mbs integrator and Exudyn, one plot per case.

Cases (from bench/exudyn_compare.py, with their independent references): the IFToMM pendulum (pendulum ODE), the
seed 002 four-bar turning over (the index-1 reference integrator at rtol 1e-10), the E10.5 planar slider-crank
through its singular positions (its reduced ODE), and the spatial slider-crank of models/slider_crank.json with
the crank started at 20 rad/s (body positions against the index-1 reference at rtol 1e-12; Exudyn with
SphericalJoint and GenericJoint for the universal and prismatic joints), and seed 000 E7.2 (two
point masses at 100 and 300 m/s, relative energy error; the ALF with the energy-consistent trapezoid).

Integrators: ALF (trapezoidal ALI3-P) and explicit midpoint at the steps STEPS, the error-controlled
Dormand-Prince path ('variable') at the tolerances RTOLS and the error-controlled ALF ('alf-variable') at ALF_RTOLS,
with outputs every VARIABLE_OUTPUT s, Exudyn's
generalized-alpha (exudyn_compare's settings) at STEPS; the fixed-step runs and Exudyn record every 10 ms. CPU
time per simulated second (process time of one whole run, kernels compiled), error as each case measures it.
A run that fails is listed with its reason and left out of the plot.

    OPENBLAS_NUM_THREADS=1 python bench/work_precision.py [--quick] [--case NAME ...] [--png F.png] [--json F]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import exudyn_compare as X  # noqa: E402  (the cases, the Exudyn translator and the state extraction)

from fmu_mbs.analyses.assembly import assemble  # noqa: E402
from fmu_mbs.analyses.integrators import integrate_reference  # noqa: E402
from fmu_mbs.compiler import compile_model  # noqa: E402
from fmu_mbs.model import ModelBuilder, load_model  # noqa: E402

STEPS = (4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4)
RTOLS = (1e-3, 1e-4, 1e-6, 1e-8, 1e-10)
ALF_RTOLS = (1e-3, 1e-4, 1e-6, 1e-8)   # the error-controlled ALF ('alf-variable', second order: many steps)
VARIABLE_OUTPUT = 0.1   # s: the variable path's output interval (its steps end on every output: a 10 ms grid caps
                        # them at 10 ms, which alone gives the pendulum 8e-10 m at any rtol)


def run_variable(case: X.Case, rtol: float, integrator: str = "variable"):
    """An error-controlled path ('variable' or 'alf-variable') at rtol (atol = rtol), output every VARIABLE_OUTPUT
    s, kernels compiled (the ALF's options of the case, such as max_iter, apply to 'alf-variable'; its scheme does
    not: the error-controlled ALF is the ALI3-P trapezoid)."""
    opts = {k: v for k, v in case.options.items() if k != "scheme"} if integrator == "alf-variable" else {}
    X.simulate(case.cm, 2 * VARIABLE_OUTPUT, VARIABLE_OUTPUT, integrator=integrator, initial=case.start, rtol=rtol,
               **opts)
    c0 = time.process_time()
    tr = X.simulate(case.cm, case.t_end, VARIABLE_OUTPUT, integrator=integrator, initial=case.start, rtol=rtol,
                    **opts)
    cpu = time.process_time() - c0
    return X.states_from_q(case.cm, tr.t, tr.q, tr.qd), {"cpu_per_s": cpu / case.t_end}


def case_spatial_slider_crank(quick: bool) -> X.Case:
    """models/slider_crank.json, crank from 20 rad/s; error = max |r - r_ref| of the body positions (m)."""
    b = ModelBuilder.from_model(load_model(X.MODELS / "slider_crank.json"))
    b.set_value("crank_pivot", "sd_start", 20.0)
    cm = compile_model(b.build())
    start = assemble(cm)
    t_end = 1.0 if quick else 2.0
    t = np.arange(0.0, t_end + 0.5 * X.OUTPUT, X.OUTPUT)
    ref = integrate_reference(cm, t, start, rtol=1e-12, atol=1e-12)
    st_ref = X.states_from_q(cm, ref.t, ref.q, ref.qd)

    def err(st):
        rows = np.searchsorted(st_ref.t, st.t - 1e-9)
        return float(np.max(np.abs(st.r - st_ref.r[rows])))
    return X.Case("spatial_slider_crank", "max body position error (m) vs index-1 reference", cm, start, t_end,
                  1e-3, err)


CASES = {"pendulum": X.case_pendulum, "fourbar": X.case_fourbar, "slider_crank": X.case_slider_crank,
         "spatial_slider_crank": case_spatial_slider_crank, "e72": X.case_e72,
         "e72_positions": X.case_e72_positions}


def _point(label, setting, run, accuracy, t_end) -> dict:
    """One run (the best CPU time of three if a run takes under 0.3 s: short runs are noisy on shared cores)."""
    try:
        st, info = run()
        if info.get("completed") is False:
            return {"integrator": label, "setting": setting, "error": "did not complete"}
        cpu = info["cpu_per_s"]
        for _ in range(2 if cpu * t_end < 0.3 else 0):
            cpu = min(cpu, run()[1]["cpu_per_s"])
        return {"integrator": label, "setting": setting, "cpu_per_s": cpu, "accuracy": accuracy(st)}
    except Exception as exc:                    # noqa: BLE001 - reported beside the diagram
        return {"integrator": label, "setting": setting, "error": f"{type(exc).__name__}: {str(exc)[:160]}"}


def run_case(case: X.Case, exudyn: bool) -> list[dict]:
    pts = []
    for h in STEPS:
        pts.append(_point("ALF", h, lambda h=h: X.run_fmu_mbs(case.cm, case.start, case.t_end, h, **case.options),
                          case.accuracy, case.t_end))
        pts.append(_point("explicit", h, lambda h=h: X.run_fmu_mbs(case.cm, case.start, case.t_end, h,
                                                                   integrator="explicit"), case.accuracy, case.t_end))
        if exudyn:
            pts.append(_point("Exudyn", h, lambda h=h: X.run_exudyn(case.cm, case.start, case.t_end, h,
                                                                    case.exudyn), case.accuracy, case.t_end))
    for rtol in RTOLS:
        pts.append(_point("variable", rtol, lambda r=rtol: run_variable(case, r), case.accuracy,
                          case.t_end))
    for rtol in ALF_RTOLS:
        pts.append(_point("alf-variable", rtol, lambda r=rtol: run_variable(case, r, "alf-variable"), case.accuracy,
                          case.t_end))
    for p in pts:
        text = (f"{p['accuracy']:.3g} in {p['cpu_per_s'] * 1e3:.3g} ms CPU per s" if "accuracy" in p
                else p["error"])
        print(f"  {case.name:22s} {p['integrator']:12s} {p['setting']:<8g} {text}", flush=True)
    return pts


def plot(results: dict, png: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(results)
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.9 * rows), squeeze=False)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    style = {"ALF": "o-", "explicit": "s-", "variable": "^-", "alf-variable": "v-", "Exudyn": "x--"}
    colour = {label: f"C{k}" for k, label in enumerate(style)}      # the same colour in every panel
    for ax, name in zip(axes.flat, names):
        for label, mark in style.items():
            pts = [p for p in results[name]["points"] if p["integrator"] == label and "accuracy" in p]
            if pts:
                ax.loglog([p["cpu_per_s"] for p in pts], [max(p["accuracy"], 1e-16) for p in pts], mark,
                          color=colour[label], label=label)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("CPU time per simulated second (s)")
        ax.set_ylabel(results[name]["what"], fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", nargs="+", choices=list(CASES), default=list(CASES))
    ap.add_argument("--quick", action="store_true", help="shorter runs (the cases' quick end times)")
    ap.add_argument("--no-exudyn", action="store_true")
    ap.add_argument("--png", default="work_precision.png")
    ap.add_argument("--json")
    args = ap.parse_args()
    exudyn = not args.no_exudyn
    if exudyn:
        try:
            X._exudyn()
        except ImportError:
            print("exudyn is not installed: its curve is left out", file=sys.stderr)
            exudyn = False
    results = {}
    for name in args.case:
        case = CASES[name](args.quick)
        print(f"{name}: {case.what}, t_end {case.t_end:g} s", flush=True)
        results[name] = {"what": case.what, "t_end": case.t_end,
                         "points": run_case(case, exudyn)}
    plot(results, args.png)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
