"""The outcome of a co-simulation run: time grid, recorded outputs, energy residuals, iteration counts, cost."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class CosimResult:
    """``time`` (N + 1 communication points, s); ``values["<instance>.<variable>"]`` at those points; per step k
    (t_k -> t_k+1, N entries): ``energy[bond]`` the energy residual dE_k (J, energy.py), ``evaluations`` the number
    of times the FMUs were stepped over it (1 for explicit schemes), ``jacobians`` the number of finite-difference
    interface Jacobians computed in it; ``do_steps`` (fmi2DoStep calls in all), ``wall_time`` (s)."""

    scheme: str
    order: int
    step: float
    time: np.ndarray
    values: dict[str, np.ndarray]
    energy: dict[str, np.ndarray] = field(default_factory=dict)
    evaluations: np.ndarray | None = None
    jacobians: np.ndarray | None = None
    do_steps: int = 0
    wall_time: float = 0.0

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.values[name]
        except KeyError:
            raise KeyError(f"'{name}' was not recorded; recorded: {', '.join(self.values)}") from None

    def energy_cumulative(self, bond: str) -> np.ndarray:
        """Cumulative energy residual at the communication points (J), starting at 0."""
        return np.concatenate([[0.0], np.cumsum(self.energy[bond])])

    def to_csv(self, path: str | Path) -> Path:
        """Write time, the recorded values and the cumulative energy residuals, one row per communication point."""
        path = Path(path)
        names = list(self.values)
        bonds = list(self.energy)
        columns = [self.time] + [self.values[n] for n in names] + [self.energy_cumulative(b) for b in bonds]
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time", *names, *[f"energy_residual.{b}" for b in bonds]])
            for row in zip(*columns):
                w.writerow([repr(float(x)) for x in row])
        return path
