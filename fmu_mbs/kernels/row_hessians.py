"""Second derivatives of constraint rows, d2Phi_k/dq2, and the geometric stiffness sum_k y_k d2Phi_k/dq2.

Analytic for the point rows of point masses and planar bodies, the rows whose Newton tangent loses most without
it (distance links of fast-turning point masses, seed 000 E7.2): a row Phi = g(d) of the marker separation
d = o_j - o_i, ROW_D (g = d.d/2, dg/dd = d, d2g/dd2 = I) and ROW_CD (g = c.d, dg/dd = c, d2g/dd2 = 0). With the
column derivative G_a = dd/dq_a (a body's translation: +-e_x, +-e_y (, +-e_z); a planar angle: +-e_z x s,
s = o - r the marker arm) and d2d/dtheta2 = -+s for the angle of body j / i:

  d2Phi/dq_a dq_b = G_a^T (d2g/dd2) G_b + [a = b is an angle] dg/dd . d2d/dtheta2.

ANGLE rows of planar bodies are linear in q (zero Hessian). Other rows (DP1, DP2, rows of rigid bodies, Euler
normalisation) are not covered: ``row_hessian`` returns False and ``add_geometric_stiffness`` skips them, so for
those the tangent stays without their geometric stiffness (as before: the iteration is then a modified Newton).
"""

from __future__ import annotations

from numba import njit

from .inner import inner_kernel
from .model_arrays import PLANAR, POINT_MASS, ROW_CD, ROW_D


@inner_kernel(_nrt=False)
def row_supported(m, k):
    """True if row k is a point row (ROW_D, ROW_CD) between point masses / planar bodies / ground."""
    typ = m.row_type[k]
    if typ != ROW_D and typ != ROW_CD:
        return False
    bi = m.row_body_i[k]
    bj = m.row_body_j[k]
    if bi >= 0 and m.body_kind[bi] != POINT_MASS and m.body_kind[bi] != PLANAR:
        return False
    return not (bj >= 0 and m.body_kind[bj] != POINT_MASS and m.body_kind[bj] != PLANAR)


@njit(cache=True, _nrt=False)
def _column(m, k, cc, r, o):
    """Column cc of row k (row_cols order): dd/dq_cc = (g0, g1, g2) and, for a planar angle, d2d/dtheta2 =
    (s0, s1, s2) (zero otherwise); d = o_j - o_i."""
    bi = m.row_body_i[k]
    nib = m.body_q_num[bi] if bi >= 0 else 0
    if cc < nib:
        b, mk, sign, li = bi, m.row_mi[k], -1.0, cc
    else:
        b, mk, sign, li = m.row_body_j[k], m.row_mj[k], 1.0, cc - nib
    if m.body_kind[b] == PLANAR and li == 2:
        s0 = o[mk, 0] - r[b, 0]
        s1 = o[mk, 1] - r[b, 1]
        return -sign * s1, sign * s0, 0.0, -sign * s0, -sign * s1, 0.0
    return (sign if li == 0 else 0.0), (sign if li == 1 else 0.0), (sign if li == 2 else 0.0), 0.0, 0.0, 0.0


@inner_kernel(_nrt=False)
def _row_grad(m, k, o):
    """dg/dd of row k (ROW_D: d; ROW_CD: c) and whether d2g/dd2 = I (ROW_D) or 0 (ROW_CD)."""
    if m.row_type[k] == ROW_D:
        mi = m.row_mi[k]
        mj = m.row_mj[k]
        return o[mj, 0] - o[mi, 0], o[mj, 1] - o[mi, 1], o[mj, 2] - o[mi, 2], True
    return m.row_c[k, 0], m.row_c[k, 1], m.row_c[k, 2], False


@inner_kernel(_nrt=False)
def row_hessian_entry(m, k, c1, c2, r, o):
    """d2Phi_k / dq_c1 dq_c2 for columns c1, c2 of row k (row_cols order) of a supported row (row_supported)."""
    g0, g1, g2, quadratic = _row_grad(m, k, o)
    a0, a1, a2, s0, s1, s2 = _column(m, k, c1, r, o)
    x = 0.0
    if quadratic:
        b0, b1, b2, _, _, _ = _column(m, k, c2, r, o)
        x = a0 * b0 + a1 * b1 + a2 * b2
    if c1 == c2:
        x += g0 * s0 + g1 * s1 + g2 * s2
    return x


@njit(cache=True, _nrt=False)
def row_hessian(m, k, r, o, out):
    """out[c1, c2] = d2Phi_k / dq_c1 dq_c2 over the columns of row k (row_cols order; frames r, o at q).
    Returns False (out untouched) for rows this module does not cover (module docstring)."""
    if not row_supported(m, k):
        return False
    ncol = m.row_cols.shape[1]
    for c1 in range(ncol):
        for c2 in range(ncol):
            if m.row_cols[k, c1] >= 0 and m.row_cols[k, c2] >= 0:
                out[c1, c2] = row_hessian_entry(m, k, c1, c2, r, o)
            else:
                out[c1, c2] = 0.0
    return True


@inner_kernel(_nrt=False)
def add_geometric_stiffness(m, r, o, y, scale, jp_ptr, jp, val):
    """val += scale sum_k y_k d2Phi_k/dq2 over the covered rows, into the envelope entries of the row products
    (jp_ptr, jp: the index tables of system.assemble_iteration_matrix; a point row's Hessian lies inside its
    own column products)."""
    ncol = m.row_cols.shape[1]
    for k in range(y.shape[0]):
        yk = scale * y[k]
        if yk == 0.0 or not row_supported(m, k):
            continue
        base = k * ncol
        for c1 in range(ncol):
            for e in range(jp_ptr[base + c1], jp_ptr[base + c1 + 1]):
                val[jp[e, 1]] += yk * row_hessian_entry(m, k, c1, jp[e, 0], r, o)
