"""Shapes and contact elements -> flat arrays (kernels/contact.py): shapes, contact signatures, contact laws.

No shape pair is enumerated (a scene of n shapes has O(n^2) of them; the broad phase finds the few that touch).
Each shape gets a *contact signature*: the set of (contact element, side a or b) it is listed in; shapes with the
same set share a signature. ``sig_contact[S, T]`` is the contact element that pairs a shape of signature S with
one of signature T (-1: none) and ``sig_swap[S, T]`` is 1 if the shape of T is that contact's a side. A pair
claimed by two contacts is found on signatures: a ModelError naming both. In the kernel, shapes on one body never
collide (``shape_body``); shapes on bodies joined by a joint are in each other's CSR exclusion list (built from
the joints, O(joints x shapes on their bodies)) when the contact pairing them sets ``include_joined`` false.
Planar models map their kinds (circle, line, capsule, polygon) to the planar kernel codes (PLANAR_SHAPE_CODES);
a polygon is stored as mesh vertices, counter-clockwise, at z = 0.

Hertz stiffness from material data at run time per pair: k = 4/3 E* sqrt(R*), 1/E* = c_a + c_b with the
per-shape compliance c = (1 - nu^2)/E, 1/R* = 1/R_a + 1/R_b with flat shapes (plane, box, mesh) of 1/R = 0;
``cont_par[c, CP_STIFFNESS]`` > 0 is a given stiffness instead.

Contact states (first-touch speed, bristle displacement, largest depth) live in one open-addressing table inside
z (kernels.contact: records keyed by shape a, shape b, point), of ``contact_state_capacity`` records; the
default grows with the number of shapes on contacts that need states.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..kernels import contact as kc
from ..kernels import contact_geometry as kg
from ..kernels.contact_geometry import N_SHAPE_PARAMS, pair_supported
from ..kernels.families import contact as kfc
from ..model.elements import GROUND, Contact, Model
from ..model.validate_contact import CURVED_KINDS, polygon_area
from .functions import FunctionPool
from .lowering import LoweringContext

SHAPE_CODES = {"sphere": kg.SHAPE_SPHERE, "plane": kg.SHAPE_PLANE, "box": kg.SHAPE_BOX, "capsule": kg.SHAPE_CAPSULE,
               "cylinder": kg.SHAPE_CYLINDER, "ellipsoid": kg.SHAPE_ELLIPSOID, "mesh": kg.SHAPE_MESH}
#: kernel codes of the shape kinds of planar models (x-y plane of the marker; a circle is a sphere at z = 0)
PLANAR_SHAPE_CODES = {"circle": kg.SHAPE_SPHERE, "line": kg.SHAPE_LINE, "capsule": kg.SHAPE_PLANAR_CAPSULE,
                      "polygon": kg.SHAPE_POLYGON}
LAW_CODES = {"linear": kc.LAW_LINEAR, "hertz": kc.LAW_HERTZ, "hunt_crossley": kc.LAW_HUNT_CROSSLEY,
             "lankarani_nikravesh": kc.LAW_LANKARANI_NIKRAVESH, "flores": kc.LAW_FLORES, "table": kc.LAW_TABLE}
FRICTION_CODES = {"none": kc.FRICTION_NONE, "coulomb": kc.FRICTION_COULOMB, "stribeck": kc.FRICTION_STRIBECK,
                  "bristle": kc.FRICTION_BRISTLE}
#: state records per shape on a stateful contact, by default (a sphere in a pile touches up to ~12 others)
STATE_RECORDS_PER_SHAPE = 8


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
    """k = 4/3 E* sqrt(R*) of two shapes (N/m^1.5), as the kernel computes it; ModelError if both are flat."""
    inv_r = 1.0 / _radius(sa) + 1.0 / _radius(sb)
    if inv_r == 0.0:
        raise ModelError(f"contact '{contact.name}': shapes '{sa.name}' and '{sb.name}' are both flat, so Hertz "
                         f"stiffness is undefined; give 'stiffness'")
    e_star = 1.0 / ((1.0 - sa.poisson ** 2) / sa.young + (1.0 - sb.poisson ** 2) / sb.young)
    return 4.0 / 3.0 * e_star * math.sqrt(1.0 / inv_r)


def needs_states(c: Contact) -> bool:
    """True if the contact keeps per-point states (first-touch speed, bristle, largest depth): the one place that
    decides it (the kernel reads the flag)."""
    return c.law in ("hunt_crossley", "lankarani_nikravesh", "flores", "table") or c.friction == "bristle"


def joined_bodies(model: Model) -> set[tuple[str, str]]:
    """Pairs of body names (both orders) joined by a joint."""
    body = {m.name: m.body for m in model.markers}
    out = set()
    for j in model.joints:
        a, b = body[j.marker_i], body[j.marker_j]
        out |= {(a, b), (b, a)}
    return out


def _signatures(contacts: list[Contact], sidx: dict[str, int], ns: int) -> tuple[np.ndarray, list[frozenset]]:
    """Signature index of every shape and the (contact, side) set of every signature (0 = on no contact)."""
    member: list[set] = [set() for _ in range(ns)]
    for ci, c in enumerate(contacts):
        for n in c.shapes_a:
            member[sidx[n]].add((ci, 0))
        for n in c.shapes_b:
            member[sidx[n]].add((ci, 1))
    sigs: dict[frozenset, int] = {frozenset(): 0}
    shape_sig = np.zeros(ns, dtype=np.int64)
    for s in range(ns):
        shape_sig[s] = sigs.setdefault(frozenset(member[s]), len(sigs))
    return shape_sig, list(sigs)


def _signature_table(contacts, sig_sets, shapes_of_sig, shapes, kind):
    """(sig_contact, sig_swap) over signature pairs; ModelError for a pair claimed by two contacts or an
    unsupported pair of shape kinds."""
    nsig = len(sig_sets)
    table = -np.ones((nsig, nsig), dtype=np.int64)
    swap = np.zeros((nsig, nsig), dtype=np.int64)
    a_sigs = [[S for S in range(nsig) if (ci, 0) in sig_sets[S]] for ci in range(len(contacts))]
    b_sigs = [[S for S in range(nsig) if (ci, 1) in sig_sets[S]] for ci in range(len(contacts))]
    for ci, c in enumerate(contacts):
        for S in a_sigs[ci]:
            for T in b_sigs[ci]:
                if S == T and len(shapes_of_sig[S]) < 2:
                    continue                       # a shape listed on both sides never meets itself
                for X, Y, sw in ((S, T, 0), (T, S, 1)):
                    old = int(table[X, Y])
                    if old >= 0 and old != ci:
                        na, nb = shapes[shapes_of_sig[S][0]].name, shapes[shapes_of_sig[T][0]].name
                        raise ModelError(f"contact '{c.name}': shapes '{na}' and '{nb}' are already paired by "
                                         f"contact '{contacts[old].name}'")
                    if old < 0:
                        table[X, Y] = ci
                        swap[X, Y] = sw
                ka = {int(kind[s]) for s in shapes_of_sig[S]}
                kb = {int(kind[t]) for t in shapes_of_sig[T]}
                for x in ka:
                    for y in kb:
                        if not pair_supported(x, y):
                            na = next(shapes[s] for s in shapes_of_sig[S] if kind[s] == x)
                            nb = next(shapes[t] for t in shapes_of_sig[T] if kind[t] == y)
                            raise ModelError(f"contact '{c.name}': the shape pair '{na.name}' ({na.kind}) - "
                                             f"'{nb.name}' ({nb.kind}) is not supported")
                if c.law not in ("table", "linear") and c.stiffness is None:
                    flat_a = [s for s in shapes_of_sig[S] if shapes[s].kind not in CURVED_KINDS]
                    flat_b = [t for t in shapes_of_sig[T] if shapes[t].kind not in CURVED_KINDS]
                    if flat_a and flat_b:
                        hertz_stiffness(c, shapes[flat_a[0]], shapes[flat_b[0]])     # raises: both flat
    return table, swap


def _exclusions(model: Model, shapes, sidx_by_body: dict[str, list[int]], shape_sig, table, contacts):
    """CSR (ptr, idx) of the shapes each shape never collides with: those on bodies joined to its body, unless
    the contact pairing them sets include_joined (same-body shapes are skipped by the kernel's body check)."""
    ns = len(shapes)
    excl: list[set[int]] = [set() for _ in range(ns)]
    for a, b in joined_bodies(model):
        if a == b or a not in sidx_by_body or b not in sidx_by_body:
            continue
        for s in sidx_by_body[a]:
            for t in sidx_by_body[b]:
                ci = int(table[shape_sig[s], shape_sig[t]])
                if ci >= 0 and contacts[ci].include_joined:
                    continue
                excl[s].add(t)
    ptr = np.zeros(ns + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(x) for x in excl])
    idx = np.array([t for x in excl for t in sorted(x)], dtype=np.int64)
    return ptr, idx


