"""``fmu-mbs crash-report RESULT.csv``: the crash numbers of a result CSV (of this command line or of an FMU run
under fmpy) as text and JSON, and a one-page PNG (pulse, velocity, crush, energy).

Channels (SI units, as the CSV writes them): the vehicle pulse ``--pulse`` (m/s^2, default ``cell.a[1]``, the
passenger cell of ``fmu_mbs.model.crash``), its velocity ``--velocity`` (default the same marker's ``v[1]``, else the
integrated pulse), every crush element's ``<e>.deflection``/``.force``/``.absorbed``, every belt's
``<e>.force[k]``/``.payout``, the occupant of ``crash(..., occupant=...)`` (``occupant.a[1]``, ``.r[1]``), and
optional occupant channels: head acceleration components (HIC, CFC 1000), chest acceleration components
(3 ms clip, CFC 180) and chest deflection (VC, CFC 180). Filters and criteria: analyses/crash_filters.py,
analyses/injury.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ..analyses.crash_filters import cfc_filter
from ..analyses.injury import (
    G0,
    asi,
    clip_3ms,
    cumulative_integral,
    energy_partition,
    hic,
    max_crush,
    thiv,
    viscous_criterion,
)
from .plot import select_channels
from .recording import read_csv


def _uniform(ch: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], str]:
    """The channels on a uniform time grid (resampled linearly at the median step if the rows are not uniform)."""
    t = ch["time"]
    _, first = np.unique(t, return_index=True)
    ch = {k: v[np.sort(first)] for k, v in ch.items()}
    t = ch["time"]
    steps = np.diff(t)
    h = float(np.median(steps))
    if np.max(np.abs(steps - h)) <= 1e-6 * h:
        return ch, ""
    grid = np.arange(t[0], t[-1] + 0.5 * h, h)
    grid = grid[grid <= t[-1]]
    return {k: (grid if k == "time" else np.interp(grid, t, v)) for k, v in ch.items()}, \
        f"resampled to a uniform {h:g} s grid (the rows were not uniformly spaced)"


def _resultant(ch: dict[str, np.ndarray], names: list[str]) -> np.ndarray:
    return np.sqrt(sum(ch[n] ** 2 for n in names))


def crash_numbers(ch: dict[str, np.ndarray], pulse: str | None = None, velocity: str | None = None,
                  head: list[str] | None = None, chest: list[str] | None = None,
                  chest_deflection: str | None = None) -> tuple[dict, dict]:
    """(numbers, curves): the report's values (JSON-ready) and the histories the plot draws."""
    if "time" not in ch:
        raise ValueError("crash-report: the result has no 'time' column")
    ch, note = _uniform(ch)
    names = list(ch)
    t = ch["time"]
    if pulse is None:
        pulse = "cell.a[1]" if "cell.a[1]" in ch else next((n for n in names if n.endswith(".a[1]")), None)
        if pulse is None:
            raise ValueError("crash-report: no acceleration channel '<marker>.a[1]' in the result; name the "
                             "vehicle pulse with --pulse")
    pulse = select_channels([pulse], names)[0]
    a = ch[pulse]
    if velocity is None:
        guess = pulse[: -len("a[1]")] + "v[1]" if pulse.endswith(".a[1]") else None
        velocity = guess if guess in ch else None
    v = ch[select_channels([velocity], names)[0]] if velocity else cumulative_integral(t, a)
    v0 = float(v[0])
    a60 = cfc_filter(t, a, 60)
    a180 = cfc_filter(t, a, 180)
    nums: dict = {"result_rows": int(t.shape[0]), "sample_interval_s": float(t[1] - t[0]), "pulse": pulse,
                  "impact_speed_m_s": v0, "impact_speed_km_h": 3.6 * v0}
    if note:
        nums["note"] = note
    k = int(np.argmax(np.abs(a60)))
    nums["peak_pulse_cfc60_g"] = {"value": float(a60[k] / G0), "time_s": float(t[k])}
    stop = np.flatnonzero(v * np.sign(v0 or 1.0) <= 0.0) if v0 else np.array([], dtype=int)
    nums["time_to_zero_velocity_s"] = float(t[stop[0]]) if stop.size else None
    nums["rebound_velocity_m_s"] = float(np.min(v * np.sign(v0 or 1.0)) * np.sign(v0 or 1.0))
    if t[-1] - t[0] >= 0.05:
        r = asi(t, a180 / G0)
        nums["ASI_EN1317_1998"] = {"value": r.value, "window_s": [r.t1, r.t2]}
    th = thiv(t, a180, v0=v0)
    nums["THIV_EN1317_1998"] = None if math.isnan(th.value) else {"m_s": th.value, "km_h": th.kmh,
                                                                   "flight_time_s": th.time}
    crush = {}
    for n in names:
        if n.endswith(".deflection"):
            e = n[: -len(".deflection")]
            m = max_crush(t, ch[n])
            crush[e] = {"max_m": m.value, "time_s": m.t1, "final_m": float(ch[n][-1])}
            if f"{e}.force" in ch:
                crush[e]["peak_force_N"] = float(np.max(ch[f"{e}.force"]))
    nums["crush"] = crush
    forces = [ch[n] for n in names if n.endswith(".force") and n[: -len(".force")] in crush]
    pos = pulse[: -len("a[1]")] + "r[1]" if pulse.endswith(".a[1]") else None
    total = np.sum(forces, axis=0) if forces else None
    if total is not None and pos in ch and np.max(total) > 0.0:
        k0 = int(np.argmax(total > 1e-6 * np.max(total)))      # first sample with a crush force (above round-off)
        travel = (ch[pos] - ch[pos][k0]) * np.sign(v0 or 1.0)
        m = max_crush(t, travel)
        nums["dynamic_crush"] = {"max_m": m.value, "time_s": m.t1, "contact_s": float(t[k0]),
                                 "time_after_contact_s": m.t1 - float(t[k0]), "marker": pos[: -len(".r[1]")]}
    belts = {}
    for n in names:
        if n.endswith(".payout"):
            e = n[: -len(".payout")]
            forces = [ch[f] for f in names if f.startswith(f"{e}.force[")]
            belts[e] = {"peak_force_N": [float(np.max(f)) for f in forces], "payout_final_m": float(ch[n][-1]),
                        "payout_max_m": float(np.max(ch[n]))}
    if belts:
        nums["belts"] = belts
    if chest is None and "occupant.a[1]" in ch:
        chest = ["occupant.a[1]"]
    if "occupant.r[1]" in ch and pos in ch:
        rel = (ch["occupant.r[1]"] - ch["occupant.r[1]"][0]) - (ch[pos] - ch[pos][0])
        k = int(np.argmax(rel * np.sign(v0 or 1.0)))
        nums["occupant_excursion"] = {"max_m": float(abs(rel[k])), "time_s": float(t[k])}
    if "energy.kinetic" in ch:
        nums["energy_J"] = energy_partition(ch)
    if head:
        ah = _resultant(ch, select_channels(head, names))
        ahf = np.abs(cfc_filter(t, ah, 1000)) / G0
        for w, key in ((0.015, "HIC15"), (0.036, "HIC36")):
            r = hic(t, ahf, w)
            nums[key] = {"value": r.value, "t1_s": r.t1, "t2_s": r.t2}
    chest_curve = None
    if chest:
        ac = np.abs(cfc_filter(t, _resultant(ch, select_channels(chest, names)), 180)) / G0
        nums["chest_3ms_clip_g"] = clip_3ms(t, ac)
        nums["chest_peak_cfc180_g"] = float(np.max(ac))
        chest_curve = ac
    if chest_deflection:
        d = cfc_filter(t, ch[select_channels([chest_deflection], names)[0]], 180)
        m, vc = max_crush(t, d), viscous_criterion(t, d)
        nums["chest_deflection"] = {"max_m": m.value, "time_s": m.t1}
        nums["VC_ECE_R94"] = {"value_m_s": vc.value, "time_s": vc.t1}
    curves = {"t": t, "pulse": a, "pulse60": a60, "velocity": v, "chest": chest_curve,
              "crush": {e: ch[f"{e}.deflection"] for e in crush},
              "energy": {n: ch[n] for n in names if n.endswith(".absorbed") or n == "energy.kinetic"}}
    return nums, curves


