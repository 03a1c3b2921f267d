"""Lowering of joint stops (kernels/families/joint_stop.py): markers, the loading table in the curve pool, the
unloading, stop and damping constants and the five history states (initial angle theta0) from the layout."""

from __future__ import annotations

import numpy as np

from ..kernels.families import joint_stop
from .lowering import LoweringContext


def lower(items, ctx: LoweringContext):
    """The family's Arrays."""
    n = len(items)

    def floats(attr: str) -> np.ndarray:
        return np.array([getattr(f, attr) for f in items], dtype=float)

    return joint_stop.Arrays(
        mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"), theta0=floats("free_angle"),
        curve=np.array([ctx.pool.add_curve(f.loading_curve) for f in items], dtype=np.int64).reshape(n, 2),
        k_unload=floats("unloading_stiffness"), lower=floats("lower"), upper=floats("upper"),
        k_stop=floats("stop_stiffness"), c=floats("damping"),
        z_adr=np.array([ctx.layout.states([f.free_angle, 0.0, 0.0, 0.0, 0.0], f.name) for f in items],
                       dtype=np.int64),
        out_adr=ctx.outputs(items))
