"""Joint coordinates at a model's initial positions, in plain numpy (no JIT): the start values of the
``<joint>.s_start`` FMU parameters. Same definitions as the ANGLE and DP2 rows (compiler/joints.py)."""

from __future__ import annotations

import math

import numpy as np

from ..kernels import model_arrays as ma
from ..model.elements import JOINT_COORDINATES
from .compiled_model import CompiledModel


def _body_frame(cm: CompiledModel, b: int) -> tuple[np.ndarray, np.ndarray]:
    m, q = cm.arrays, cm.q0
    a = m.body_q_adr[b]
    kind = m.body_kind[b]
    if kind == ma.POINT_MASS:
        r = np.zeros(3)
        r[:m.dim] = q[a:a + m.dim]
        return r, np.eye(3)
    if kind == ma.PLANAR:
        c, s = math.cos(q[a + 2]), math.sin(q[a + 2])
        return np.array([q[a], q[a + 1], 0.0]), np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    if kind == ma.FLEXIBLE:         # the world frame; markers at their nodes (the initial displacement left out)
        return np.zeros(3), np.eye(3)
    if kind != ma.RIGID and kind != ma.MODAL:    # a modal body's markers at their undeformed nodes
        raise TypeError(f"body '{cm.body_names[b]}': unknown body kind code {kind}")
    e0, e1, e2, e3 = q[a + 3:a + 7] / np.linalg.norm(q[a + 3:a + 7])
    A = np.array([[2 * (e0 * e0 + e1 * e1) - 1, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                  [2 * (e1 * e2 + e0 * e3), 2 * (e0 * e0 + e2 * e2) - 1, 2 * (e2 * e3 - e0 * e1)],
                  [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 2 * (e0 * e0 + e3 * e3) - 1]])
    return q[a:a + 3].copy(), A


def _marker_frame(cm: CompiledModel, name: str) -> tuple[np.ndarray, np.ndarray]:
    m = cm.arrays
    k = cm.marker_names.index(name)
    b = m.marker_body[k]
    if b < 0:
        return m.marker_pos[k].copy(), m.marker_rot[k].copy()
    r, A = _body_frame(cm, b)
    return r + A @ m.marker_pos[k], A @ m.marker_rot[k]


def initial_joint_coordinate(cm: CompiledModel, joint: str) -> float:
    """The (single) coordinate of a revolute or prismatic joint at the model's initial positions (rad or m)."""
    j = next(x for x in cm.model.joints if x.name == joint)
    kind = JOINT_COORDINATES[j.type][0]
    oi, Ri = _marker_frame(cm, j.marker_i)
    oj, Rj = _marker_frame(cm, j.marker_j)
    if kind == "rotation":
        return math.atan2(Ri[:, 1] @ Rj[:, 0], Ri[:, 0] @ Rj[:, 0])
    axis = Ri[:, 0] if cm.model.dimension == 2 else Ri[:, 2]
    return float(axis @ (oj - oi))
