"""The hydraulic crane as a co-simulation: the fmu-mbs ``crane`` FMU (models/crane.json) coupled with the partner
hydraulic cylinder + valve FMU, the valve reference coming from the partner signal source (Project Chrono's
hydraulic-crane demo, data of Rahikainen et al. 2020).

    crane.cylinder.length -> cyl.s        crane.cylinder.speed -> cyl.sd
    cyl.F -> crane.cylinder.f             valve.y -> cyl.Uref

Static start: fmu-mbs statics gives the cylinder force F0 that holds the crane at 30 deg (crane_pd_demo.py:
hinge torque over the lever dL/dtheta). With the valve centred any (p1, p2) with p1 A1 - p2 A2 = F0 holds the
load; we take the pair the valve itself sets up when it opens to extend (the first motion of the profile): with
equal edges, steady flow through the meter-in and meter-out edges needs (p_pump - p1)/A1^2 = (p2 - p_tank)/A2^2.
Together with the force balance (friction c sd = 0 at rest):

    p1 = (F0 + A2 (p_tank + r p_pump)) / (A1 + r A2),   p2 = p_tank + r (p_pump - p1),   r = (A2/A1)^2,

so the pressures need no jump when the valve opens. Geometry: the cylinder is 0.5 m long at 30 deg; with
Chrono's chamber lengths (0.221 m each) it is fully retracted at s = 0.279 m and its stroke is 0.442 m.

The same with a flexible boom (models/flexible_boom.json, examples/make_flexible_boom.py: the boom a floating
modal body, its static start deflected): ``--model models/flexible_boom.json``; the holding force then comes from
statics alone (crane_pd_demo.holding_force_by_statics: the boom's mount moves as it bends, so the lever rule on
the held boom's hinge torque gives 6922 N where 6884.6 N hold it), and the boom tip's elastic deflection
``crane.boom.node10.u[2]`` is recorded too. integration/crane_flexible_compare.py runs both cranes side by side.

    python integration/crane_hydraulic.py [OUT_DIR] [--t-end 25] [--step 5e-4] [--scheme jacobi] [--order 0]
                                          [--model models/crane.json]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import crane_pd_demo  # noqa: E402
from build_partners import build_partner  # noqa: E402

from fmu_mbs.adapters.fmu_build import build_fmu  # noqa: E402
from fmu_mbs.cosim import CosimResult, CoSimulation, PowerBond  # noqa: E402

MODEL = ROOT / "models" / "crane.json"
FLEXIBLE = ROOT / "models" / "flexible_boom.json"
FLEXIBLE_RECORD = ("crane.boom.node10.u[2]", "crane.boom_tip.r[1]", "crane.boom_tip.r[2]")
PISTON_D, ROD_D = 0.08, 0.035
P_PUMP, P_TANK = 7.6e6, 0.1e6
S_RETRACTED = 0.279          # m: mounting distance at full retraction (0.5 m at 30 deg minus Chrono's 0.221 m)
STROKE = 0.442               # m
LINKS = ("crane.cylinder.length -> cyl.s", "crane.cylinder.speed -> cyl.sd", "cyl.F -> crane.cylinder.f",
         "valve.y -> cyl.Uref")
BOND = PowerBond("cylinder", effort="cyl.F -> crane.cylinder.f", flow="crane.cylinder.speed -> cyl.sd")
RECORD = ("crane.boom_hinge.s", "crane.boom_hinge.sd", "crane.hook.r[1]", "crane.hook.r[2]", "cyl.p1", "cyl.p2",
          "cyl.U")


def holding_force(model: Path = MODEL) -> float:
    """Cylinder force (N) holding the crane at rest, from fmu-mbs statics (crane_pd_demo.holding_force; for a
    model with a modal body crane_pd_demo.holding_force_by_statics)."""
    if '"type": "modal"' in Path(model).read_text():
        return crane_pd_demo.holding_force_by_statics(Path(model))
    return crane_pd_demo.holding_force(model)


def areas() -> tuple[float, float]:
    a1 = math.pi * PISTON_D ** 2 / 4
    return a1, a1 - math.pi * ROD_D ** 2 / 4


def equilibrium_pressures(force: float) -> tuple[float, float]:
    """(p1, p2) in Pa holding ``force`` (N) with the valve centred, balanced for opening (module docstring)."""
    a1, a2 = areas()
    r = (a2 / a1) ** 2
    p1 = (force + a2 * (P_TANK + r * P_PUMP)) / (a1 + r * a2)
    return p1, P_TANK + r * (P_PUMP - p1)


def build(dest: str | Path, model: Path = MODEL) -> dict[str, Path]:
    """The crane FMU (of ``model``) and the partner FMUs the demos use, built into dest."""
    dest = Path(dest)
    return {"crane": build_fmu(model, dest), "cylinder": build_partner("HydraulicCylinder", dest),
            "source": build_partner("SignalSource", dest), "pid": build_partner("PidController", dest)}


def cylinder_parameters(force: float) -> dict:
    p1, p2 = equilibrium_pressures(force)
    return {"p1_start": p1, "p2_start": p2, "s_retracted": S_RETRACTED, "stroke": STROKE}


def crane_system(fmus: dict[str, Path], force: float, order: int = 0, crane_h: float | None = None,
                 crane_tolerance: float | None = None, valve_profile: dict | None = None,
                 bond: PowerBond | None = BOND) -> CoSimulation:
    """The open-loop hydraulic crane (module docstring). ``order`` > 0 makes crane and cylinder interpolate
    their inputs (linear; the crane FMU has no quadratic mode), which the master's extrapolation of that order
    feeds. ``valve_profile``: parameters of the signal source (default: Chrono's valve reference)."""
    mode = "linear" if order else "hold"
    crane_par = {}
    if crane_h is not None:
        crane_par["solver.h"] = crane_h
    if crane_tolerance is not None:
        crane_par["solver.tolerance"] = crane_tolerance
    sim = CoSimulation()
    sim.add("crane", fmus["crane"], crane_par, input_mode=mode)
    sim.add("cyl", fmus["cylinder"], cylinder_parameters(force), input_mode=mode)
    sim.add("valve", fmus["source"], valve_profile or {})
    for link in LINKS:
        sim.connect(link)
    if bond is not None:
        sim.bond(bond)
    return sim


def run(out_dir: str | Path = "out", t_end: float = 25.0, step: float = 5e-4, scheme: str = "jacobi",
        order: int = 0, plot: bool = True, model: Path = MODEL) -> CosimResult:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    force = holding_force(model)
    stem = "crane_hydraulic" if Path(model) == MODEL else f"crane_hydraulic_{Path(model).stem}"
    record = RECORD + (FLEXIBLE_RECORD if Path(model).resolve() == FLEXIBLE.resolve() else ())
    with tempfile.TemporaryDirectory() as tmp:
        fmus = build(tmp, model)
        result = crane_system(fmus, force, order).run(t_end, step, scheme=scheme, order=order, record=record)
    path = result.to_csv(out / f"{stem}.csv")
    theta = result["crane.boom_hinge.s"]
    p1, p2 = equilibrium_pressures(force)
    print(f"hydraulic crane ({scheme}, order {order}, H = {step} s, {t_end} s): holding force {force:.1f} N from "
          f"statics, p1 = {p1 / 1e6:.4f} MPa, p2 = {p2 / 1e6:.4f} MPa; boom angle {math.degrees(theta.min()):.3f} .. "
          f"{math.degrees(theta.max()):.3f} deg; energy residual {result.energy_cumulative('cylinder')[-1]:.3g} J; "
          f"{result.wall_time:.1f} s wall; wrote {path}")
    if plot:
        plot_result(result, out / f"{stem}.png")
    return result


def plot_result(result: CosimResult, path: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    t = result.time
    fig, ax = plt.subplots(4, 1, sharex=True, figsize=(8, 9))
    ax[0].plot(t, result["valve.y"], label="Uref")
    ax[0].plot(t, result["cyl.U"], "--", label="spool U")
    ax[0].set_ylabel("valve (1)")
    ax[0].legend()
    ax[1].plot(t, result["cyl.p1"] / 1e6, label="p1")
    ax[1].plot(t, result["cyl.p2"] / 1e6, label="p2")
    ax[1].set_ylabel("pressure (MPa)")
    ax[1].legend()
    ax[2].plot(t, result["cyl.F"] / 1e3)
    ax[2].set_ylabel("cylinder force (kN)")
    ax[3].plot(t, [math.degrees(x) for x in result["crane.boom_hinge.s"]])
    ax[3].set_ylabel("boom angle (deg)")
    ax[3].set_xlabel("time (s)")
    fig.suptitle(f"Hydraulic crane co-simulation ({result.scheme}, order {result.order}, H = {result.step} s)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="out")
    parser.add_argument("--t-end", type=float, default=25.0)
    parser.add_argument("--step", type=float, default=5e-4)
    parser.add_argument("--scheme", default="jacobi", choices=["jacobi", "gauss-seidel", "iterative"])
    parser.add_argument("--order", type=int, default=0, choices=[0, 1, 2])
    parser.add_argument("--model", type=Path, default=MODEL, help="crane model (default models/crane.json; "
                        "models/flexible_boom.json: the flexible boom)")
    args = parser.parse_args(argv)
    run(args.out, args.t_end, args.step, args.scheme, args.order, model=args.model)


if __name__ == "__main__":
    main()
    # see crane_pd_demo.py: leave without library destructors (upstream NTNU-IHB/PythonFMU#228)
    sys.stdout.flush()
    sys.stderr.flush()
    import os
    os._exit(0)