def default_state_capacity(model: Model) -> int:
    """Default record count of the contact state table: STATE_RECORDS_PER_SHAPE per shape on a contact that
    needs states, rounded up to a power of two (0 if no contact needs states)."""
    names = set()
    for c in model.forces:
        if isinstance(c, Contact) and needs_states(c):
            names |= set(c.shapes_a) | set(c.shapes_b)
    if not names:
        return 0
    return 1 << max(6, math.ceil(math.log2(STATE_RECORDS_PER_SHAPE * len(names))))


def compile_contacts(model: Model, midx: dict[str, int], pool: FunctionPool, z_start: int,
                     state_capacity: int | None = None) -> tuple[dict, list]:
    """ModelArrays fields of the shapes and contacts of ``model`` (markers indexed by ``midx``), with the contact
    state table at address ``z_start`` of ``state_capacity`` records (None: default_state_capacity; rounded up
    to a power of two); returns (fields, initial contact states)."""
    shapes = list(model.shapes)
    sidx = {s.name: i for i, s in enumerate(shapes)}
    ns = len(shapes)
    mbody = {m.name: m.body for m in model.markers}
    bidx = {b.name: i for i, b in enumerate(model.bodies)}
    bidx[GROUND] = -1
    codes = PLANAR_SHAPE_CODES if model.dimension == 2 else SHAPE_CODES
    kind = np.array([codes[s.kind] for s in shapes], dtype=np.int64)
    par = np.zeros((ns, N_SHAPE_PARAMS))
    for i, s in enumerate(shapes):
        par[i, :len(s.dimensions)] = s.dimensions
    meshes = [s for s in shapes if s.kind in ("mesh", "polygon")]
    mesh_ptr, tri_ptr, verts, tris = [0], [0], [], []
    for k, s in enumerate(meshes):
        par[sidx[s.name], 0] = k
        if s.kind == "polygon":      # counter-clockwise in z = 0, with a fan of triangles (the kernels read vertices)
            v = list(s.vertices) if polygon_area(s.vertices) > 0.0 else list(reversed(s.vertices))
            verts += [[x, y, 0.0] for x, y in v]
            tris += [[0, i, i + 1] for i in range(1, len(v) - 1)]
        else:
            verts += [list(v) for v in s.vertices]
            tris += [list(t) for t in s.triangles]
        mesh_ptr.append(len(verts))
        tri_ptr.append(len(tris))
    body_name = [mbody[s.marker] for s in shapes]
    shape_body = np.array([bidx[b] for b in body_name], dtype=np.int64)
    compliance = np.array([(1.0 - s.poisson ** 2) / s.young if s.young is not None and s.poisson is not None
                           else math.inf for s in shapes])
    inv_radius = np.array([1.0 / _radius(s) for s in shapes])

    contacts = [f for f in model.forces if isinstance(f, Contact)]
    shape_sig, sig_sets = _signatures(contacts, sidx, ns)
    shapes_of_sig: list[list[int]] = [[] for _ in sig_sets]
    for s in range(ns):
        shapes_of_sig[shape_sig[s]].append(s)
    table, swap = _signature_table(contacts, sig_sets, shapes_of_sig, shapes, kind)
    by_body: dict[str, list[int]] = {}
    for s in range(ns):
        by_body.setdefault(body_name[s], []).append(s)
    excl_ptr, excl_idx = _exclusions(model, shapes, by_body, shape_sig, table, contacts)
    group = np.zeros(ns, dtype=np.int64)         # broad-phase prefilter: one bit per contact (mod 62)
    for c_index, c in enumerate(contacts):
        bit = np.int64(1) << np.int64(c_index % 62)
        for n in c.shapes_a + c.shapes_b:
            group[sidx[n]] |= bit

    capacity = default_state_capacity(model) if state_capacity is None else int(state_capacity)
    if capacity < 0:
        raise ModelError(f"contact_state_capacity must be >= 0, got {state_capacity}")
    if capacity > 0:
        capacity = 1 << max(0, math.ceil(math.log2(capacity)))
    state = np.array([z_start, capacity], dtype=np.int64)

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
        cpar[i, kc.CP_STIFFNESS] = c.stiffness if c.stiffness is not None else 0.0
        curves[i, :2] = pool.add_curve(c.loading_curve)
        curves[i, 2:] = pool.add_curve(c.unloading_curve)
    fields = dict(
        shape_kind=kind, shape_marker=np.array([midx[s.marker] for s in shapes], dtype=np.int64), shape_par=par,
        shape_group=group, shape_mask=group.copy(), shape_excl_ptr=excl_ptr, shape_excl_idx=excl_idx,
        mesh_ptr=np.array(mesh_ptr, dtype=np.int64), mesh_verts=np.array(verts, dtype=float).reshape(-1, 3),
        mesh_tri_ptr=np.array(tri_ptr, dtype=np.int64), mesh_tris=np.array(tris, dtype=np.int64).reshape(-1, 3),
        shape_body=shape_body, shape_sig=shape_sig, shape_compliance=compliance, shape_inv_radius=inv_radius,
        sig_contact=table, sig_swap=swap, cont_state=state,
        cont_law=np.array([LAW_CODES[c.law] for c in contacts], dtype=np.int64), cont_par=cpar,
        cont_friction=np.array([FRICTION_CODES[c.friction] for c in contacts], dtype=np.int64),
        cont_curves=curves, cont_stateful=np.array([needs_states(c) for c in contacts], dtype=np.int64),
    )
    return fields, [0.0] * (kc.Z_RECORD * capacity)


