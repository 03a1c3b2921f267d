"""Values of the output channels (model/names.py) at consistent states, through the kernels.

Per state: marker frames and element outputs from ``Evaluator.forces``; marker accelerations
a = a_cm + alpha x s + w x (w x s) from ``frames.body_accelerations``; joint coordinates from the
measure rows (``CompiledModel.measure``) through ``eval_constraints``: s = Phi of the row, sd = Phi_q qd,
with revolute angles unwrapped from one state to the next so several turns stay continuous; joint
reactions and driver efforts from the multipliers (analyses/reactions.py); energies from the Evaluator.

``ChannelEvaluator`` keeps that memory (previous angles, RSDA turn count), so a step-by-step caller
(the FMU) and ``evaluate_channels`` (a whole Trajectory) give the same numbers.
"""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..kernels.constraints import eval_constraints
from ..kernels.frames import body_accelerations
from ..kernels.hydraulics import N_HYD_OUT
from ..kernels.model_arrays import MAX_ROW_COLS, PLANAR, RIGID, ROW_ANGLE
from ..model.elements import (
    Actuator,
    Bushing,
    Contact,
    HydraulicCylinder,
    JointFriction,
    RotationalSpringDamper,
    SpringDamper,
)
from ..model.names import HYDRAULIC_OUTPUTS, Channel, channels
from .evaluate import Evaluator
from .reactions import driver_efforts, joint_reactions
from .trajectory import Trajectory

_MARKER_SLOTS = {"r": 0, "v": 3, "a": 6, "q": 9, "w": 13}   # offsets inside a marker's 16 values
_FORCE_SLOTS = {"length": 0, "speed": 1, "f": 2, "force": 2, "angle": 0, "T": 2}


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise a x b of (n, 3) arrays (np.cross is ~10x slower on small arrays)."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _quat_product(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton products p (x) q of rows [w, x, y, z]; A(p (x) q) = A(p) A(q)."""
    out = np.empty(np.broadcast_shapes(p.shape, q.shape))
    out[..., 0] = p[..., 0] * q[..., 0] - np.sum(p[..., 1:] * q[..., 1:], axis=-1)
    out[..., 1:] = (p[..., :1] * q[..., 1:] + q[..., :1] * p[..., 1:]
                    + _cross(p[..., 1:], q[..., 1:]))
    return out


