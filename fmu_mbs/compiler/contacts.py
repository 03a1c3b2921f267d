"""Shapes and contact elements -> flat arrays (kernels/contact.py): shapes, compiled shape pairs, contact laws.

Every (a, b) of a contact's shapes_a x shapes_b becomes one compiled pair unless both shapes are on the same
body, or on bodies joined by a joint (unless the contact sets ``include_joined``). Hertz stiffness from
material data: k = 4/3 E* sqrt(R*), 1/E* = (1 - nu_a^2)/E_a + (1 - nu_b^2)/E_b, 1/R* = 1/R_a + 1/R_b with
flat shapes (plane, box, mesh) of infinite radius.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..kernels import contact as kc
from ..kernels.contact_geometry import MAX_POINTS, N_SHAPE_PARAMS, pair_supported
from ..model.elements import GROUND, Contact, Model
from ..model.validate_contact import CURVED_KINDS
from .functions import FunctionPool

SHAPE_CODES = {"sphere": 0, "plane": 1, "box": 2, "capsule": 3, "cylinder": 4, "ellipsoid": 5, "mesh": 6}
LAW_CODES = {"linear": kc.LAW_LINEAR, "hertz": kc.LAW_HERTZ, "hunt_crossley": kc.LAW_HUNT_CROSSLEY,
             "lankarani_nikravesh": kc.LAW_LANKARANI_NIKRAVESH, "flores": kc.LAW_FLORES, "table": kc.LAW_TABLE}
FRICTION_CODES = {"none": kc.FRICTION_NONE, "coulomb": kc.FRICTION_COULOMB, "stribeck": kc.FRICTION_STRIBECK,
                  "bristle": kc.FRICTION_BRISTLE}


def hysteresis_factor(law: str, e: float) -> float:
    """chi of f = k d^n (1 + chi d'/d'-): Hunt-Crossley 3(1-e)/2, Lankarani-Nikravesh 3(1-e^2)/4, Flores
    8(1-e)/(5e); 0 for the other laws."""
    return {"hunt_crossley": 1.5 * (1.0 - e), "lankarani_nikravesh": 0.75 * (1.0 - e * e),
            "flores": 8.0 * (1.0 - e) / (5.0 * e)}.get(law, 0.0)


def _radius(shape) -> float:
    if shape.kind in CURVED_KINDS:
        return min(shape.dimensions) if shape.kind == "ellipsoid" else shape.dimensions[0]
    return math.inf


def hertz_stiffness(contact: Contact, sa, sb) -> float:
    """k = 4/3 E* sqrt(R*) of two shapes (N/m^1.5); ModelError if both are flat."""
    inv_r = 1.0 / _radius(sa) + 1.0 / _radius(sb)
    if inv_r == 0.0:
        raise ModelError(f"contact '{contact.name}': shapes '{sa.name}' and '{sb.name}' are both flat, so Hertz "
                         f"stiffness is undefined; give 'stiffness'")
    e_star = 1.0 / ((1.0 - sa.poisson ** 2) / sa.young + (1.0 - sb.poisson ** 2) / sb.young)
    return 4.0 / 3.0 * e_star * math.sqrt(1.0 / inv_r)


def _needs_states(c: Contact) -> bool:
    return c.law in ("hunt_crossley", "lankarani_nikravesh", "flores", "table") or c.friction == "bristle"


def joined_bodies(model: Model) -> set[tuple[str, str]]:
    """Pairs of body names (both orders) joined by a joint."""
    body = {m.name: m.body for m in model.markers}
    out = set()
    for j in model.joints:
        a, b = body[j.marker_i], body[j.marker_j]
        out |= {(a, b), (b, a)}
    return out


def compile_contacts(model: Model, midx: dict[str, int], pool: FunctionPool, z_start: int) -> tuple[dict, list]:
    """ModelArrays fields of the shapes and contacts of ``model`` (markers indexed by ``midx``), with contact
    states from address ``z_start``; returns (fields, initial contact states)."""
    shapes = list(model.shapes)
    sidx = {s.name: i for i, s in enumerate(shapes)}
    ns = len(shapes)
    body = {m.name: m.body for m in model.markers}
    kind = np.array([SHAPE_CODES[s.kind] for s in shapes], dtype=np.int64)
    par = np.zeros((ns, N_SHAPE_PARAMS))
    for i, s in enumerate(shapes):
        par[i, :len(s.dimensions)] = s.dimensions
    meshes = [s for s in shapes if s.kind == "mesh"]
    mesh_ptr, tri_ptr, verts, tris = [0], [0], [], []
    for k, s in enumerate(meshes):
        par[sidx[s.name], 0] = k
        verts += [list(v) for v in s.vertices]
        tris += [list(t) for t in s.triangles]
        mesh_ptr.append(len(verts))
        tri_ptr.append(len(tris))

    joined = joined_bodies(model)
    contacts = [f for f in model.forces if isinstance(f, Contact)]
    pairs: dict[tuple[int, int], tuple[int, int, int]] = {}     # (min, max) -> (a, b, contact)
    group = np.zeros(ns, dtype=np.int64)
    for c_index, c in enumerate(contacts):
        bit = np.int64(1) << np.int64(c_index % 62)
        for n in c.shapes_a + c.shapes_b:
            group[sidx[n]] |= bit
        for na in c.shapes_a:
            for nb in c.shapes_b:
                a, b = sidx[na], sidx[nb]
                ba, bb = body[shapes[a].marker], body[shapes[b].marker]
                if a == b or ba == bb or (not c.include_joined and (ba, bb) in joined):
                    continue
                if not pair_supported(int(kind[a]), int(kind[b])):
                    raise ModelError(f"contact '{c.name}': the shape pair '{na}' ({shapes[a].kind}) - '{nb}' "
                                     f"({shapes[b].kind}) is not supported")
                if ba == GROUND and bb == GROUND:
                    continue
                key = (min(a, b), max(a, b))
                if key in pairs and pairs[key][2] != c_index:
                    raise ModelError(f"contact '{c.name}': shapes '{na}' and '{nb}' are already paired by contact "
                                     f"'{contacts[pairs[key][2]].name}'")
                pairs[key] = (a, b, c_index)
    # shapes that never collide: same body, or joined (the broad phase skips them)
    excl: list[list[int]] = [[] for _ in range(ns)]
    for s in range(ns):
        for t in range(ns):
            bs, bt = body[shapes[s].marker], body[shapes[t].marker]
            if s != t and (min(s, t), max(s, t)) not in pairs and (bs == bt or (bs, bt) in joined):
                excl[s].append(t)
    excl_ptr = np.cumsum([0] + [len(x) for x in excl]).astype(np.int64)
    excl_idx = np.array([t for x in excl for t in x], dtype=np.int64)

    keys = sorted(pairs)
    cp_a = np.array([pairs[k][0] for k in keys], dtype=np.int64)
    cp_b = np.array([pairs[k][1] for k in keys], dtype=np.int64)
    cp_c = np.array([pairs[k][2] for k in keys], dtype=np.int64)
    cp_k = np.zeros(len(keys))
    cp_z = -np.ones(len(keys), dtype=np.int64)
    z = z_start
    for p, (a, b, ci) in enumerate(pairs[k] for k in keys):
        c = contacts[ci]
        if c.law != "table":
            cp_k[p] = c.stiffness if c.stiffness is not None else hertz_stiffness(c, shapes[a], shapes[b])
        if _needs_states(c):
            cp_z[p] = z
            z += kc.Z_POINT * MAX_POINTS
    ptr = np.zeros(ns + 1, dtype=np.int64)
    for s, _ in keys:
        ptr[s + 1] += 1
    ptr = np.cumsum(ptr).astype(np.int64)

    cpar = np.zeros((len(contacts), kc.N_CPAR))
    curves = np.zeros((len(contacts), 4), dtype=np.int64)
    for i, c in enumerate(contacts):
        cpar[i, kc.CP_EXPONENT] = c.exponent if c.exponent is not None else (1.0 if c.law == "linear" else 1.5)
        cpar[i, kc.CP_CHI] = hysteresis_factor(c.law, c.restitution)
        cpar[i, kc.CP_DAMPING] = c.damping
        cpar[i, kc.CP_DAMPING_DEPTH] = c.damping_depth
        cpar[i, kc.CP_MIN_SPEED] = c.min_impact_speed
        cpar[i, kc.CP_MU] = c.mu
        cpar[i, kc.CP_MU_STATIC] = c.mu if c.mu_static is None else c.mu_static
        cpar[i, kc.CP_STRIBECK_SPEED] = c.stribeck_speed
        cpar[i, kc.CP_VISCOUS] = c.viscous
        cpar[i, kc.CP_V_EPS] = c.velocity_threshold
        cpar[i, kc.CP_SMOOTH_RAMP] = 1.0 if c.ramp == "smooth" else 0.0
        cpar[i, kc.CP_KT] = c.tangential_stiffness
        cpar[i, kc.CP_CT] = c.tangential_damping
        curves[i, :2] = pool.add_curve(c.loading_curve)
        curves[i, 2:] = pool.add_curve(c.unloading_curve)
    fields = dict(
        shape_kind=kind, shape_marker=np.array([midx[s.marker] for s in shapes], dtype=np.int64), shape_par=par,
        shape_group=group, shape_mask=group.copy(), shape_excl_ptr=excl_ptr, shape_excl_idx=excl_idx,
        mesh_ptr=np.array(mesh_ptr, dtype=np.int64), mesh_verts=np.array(verts, dtype=float).reshape(-1, 3),
        mesh_tri_ptr=np.array(tri_ptr, dtype=np.int64), mesh_tris=np.array(tris, dtype=np.int64).reshape(-1, 3),
        cpair_a=cp_a, cpair_b=cp_b, cpair_contact=cp_c, cpair_k=cp_k, cpair_z_adr=cp_z, cpair_ptr=ptr,
        cpair_other=np.array([t for _, t in keys], dtype=np.int64), cpair_index=np.arange(len(keys), dtype=np.int64),
        cont_law=np.array([LAW_CODES[c.law] for c in contacts], dtype=np.int64), cont_par=cpar,
        cont_friction=np.array([FRICTION_CODES[c.friction] for c in contacts], dtype=np.int64),
        cont_curves=curves, cont_dissipative=np.ones(1, dtype=np.int64),
    )
    return fields, [0.0] * (z - z_start)