def lower(items, ctx: LoweringContext):
    """The contact family's Arrays; the shape and signature tables and the state table's [address, records] go to
    the core fields (ctx.core), the state table's records to the layout."""
    start = len(ctx.layout.z0)
    fields, z = compile_contacts(ctx.model, ctx.midx, ctx.pool, start, ctx.options.get("contact_state_capacity"))
    if ctx.layout.states(z, "contact state table") != start:           # pragma: no cover - allocator invariant
        raise AssertionError("contact state table address")
    arrays = kfc.Arrays(law=fields.pop("cont_law"), par=fields.pop("cont_par"), friction=fields.pop("cont_friction"),
                        curves=fields.pop("cont_curves"), stateful=fields.pop("cont_stateful"),
                        out_adr=ctx.outputs(items))
    ctx.core.update(fields)
    return arrays


def potential_body_pairs(cm_arrays, limit: int) -> list[tuple[int, int]] | None:
    """Body pairs (i, j), i < j, that some contact may couple (no exclusions applied except same body), or None
    if their count bound (shapes of S x shapes of T over the signature table) exceeds ``limit``."""
    m = cm_arrays
    ns = len(m.shape_kind)
    if ns == 0:
        return []
    nsig = m.sig_contact.shape[0]
    by_sig: list[list[int]] = [[] for _ in range(nsig)]
    for s in range(ns):
        by_sig[int(m.shape_sig[s])].append(s)
    bound = sum(len(by_sig[S]) * len(by_sig[T]) for S in range(nsig) for T in range(S, nsig)
                if m.sig_contact[S, T] >= 0)
    if bound > limit:
        return None
    out = set()
    for S in range(nsig):
        for T in range(S, nsig):
            if m.sig_contact[S, T] < 0:
                continue
            for s in by_sig[S]:
                for t in by_sig[T]:
                    a, b = int(m.shape_body[s]), int(m.shape_body[t])
                    if a >= 0 and b >= 0 and a != b:
                        out.add((min(a, b), max(a, b)))
    return sorted(out)
