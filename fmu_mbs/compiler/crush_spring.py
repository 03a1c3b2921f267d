"""Lowering of crush springs (kernels/families/crush_spring.py): markers, free length, the loading curve in the
curve pool, unloading stiffness, rate factor and the five history states from the layout."""

from __future__ import annotations

import numpy as np

from ..kernels.families import crush_spring
from .lowering import LoweringContext


def lower(items, ctx: LoweringContext):
    """The family's Arrays."""
    n = len(items)
    return crush_spring.Arrays(
        mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"),
        l0=np.array([f.free_length for f in items], dtype=float),
        curve=np.array([ctx.pool.add_curve(f.loading_curve) for f in items], dtype=np.int64).reshape(n, 2),
        k_unload=np.array([f.unloading_stiffness for f in items], dtype=float),
        rate_d=np.array([f.rate_constant for f in items], dtype=float),
        rate_p=np.array([f.rate_exponent for f in items], dtype=float),
        z_adr=np.array([ctx.layout.states([0.0] * crush_spring.N_STATES, f.name) for f in items], dtype=np.int64),
        out_adr=ctx.outputs(items))
