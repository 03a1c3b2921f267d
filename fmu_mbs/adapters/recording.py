"""CSV recordings of channel histories: a ``time`` column (s), then one column per channel named by
model/names.py, values in SI units. Floats are written with ``repr`` (the shortest text that reads back
to the same double), so a written file reads back bit for bit.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..analyses.channels import evaluate_channels
from ..analyses.trajectory import Trajectory
from ..compiler import CompiledModel
from ..model.names import channels

TIME = "time"


def write_csv(path: str | Path, t: np.ndarray, names: Sequence[str], values: np.ndarray,
              units: Sequence[str] | None = None) -> None:
    """Write ``time`` and the columns ``values`` (N x len(names)) to ``path`` ('-' = standard output); ``units``
    (one per name) adds a second header row of units ("s" for time)."""
    t = np.asarray(t, dtype=float).reshape(-1)
    values = np.asarray(values, dtype=float).reshape(len(t), len(names))
    if str(path) == "-":
        _write(sys.stdout, t, names, values, units)
        return
    with open(path, "w", newline="", encoding="utf-8") as fh:
        _write(fh, t, names, values, units)


def _write(fh: io.TextIOBase, t: np.ndarray, names: Sequence[str], values: np.ndarray, units=None) -> None:
    csv.writer(fh, lineterminator="\n").writerow([TIME, *names])
    if units is not None:
        csv.writer(fh, lineterminator="\n").writerow(["s", *units])
    for ti, row in zip(t.tolist(), values.tolist()):
        fh.write(",".join(map(repr, [ti, *row])) + "\n")


def write_trajectory(path: str | Path, cm: CompiledModel, traj: Trajectory, units: bool = False) -> np.ndarray:
    """Evaluate every channel of ``traj`` and write them to ``path`` (``units``: with a row of units); returns
    the values (N x n_channels)."""
    values = evaluate_channels(cm, traj)
    chans = channels(cm.model)
    write_csv(path, traj.t, [c.name for c in chans], values, [c.unit for c in chans] if units else None)
    return values


def read_csv(path: str | Path) -> dict[str, np.ndarray]:
    """Columns of a recording by name, in file order (``time`` first); a row of units is skipped."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise ValueError(f"recording '{path}' is empty")
    header, body = rows[0], rows[1:]
    if body and body[0] and body[0][0] == "s":      # a row of units (write_csv(..., units=...))
        body = body[1:]
    data = np.array([[float(x) for x in r] for r in body], dtype=float).reshape(len(body), len(header))
    return {name: data[:, k] for k, name in enumerate(header)}
