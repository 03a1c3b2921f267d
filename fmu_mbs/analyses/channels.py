"""Values of the output channels (model/names.py) at consistent states, through the kernels.

Per state, the kernel (kernels/channel_values.py) fills a flat raw vector: marker frames and
accelerations a = a_cm + alpha x s + w x (w x s); joint coordinates from the measure rows
(``CompiledModel.measure``): s = Phi of the row, sd = Phi_q qd, with revolute angles unwrapped from one state to
the next so several turns stay continuous; joint reactions and driver efforts from the multipliers (the
convention of analyses/reactions.py); the element output vector, whose slots the compiler's layout allocator
gave every declared output (``CompiledModel.output_slots``); energies. The channels gather from that vector.

``ChannelEvaluator`` keeps that memory (previous angles, RSDA turn count), so a step-by-step caller
(the FMU, one call per state) and ``evaluate_channels`` (a whole Trajectory, ``ChannelEvaluator.rows``: all rows in
one kernel call) give the same numbers.
"""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..compiler.families import needs_after_step
from ..kernels.channel_values import MARKER_VALUES, channel_rows, channel_values, planar_angles
from ..kernels.contact import ST_PAIR_OVERFLOW, grown_contact_workspace
from ..kernels.model_arrays import ROW_ANGLE
from ..model.modal_outputs import KIND as MODAL_KIND
from ..model.names import Channel, channels
from .evaluate import Evaluator, check_contact_states
from .trajectory import Trajectory
from .workspace import new_rows

_MARKER_SLOTS = {"r": 0, "v": 3, "a": 6, "q": 9, "w": 13}   # offsets inside a marker's 16 values