def format_numbers(nums: dict) -> str:
    """The report as text, one quantity a line."""
    lines = [f"impact speed {nums['impact_speed_km_h']:.2f} km/h ({nums['impact_speed_m_s']:.4g} m/s); "
             f"pulse '{nums['pulse']}', {nums['result_rows']} rows at {nums['sample_interval_s']:g} s"]
    if "note" in nums:
        lines.append(nums["note"])
    p = nums["peak_pulse_cfc60_g"]
    lines.append(f"peak pulse (CFC 60) {p['value']:.2f} g at {1e3 * p['time_s']:.2f} ms")
    if nums["time_to_zero_velocity_s"] is not None:
        lines.append(f"velocity zero at {1e3 * nums['time_to_zero_velocity_s']:.2f} ms; rebound "
                     f"{nums['rebound_velocity_m_s']:.3f} m/s")
    if "ASI_EN1317_1998" in nums:
        lines.append(f"ASI (EN 1317-1:1998, 50 ms average of CFC 180) {nums['ASI_EN1317_1998']['value']:.3f}")
    if nums["THIV_EN1317_1998"]:
        th = nums["THIV_EN1317_1998"]
        lines.append(f"THIV (EN 1317-1:1998) {th['km_h']:.1f} km/h at {1e3 * th['flight_time_s']:.1f} ms")
    if "dynamic_crush" in nums:
        c = nums["dynamic_crush"]
        lines.append(f"dynamic crush (travel of '{c['marker']}' after first contact at {1e3 * c['contact_s']:.2f} "
                     f"ms) {1e3 * c['max_m']:.1f} mm, {1e3 * c['time_after_contact_s']:.2f} ms after contact")
    for e, c in nums["crush"].items():
        force = f", peak force {c['peak_force_N'] / 1e3:.1f} kN" if "peak_force_N" in c else ""
        lines.append(f"crush {e}: max {1e3 * c['max_m']:.1f} mm at {1e3 * c['time_s']:.2f} ms, final "
                     f"{1e3 * c['final_m']:.1f} mm{force}")
    for e, bl in nums.get("belts", {}).items():
        lines.append(f"belt {e}: peak segment forces " + ", ".join(f"{f / 1e3:.2f}" for f in bl["peak_force_N"])
                     + f" kN; pay-out {1e3 * bl['payout_final_m']:.1f} mm")
    if "occupant_excursion" in nums:
        lines.append(f"occupant excursion (relative to the cell) {1e3 * nums['occupant_excursion']['max_m']:.1f} mm")
    if "energy_J" in nums:
        en = nums["energy_J"]
        lines.append("energy (kJ): " + ", ".join(f"{k} {v / 1e3:.3f}" for k, v in en.items()))
    for key in ("HIC15", "HIC36"):
        if key in nums:
            lines.append(f"{key} {nums[key]['value']:.1f} ({1e3 * nums[key]['t1_s']:.2f}-"
                         f"{1e3 * nums[key]['t2_s']:.2f} ms)")
    if "chest_3ms_clip_g" in nums:
        c = nums["chest_3ms_clip_g"]
        lines.append(f"chest (CFC 180) peak {nums['chest_peak_cfc180_g']:.2f} g, 3 ms clip: cumulative "
                     f"{c['cumulative']:.2f} g, continuous {c['continuous']:.2f} g")
    if "VC_ECE_R94" in nums:
        lines.append(f"chest deflection {1e3 * nums['chest_deflection']['max_m']:.1f} mm; VC "
                     f"{nums['VC_ECE_R94']['value_m_s']:.3f} m/s")
    return "\n".join(lines)


