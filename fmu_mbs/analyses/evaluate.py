"""Evaluator: the solver's named data (analyses/workspace.py) plus thin calls into the kernels, for the
Python-level analyses.

All quantities SI; ``u`` is the input vector (CompiledModel.input_names), zero unless set. Element outputs land in
``out`` (each element's declared block, compiler/layout.py); ``<family>_out`` (e.g. ``cont_out``, ``rsda_out``) is
a view of one family's blocks as rows (elements) x columns (its declared outputs).
"""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..compiler.families import FAMILIES, needs_multipliers
from ..errors import ConvergenceError
from ..kernels.bodies.dispatch import add_body_forces, body_potential, eval_mass, kinetic_energy
from ..kernels.constraints import eval_constraints, scatter_dense
from ..kernels.contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW, grown_contact_workspace
from ..kernels.model_arrays import MODE_FULL
from ..kernels.outputs import eval_after_step, eval_forces, eval_frames, eval_multiplier_forces
from .workspace import new_work

#: short names of the family output views (``ev.cont_out`` is the contact family's)
_VIEW_KEYS = {"cont": "contact"}


class Evaluator:
    """Evaluates constraints, mass matrix and forces of one compiled model into owned arrays."""

    def __init__(self, cm: CompiledModel):
        self.cm = cm
        self.ws = new_work(cm)
        rows, fr = self.ws.rows, self.ws.fr
        self.phi, self.jac, self.nu, self.gamma, self.jtw = rows.phi, rows.jac, rows.nu, rows.gamma, rows.jtw
        self.r, self.A, self.v, self.w, self.o, self.R, self.vo, self.wm = (fr.r, fr.A, fr.v, fr.w, fr.o, fr.R,
                                                                           fr.vo, fr.wm)
        self.J = np.zeros((cm.n_rows, cm.n_q))
        self.M = np.zeros((cm.n_q, cm.n_q))
        self.Q = self.ws.Q
        self.u = np.zeros(cm.n_inputs)
        self.h = 0.0                                    # step of the force evaluation (0: static)
        self.zs = np.array(cm.arrays.z0, dtype=float)   # committed element states (model_arrays)
        self.zn = self.ws.zn                            # candidate element states of the last evaluation
        self.out = self.ws.out                          # element outputs of the last evaluation
        self.spring_energy = 0.0

    @property
    def cw(self):
        """The contact workspace (kernels.contact.ContactWork)."""
        return self.ws.cw

    @cw.setter
    def cw(self, value) -> None:
        self.ws = self.ws._replace(cw=value)

    def __getattr__(self, name: str):
        if name.endswith("_out") and not name.startswith("_"):
            return self.family_outputs(_VIEW_KEYS.get(name[:-4], name[:-4]))
        raise AttributeError(f"'Evaluator' object has no attribute '{name}'")

    def family_outputs(self, key: str) -> np.ndarray:
        """The output blocks of family ``key`` (compiler/families.py) as an (elements, outputs) view of ``out``."""
        fam = next((f for f in FAMILIES if f.key == key), None)
        if fam is None:
            raise AttributeError(f"no element family '{key}' (families: {[f.key for f in FAMILIES]})")
        adr = getattr(self.cm.arrays, key).out_adr
        width = fam.kernel.N_OUT
        start = int(adr[0]) if len(adr) else 0
        return self.out[start:start + width * len(adr)].reshape(len(adr), width)

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

    def forces(self, t: float, q: np.ndarray, qd: np.ndarray, mode: int = MODE_FULL) -> np.ndarray:
        """Generalized applied forces plus the bodies' own (velocity-dependent inertia, a flexible body's elastic and
        damping) forces Q (n_q), the applied ones with the terms of ``mode``
        (kernels.model_arrays MODE_*); sets spring_energy and the candidate element states ``zn`` (from the
        committed ``zs`` over the step ``h``)."""
        m = self.cm.arrays
        eval_frames(m, q, qd, self.ws.fr)
        while True:
            self.Q[:] = 0.0
            self.spring_energy = eval_forces(m, self.ws.fr, t, q, self.u, self.h, self.zs, self.zn, mode, self.Q,
                                             self.out, self.ws.cw)
            if not self.ws.cw.stat[ST_PAIR_OVERFLOW]:
                break
            self.cw = grown_contact_workspace(self.ws.cw)  # too many candidate pairs: grow and evaluate again
        check_contact_states(self.cm, self.ws.cw)
        add_body_forces(m, q, qd, self.Q)
        return self.Q

    @property
    def has_joint_friction(self) -> bool:
        """True if the model has forces loaded by the multipliers (joint friction)."""
        return needs_multipliers(self.cm.arrays)

    def joint_friction(self, q: np.ndarray, lam: np.ndarray, mode: int = MODE_FULL) -> np.ndarray:
        """Q += the forces loaded by the multipliers ``lam`` (joint friction, kernels/families/joint_friction.py);
        needs ``forces`` and ``constraints`` evaluated at this state (frames, twist rows); sets their outputs and
        the bristle states ``zn``. Returns Q."""
        if self.has_joint_friction:
            eval_multiplier_forces(self.cm.arrays, self.ws.fr, q, self.jtw, np.asarray(lam, dtype=float), self.h,
                                   self.zs, self.zn, mode, self.Q, self.out)
        return self.Q

    def after_step(self, q: np.ndarray, qdd: np.ndarray) -> None:
        """The families' after-step hooks at the frames of the last ``forces`` call (passive cylinders keep the end
        accelerations of (q, qdd) in ``zs``)."""
        eval_after_step(self.cm.arrays, self.ws.fr, q, qdd, self.zs)

    def kinetic_energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        return kinetic_energy(self.cm.arrays, q, qd)

    def gravity_energy(self, q: np.ndarray) -> float:
        """The bodies' potential energy (J): gravity, and a flexible body's elastic energy."""
        return body_potential(self.cm.arrays, q)


def check_contact_states(cm: CompiledModel, cw) -> None:
    """ConvergenceError if the contact state table overflowed (it names the compile option to raise)."""
    if cw.stat[ST_STATE_OVERFLOW]:
        cw.stat[ST_STATE_OVERFLOW] = 0
        raise ConvergenceError(
            f"model '{cm.model.name}': the contact state table is full ({int(cm.arrays.cont_state[1])} records, "
            f"3/4 usable); compile with a larger contact_state_capacity (compile_model(..., "
            f"contact_state_capacity=...))")
