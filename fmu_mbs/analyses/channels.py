"""Values of the output channels (model/names.py) at consistent states, through the kernels.

Per state, one kernel call (kernels/channel_values.py) fills a flat raw vector: marker frames and
accelerations a = a_cm + alpha x s + w x (w x s); joint coordinates from the measure rows
(``CompiledModel.measure``): s = Phi of the row, sd = Phi_q qd, with revolute angles unwrapped from one state to
the next so several turns stay continuous; joint reactions and driver efforts from the multipliers (the
convention of analyses/reactions.py); element outputs; energies. The channels gather from that vector.

``ChannelEvaluator`` keeps that memory (previous angles, RSDA turn count), so a step-by-step caller
(the FMU) and ``evaluate_channels`` (a whole Trajectory) give the same numbers.
"""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..kernels.channel_values import MARKER_VALUES, channel_values
from ..kernels.contact import ST_PAIR_OVERFLOW, grown_contact_workspace
from ..kernels.hydraulics import N_HYD_OUT
from ..kernels.model_arrays import MAX_ROW_COLS, ROW_ANGLE
from ..kernels.outputs import eval_frames
from ..kernels.passive_cylinder import N_PC_OUT, store_end_accelerations
from ..model.elements import (
    Actuator,
    Bushing,
    Contact,
    HydraulicCylinder,
    JointFriction,
    PassiveCylinder,
    RotationalSpringDamper,
    SpringDamper,
)
from ..model.names import HYDRAULIC_OUTPUTS, Channel, channels
from .evaluate import Evaluator, check_contact_states
from .trajectory import Trajectory

_MARKER_SLOTS = {"r": 0, "v": 3, "a": 6, "q": 9, "w": 13}   # offsets inside a marker's 16 values
_FORCE_SLOTS = {"length": 0, "speed": 1, "f": 2, "force": 2, "angle": 0, "T": 2}