class ChannelEvaluator:
    """Evaluates every channel of a compiled model, one consistent state at a time (SI units)."""

    def __init__(self, cm: CompiledModel, evaluator: Evaluator | None = None):
        self.cm = cm
        self.ev = evaluator or Evaluator(cm)
        self.channels: list[Channel] = channels(cm.model)
        self.names = [c.name for c in self.channels]
        model, m = cm.model, cm.arrays
        nm, nmeas = len(cm.marker_names), len(cm.measure.row_type)
        self._tsda = [f.name for f in model.forces if isinstance(f, SpringDamper)]
        self._rsda = [f.name for f in model.forces if isinstance(f, RotationalSpringDamper)]
        self._bush = [f.name for f in model.forces if isinstance(f, Bushing)]
        self._act = [f.name for f in model.forces if isinstance(f, Actuator)]
        self._hyd = [f.name for f in model.forces if isinstance(f, HydraulicCylinder)]
        self._cont = [f.name for f in model.forces if isinstance(f, Contact)]
        self._jf = [f.name for f in model.forces if isinstance(f, JointFriction)]
        self._joints = [j.name for j in model.joints]
        self._drivers = [d.name for d in model.drivers]

        # one flat vector of raw values per state; the channels gather from it
        sizes = [("marker", 16 * nm), ("s", nmeas), ("sd", nmeas), ("reaction", 6 * len(self._joints)),
                 ("driver", len(self._drivers)), ("tsda", 3 * len(self._tsda)), ("rsda", 3 * len(self._rsda)),
                 ("bush", 6 * len(self._bush)), ("act", 3 * len(self._act)),
                 ("hyd", N_HYD_OUT * len(self._hyd)), ("cont", 5 * len(self._cont)),
                 ("jf", 3 * len(self._jf)), ("energy", 3), ("solver", 2)]
        self._raw = np.zeros(sum(n for _, n in sizes))
        self._off: dict[str, int] = {}
        pos = 0
        for key, n in sizes:
            self._off[key] = pos
            pos += n
        self._plan = np.array([self._slot(c) for c in self.channels], dtype=np.int64)

        # marker geometry for accelerations and quaternions
        self._mbody = np.asarray(m.marker_body)
        self._on_body = np.flatnonzero(self._mbody >= 0)
        self._q_local = np.array([[1.0, 0.0, 0.0, 0.0] if model.planar else
                                  np.asarray(mk.orientation) / np.linalg.norm(mk.orientation)
                                  for mk in model.markers]).reshape(nm, 4)
        self._angle_local = np.array([mk.angle for mk in model.markers], dtype=float)
        self._acc = np.zeros((len(cm.body_names), 3))
        self._alpha = np.zeros((len(cm.body_names), 3))
        # measure rows (one per joint coordinate)
        self._mphi = np.zeros(nmeas)
        self._mjac = np.zeros((nmeas, MAX_ROW_COLS))
        self._mnu = np.zeros(nmeas)
        self._mgamma = np.zeros(nmeas)
        self._mjtw = np.zeros((nmeas, 12))
        self._mcols = np.asarray(cm.measure.row_cols)
        self._is_angle = np.asarray(cm.measure.row_type) == ROW_ANGLE
        self._prev_s: np.ndarray | None = None

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
        if c.kind == "joint_friction":
            return self._off["jf"] + 3 * self._jf.index(c.element) + {"slip": 1, "load": 2}.get(c.quantity, 0)
        if c.kind == "energy":
            return self._off["energy"] + ("kinetic", "potential", "total").index(c.quantity)
        return self._off["solver"] + ("iterations", "residual").index(c.quantity)

    def reset(self) -> None:
        """Forget the previous state (angle unwrapping and RSDA turn counting restart)."""
        self._prev_s = None
        self.ev.zs[:] = self.cm.arrays.z0

    def _block(self, key: str, shape: tuple[int, ...]) -> np.ndarray:
        n = int(np.prod(shape))
        return self._raw[self._off[key]:self._off[key] + n].reshape(shape)

    def __call__(self, t: float, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                 u: np.ndarray | None = None, iterations: float = 0.0, residual: float = 0.0,
                 z: np.ndarray | None = None) -> np.ndarray:
        """Channel values (in ``self.names`` order) at the state (t, q, qd, qdd, lam) with inputs ``u``
        (None keeps the evaluator's current inputs) and committed element states ``z`` (an integrator's ``zs``;
        None: the states this evaluator carried from its previous call, which suits turn counting but neither
        pressures nor friction states). A shared evaluator's scratch arrays are overwritten."""
        ev = self.ev
        q, qd, qdd = (np.asarray(x, dtype=float) for x in (q, qd, qdd))
        if u is not None:
            ev.u[:] = u
        if z is not None:
            ev.zs[:] = z
        ev.h = 0.0
        ev.constraints(t, q, qd)                      # twist rows for the reactions
        ev.forces(t, q, qd)                           # frames, element outputs, spring energy
        ev.joint_friction(q, lam)                     # joint friction loaded by these multipliers
        ev.zs[:] = ev.zn                              # element states (RSDA turns) from this state on
        self._markers(q, qd, qdd)
        self._coordinates(t, q, qd)
        nj = len(self._joints)
        reactions = self._block("reaction", (nj, 6))
        for k, (F, T) in enumerate(joint_reactions(ev, np.asarray(lam, dtype=float)).values()):
            reactions[k, :3], reactions[k, 3:] = F, T
        self._block("driver", (len(self._drivers),))[:] = list(driver_efforts(ev, lam).values())
        self._block("tsda", ev.tsda_out.shape)[:] = ev.tsda_out
        self._block("rsda", ev.rsda_out.shape)[:] = ev.rsda_out
        self._block("bush", ev.bush_out.shape)[:] = ev.bush_out
        self._block("act", ev.act_out.shape)[:] = ev.act_out
        self._block("hyd", ev.hyd_out.shape)[:] = ev.hyd_out
        self._block("cont", ev.cont_out.shape)[:] = ev.cont_out
        self._block("jf", ev.jf_out.shape)[:] = ev.jf_out
        kinetic = ev.kinetic_energy(q, qd)
        potential = ev.gravity_energy(q) + ev.spring_energy
        self._block("energy", (3,))[:] = (kinetic, potential, kinetic + potential)
        self._block("solver", (2,))[:] = (iterations, residual)
        return self._raw[self._plan] + 0.0          # + 0.0 turns -0.0 into 0.0

    def _markers(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> None:
        """Position, velocity, acceleration, quaternion and angular velocity of every marker."""
        cm, ev, m = self.cm, self.ev, self.cm.arrays
        blk = self._block("marker", (len(cm.marker_names), 16))
        blk[:, 0:3], blk[:, 3:6], blk[:, 13:16] = ev.o, ev.vo, ev.wm
        body_accelerations(m, q, qd, qdd, self._acc, self._alpha)
        blk[:, 6:9] = 0.0
        k = self._on_body
        b = self._mbody[k]
        s = ev.o[k] - ev.r[b]
        w = ev.w[b]
        blk[k, 6:9] = self._acc[b] + _cross(self._alpha[b], s) + _cross(w, _cross(w, s))
        # orientation: body Euler parameters (x) marker quaternion, continuous along a trajectory
        if cm.model.planar:
            angle = self._angle_local.copy()
            planar = k[m.body_kind[b] == PLANAR]
            angle[planar] += q[m.body_q_adr[self._mbody[planar]] + 2]
            blk[:, 9:13] = 0.0
            blk[:, 9], blk[:, 12] = np.cos(0.5 * angle), np.sin(0.5 * angle)
        else:
            quat = self._q_local.copy()
            rigid = k[m.body_kind[b] == RIGID]
            if rigid.size:
                adr = m.body_q_adr[self._mbody[rigid]] + 3
                p = q[adr[:, None] + np.arange(4)]
                p = p / np.linalg.norm(p, axis=1, keepdims=True)
                quat[rigid] = _quat_product(p, quat[rigid])
            blk[:, 9:13] = quat

    def _coordinates(self, t: float, q: np.ndarray, qd: np.ndarray) -> None:
        """Joint coordinates s (unwrapped angles) and rates sd from the measure rows."""
        n = len(self._mphi)
        if n == 0:
            return
        eval_constraints(self.cm.measure, t, q, qd, self._mphi, self._mjac, self._mnu, self._mgamma, self._mjtw)
        cols = self._mcols
        sd = np.sum(np.where(cols >= 0, self._mjac * qd[np.maximum(cols, 0)], 0.0), axis=1)
        s = self._mphi.copy()
        if self._prev_s is not None:
            jump = s - self._prev_s
            wrapped = np.arctan2(np.sin(jump), np.cos(jump))
            s = np.where(self._is_angle, self._prev_s + wrapped, s)
        self._prev_s = s
        self._block("s", (n,))[:] = s
        self._block("sd", (n,))[:] = sd


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
