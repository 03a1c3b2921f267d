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
from ..model.names import channel_names

TIME = "time"


def write_csv(path: str | Path, t: np.ndarray, names: Sequence[str], values: np.ndarray) -> None:
    """Write ``time`` and the columns ``values`` (N x len(names)) to ``path`` ('-' = standard output)."""
    t = np.asarray(t, dtype=float).reshape(-1)
    values = np.asarray(values, dtype=float).reshape(len(t), len(names))
    if str(path) == "-":
        _write(sys.stdout, t, names, values)
        return
    with open(path, "w", newline="", encoding="utf-8") as fh:
        _write(fh, t, names, values)


def _write(fh: io.TextIOBase, t: np.ndarray, names: Sequence[str], values: np.ndarray) -> None:
    csv.writer(fh, lineterminator="\n").writerow([TIME, *names])
    for ti, row in zip(t.tolist(), values.tolist()):
        fh.write(",".join(map(repr, [ti, *row])) + "\n")


def write_trajectory(path: str | Path, cm: CompiledModel, traj: Trajectory) -> np.ndarray:
    """Evaluate every channel of ``traj`` and write them to ``path``; returns the values (N x n_channels)."""
    values = evaluate_channels(cm, traj)
    write_csv(path, traj.t, channel_names(cm.model), values)
    return values


def read_csv(path: str | Path) -> dict[str, np.ndarray]:
    """Columns of a recording by name, in file order (``time`` first)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise ValueError(f"recording '{path}' is empty")
    header, body = rows[0], rows[1:]
    data = np.array([[float(x) for x in r] for r in body], dtype=float).reshape(len(body), len(header))
    return {name: data[:, k] for k, name in enumerate(header)}
