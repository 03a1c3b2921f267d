"""Values of the modal-body channels (model/modal_outputs.py) from the coordinates: every one is linear in the
modal coordinates eta (or their rates) except a node's world position r + A(p/|p|)(x + Psi_t eta).

``ModalChannels`` precomputes, per channel, a coefficient row over eta (or eta'): unit rows for eta and eta', the
node's translation rows Psi_t of the basis for u (Shabana §5.5), the stress modes
sigma_j = N_j/A + My_j z/Iy - Mz_j y/Iz of the section forces per mode (fe/recovery.py, Euler-Bernoulli normal
stress; computed with the mode data, model/modal_data.py) for stress, and those divided by E for strain.
ChannelEvaluator (analyses/channels.py) calls ``fill`` after its kernel, on the library's and the FMU's one-call
paths alike."""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..model.elements import ModalBody
from ..model.modal_data import modal_data
from ..model.modal_outputs import KIND
from ..model.names import Channel
from ..model.rotations import quat_matrix


class ModalChannels:
    """The modal-body channels among ``chans`` (in their order): ``names`` and ``fill(q, qd, out)``."""

    def __init__(self, cm: CompiledModel, chans: list[Channel]):
        mine = [c for c in chans if c.kind == KIND]
        self.names = [c.name for c in mine]
        bodies = {b.name: b for b in cm.model.bodies if isinstance(b, ModalBody)}
        rows, src, world = [], [], []     # coefficient rows, (from qd?, address of eta), world-position data
        for c in mine:
            b = bodies[c.element]
            data = modal_data(b)
            a, k = cm.q_names.index(f"{b.name}.x"), c.index - 1
            node = int(c.quantity[4:].split(".")[0]) if c.quantity.startswith("node") else -1
            if c.quantity in ("eta", "etad"):
                row = np.eye(data.inv.n_modes)[k]
            elif node >= 0:
                row = data.rows[6 * node + k]
            else:                                             # stress, strain
                row = data.stress[k] / (b.E if c.quantity == "strain" else 1.0)
            rows.append(np.array(row, dtype=float))
            src.append((c.quantity == "etad", a + 7))
            world.append((a, k, data.nodes[node], data.rows[6 * node:6 * node + 3])
                         if c.quantity.endswith(".r") else None)
        self._rows, self._src, self._world = rows, src, world

    def fill(self, q: np.ndarray, qd: np.ndarray, out: np.ndarray) -> None:
        """Write the channels' values at (q, qd) into ``out`` (len(names))."""
        for i, (row, (rate, e0), w) in enumerate(zip(self._rows, self._src, self._world, strict=True)):
            eta = (qd if rate else q)[e0:e0 + len(row)]
            if w is None:
                out[i] = row @ eta
            else:
                a, k, x, psi_t = w
                A = quat_matrix(q[a + 3:a + 7])
                out[i] = q[a + k] + A[k] @ (x + psi_t @ eta)
