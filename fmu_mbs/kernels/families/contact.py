"""Contact family: the force of every contact element at one evaluation (the laws, friction, state table and
workspace: kernels/contact.py; the narrow phase: kernels/contact_geometry/; the broad phase:
kernels/broad_phase.py). Output block per contact element: fn (sum of the normal forces of its points, N),
ft (3) (resultant friction force on the shapes_a side, world axes, N), depth (largest penetration of the points
that carry a normal force, m: zero when the force is zero)."""

from __future__ import annotations

from ..broad_phase import candidate_pairs_ws, shape_aabb
from ..contact import (
    FP_MARGIN,
    FRICTION_NONE,
    LAW_TABLE,
    N_CONT_OUT,
    R_DM,
    R_POINT,
    R_S,
    R_S_KEY,
    R_T_KEY,
    ST_ACTIVE,
    ST_NEEDED,
    ST_PAIR_OVERFLOW,
    ST_USED,
    Z_RECORD,
    friction_law,
    normal_force,
    pair_stiffness,
    state_find,
    state_insert,
)
from ..contact_geometry import MAX_POINTS, SHAPE_PLANE, SHAPE_SPHERE, collide, sphere_plane, sphere_sphere
from ..inner import inner_kernel
from ..marker_loads import add_point_force
from ..model_arrays import MODE_CONSERVATIVE, arrays_type

#: per contact element: law code, CP_* parameter row, friction model, curve addresses [loading adr, n, unloading
#: adr, n], 1 if it keeps per-point states (compiler/contacts.py decides), output block address
Arrays = arrays_type("ContactArrays", ["law", "par", "friction", "curves", "stateful", "out_adr"], __name__, "Arrays")
N_OUT = N_CONT_OUT


@inner_kernel(_nrt=False)
def contact_candidates(m, o, R, cw):
    """Broad phase at the marker frames (o, R): candidate pairs into cw's pair buffer; returns their count
    (ST_NEEDED, and ST_PAIR_OVERFLOW if the buffer is too short: then only the count is valid)."""
    lo, hi, stat = cw.lo, cw.hi, cw.stat
    ns = m.shape_kind.shape[0]
    margin = cw.fpar[FP_MARGIN]
    for s in range(ns):
        k = m.shape_marker[s]
        if m.shape_kind[s] == SHAPE_SPHERE:     # shape_aabb's sphere branch, without the call's array set-up
            e = m.shape_par[s, 0]
            for i in range(3):
                lo[s, i] = o[k, i] - e - margin
                hi[s, i] = o[k, i] + e + margin
            continue
        shape_aabb(m.shape_kind[s], m.shape_par[s], o[k], R[k], m.mesh_ptr, m.mesh_verts, lo[s], hi[s])
        for i in range(3):
            lo[s, i] -= margin
            hi[s, i] += margin
    n = candidate_pairs_ws(lo, hi, m.shape_group, m.shape_mask, m.shape_excl_ptr, m.shape_excl_idx, cw.order,
                           cw.pairs, cw.col, cw.box, cw.cursor)
    if n < 0:
        stat[ST_PAIR_OVERFLOW] = 1
        stat[ST_NEEDED] = -n
        stat[ST_ACTIVE] = 0
        return -n
    stat[ST_NEEDED] = n
    stat[ST_ACTIVE] = n
    return n


@inner_kernel(_nrt=False)
def pair_element(shape_body, shape_sig, sig_contact, sig_swap, s, t):
    """(contact element, a-side shape, b-side shape) of a candidate pair, or (-1, s, t) if no contact pairs them
    or they sit on one body."""
    if shape_body[s] == shape_body[t]:
        return -1, s, t
    ss = shape_sig[s]
    st = shape_sig[t]
    c = sig_contact[ss, st]
    if c >= 0 and sig_swap[ss, st] != 0:
        return c, t, s
    return c, s, t


