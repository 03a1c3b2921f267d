"""Trajectory: the time history every analysis returns (one row per output time, SI units)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Trajectory:
    """Consistent states over time. ``lam`` are the multipliers of the constraint rows
    (CompiledModel.row_label) in the M qdd + Phi_q^T lam = Q convention; ``u`` the input vector used
    (CompiledModel.input_names); ``z`` the element states (pressures, turn counters, friction anchors: see
    kernels.model_arrays) when the analysis carries them; ``info`` holds per-row analysis data such as 'iterations',
    'residual_position', 'residual_velocity', 'residual_acceleration' or energy terms."""

    t: np.ndarray                 # (N,) s
    q: np.ndarray                 # (N, n_q)
    qd: np.ndarray                # (N, n_q)
    qdd: np.ndarray               # (N, n_q)
    lam: np.ndarray               # (N, n_rows)
    u: np.ndarray | None = None   # (N, n_inputs)
    info: dict[str, np.ndarray] = field(default_factory=dict)
    analysis: str = ""
    z: np.ndarray | None = None   # (N, n_z) committed element states (friction, contact history), if recorded

    def __len__(self) -> int:
        return len(self.t)

    @classmethod
    def single(cls, t: float, q, qd, qdd, lam, analysis: str = "", **info) -> Trajectory:
        """A one-row trajectory (statics, assembly)."""
        return cls(np.array([t]), np.atleast_2d(q), np.atleast_2d(qd), np.atleast_2d(qdd), np.atleast_2d(lam),
                   info={k: np.atleast_1d(v) for k, v in info.items()}, analysis=analysis)