def plot_report(path: str | Path, curves: dict, title: str) -> None:
    """One page, four panels: pulse (raw and CFC 60, g), velocity (km/h), crush (mm), energy (kJ)."""
    from .plot import _figure_classes
    Figure, Canvas = _figure_classes()
    fig = Figure(figsize=(11.0, 8.0))
    Canvas(fig)
    axs = fig.subplots(2, 2, sharex=True)
    ms = 1e3 * curves["t"]
    ax = axs[0, 0]
    ax.plot(ms, curves["pulse"] / G0, color="0.7", lw=0.8, label="unfiltered")
    ax.plot(ms, curves["pulse60"] / G0, color="C3", lw=1.4, label="CFC 60")
    if curves["chest"] is not None:
        ax.plot(ms, -curves["chest"], color="C2", lw=1.2, label="chest |a| (CFC 180), negated")
    ax.set_ylabel("acceleration (g)")
    ax.set_title("pulse")
    ax.legend(loc="best", fontsize=8)
    ax = axs[0, 1]
    ax.plot(ms, 3.6 * curves["velocity"], color="C0")
    ax.axhline(0.0, color="0.5", lw=0.6)
    ax.set_ylabel("velocity (km/h)")
    ax.set_title("velocity")
    ax = axs[1, 0]
    for e, d in curves["crush"].items():
        ax.plot(ms, 1e3 * np.maximum(d, 0.0), label=e)                # a negative deflection is an open gap
    ax.set_ylabel("crush (mm)")
    ax.set_title("crush")
    if curves["crush"]:
        ax.legend(loc="best", fontsize=8)
    ax = axs[1, 1]
    energy = curves["energy"]
    if energy:
        names = [n for n in energy if n != "energy.kinetic"]
        stack = [energy["energy.kinetic"] / 1e3] if "energy.kinetic" in energy else []
        labels = ["kinetic"] if stack else []
        stack += [energy[n] / 1e3 for n in names]
        labels += [n[: -len(".absorbed")] for n in names]
        initial = sum(s[0] for s in stack)
        stack.append(np.maximum(initial - sum(stack), 0.0))
        labels.append("other (dampers, springs, belt, friction)")   # the rest of the initial energy
        ax.stackplot(ms, *stack, labels=labels)
        ax.legend(loc="best", fontsize=8)
    ax.set_ylabel("energy (kJ)")
    ax.set_title("energy")
    for ax in axs[1]:
        ax.set_xlabel("time (ms)")
    for ax in axs.flat:
        ax.grid(True, lw=0.4, alpha=0.5)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(str(path), dpi=110)