class ChannelEvaluator:
    """Evaluates every channel of a compiled model, one consistent state at a time (SI units)."""

    def __init__(self, cm: CompiledModel, evaluator: Evaluator | None = None):
        self.cm = cm
        self.ev = evaluator or Evaluator(cm)
        self.channels: list[Channel] = channels(cm.model)
        self.names = [c.name for c in self.channels]
        model = cm.model
        nm, nmeas = len(cm.marker_names), len(cm.measure.row_type)
        self._joints = [j.name for j in model.joints]
        self._drivers = [d.name for d in model.drivers]

        # one flat vector of raw values per state; the channels gather from it (order of channel_values' blocks)
        sizes = [("marker", MARKER_VALUES * nm), ("s", nmeas), ("sd", nmeas), ("reaction", 6 * len(self._joints)),
                 ("driver", len(self._drivers)), ("out", cm.n_out), ("energy", 3), ("solver", 2)]
        # after the kernel's blocks: the integrator's energy sums (dissipated, input), given by the caller, and the
        # marker angles of a planar model (from the quaternions about z, unwrapped from one state to the next)
        self._planar = bool(model.planar)
        # modal-body channels (eta, node displacements, stresses) last, filled in Python from q and qd
        # (imported only then: it needs fmu_mbs.fe and scipy.linalg, ~0.7 s of an FMU's start-up)
        self._modal = None
        if any(c.kind == MODAL_KIND for c in self.channels):
            from .modal_channels import ModalChannels
            self._modal = ModalChannels(cm, self.channels)
        n_modal = len(self._modal.names) if self._modal is not None else 0
        self._raw = np.zeros(sum(n for _, n in sizes) + 2 + nm + n_modal)
        self._off: dict[str, int] = {}
        pos = 0
        for key, n in sizes:
            self._off[key] = pos
            pos += n
        self._off["sums"] = pos
        self._off["phi"] = pos + 2
        self._off["modal"] = pos + 2 + nm
        self._prev_phi = np.zeros(nm)   # a planar model's marker angles at the last evaluation (rad, unwrapped)
        self._plan = np.array([self._slot(c) for c in self.channels], dtype=np.int64)
        self._off_blocks = np.array([self._off[key] for key, _ in sizes], dtype=np.int64)

        self._q_local = np.array([[1.0, 0.0, 0.0, 0.0] if model.planar else
                                  np.asarray(mk.orientation) / np.linalg.norm(mk.orientation)
                                  for mk in model.markers]).reshape(nm, 4)
        self._angle_local = np.array([mk.angle for mk in model.markers], dtype=float)
        self._mrows = new_rows(nmeas, cm.measure.row_cols.shape[1])
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
        if self._modal is not None and c.name in self._modal.names:
            return self._off["modal"] + self._modal.names.index(c.name)
        if c.kind == "marker" and c.quantity == "phi":
            return self._off["phi"] + cm.marker_names.index(c.element)
        if c.kind == "marker":
            k = 2 if c.quantity == "w" and c.index == 0 else k            # a planar model's w: about z
            return self._off["marker"] + 16 * cm.marker_names.index(c.element) + _MARKER_SLOTS[c.quantity] + k
        if c.kind == "joint" and c.quantity in ("s", "sd"):
            return self._off[c.quantity] + cm.coordinate_rows[c.element][k]
        if c.kind == "joint":
            k = 2 if c.quantity == "T" and c.index == 0 else k               # a planar model's T: about z
            return self._off["reaction"] + 6 * self._joints.index(c.element) + (3 if c.quantity == "T" else 0) + k
        if c.kind == "driver":
            return self._off["driver"] + self._drivers.index(c.element)
        if c.kind == "energy" and c.quantity in ("dissipated", "input"):
            return self._off["sums"] + ("dissipated", "input").index(c.quantity)
        if c.kind == "energy":
            return self._off["energy"] + ("kinetic", "potential", "total").index(c.quantity)
        if c.kind == "solver":
            return self._off["solver"] + ("iterations", "residual").index(c.quantity)
        return self._off["out"] + cm.output_slots[c.name]        # an element's declared output

    @property
    def unwrap_memory(self) -> tuple[np.ndarray, bool]:
        """(previous joint coordinates and marker angles, whether there is a previous state): the memory of angle
        unwrapping, which a saved FMU state carries."""
        return np.concatenate([self._prev_s, self._prev_phi]), self._has_prev

    def set_unwrap_memory(self, prev_s: np.ndarray | None, has_prev: bool) -> None:
        self._has_prev = bool(has_prev) and prev_s is not None
        if prev_s is not None:
            n = len(self._prev_s)
            self._prev_s[:] = prev_s[:n]
            if len(prev_s) > n:
                self._prev_phi[:] = prev_s[n:]

    def kernel_arguments(self) -> tuple:
        """The arguments of kernels.channel_values.channel_values that this evaluator owns, for a caller that runs
        it inside numba (kernels/comm_step.py): (zs, zn, Q, fr, rows, mrows, out, cw, plan, q_local, angle_local,
        planar, is_angle, prev_s, prev_phi, has_prev, raw, off, gather plan); the channels are ``raw[gather plan]``
        once the caller has written the energy sums and a planar model's angles (kernels.channel_values.
        planar_angles, as finish_planar). Arrays are the live ones (valid until the contact workspace grows or the
        unwrap memory is replaced)."""
        ev, ws = self.ev, self.ev.ws
        return (ev.zs, ev.zn, ev.Q, ws.fr, ws.rows, self._mrows, ws.out, ws.cw, self._plan_arrays, self._q_local,
                self._angle_local, self.cm.model.planar, self._is_angle, self._prev_s, self._prev_phi, self._has_prev,
                self._raw, self._off_blocks, self._plan)

    def finish_planar(self) -> None:
        """Planar models: the frame angles ``phi`` (rad) from the quaternion entries the kernel wrote into the raw
        values, continuous over turns against the previous call's (none before the first call); then the evaluator
        remembers its state. Runs after every kernel evaluation, also the FMU's one-call step's."""
        if self._planar:     # the kernel the one-call step and the batch evaluation use: the same bits
            planar_angles(self._raw, self._off_blocks, len(self._prev_phi), self._prev_phi, self._has_prev)

    def finish_modal(self, q: np.ndarray, qd: np.ndarray) -> None:
        """Modal bodies: their channels (analyses/modal_channels.py) at (q, qd) into the raw values. Runs after
        every kernel evaluation, also the FMU's one-call step's (a no-op without modal bodies)."""
        if self._modal is not None:
            n = len(self._modal.names)
            self._modal.fill(q, qd, self._raw[self._off["modal"]:self._off["modal"] + n])

    @property
    def has_modal(self) -> bool:
        """Whether modal-body channels are filled in Python (finish_modal) after every kernel evaluation, the one-call
        step's included (which computes the planar angles itself)."""
        return self._modal is not None

    def reset(self) -> None:
        """Forget the previous state (angle unwrapping and RSDA turn counting restart)."""
        self._has_prev = False
        self.ev.zs[:] = self.cm.arrays.z0

    def __call__(self, t: float, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                 u: np.ndarray | None = None, iterations: float = 0.0, residual: float = 0.0,
                 z: np.ndarray | None = None, dissipated: float = 0.0, energy_input: float = 0.0) -> np.ndarray:
        """Channel values (in ``self.names`` order) at the state (t, q, qd, qdd, lam) with inputs ``u``
        (None keeps the evaluator's current inputs) and committed element states ``z`` (an integrator's ``zs``;
        None: the states this evaluator carried from its previous call, which suits turn counting but neither
        pressures nor friction states); ``dissipated`` and ``energy_input`` (J): the integrator's energy sums,
        the channels energy.dissipated and energy.input. A shared evaluator's scratch arrays are overwritten."""
        ev = self.ev
        q, qd, qdd, lam = (np.asarray(x, dtype=float) for x in (q, qd, qdd, lam))
        if u is not None:
            ev.u[:] = u
        if z is not None:
            ev.zs[:] = z
        ev.h = 0.0
        m = self.cm.arrays
        if needs_after_step(m):   # after-step hooks (passive cylinders: the end accelerations of this state)
            ev.forces(float(t), q, qd)
            ev.after_step(q, qdd)
        ws = ev.ws
        while True:
            prev_s = self._prev_s.copy()               # the kernel unwraps against it (and may run twice)
            ev.spring_energy = channel_values(
                m, self.cm.measure, float(t), q, qd, qdd, lam, ev.u, ev.zs, ev.zn, ev.Q, ws.fr, ws.rows,
                self._mrows, ws.out, ws.cw, self._plan_arrays, self._q_local, self._angle_local,
                self.cm.model.planar, self._is_angle, prev_s, self._has_prev, float(iterations), float(residual),
                self._raw, self._off_blocks)
            if not ws.cw.stat[ST_PAIR_OVERFLOW]:
                break
            ev.cw = grown_contact_workspace(ws.cw)      # too many candidate pairs: grow and evaluate again
            ws = ev.ws
        self._prev_s[:] = prev_s
        self._raw[self._off["sums"]] = dissipated
        self._raw[self._off["sums"] + 1] = energy_input
        self.finish_planar()
        self.finish_modal(q, qd)
        check_contact_states(self.cm, ws.cw)
        self._has_prev = True
        ev.zs[:] = ev.zn                              # element states (RSDA turns) from this state on
        return self._raw[self._plan] + 0.0          # + 0.0 turns -0.0 into 0.0


    def rows(self, t: np.ndarray, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
             u: np.ndarray | None = None, iterations: np.ndarray | None = None, residual: np.ndarray | None = None,
             z: np.ndarray | None = None, dissipated: np.ndarray | None = None,
             energy_input: np.ndarray | None = None) -> np.ndarray:
        """Channel values (N x channels, ``self.names`` order) of N consistent states in one kernel call
        (kernels.channel_values.channel_rows): the same numbers as N calls of this evaluator, one per row, with the
        rows' arguments (arrays with one row per state; None as in ``__call__``, per-row quantities 0)."""
        m = self.cm.arrays
        ev = self.ev
        if needs_after_step(m):       # after-step hooks need the Python evaluator at every state
            zero = np.zeros(len(t))
            col = lambda x: zero if x is None else x  # noqa: E731
            return np.array([self(t[i], q[i], qd[i], qdd[i], lam[i], None if u is None else u[i], col(iterations)[i],
                                  col(residual)[i], None if z is None else z[i], col(dissipated)[i],
                                  col(energy_input)[i]) for i in range(len(t))]).reshape(len(t), len(self.names))
        n = len(t)
        arr = lambda x, shape: np.ascontiguousarray(np.zeros(shape) if x is None else x, dtype=float)  # noqa: E731
        t = arr(t, n)
        q, qd, qdd = (arr(x, (n, self.cm.n_q)) for x in (q, qd, qdd))
        lam = arr(lam, (n, self.cm.n_rows))
        u = arr(u, (0, len(ev.u))) if u is not None else np.zeros((0, len(ev.u)))
        z = arr(z, (0, len(ev.zs))) if z is not None else np.zeros((0, len(ev.zs)))
        iterations, residual = arr(iterations, n), arr(residual, n)
        sums = np.ascontiguousarray(np.column_stack([arr(dissipated, n), arr(energy_input, n)]))
        values = np.empty((n, len(self.names)))
        ev.h = 0.0
        done = 0
        while done < n:
            ws = ev.ws
            done = channel_rows(m, self.cm.measure, t, q, qd, qdd, lam, u, z, iterations, residual, sums, ev.u, ev.zs,
                                ev.zn, ev.Q, ws.fr, ws.rows, self._mrows, ws.out, ws.cw, self._plan_arrays,
                                self._q_local, self._angle_local, self.cm.model.planar, self._is_angle, self._prev_s,
                                self._prev_phi, self._has_prev, self._raw, self._off_blocks, self._plan, done, values)
            self._has_prev = self._has_prev or done > 0
            if done < n:
                check_contact_states(self.cm, ws.cw)           # a full state table: the error names it
                ev.cw = grown_contact_workspace(ws.cw)          # too many candidate pairs: grow and go on
        if self._modal is not None:       # modal-body channels are filled in Python, per row as in __call__
            cols = [self.names.index(name) for name in self._modal.names]
            buf = np.empty(len(cols))
            for i in range(n):
                self._modal.fill(q[i], qd[i], buf)
                values[i, cols] = buf
        return values


def evaluate_channels(cm: CompiledModel, traj: Trajectory) -> np.ndarray:
    """Channel values (N x n_channels) of every row of ``traj``, in the order of ``channels(cm.model)``.
    ``solver.iterations`` and ``solver.residual`` come from traj.info ('iterations'; 'residual' or else
    'residual_position'), ``energy.dissipated`` and ``energy.input`` from 'energy_dissipated' and 'energy_input',
    when the analysis provides them, else 0."""
    ce = ChannelEvaluator(cm)
    info = traj.info or {}
    return ce.rows(traj.t, traj.q, traj.qd, traj.qdd, traj.lam, traj.u, info.get("iterations"),
                   info.get("residual", info.get("residual_position")), traj.z, info.get("energy_dissipated"),
                   info.get("energy_input"))


__all__ = ["ChannelEvaluator", "evaluate_channels"]
