"""Evaluator: preallocated arrays plus thin calls into the kernels, for the Python-level analyses.

All quantities SI; ``u`` is the input vector (CompiledModel.input_names), zero unless set.
"""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..errors import ConvergenceError
from ..kernels.constraints import eval_constraints, scatter_dense
from ..kernels.contact import (
    N_CONT_OUT,
    ST_PAIR_OVERFLOW,
    ST_STATE_OVERFLOW,
    grown_contact_workspace,
    new_contact_workspace,
)
from ..kernels.hydraulics import N_HYD_OUT
from ..kernels.joint_friction import N_JF_OUT, add_joint_friction
from ..kernels.mass import add_inertia_forces, eval_mass, gravity_potential, kinetic_energy
from ..kernels.model_arrays import MAX_ROW_COLS
from ..kernels.outputs import eval_forces, eval_frames
from ..kernels.passive_cylinder import N_PC_OUT


class Evaluator:
    """Evaluates constraints, mass matrix and forces of one compiled model into owned arrays."""

    def __init__(self, cm: CompiledModel):
        self.cm = cm
        m = cm.arrays
        n, nr = cm.n_q, cm.n_rows
        nb, nm = len(cm.body_names), len(cm.marker_names)
        self.phi = np.zeros(nr)
        self.jac = np.zeros((nr, MAX_ROW_COLS))
        self.jtw = np.zeros((nr, 12))
        self.nu = np.zeros(nr)
        self.gamma = np.zeros(nr)
        self.J = np.zeros((nr, n))
        self.M = np.zeros((n, n))
        self.Q = np.zeros(n)
        self.u = np.zeros(cm.n_inputs)
        self.h = 0.0                                    # step of the force evaluation (0: static)
        self.zs = np.array(m.z0, dtype=float)           # committed element states (model_arrays)
        self.zn = np.array(m.z0, dtype=float)           # candidate element states of the last evaluation
        self.tsda_out = np.zeros((len(m.tsda_mi), 3))
        self.rsda_out = np.zeros((len(m.rsda_mi), 3))
        self.bush_out = np.zeros((len(m.bush_mi), 6))
        self.act_out = np.zeros((len(m.act_mi), 3))
        self.hyd_out = np.zeros((len(m.hyd_mi), N_HYD_OUT))
        self.cont_out = np.zeros((len(m.cont_law), N_CONT_OUT))
        self.pc_out = np.zeros((len(m.pc_mi), N_PC_OUT))
        self.jf_out = np.zeros((len(m.jf_type), N_JF_OUT))
        self.cw = new_contact_workspace(m)              # contact broad-phase buffers (kernels.contact)
        self.r = np.zeros((nb, 3))
        self.A = np.zeros((nb, 3, 3))
        self.v = np.zeros((nb, 3))
        self.w = np.zeros((nb, 3))
        self.o = np.zeros((nm, 3))
        self.R = np.zeros((nm, 3, 3))
        self.vo = np.zeros((nm, 3))
        self.wm = np.zeros((nm, 3))
        self.spring_energy = 0.0

    def constraints(self, t: float, q: np.ndarray, qd: np.ndarray | None = None) -> np.ndarray:
        """Evaluate Phi, nu, gamma and the dense Jacobian ``self.J``; returns Phi."""
        if qd is None:
            qd = np.zeros_like(q)
        eval_constraints(self.cm.arrays, t, q, qd, self.phi, self.jac, self.nu, self.gamma, self.jtw)
        scatter_dense(self.jac, self.cm.arrays.row_cols, self.J)
        return self.phi

    def mass(self, q: np.ndarray) -> np.ndarray:
        eval_mass(self.cm.arrays, q, self.M)
        return self.M

    def forces(self, t: float, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Generalized applied plus velocity-dependent inertia forces Q (n_q); sets spring_energy and the
        candidate element states ``zn`` (from the committed ``zs`` over the step ``h``)."""
        m = self.cm.arrays
        eval_frames(m, q, qd, self.r, self.A, self.v, self.w, self.o, self.R, self.vo, self.wm)
        while True:
            self.Q[:] = 0.0
            self.spring_energy = eval_forces(m, t, q, qd, self.r, self.o, self.R, self.vo, self.wm, self.u,
                                             self.h, self.zs, self.zn, self.Q, self.tsda_out, self.rsda_out,
                                             self.bush_out, self.act_out, self.hyd_out, self.cont_out, self.pc_out,
                                             self.cw)
            if not self.cw[8][ST_PAIR_OVERFLOW]:
                break
            self.cw = grown_contact_workspace(self.cw)     # too many candidate pairs: grow and evaluate again
        check_contact_states(self.cm, self.cw)
        add_inertia_forces(m, q, qd, self.Q)
        return self.Q

    @property
    def has_joint_friction(self) -> bool:
        return len(self.cm.arrays.jf_type) > 0

    def joint_friction(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Q += joint friction loaded by the multipliers ``lam`` (kernels/joint_friction.py); needs ``forces`` and
        ``constraints`` evaluated at this state (frames, twist rows); sets jf_out and the bristle states ``zn``.
        Returns Q."""
        if self.has_joint_friction:
            add_joint_friction(self.cm.arrays, q, self.r, self.o, self.R, self.vo, self.wm, self.jtw,
                               np.asarray(lam, dtype=float), self.h, self.zs, self.zn, self.Q, self.jf_out)
        return self.Q

    def kinetic_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        return kinetic_energy(self.cm.arrays, q, qd)

    def gravity_energy(self, q: np.ndarray) -> float:
        return gravity_potential(self.cm.arrays, q)


def check_contact_states(cm: CompiledModel, cw: tuple) -> None:
    """ConvergenceError if the contact state table overflowed (it names the compile option to raise)."""
    stat = cw[8]
    if stat[ST_STATE_OVERFLOW]:
        stat[ST_STATE_OVERFLOW] = 0
        raise ConvergenceError(
            f"model '{cm.model.name}': the contact state table is full ({int(cm.arrays.cont_state[1])} records, "
            f"3/4 usable); compile with a larger contact_state_capacity (compile_model(..., "
            f"contact_state_capacity=...))")
