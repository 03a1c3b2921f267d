"""Lowering of passive cylinders (kernels/families/passive_cylinder.py): the part-data row, the stroke's distance
row (the family's ``rows`` hook), the element states and outputs, and the checks of the initial geometry that the
element's formulas need."""

from __future__ import annotations

import numpy as np
from numpy.polynomial import polynomial as P

from ..errors import ModelError
from ..kernels import model_arrays as ma
from ..kernels.families import passive_cylinder as kp
from ..model.elements import GROUND, FlexibleBody, Model, PassiveCylinder
from ..model.functions import Constant, Linear, Polynomial, TimeFunction
from .lowering import LoweringContext, initial_body_position, initial_body_rotation

N_PC_PAR = kp.N_PC_PAR
N_PC_STATES = kp.N_PC_STATES

#: smallest cos^2 of the angle between the line and the plane normal to z_i (the universal joint's lock)
MIN_COS2 = 1e-6


def passive_parameters(f: PassiveCylinder) -> np.ndarray:
    """The kernel's parameter row (PC_* layout) of element ``f``."""
    par = np.zeros(kp.N_PC_PAR)
    par[kp.PC_M_CYL] = f.cylinder_mass
    par[kp.PC_CM_CYL] = f.cylinder_cm
    par[kp.PC_JT_CYL], par[kp.PC_JA_CYL] = f.cylinder_inertia
    par[kp.PC_M_ROD] = f.rod_mass
    par[kp.PC_CM_ROD] = f.rod_cm
    par[kp.PC_JT_ROD], par[kp.PC_JA_ROD] = f.rod_inertia
    return par


def squared_stroke(f: PassiveCylinder) -> TimeFunction:
    """d(t)^2 as a time function, the f(t) of the distance row (ROW_D: (d.d - f)/2 = 0)."""
    s = f.stroke
    if isinstance(s, Polynomial):
        coeffs = list(s.coefficients)
    elif isinstance(s, Linear):
        coeffs = [s.initial, s.rate]
    elif isinstance(s, Constant):
        return Constant(float(s.value) ** 2)
    else:  # validation allows only the kinds above
        raise ModelError(f"passive cylinder '{f.name}': 'stroke' must be constant, linear or polynomial")
    return Polynomial(tuple(float(c) for c in P.polymul(coeffs, coeffs)))


def check_passive_geometry(model: Model, passive: list[PassiveCylinder], midx: dict, m_pos: np.ndarray,
                           m_rot: np.ndarray) -> None:
    """ModelError if an element's markers coincide at the initial positions, or (spatial) its line is along the
    universal joint's cross axis z_i, where the joint locks (cos phi = 0 in seed 003 eq. 9)."""
    bodies = {b.name: b for b in model.bodies}
    problems = []

    def world(marker: str):
        k = midx[marker]
        mk = model.markers[k]
        if mk.body == GROUND:
            return m_pos[k], m_rot[k]
        body = bodies[mk.body]
        if isinstance(body, FlexibleBody):          # at a node, world (its initial displacement left out)
            return m_pos[k], m_rot[k]
        A = initial_body_rotation(body)         # identity for a point mass
        return initial_body_position(body) + A @ m_pos[k], A @ m_rot[k]

    for f in passive:
        (pi, Ri), (pj, _) = world(f.marker_i), world(f.marker_j)
        d = pj - pi
        length = float(np.linalg.norm(d))
        if not length > 1e-12:
            problems.append(f"force element '{f.name}': the origins of '{f.marker_i}' and '{f.marker_j}' coincide "
                            f"at the initial positions (zero length)")
            continue
        if model.dimension == 3:
            au = float(Ri[:, 2] @ d) / length
            if 1.0 - au * au < MIN_COS2:
                problems.append(f"force element '{f.name}': the line between the markers is along z of "
                                f"'{f.marker_i}', the universal joint's cross axis (the joint locks there); turn "
                                f"marker_i so that its z axis is across the cylinder")
    if problems:
        raise ModelError(problems, model.name)


def add_stroke_rows(items, ctx: LoweringContext, rows) -> None:
    """Rows hook: a distance row (ROW_D, f = d(t)^2) per stroke-driven element, remembered for ``lower``."""
    ctx.core.setdefault("pc_rows", [])
    for pc in items:
        row = -1
        if pc.stroke is not None:
            mi, mj = ctx.midx[pc.marker_i], ctx.midx[pc.marker_j]
            row = rows.add((ma.ROW_D, 0, 0, (0.0, 0.0, 0.0)), mi, mj, ctx.bidx[ctx.model.markers[mi].body],
                           ctx.bidx[ctx.model.markers[mj].body], ctx.pool.add(squared_stroke(pc)), pc.name,
                           f"passive cylinder '{pc.name}' stroke")
        ctx.core["pc_rows"].append(row)


def lower(items, ctx: LoweringContext):
    """The family's Arrays: markers, part data, drive function and input, 12 states, the stroke row, outputs."""
    check_passive_geometry(ctx.model, items, ctx.midx, ctx.marker_pos, ctx.marker_rot)
    return kp.Arrays(
        mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"),
        par=np.array([passive_parameters(f) for f in items], dtype=float).reshape(len(items), N_PC_PAR),
        fn=np.array([ctx.pool.add(f.force) for f in items], dtype=np.int64),
        input_adr=np.array([ctx.input(f) for f in items], dtype=np.int64),
        z_adr=np.array([ctx.layout.states([0.0] * N_PC_STATES, f.name) for f in items], dtype=np.int64),
        row=np.array(ctx.core.pop("pc_rows", []), dtype=np.int64), out_adr=ctx.outputs(items))
