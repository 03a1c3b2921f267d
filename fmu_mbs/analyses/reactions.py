"""Joint reactions and driver efforts from the multipliers (M qdd + Phi_q^T lam = Q convention).

The reaction of a joint is the force F and torque T (world axes, N and N m) that the joint exerts on
the body of its ``marker_j``, taken about the origin of ``marker_j``; if marker_j is on ground, it is
the force on ground (minus the reaction on marker_i's body). A driver's effort is the generalized
force it applies along its coordinate (N or N m, positive along increasing coordinate): -lam.
"""

from __future__ import annotations

import numpy as np

from .evaluate import Evaluator


def joint_reactions(ev: Evaluator, lam: np.ndarray, rows_of: dict[str, list[int]] | None = None) -> dict:
    """{joint name: (F[3], T[3])} from multipliers ``lam``; ``ev`` must hold constraints evaluated at the
    same state (ev.jtw) and frames (ev.forces or ev.frames) at that state."""
    cm = ev.cm
    m = cm.arrays
    rows_of = cm.joint_rows if rows_of is None else rows_of
    out = {}
    for j in cm.model.joints:
        rows = rows_of[j.name]
        mi, mj = cm.marker_names.index(j.marker_i), cm.marker_names.index(j.marker_j)
        bj = m.marker_body[mj]
        side = slice(6, 12) if bj >= 0 else slice(0, 6)
        body = bj if bj >= 0 else m.marker_body[mi]
        w = -(ev.jtw[rows, side].T @ lam[rows])   # wrench (F, n about the CM) on that body
        F, n = w[:3], w[3:]
        lever = ev.o[mj] - ev.r[body]
        T = n - np.cross(lever, F)
        if bj < 0:
            F, T = -F, -T
        out[j.name] = (F, T)
    return out


def driver_efforts(ev: Evaluator, lam: np.ndarray) -> dict[str, float]:
    """{driver name: effort (N or N m)} along the driven coordinate."""
    return {name: -float(lam[row]) for name, row in ev.cm.driver_rows.items()}
