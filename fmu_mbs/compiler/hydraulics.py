"""Lowering of hydraulic cylinders: the parameter row and initial states of kernels/hydraulics.py, and the
family's Arrays (kernels/families/hydraulic_cylinder.py)."""

from __future__ import annotations

import math

import numpy as np

from ..kernels import hydraulics as kh
from ..kernels.families import hydraulic_cylinder
from ..model.elements import HydraulicCylinder
from .lowering import LoweringContext


def hydraulic_parameters(c: HydraulicCylinder) -> np.ndarray:
    """The kernel's parameter row (HP_* layout) of cylinder ``c``: areas, valve coefficient and spool time
    constant derived from the model's diameters, nominal flow and bandwidth."""
    par = np.zeros(kh.N_HP)
    a1 = math.pi * c.piston_diameter ** 2 / 4.0
    par[kh.HP_A1] = a1
    par[kh.HP_A2] = a1 - math.pi * c.rod_diameter ** 2 / 4.0
    par[kh.HP_STROKE] = c.stroke
    par[kh.HP_L_RETRACTED] = c.length_retracted
    par[kh.HP_V_HOSE1] = c.hose_volume_1
    par[kh.HP_V_HOSE2] = c.hose_volume_2
    par[kh.HP_P_PUMP] = c.pump_pressure
    par[kh.HP_P_TANK] = c.tank_pressure
    par[kh.HP_B_OIL] = c.bulk_modulus_oil
    par[kh.HP_B_HOSE] = c.bulk_modulus_hose
    par[kh.HP_B_CYL] = c.bulk_modulus_cylinder
    par[kh.HP_CV] = c.nominal_flow / math.sqrt(c.nominal_pressure_drop)
    par[kh.HP_DP_LAM] = c.laminar_pressure_drop
    par[kh.HP_TAU] = 1.0 / (2.0 * math.pi * c.spool_bandwidth)
    par[kh.HP_DAMPING] = c.damping
    par[kh.HP_K_END] = c.end_stop_stiffness
    par[kh.HP_C_END] = c.end_stop_damping
    par[kh.HP_L_END] = c.end_stop_length
    return par


def hydraulic_states(c: HydraulicCylinder) -> list[float]:
    """Initial state block (p1, p2, U, rates): the rates are unknown (NaN) until the first step."""
    return [c.p1_start, c.p2_start, c.spool_start, math.nan, math.nan, math.nan]


def lower(items, ctx: LoweringContext):
    """The family's Arrays: markers, parameter rows, valve function and input, states, outputs."""
    return hydraulic_cylinder.Arrays(
        mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"),
        par=np.array([hydraulic_parameters(c) for c in items], dtype=float).reshape(len(items), kh.N_HP),
        fn=np.array([ctx.pool.add(c.valve) for c in items], dtype=np.int64),
        input_adr=np.array([ctx.input(c) for c in items], dtype=np.int64),
        z_adr=np.array([ctx.layout.states(hydraulic_states(c), c.name) for c in items], dtype=np.int64),
        out_adr=ctx.outputs(items))