@inner_kernel(_nrt=False, emit=True)
def add_forces(m, sv, q, h, zs, zn, mode, Q, out, cw):
    """Q += every contact force at the frames of sv; returns the elastic energy of the normal forces (J). Writes the
    candidate contact states zn (records only for the points in contact) and the output blocks; ``cw``: the
    contact workspace (kernels.contact.ContactWork).

    One loop over the candidate pairs with everything per pair and per point in its body (no call inside it passes
    the model), and sphere-sphere / sphere-plane pairs skip the general ``collide`` dispatch (contact_geometry fast
    paths)."""
    a = m.contact
    keep = False
    for c in range(a.law.shape[0]):
        for j in range(N_CONT_OUT):
            out[a.out_adr[c] + j] = 0.0
        if a.law[c] == LAW_TABLE and a.curves[c, 3] > 0:
            keep = True
    if m.shape_kind.shape[0] < 2 or a.law.shape[0] == 0:
        return 0.0
    pairs, pts, stat, used = cw.pairs, cw.out, cw.stat, cw.used
    adr = m.cont_state[0]
    cap = m.cont_state[1]
    for k in range(stat[ST_USED]):             # the records of the last evaluation
        base = adr + Z_RECORD * used[k]
        for j in range(Z_RECORD):
            zn[base + j] = 0.0
    stat[ST_USED] = 0
    o, R, vo, wm = sv.o, sv.R, sv.vo, sv.wm
    n = contact_candidates(m, o, R, cw)
    if n > pairs.shape[0]:
        return 0.0                             # ST_PAIR_OVERFLOW: the caller grows the buffer and evaluates again
    full = mode != MODE_CONSERVATIVE
    shape_kind, shape_par, shape_marker = m.shape_kind, m.shape_par, m.shape_marker
    V = 0.0
    for kp in range(n):
        c, sa, sb = pair_element(m.shape_body, m.shape_sig, m.sig_contact, m.sig_swap, pairs[kp, 0], pairs[kp, 1])
        if c < 0:
            continue
        ka = shape_marker[sa]
        kb = shape_marker[sb]
        kind_a = shape_kind[sa]
        kind_b = shape_kind[sb]
        if kind_a == SHAPE_SPHERE and kind_b == SHAPE_SPHERE:
            npt = sphere_sphere(shape_par[sa, 0], o[ka, 0], o[ka, 1], o[ka, 2],
                                shape_par[sb, 0], o[kb, 0], o[kb, 1], o[kb, 2], pts)
        elif kind_a == SHAPE_SPHERE and kind_b == SHAPE_PLANE:
            npt = sphere_plane(shape_par[sa, 0], o[ka, 0], o[ka, 1], o[ka, 2], o[kb, 0], o[kb, 1], o[kb, 2],
                               R[kb, 0, 2], R[kb, 1, 2], R[kb, 2, 2], 1.0, pts)
        elif kind_a == SHAPE_PLANE and kind_b == SHAPE_SPHERE:
            npt = sphere_plane(shape_par[sb, 0], o[kb, 0], o[kb, 1], o[kb, 2], o[ka, 0], o[ka, 1], o[ka, 2],
                               R[ka, 0, 2], R[ka, 1, 2], R[ka, 2, 2], -1.0, pts)
        else:
            npt = collide(kind_a, shape_par[sa], o[ka], R[ka], kind_b, shape_par[sb], o[kb], R[kb],
                          m.mesh_ptr, m.mesh_verts, m.mesh_tri_ptr, m.mesh_tris, pts)
        if npt <= 0:
            continue
        # per contact element
        law = a.law[c]
        fmodel = a.friction[c]
        k = pair_stiffness(a.par, a.law, m.shape_compliance, m.shape_inv_radius, c, sa, sb)
        stateful = a.stateful[c] != 0
        base = a.out_adr[c]
        Vp = 0.0
        for i in range(min(npt, MAX_POINTS)):
            d = pts[i, 0]
            n0, n1, n2 = pts[i, 1], pts[i, 2], pts[i, 3]
            p0, p1, p2 = pts[i, 4], pts[i, 5], pts[i, 6]
            # velocities of the material points at p: vo + w x (p - o) of each marker
            la0, la1, la2 = p0 - o[ka, 0], p1 - o[ka, 1], p2 - o[ka, 2]
            lb0, lb1, lb2 = p0 - o[kb, 0], p1 - o[kb, 1], p2 - o[kb, 2]
            v0 = (vo[ka, 0] + wm[ka, 1] * la2 - wm[ka, 2] * la1) - (vo[kb, 0] + wm[kb, 1] * lb2 - wm[kb, 2] * lb1)
            v1 = (vo[ka, 1] + wm[ka, 2] * la0 - wm[ka, 0] * la2) - (vo[kb, 1] + wm[kb, 2] * lb0 - wm[kb, 0] * lb2)
            v2 = (vo[ka, 2] + wm[ka, 0] * la1 - wm[ka, 1] * la0) - (vo[kb, 2] + wm[kb, 0] * lb1 - wm[kb, 1] * lb0)
            vn = v0 * n0 + v1 * n1 + v2 * n2
            zr = -1
            zw = -1
            if stateful:
                zr = state_find(zs, adr, cap, sa, sb, i)
                zw = state_insert(zn, adr, cap, sa, sb, i, used, stat)
            fn, Ve = normal_force(law, a.par[c], sv.curve_par, a.curves[c], k, d, -vn, h, zs, zn, zr, zw, full)
            Vp += Ve
            f0, f1, f2 = 0.0, 0.0, 0.0
            if full and fmodel != FRICTION_NONE:
                f0, f1, f2 = friction_law(fmodel, a.par[c], fn, n0, n1, n2, v0 - vn * n0, v1 - vn * n1,
                                          v2 - vn * n2, h, zs, zn, zr + R_S if zr >= 0 else -1,
                                          zw + R_S if zw >= 0 else -1)
            F0, F1, F2 = fn * n0 + f0, fn * n1 + f1, fn * n2 + f2
            add_point_force(sv, q, ka, p0, p1, p2, F0, F1, F2, 1.0, Q)
            add_point_force(sv, q, kb, p0, p1, p2, F0, F1, F2, -1.0, Q)
            out[base] += fn
            out[base + 1] += f0
            out[base + 2] += f1
            out[base + 3] += f2
            if fn > 0.0 and d > out[base + 4]:
                out[base + 4] = d
        V += Vp
    if keep:
        keep_permanent_sets(m, zs, zn, used, stat)
    return V


@inner_kernel(_nrt=False)
def keep_permanent_sets(m, zs, zn, used, stat):
    """Copy into zn the committed records (their largest depth d_m) of table-law contacts with an unloading curve
    whose points the last evaluation did not reach (shapes apart): the permanent set outlives the contact.
    O(capacity) per evaluation, only in models with such a contact."""
    a = m.contact
    adr = m.cont_state[0]
    cap = m.cont_state[1]
    for k in range(cap):
        base = adr + Z_RECORD * k
        if zs[base + R_S_KEY] == 0.0 or zs[base + R_DM] <= 0.0:
            continue
        s = int(zs[base + R_S_KEY]) - 1
        t = int(zs[base + R_T_KEY]) - 1
        i = int(zs[base + R_POINT])
        c, _, _ = pair_element(m.shape_body, m.shape_sig, m.sig_contact, m.sig_swap, s, t)
        if c < 0 or a.law[c] != LAW_TABLE or a.curves[c, 3] == 0:
            continue
        if state_find(zn, adr, cap, s, t, i) >= 0:
            continue
        zw = state_insert(zn, adr, cap, s, t, i, used, stat)
        if zw >= 0:
            zn[zw + R_DM] = zs[base + R_DM]