def cmd_crash_report(args) -> int:
    """The verb: read the CSV, print the numbers, write the JSON and the PNG."""
    ch = read_csv(args.result)
    nums, curves = crash_numbers(ch, args.pulse, args.velocity, args.head, args.chest, args.chest_deflection)
    stem = Path(args.result).with_suffix("")
    json_path = Path(args.json or f"{stem}_crash.json")
    png_path = Path(args.png or f"{stem}_crash.png")
    print(format_numbers(nums))
    json_path.write_text(json.dumps(nums, indent=1) + "\n", encoding="utf-8")
    print(f"numbers -> {json_path}")
    if not args.no_plot:
        plot_report(png_path, curves, f"{Path(args.result).name}: {nums['impact_speed_km_h']:.1f} km/h")
        print(f"plot -> {png_path}")
    return 0


def add_parser(sub) -> None:
    """The ``crash-report`` subcommand of the adapters' parser."""
    import argparse
    text = "crash numbers of a result CSV (filtered pulse, ASI, THIV, crush, energy; HIC, 3 ms clip, VC)"
    p = sub.add_parser("crash-report", help=text, description=text + "; writes RESULT_crash.json and a one-page "
                       "RESULT_crash.png", formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="example:\n  fmu-mbs simulate models/frontal_crash.json --t-end 0.15 --step 1e-4 "
                       "--out crash.csv\n  fmu-mbs crash-report crash.csv")
    p.add_argument("result", metavar="RESULT.csv", help="result CSV (fmu-mbs or an fmpy FMU run)")
    p.add_argument("--pulse", metavar="CH", help="vehicle acceleration channel (m/s^2), default cell.a[1]")
    p.add_argument("--velocity", metavar="CH", help="vehicle velocity channel (m/s), default the pulse marker's "
                   "v[1], else the integrated pulse")
    p.add_argument("--head", nargs="+", metavar="CH", help="head acceleration components (m/s^2): HIC15/36")
    p.add_argument("--chest", nargs="+", metavar="CH", help="chest acceleration components (m/s^2): 3 ms clip; "
                   "default occupant.a[1] when the result has it")
    p.add_argument("--chest-deflection", metavar="CH", help="chest deflection (m): maximum and VC")
    p.add_argument("--json", metavar="F.json", help="numbers file; default RESULT_crash.json")
    p.add_argument("--png", metavar="F.png", help="plot file; default RESULT_crash.png")
    p.add_argument("--no-plot", action="store_true", help="numbers only (no matplotlib needed)")
    p.set_defaults(func=cmd_crash_report)


__all__ = ["crash_numbers", "format_numbers", "plot_report", "cmd_crash_report", "add_parser"]
