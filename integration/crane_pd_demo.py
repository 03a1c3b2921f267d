"""Coupled demo: the crane FMU driven through standard FMI stepping by a master-side PD controller on the boom
angle (the hydraulic-cylinder and controller FMUs of the co-simulation issue will replace the controller).

The start is the static equilibrium: the boom-hinge torque from fmu-mbs statics (boom held at 30 deg by a
temporary driver) divided by the cylinder's lever dL/dtheta gives the initial cylinder force. The boom then
follows a smooth 30 -> 40 -> 30 deg profile.

    python integration/crane_pd_demo.py [OUT_DIR]      # writes crane_pd_demo.csv and .png
"""

from __future__ import annotations

import csv
import math
import sys
import tempfile
from pathlib import Path

from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

from fmu_mbs.adapters.fmu_build import build_fmu
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.reactions import driver_efforts
from fmu_mbs.analyses.statics import statics
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, load_model

ROOT = Path(__file__).resolve().parents[1]
H = 1e-3                       # communication step (s)
T_END = 6.0
KP, KD = 2.0e5, 2.0e4          # N/rad, N s/rad


def reference(t: float) -> float:
    """Boom angle profile (rad): 30 deg, a quintic ramp to 40 deg over 1-2 s, back over 3.5-4.5 s."""
    def ramp(x):
        x = min(max(x, 0.0), 1.0)
        return x * x * x * (10 - 15 * x + 6 * x * x)
    return math.radians(30.0 + 10.0 * (ramp(t - 1.0) - ramp(t - 3.5)))


def holding_force(model_path: Path) -> float:
    """Static cylinder force (N): hinge torque of the held crane over the cylinder lever dL/dtheta."""
    b = ModelBuilder.from_model(load_model(model_path))
    b.add_driver("hold", "boom_hinge", math.radians(30.0))
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    eq = statics(cm, evaluator=ev)
    torque = driver_efforts(ev, eq.lam[0])["hold"]            # N m the hinge must supply
    # lever: cylinder from (sqrt(3)/2, 0) to the boom CM at 0.5 m along the boom
    def length(th):
        return math.hypot(0.5 * math.cos(th) - math.sqrt(3.0) / 2.0, 0.5 * math.sin(th))
    dl = (length(math.radians(30.0) + 1e-7) - length(math.radians(30.0) - 1e-7)) / 2e-7
    return torque / dl


def held_statics(model_path: Path, force: float, angle: float = math.radians(30.0)):
    """Statics of the crane with the boom hinge held at ``angle`` (rad) by a temporary driver and the cylinder
    pushing with the constant ``force`` (N): (hinge torque the driver supplies (N m), the equilibrium trajectory)."""
    from dataclasses import replace

    from fmu_mbs.model.functions import Constant
    b = ModelBuilder.from_model(load_model(model_path))
    b.forces = [replace(f, force=Constant(force)) if f.name == "cylinder" else f for f in b.forces]
    b.add_driver("hold", "boom_hinge", angle)
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    eq = statics(cm, evaluator=ev, tol=1e-12)
    return driver_efforts(ev, eq.lam[-1])["hold"], eq


def holding_force_by_statics(model_path: Path, tol: float = 1e-9) -> float:
    """Cylinder force (N) for which the held crane needs no hinge torque, by secant steps on held_statics from the
    lever rule's value: exact also where the lever rule is not (a flexible boom's mount moves as it bends)."""
    f0 = holding_force(model_path)
    t0, _ = held_statics(model_path, f0)
    f1 = f0 * (1.0 + 1e-3)
    for _ in range(8):
        t1, _ = held_statics(model_path, f1)
        if abs(t1) <= tol * abs(f1):
            return f1
        f0, t0, f1 = f1, t1, f1 - t1 * (f1 - f0) / (t1 - t0)
    raise RuntimeError(f"{model_path}: the holding force did not converge (hinge torque {t1:.3g} N m)")


def main(out_dir: str = "out") -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model_path = ROOT / "models" / "crane.json"
    f0 = holding_force(model_path)
    with tempfile.TemporaryDirectory() as tmp:
        fmu_path = build_fmu(model_path, tmp)
        md = read_model_description(str(fmu_path))
        vr = {v.name: v.valueReference for v in md.modelVariables}
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu_path), unzipdir=str(Path(tmp, "unzipped"))),
                        modelIdentifier=md.coSimulation.modelIdentifier, instanceName="crane")
        fmu.instantiate()
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.setReal([vr["cylinder.f"]], [f0])
        fmu.exitInitializationMode()
        rows = []
        t = 0.0
        names = ["boom_hinge.s", "boom_hinge.sd", "cylinder.length", "cylinder.speed", "hook.r[1]", "hook.r[2]"]
        refs = [vr[n] for n in names]
        while t < T_END - 1e-12:
            th, thd, *rest = fmu.getReal(refs)
            force = f0 + KP * (reference(t) - th) - KD * thd
            rows.append([t, reference(t), th, thd, force, *rest])
            fmu.setReal([vr["cylinder.f"]], [force])
            fmu.doStep(currentCommunicationPoint=t, communicationStepSize=H)
            t += H
        fmu.terminate()
        fmu.freeInstance()
    path = out / "crane_pd_demo.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["time", "reference", *names[:2], "cylinder.f", *names[2:]])
        w.writerows(rows)
    err = max(abs(r[1] - r[2]) for r in rows)
    print(f"crane PD demo: initial cylinder force {f0:.1f} N from statics; {len(rows)} FMI steps of {H} s; "
          f"max boom-angle tracking error {math.degrees(err):.3f} deg; wrote {path}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
        ax[0].plot([r[0] for r in rows], [math.degrees(r[1]) for r in rows], label="reference")
        ax[0].plot([r[0] for r in rows], [math.degrees(r[2]) for r in rows], "--", label="boom angle")
        ax[0].set_ylabel("deg")
        ax[0].legend()
        ax[1].plot([r[0] for r in rows], [r[4] / 1e3 for r in rows])
        ax[1].set_ylabel("cylinder force (kN)")
        ax[1].set_xlabel("time (s)")
        fig.tight_layout()
        fig.savefig(out / "crane_pd_demo.png", dpi=100)
    except ImportError:
        pass
    return path


if __name__ == "__main__":
    main(*sys.argv[1:2])
