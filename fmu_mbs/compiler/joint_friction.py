"""JointFriction elements -> the family's Arrays (kernels/families/joint_friction.py), with the contact friction
laws' parameter layout (kernels.contact CP_* columns)."""

from __future__ import annotations

import numpy as np

from ..kernels import contact as kc
from ..kernels.families import joint_friction as kj
from ..model.elements import JointFriction
from .lowering import LoweringContext

FRICTION_CODES = {"coulomb": kc.FRICTION_COULOMB, "stribeck": kc.FRICTION_STRIBECK, "bristle": kc.FRICTION_BRISTLE}


def friction_parameters(f: JointFriction) -> np.ndarray:
    """The CP_* parameter row of kernels.contact.friction_law for ``f``."""
    par = np.zeros(kc.N_CPAR)
    par[kc.CP_MU] = f.mu
    par[kc.CP_MU_STATIC] = f.mu if f.mu_static is None else f.mu_static
    par[kc.CP_STRIBECK_SPEED] = f.stribeck_speed
    par[kc.CP_VISCOUS] = f.viscous
    par[kc.CP_V_EPS] = f.velocity_threshold
    par[kc.CP_SMOOTH_RAMP] = 1.0 if f.ramp == "smooth" else 0.0
    par[kc.CP_KT] = f.bristle_stiffness
    par[kc.CP_CT] = f.bristle_damping
    return par


def lower(items, ctx: LoweringContext):
    """The family's Arrays; a bristle element's 3 states come from the layout."""
    joints = {j.name: j for j in ctx.model.joints}
    n = len(items)
    typ = np.zeros(n, dtype=np.int64)
    mi = np.zeros(n, dtype=np.int64)
    mj = np.zeros(n, dtype=np.int64)
    rows = -np.ones((n, kj.JF_MAX_ROWS), dtype=np.int64)
    geo = np.zeros((n, kj.N_JG))
    z_adr = -np.ones(n, dtype=np.int64)
    for k, f in enumerate(items):
        j = joints[f.joint]
        typ[k] = kj.JF_REVOLUTE if j.type == "revolute" else kj.JF_PRISMATIC
        mi[k], mj[k] = ctx.midx[j.marker_i], ctx.midx[j.marker_j]
        ids = ctx.joint_rows[j.name]
        rows[k, :len(ids)] = ids
        geo[k] = (f.pin_radius or 0.0, f.friction_arm, f.bending_arm, f.preload)
        if f.friction == "bristle":
            z_adr[k] = ctx.layout.states([0.0] * kj.N_JF_STATES, f.name)
    return kj.Arrays(type=typ, mi=mi, mj=mj, rows=rows,
                     model=np.array([FRICTION_CODES[f.friction] for f in items], dtype=np.int64),
                     par=np.array([friction_parameters(f) for f in items], dtype=float).reshape(n, kc.N_CPAR),
                     geo=geo, z_adr=z_adr, out_adr=ctx.outputs(items))


def coupled_markers(a) -> list[tuple[int, int]]:
    """Joint friction couples the joint's two bodies."""
    return list(zip(a.mi.tolist(), a.mj.tolist()))