class ChannelEvaluator:
    """Evaluates every channel of a compiled model, one consistent state at a time (SI units)."""

    def __init__(self, cm: CompiledModel, evaluator: Evaluator | None = None):
        self.cm = cm
        self.ev = evaluator or Evaluator(cm)
        self.channels: list[Channel] = channels(cm.model)
        self.names = [c.name for c in self.channels]
        model = cm.model
        nm, nmeas = len(cm.marker_names), len(cm.measure.row_type)
        self._tsda = [f.name for f in model.forces if isinstance(f, SpringDamper)]
        self._rsda = [f.name for f in model.forces if isinstance(f, RotationalSpringDamper)]
        self._bush = [f.name for f in model.forces if isinstance(f, Bushing)]
        self._act = [f.name for f in model.forces if isinstance(f, Actuator)]
        self._hyd = [f.name for f in model.forces if isinstance(f, HydraulicCylinder)]
        self._cont = [f.name for f in model.forces if isinstance(f, Contact)]
        self._pc = [f.name for f in model.forces if isinstance(f, PassiveCylinder)]
        self._jf = [f.name for f in model.forces if isinstance(f, JointFriction)]
        self._joints = [j.name for j in model.joints]
        self._drivers = [d.name for d in model.drivers]

        # one flat vector of raw values per state; the channels gather from it
        sizes = [("marker", MARKER_VALUES * nm), ("s", nmeas), ("sd", nmeas), ("reaction", 6 * len(self._joints)),
                 ("driver", len(self._drivers)), ("tsda", 3 * len(self._tsda)), ("rsda", 3 * len(self._rsda)),
                 ("bush", 6 * len(self._bush)), ("act", 3 * len(self._act)),
                 ("hyd", N_HYD_OUT * len(self._hyd)), ("cont", 5 * len(self._cont)),
                 ("pc", N_PC_OUT * len(self._pc)), ("energy", 3), ("solver", 2),   # order of channel_values
                 ("jf", 3 * len(self._jf))]          # after the kernel: joint friction needs the multipliers
        self._raw = np.zeros(sum(n for _, n in sizes))
        self._off: dict[str, int] = {}
        pos = 0
        for key, n in sizes:
            self._off[key] = pos
            pos += n
        self._plan = np.array([self._slot(c) for c in self.channels], dtype=np.int64)

        self._off_blocks = np.array([self._off[key] for key, _ in sizes], dtype=np.int64)

        # work arrays of the kernel (the Evaluator's, so it holds this state's frames afterwards)
        ev = self.ev
        nb = len(cm.body_names)
        self._q_local = np.array([[1.0, 0.0, 0.0, 0.0] if model.planar else
                                  np.asarray(mk.orientation) / np.linalg.norm(mk.orientation)
                                  for mk in model.markers]).reshape(nm, 4)
        self._angle_local = np.array([mk.angle for mk in model.markers], dtype=float)
        self._cw = (ev.phi, ev.jac, ev.nu, ev.gamma, ev.jtw)
        self._ws = (ev.r, ev.A, ev.v, ev.w, ev.o, ev.R, ev.vo, ev.wm, np.zeros((nb, 3)), np.zeros((nb, 3)))
        self._mw = (np.zeros(nmeas), np.zeros((nmeas, MAX_ROW_COLS)), np.zeros(nmeas), np.zeros(nmeas),
                    np.zeros((nmeas, 12)))
        self._fo = (ev.tsda_out, ev.rsda_out, ev.bush_out, ev.act_out, ev.hyd_out, ev.cont_out, ev.pc_out)
        self._stroke_driven = [k for k, row in enumerate(cm.arrays.pc_row) if row >= 0]
        rows = [cm.joint_rows[j.name] for j in model.joints]
        self._plan_arrays = (
            np.array([cm.marker_names.index(j.marker_i) for j in model.joints], dtype=np.int64),
            np.array([cm.marker_names.index(j.marker_j) for j in model.joints], dtype=np.int64),
            np.cumsum([0] + [len(r) for r in rows]).astype(np.int64),
            np.array([k for r in rows for k in r], dtype=np.int64),
            np.array([cm.driver_rows[d] for d in self._drivers], dtype=np.int64))
        self._is_angle = np.asarray(cm.measure.row_type) == ROW_ANGLE
        self._prev_s = np.zeros(nmeas)
        self._has_prev = False

    def _slot(self, c: Channel) -> int:
        """Index of channel ``c`` in the raw vector."""
        cm, k = self.cm, max(c.index, 1) - 1
        if c.kind == "marker":
            return self._off["marker"] + 16 * cm.marker_names.index(c.element) + _MARKER_SLOTS[c.quantity] + k
        if c.kind == "joint" and c.quantity in ("s", "sd"):
            return self._off[c.quantity] + cm.coordinate_rows[c.element][k]
        if c.kind == "joint":
            return self._off["reaction"] + 6 * self._joints.index(c.element) + (3 if c.quantity == "T" else 0) + k
        if c.kind == "driver":
            return self._off["driver"] + self._drivers.index(c.element)
        if c.kind == "bushing":
            return self._off["bush"] + 6 * self._bush.index(c.element) + (3 if c.quantity == "T" else 0) + k
        if c.kind in ("spring_damper", "rotational_spring_damper", "actuator"):
            key, names = {"spring_damper": ("tsda", self._tsda), "rotational_spring_damper": ("rsda", self._rsda),
                          "actuator": ("act", self._act)}[c.kind]
            return self._off[key] + 3 * names.index(c.element) + _FORCE_SLOTS[c.quantity]
        if c.kind == "hydraulic_cylinder":
            return (self._off["hyd"] + N_HYD_OUT * self._hyd.index(c.element)
                    + [q for q, _ in HYDRAULIC_OUTPUTS].index(c.quantity))
        if c.kind == "contact":
            return self._off["cont"] + 5 * self._cont.index(c.element) + {"fn": 0, "ft": 1 + k, "depth": 4}[c.quantity]
        if c.kind == "passive_cylinder":
            return (self._off["pc"] + N_PC_OUT * self._pc.index(c.element)
                    + {"length": 0, "speed": 1, "force": 2, "fi": 3 + k, "fj": 6 + k, "ti": 9 + k}[c.quantity])
        if c.kind == "joint_friction":
            return self._off["jf"] + 3 * self._jf.index(c.element) + {"slip": 1, "load": 2}.get(c.quantity, 0)
        if c.kind == "energy":
            return self._off["energy"] + ("kinetic", "potential", "total").index(c.quantity)
        return self._off["solver"] + ("iterations", "residual").index(c.quantity)

    def reset(self) -> None:
        """Forget the previous state (angle unwrapping and RSDA turn counting restart)."""
        self._has_prev = False
        self.ev.zs[:] = self.cm.arrays.z0

    def __call__(self, t: float, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                 u: np.ndarray | None = None, iterations: float = 0.0, residual: float = 0.0,
                 z: np.ndarray | None = None) -> np.ndarray:
        """Channel values (in ``self.names`` order) at the state (t, q, qd, qdd, lam) with inputs ``u``
        (None keeps the evaluator's current inputs) and committed element states ``z`` (an integrator's ``zs``;
        None: the states this evaluator carried from its previous call, which suits turn counting but neither
        pressures nor friction states). A shared evaluator's scratch arrays are overwritten."""
        ev = self.ev
        q, qd, qdd, lam = (np.asarray(x, dtype=float) for x in (q, qd, qdd, lam))
        if u is not None:
            ev.u[:] = u
        if z is not None:
            ev.zs[:] = z
        ev.h = 0.0
        m = self.cm.arrays
        if len(m.pc_mi):               # passive cylinders: the end accelerations of this state (what an integrator
            eval_frames(m, q, qd, ev.r, ev.A, ev.v, ev.w, ev.o, ev.R, ev.vo, ev.wm)   # stores after the step)
            store_end_accelerations(m, q, qdd, ev.r, ev.w, ev.o, ev.zs)
        while True:
            prev_s = self._prev_s.copy()               # the kernel unwraps against it (and may run twice)
            ev.spring_energy = channel_values(
                m, self.cm.measure, float(t), q, qd, qdd, lam, ev.u, ev.zs, ev.zn, ev.Q, self._cw, self._ws,
                self._mw, self._fo, ev.cw, self._plan_arrays, self._q_local, self._angle_local, self.cm.model.planar,
                self._is_angle, prev_s, self._has_prev, float(iterations), float(residual), self._raw,
                self._off_blocks)
            if not ev.cw[8][ST_PAIR_OVERFLOW]:
                break
            ev.cw = grown_contact_workspace(ev.cw)      # too many candidate pairs: grow and evaluate again
        self._prev_s[:] = prev_s
        check_contact_states(self.cm, ev.cw)
        self._has_prev = True
        if ev.has_joint_friction:                     # loaded by these multipliers, at the kernel's frames
            ev.joint_friction(q, lam)
            self._raw[self._off["jf"]:self._off["jf"] + ev.jf_out.size] = ev.jf_out.ravel()
        ev.zs[:] = ev.zn                              # element states (RSDA turns) from this state on
        if self._stroke_driven:
            pc = self._raw[self._off["pc"]:self._off["pc"] + ev.pc_out.size].reshape(ev.pc_out.shape)
            for k in self._stroke_driven:  # the drive is the distance row's force -lam d on marker_j (ROW_D)
                f = -float(lam[m.pc_row[k]]) * pc[k, 0]
                e = (ev.o[m.pc_mj[k]] - ev.o[m.pc_mi[k]]) / pc[k, 0]
                pc[k, 2] = f
                pc[k, 3:6] -= f * e
                pc[k, 6:9] += f * e
        return self._raw[self._plan] + 0.0          # + 0.0 turns -0.0 into 0.0


def evaluate_channels(cm: CompiledModel, traj: Trajectory) -> np.ndarray:
    """Channel values (N x n_channels) of every row of ``traj``, in the order of ``channels(cm.model)``.
    ``solver.iterations`` and ``solver.residual`` come from traj.info ('iterations'; 'residual' or else
    'residual_position') when the analysis provides them, else 0."""
    ce = ChannelEvaluator(cm)
    n = len(traj.t)
    out = np.empty((n, len(ce.names)))
    info = traj.info or {}
    iters = info.get("iterations")
    resid = info.get("residual", info.get("residual_position"))
    for i in range(n):
        u = None if traj.u is None else traj.u[i]
        z = None if traj.z is None else traj.z[i]
        out[i] = ce(float(traj.t[i]), traj.q[i], traj.qd[i], traj.qdd[i], traj.lam[i], u,
                    0.0 if iters is None else float(iters[i]), 0.0 if resid is None else float(resid[i]), z)
    return out


__all__ = ["ChannelEvaluator", "evaluate_channels"]
