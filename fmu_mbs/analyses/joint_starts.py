"""Initial joint coordinates and rates (``<joint>.s_start``, ``<joint>.sd_start``) as extra assembly rows.

A joint's coordinate s(q) and its gradient are the compiled model's measure rows (``CompiledModel.measure``, the
ANGLE and DP2 rows of compiler/joints.py evaluated with f = 0: s = Phi, sd = Phi_q qd). Assembly appends
s(q) - s_start = 0 to the position constraints and Phi_q,s qd = sd_start to the velocity constraints, so the
least-squares Newton and velocity solves of analyses/assembly.py keep the given values exactly and spread the
rest over the other coordinates; a start that the constraints cannot meet leaves a residual on its row, which
names the joint.
"""

from __future__ import annotations

import math

import numpy as np

from ..compiler import CompiledModel
from ..kernels.constraints import eval_constraints, scatter_dense
from ..kernels.model_arrays import ROW_ANGLE


class JointStarts:
    """The joints of ``cm`` with an initial coordinate or rate, and their measure rows evaluated on demand."""

    def __init__(self, cm: CompiledModel):
        self.cm = cm
        ms = cm.measure
        nm = len(ms.row_type)
        ncol = ms.row_cols.shape[1]
        self._phi, self._nu, self._gamma = np.zeros(nm), np.zeros(nm), np.zeros(nm)
        self._jac, self._jtw = np.zeros((nm, ncol)), np.zeros((nm, 12))
        self._J = np.zeros((nm, cm.n_q))
        self.s_rows, self.s_value, self.s_joint = [], [], []      # position holds: measure row, target, joint
        self.sd_rows, self.sd_value, self.sd_joint = [], [], []   # rate holds
        for j in cm.model.joints:
            rows = cm.coordinate_rows.get(j.name, [])
            if j.s_start is not None and len(rows) == 1:
                self.s_rows.append(rows[0])
                self.s_value.append(float(j.s_start))
                self.s_joint.append(j.name)
            if j.sd_start is not None and len(rows) == 1:
                self.sd_rows.append(rows[0])
                self.sd_value.append(float(j.sd_start))
                self.sd_joint.append(j.name)
        self._angle = np.asarray(ms.row_type)[self.s_rows] == ROW_ANGLE if self.s_rows else np.zeros(0, bool)

    def __bool__(self) -> bool:
        return bool(self.s_rows or self.sd_rows)

    def _eval(self, t: float, q: np.ndarray, qd: np.ndarray | None = None) -> None:
        qd = np.zeros_like(q) if qd is None else qd
        eval_constraints(self.cm.measure, t, q, qd, self._phi, self._jac, self._nu, self._gamma, self._jtw)
        scatter_dense(self._jac, self.cm.measure.row_cols, self._J)

    def position_rows(self, t: float, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(s(q) - s_start, its Jacobian) for the joints with s_start (angles wrapped into (-pi, pi])."""
        self._eval(t, q)
        r = self._phi[self.s_rows] - np.asarray(self.s_value)
        r[self._angle] = (r[self._angle] + math.pi) % (2.0 * math.pi) - math.pi
        return r, self._J[self.s_rows].copy()

    def rate_rows(self, t: float, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the Jacobian rows of the joints with sd_start, their rates sd_start)."""
        self._eval(t, q)
        return self._J[self.sd_rows].copy(), np.asarray(self.sd_value, dtype=float)

    def rates(self, t: float, q: np.ndarray, qd: np.ndarray, joints: list[str]) -> np.ndarray:
        """The rates (m/s or rad/s) of ``joints`` (one coordinate each) at (q, qd)."""
        self._eval(t, q, qd)
        rows = [self.cm.coordinate_rows[j][0] for j in joints]
        return self._J[rows] @ qd
