"""PNG plots of chosen channels against time. matplotlib is optional (``pip install fmu-mbs[plot]``) and
is imported only here, only when a plot is asked for; the Agg canvas is used directly, so no display and
no global pyplot state are involved."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def select_channels(patterns: Sequence[str], names: Sequence[str]) -> list[str]:
    """Channel names matching ``patterns``: exact names, or wildcards ``*`` and ``?`` (``crank.r[*]``).
    Raises ValueError naming an unknown channel and the closest known names."""
    chosen: list[str] = []
    for pat in patterns:
        if pat in names:
            hits = [pat]
        elif "*" in pat or "?" in pat:
            rx = re.compile(re.escape(pat).replace(r"\*", ".*").replace(r"\?", ".") + r"\Z")
            hits = [n for n in names if rx.match(n)]
        else:
            hits = []
        if not hits:
            close = difflib.get_close_matches(pat, names, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"no channel matches '{pat}'{hint}")
        chosen += [h for h in hits if h not in chosen]
    return chosen


def _figure_classes():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plotting needs matplotlib: pip install fmu-mbs[plot]") from None
    return Figure, FigureCanvasAgg


def plot_channels(path: str | Path, t: np.ndarray, columns: dict[str, np.ndarray], units: dict[str, str],
                  title: str = "") -> None:
    """Save a PNG of ``columns`` (name -> values) against time ``t`` (s): one panel per unit, shared time axis."""
    Figure, FigureCanvasAgg = _figure_classes()
    by_unit: dict[str, list[str]] = {}
    for name in columns:
        by_unit.setdefault(units.get(name, ""), []).append(name)
    fig = Figure(figsize=(8.0, 2.2 + 2.0 * len(by_unit)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(by_unit), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (unit, names) in zip(axes, by_unit.items()):
        for name in names:
            ax.plot(t, columns[name], label=name)
        ax.set_ylabel(unit if unit and unit != "1" else "value")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("time (s)")
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=100)
