"""JointFriction elements -> flat arrays (kernels/joint_friction.py), with the contact friction laws' parameter
layout (kernels.contact CP_* columns)."""

from __future__ import annotations

import numpy as np

from ..kernels import contact as kc
from ..kernels import joint_friction as kj
from ..model.elements import JointFriction, Model

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


def compile_joint_friction(model: Model, midx: dict[str, int], joint_rows_of: dict[str, list[int]],
                           z_start: int) -> tuple[dict, list[float]]:
    """(ModelArrays fields jf_*, initial states) of the model's JointFriction elements; their bristle states
    start at z address ``z_start``."""
    items = [f for f in model.forces if isinstance(f, JointFriction)]
    joints = {j.name: j for j in model.joints}
    n = len(items)
    typ = np.zeros(n, dtype=np.int64)
    mi = np.zeros(n, dtype=np.int64)
    mj = np.zeros(n, dtype=np.int64)
    rows = -np.ones((n, kj.JF_MAX_ROWS), dtype=np.int64)
    geo = np.zeros((n, kj.N_JG))
    z_adr = -np.ones(n, dtype=np.int64)
    z = z_start
    for k, f in enumerate(items):
        j = joints[f.joint]
        typ[k] = kj.JF_REVOLUTE if j.type == "revolute" else kj.JF_PRISMATIC
        mi[k], mj[k] = midx[j.marker_i], midx[j.marker_j]
        ids = joint_rows_of[j.name]
        rows[k, :len(ids)] = ids
        geo[k] = (f.pin_radius or 0.0, f.friction_arm, f.bending_arm, f.preload)
        if f.friction == "bristle":
            z_adr[k] = z
            z += kj.N_JF_STATES
    fields = dict(jf_type=typ, jf_mi=mi, jf_mj=mj, jf_rows=rows,
                  jf_model=np.array([FRICTION_CODES[f.friction] for f in items], dtype=np.int64),
                  jf_par=np.array([friction_parameters(f) for f in items], dtype=float).reshape(n, kc.N_CPAR),
                  jf_geo=geo, jf_z_adr=z_adr, jf_dissipative=np.ones(1, dtype=np.int64))
    return fields, [0.0] * (z - z_start)
