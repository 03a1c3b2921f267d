"""Restraint-controller co-simulation: the fmu-mbs ``frontal_crash`` FMU (lumped-mass car at 56 km/h into a rigid
wall, belted ellipsoid-segment occupant) and the partner ``RestraintController`` FMU (partners/
restraint_controller.py: moving-window velocity-change sensing), coupled by the project's master (fmu_mbs.cosim):

    crash.cell.a[1] -> ctl.a            ctl.fire -> crash.belt.fire

The crash FMU runs with ``belt.fire_time = -1``, so only the controller's signal fires the pretensioner. Jacobi
coupling at H = 0.1 ms (= the crash FMU's solver.h, 10 kHz samples as J211 asks for CFC 1000 head data): the
controller samples the pulse at t_k, and the crash FMU sees its fire signal from the next communication point on.
Two runs: the controller enabled, and disabled (no pretensioner); each result is written as CSV and read by
``crash_numbers`` of ``fmu-mbs crash-report`` (HIC15/36 of the head, 3 ms clip of the chest, belt forces,
excursion), and a table of both goes to stdout and OUT_DIR/crash_restraint.json. The chest numbers are given for
the whole run and for the forward (restraint) phase up to ``FORWARD_END`` = 120 ms: after it the cell has
rebounded and the occupant is thrown back into the seat back (illustrative seat-back table), which can set the
run's chest peak.

    python integration/crash_restraint.py [OUT_DIR] [--t-end 0.15] [--step 1e-4] [--window 0.01] [--dv-fire 0.8]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_partners import build_partner  # noqa: E402

from fmu_mbs.adapters.crash_report import crash_numbers  # noqa: E402
from fmu_mbs.adapters.fmu_build import build_fmu  # noqa: E402
from fmu_mbs.cosim import CosimResult, CoSimulation  # noqa: E402

MODEL = Path(__file__).resolve().parents[1] / "models" / "frontal_crash.json"
SENSING = {"window": 0.010, "dv_fire": 0.8}          # s, m/s: fires about 8.6 ms after the first contact
HEAD = ["head_cg.a[1]", "head_cg.a[2]", "head_cg.a[3]"]
CHEST = ["occupant.a[1]", "occupant.a[2]", "occupant.a[3]"]
FORWARD_END = 0.120       # s: end of the forward (restraint) phase of the catalogue crash
RECORD = ["crash.cell.r[1]", "crash.cell.v[1]", "crash.occupant.r[1]", "crash.belt.payout", "crash.belt.force[1]",
          "crash.belt.force[2]", "crash.belt.force[3]", "ctl.fire_time", "ctl.dv_window",
          *(f"crash.{n}" for n in HEAD + CHEST)]


def build(dest: str | Path) -> dict[str, Path]:
    """The crash FMU and the controller FMU, built into dest."""
    return {"crash": build_fmu(MODEL, dest), "controller": build_partner("RestraintController", dest)}


def restraint_system(fmus: dict[str, Path], enabled: bool = True, sensing: dict | None = None,
                     h: float = 1e-4) -> CoSimulation:
    """The coupled system: crash FMU (solver.h = h, pretensioner fired by its input only) and the controller."""
    sim = CoSimulation()
    sim.add("crash", fmus["crash"], {"belt.fire_time": -1.0, "solver.h": h})
    sim.add("ctl", fmus["controller"], {**SENSING, **(sensing or {}), "enabled": int(enabled)})
    sim.connect("crash.cell.a[1] -> ctl.a")
    sim.connect("ctl.fire -> crash.belt.fire")
    return sim


def channels(result: CosimResult, instance: str = "crash") -> dict:
    """The crash FMU's recorded channels by their own names (``cell.a[1]``), with ``time``."""
    ch = {n[len(instance) + 1:]: v for n, v in result.values.items() if n.startswith(instance + ".")}
    ch["time"] = result.time
    return ch


def summary(ch: dict) -> dict:
    """The injury and restraint numbers of one run's channels (crash_numbers' values, SI units and g)."""
    nums, _ = crash_numbers(ch, "cell.a[1]", head=HEAD, chest=CHEST)
    fwd = {n: v[ch["time"] <= FORWARD_END + 1e-9] for n, v in ch.items()}
    forward, _ = crash_numbers(fwd, "cell.a[1]", chest=CHEST)
    belt = nums["belts"]["belt"]
    return {"HIC15": nums["HIC15"]["value"], "HIC15_window_ms": [1e3 * nums["HIC15"]["t1_s"],
                                                                 1e3 * nums["HIC15"]["t2_s"]],
            "HIC36": nums["HIC36"]["value"], "chest_3ms_clip_g": nums["chest_3ms_clip_g"]["cumulative"],
            "chest_3ms_clip_forward_g": forward["chest_3ms_clip_g"]["cumulative"],
            "chest_peak_g": nums["chest_peak_cfc180_g"], "belt_peak_kN": [f / 1e3 for f in belt["peak_force_N"]],
            "excursion_mm": 1e3 * nums["occupant_excursion"]["max_m"],
            "payout_final_mm": 1e3 * belt["payout_final_m"]}


def run(out_dir: str | Path = "out", t_end: float = 0.15, step: float = 1e-4, sensing: dict | None = None) -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = {}
    with tempfile.TemporaryDirectory() as tmp:
        fmus = build(tmp)
        for label, enabled in (("pretensioner fired by the controller", True), ("no pretensioner", False)):
            result = restraint_system(fmus, enabled, sensing, step).run(t_end, step, record=RECORD)
            stem = "crash_restraint" if enabled else "crash_no_pretensioner"
            result.to_csv(out / f"{stem}.csv")
            row = summary(channels(result))
            row["fire_time_ms"] = 1e3 * float(result["ctl.fire_time"][-1]) if enabled else None
            row["wall_time_s"] = result.wall_time
            table[label] = row
    (out / "crash_restraint.json").write_text(json.dumps(table, indent=2))
    for label, row in table.items():
        fire = f"fired at {row['fire_time_ms']:.1f} ms" if row["fire_time_ms"] is not None else "never fired"
        print(f"{label} ({fire}): HIC15 {row['HIC15']:.0f}, HIC36 {row['HIC36']:.0f}, chest 3 ms "
              f"{row['chest_3ms_clip_g']:.1f} g ({row['chest_3ms_clip_forward_g']:.1f} g to "
              f"{1e3 * FORWARD_END:.0f} ms), belt {', '.join(f'{f:.2f}' for f in row['belt_peak_kN'])} kN, "
              f"excursion {row['excursion_mm']:.0f} mm; {row['wall_time_s']:.1f} s wall")
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="out")
    parser.add_argument("--t-end", type=float, default=0.15)
    parser.add_argument("--step", type=float, default=1e-4)
    parser.add_argument("--window", type=float, default=SENSING["window"])
    parser.add_argument("--dv-fire", type=float, default=SENSING["dv_fire"])
    args = parser.parse_args(argv)
    run(args.out, args.t_end, args.step, {"window": args.window, "dv_fire": args.dv_fire})


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    import os
    os._exit(0)     # pythonfmu 0.7.0's binary can crash at interpreter exit (tests/conftest.py)
