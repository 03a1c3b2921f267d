"""Summary of a study's results folder: counts, the table of failed runs (also written as ``failures.csv``) and a
response plot of one scalar against one or two parameters (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from .store import read_table
from .study import RESERVED, StudyError


def study_columns(out: str | Path) -> tuple[list[str], list[str]]:
    """(parameter names, scalar names) of the study in the folder ``out`` (from its study.json)."""
    import json
    spec = json.loads((Path(out) / "study.json").read_text(encoding="utf-8"))
    return list(spec["runs"][0]), [s["name"] for s in spec["scalars"]]


def failures(out: str | Path) -> list[dict]:
    """The failed runs: run, parameters, attempts, reason and the last line of the log."""
    table = read_table(out)
    params, _ = study_columns(out)
    rows = []
    for k, status in enumerate(table["status"]):
        if status != "ok":
            log = [line for line in table["log"][k].splitlines() if line.strip()]
            rows.append({"run": table["run"][k], **{p: table[p][k] for p in params},
                         "attempts": table["attempts"][k], "reason": table["reason"][k],
                         "log (last line)": log[-1] if log else ""})
    return rows


def response_plot(out: str | Path, scalar: str | None = None, x: str | None = None, y: str | None = None,
                  path: str | Path | None = None) -> Path:
    """Plot ``scalar`` (default: the first) against parameter ``x`` (default: the first), one line per level of
    ``y`` when it has at most 8 levels, else a scatter coloured by ``y``; failed runs are left out. Returns the
    PNG path (default ``<out>/response_<scalar>.png``)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = read_table(out)
    params, scalars = study_columns(out)
    scalar = scalar or (scalars[0] if scalars else None)
    if scalar not in scalars:
        raise StudyError(f"sweep-report: no scalar '{scalar}' in this study (scalars: {', '.join(scalars)})")
    x = x or params[0]
    if y is None and len(params) > 1:
        y = next(p for p in params if p != x)
    for p in (x, y):
        if p is not None and p not in params:
            raise StudyError(f"sweep-report: no parameter '{p}' in this study (parameters: {', '.join(params)})")
    ok = [k for k, s in enumerate(table["status"]) if s == "ok"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if y is None:
        pts = sorted((table[x][k], table[scalar][k]) for k in ok)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-")
    else:
        levels = sorted({table[y][k] for k in ok})
        if len(levels) <= 8:
            for lev in levels:
                pts = sorted((table[x][k], table[scalar][k]) for k in ok if table[y][k] == lev)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"{y} = {lev:g}")
            ax.legend()
        else:
            sc = ax.scatter([table[x][k] for k in ok], [table[scalar][k] for k in ok], c=[table[y][k] for k in ok])
            fig.colorbar(sc, ax=ax, label=y)
    n_failed = len(table["status"]) - len(ok)
    ax.set_xlabel(x)
    ax.set_ylabel(scalar)
    ax.set_title(f"{len(ok)} runs" + (f" ({n_failed} failed, not shown)" if n_failed else ""))
    ax.grid(True, alpha=0.3)
    path = Path(path) if path else Path(out) / f"response_{_safe(scalar)}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def summary_text(out: str | Path) -> str:
    """Counts and the failure table, as printed by ``fmu-mbs sweep-report`` (also writes failures.csv)."""
    table = read_table(out)
    n = len(table["run"])
    fails = failures(out)
    spent = sum(t for t in table["wall_time"] if not math.isnan(t))
    lines = [f"{n} runs recorded: {n - len(fails)} ok, {len(fails)} failed; {spent:.1f} s of run time in all"]
    path = Path(out) / "failures.csv"
    if fails:
        with path.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(fails[0]))
            w.writeheader()
            w.writerows(fails)
        lines.append("failed runs (also in failures.csv):")
        for row in fails:
            params = ", ".join(f"{k} = {v}" for k, v in row.items() if k not in (*RESERVED, "log (last line)"))
            lines.append(f"  run {row['run']} ({params}), {row['attempts']} attempts: {row['reason']}")
            if row["log (last line)"]:
                lines.append(f"      log: {row['log (last line)'][:200]}")
    else:
        path.unlink(missing_ok=True)
    return "\n".join(lines)
