"""Trajectory: the time history every analysis returns (one row per output time, SI units)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

import numpy as np

from ..compiler import CompiledModel
from ..errors import AnalysisError


@dataclass
class Trajectory:
    """Consistent states over time. ``lam`` are the multipliers of the constraint rows
    (CompiledModel.row_label) in the M qdd + Phi_q^T lam = Q convention; ``u`` the input vector used
    (CompiledModel.input_names); ``z`` the element states (pressures, turn counters, friction anchors: see
    kernels.model_arrays) when the analysis carries them; ``info`` holds per-row analysis data such as 'iterations',
    'residual_position', 'residual_velocity', 'residual_acceleration' or energy terms.

    The output channels (model/names.py, the CSV columns) by name: ``traj["P1.r[1]"]`` (one value per row, SI
    units), ``traj.channel_names()``; evaluated once, on first use, with the compiled model ``model`` that the
    analyses attach."""

    t: np.ndarray                 # (N,) s
    q: np.ndarray                 # (N, n_q)
    qd: np.ndarray                # (N, n_q)
    qdd: np.ndarray               # (N, n_q)
    lam: np.ndarray               # (N, n_rows)
    u: np.ndarray | None = None   # (N, n_inputs)
    info: dict[str, np.ndarray] = field(default_factory=dict)
    analysis: str = ""
    z: np.ndarray | None = None   # (N, n_z) committed element states (friction, contact history), if recorded
    model: CompiledModel | None = field(default=None, repr=False)    # for channels by name
    notes: list[str] = field(default_factory=list)   # what the analysis wants the user to know (the CLI prints them)
    _channels: dict[str, np.ndarray] | None = field(default=None, init=False, repr=False)

    def __len__(self) -> int:
        return len(self.t)

    def channels(self) -> dict[str, np.ndarray]:
        """Every channel by name ("time" first), each an array with one value per row (SI units)."""
        if self._channels is None:
            if self.model is None:
                raise AnalysisError("this trajectory has no compiled model attached; use "
                                    "fmu_mbs.evaluate_channels(cm, trajectory)")
            from ..model.names import channel_names
            from .channels import evaluate_channels
            values = evaluate_channels(self.model, self)
            self._channels = {"time": np.asarray(self.t), **{
                name: values[:, k] for k, name in enumerate(channel_names(self.model.model))}}
        return self._channels

    def channel_names(self) -> list[str]:
        """Names of the output channels (model/names.py), the CSV columns after "time"."""
        return list(self.channels())[1:]

    def __getitem__(self, name: str) -> np.ndarray:
        chans = self.channels()
        if name not in chans:
            close = difflib.get_close_matches(name, list(chans), n=3, cutoff=0.5)
            raise KeyError(f"no channel '{name}'" + (f"; did you mean {', '.join(close)}?" if close else ""))
        return chans[name]

    @classmethod
    def single(cls, t: float, q, qd, qdd, lam, analysis: str = "", **info) -> Trajectory:
        """A one-row trajectory (statics, assembly)."""
        return cls(np.array([t]), np.atleast_2d(q), np.atleast_2d(qd), np.atleast_2d(qdd), np.atleast_2d(lam),
                   info={k: np.atleast_1d(v) for k, v in info.items()}, analysis=analysis)
