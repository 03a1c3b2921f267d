"""The sparsity pattern of the ALF's iteration matrix M + Wx + c Phi_q^T Phi_q: the body order (natural or
reverse Cuthill-McKee), the envelope, the finite-difference colouring and the assembly's index tables
(kernels/solver_data.PatternArrays). Computed from a model's structure alone, once per CompiledModel
(``pattern_for``): ~1 ms of Python for the 15-body beam slider-crank (2 ms profiled), which every ``simulate``
call and every FMU instance paid again."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from ...compiler import CompiledModel
from ...compiler.bodies import translational_coordinates
from ...compiler.contacts import potential_body_pairs
from ...compiler.families import FAMILIES
from ...kernels import model_arrays as ma
from ...kernels.solver_data import PatternArrays
from ..ordering import reverse_cuthill_mckee
from ..workspace import max_body_coordinates

#: bound on the potential contact shape pairs up to which contact couplings enter the static envelope and
#: colouring (every pair that may touch, so Newton sees the full contact tangent); above it they are left out
CONTACT_ENVELOPE_LIMIT = 400


def _force_pairs(cm: CompiledModel) -> tuple[list[tuple[int, int]], bool]:
    """Body pairs coupled by force elements, and by contacts if the model has few potential contact pairs; and
    whether contact couplings were left out (then the colouring follows the contacts of each step)."""
    m = cm.arrays
    pairs = []
    for fam in FAMILIES:                         # marker pairs each family couples (registry data)
        for a, b in fam.coupled_markers(getattr(m, fam.key)):
            pairs.append((int(m.marker_body[a]), int(m.marker_body[b])))
    contact = potential_body_pairs(m, CONTACT_ENVELOPE_LIMIT)         # bodies that may touch
    pairs += contact or []
    return [(a, b) for a, b in pairs if a >= 0 and b >= 0 and a != b], contact is None


@dataclass
class Pattern:
    """Sparsity of the iteration matrix: body order, envelope, and the colouring for finite differences."""

    pos: np.ndarray       # envelope position of each coordinate
    first: np.ndarray     # first column of each envelope row
    ptr: np.ndarray       # start of each row in the value array (n + 1)
    colors: np.ndarray    # colour of each body (finite-difference groups)
    adj_ptr: np.ndarray   # force-element neighbourhood of each body (itself included), CSR
    adj_idx: np.ndarray
    jp_ptr: np.ndarray    # lower-triangle products (c2, value index) of each (row, c1), CSR
    jp: np.ndarray
    midx: np.ndarray      # value index of each mass-block entry (nb, nq, nq), -1 above the diagonal
    adj_rev: np.ndarray   # adjacency entry (b2 -> b) of each entry (b -> b2)
    dynamic_colors: bool  # contact couplings are not in adj: colours follow the contacts of each step

    def arrays(self) -> PatternArrays:
        """The named arrays the kernels read."""
        return PatternArrays(self.pos, self.first, self.ptr, self.colors, self.adj_ptr, self.adj_idx, self.jp_ptr,
                             self.jp, self.midx, self.adj_rev)

    @property
    def size(self) -> int:
        return int(self.ptr[-1])


def build_pattern(cm: CompiledModel, with_forces: bool) -> Pattern:
    """Envelope of M + Phi_q^T Phi_q (+ force-element coupling) in the better of the natural and the
    reverse Cuthill-McKee body order (George & Liu ch. 4), with bodies kept contiguous.

    Contact couplings enter the envelope and the static colouring only while the bound on potential contact
    pairs is at most CONTACT_ENVELOPE_LIMIT (small models keep the full contact tangent and their Newton
    convergence). Above it the envelope is that of the joints and force elements alone, the finite-difference
    tangent keeps only those blocks (a block-diagonal contact tangent: quasi-Newton across contacts), and the
    colours are recomputed in numba from the broad-phase pairs at every tangent refresh
    (kernels.system.contact_colors): a scene of n spheres costs O(n) per refresh, not O(n^2)."""
    m = cm.arrays
    nb = len(cm.body_names)
    coupled = {(int(a), int(b)) for a, b in zip(m.row_body_i, m.row_body_j) if a >= 0 and b >= 0 and a != b}
    forces, dynamic = _force_pairs(cm)
    if with_forces:
        coupled |= set(forces)
    edges = coupled | {(b, a) for a, b in coupled}

    def envelope(order):
        pos = np.zeros(cm.n_q, dtype=np.int64)
        k = 0
        for b in order:
            for i in range(m.body_q_num[b]):
                pos[m.body_q_adr[b] + i] = k
                k += 1
        first = np.arange(cm.n_q, dtype=np.int64)       # indexed by envelope row
        for b1, b2 in [(b, b) for b in range(nb)] + sorted(edges):
            p1 = pos[m.body_q_adr[b1]:m.body_q_adr[b1] + m.body_q_num[b1]]
            p2 = pos[m.body_q_adr[b2]:m.body_q_adr[b2] + m.body_q_num[b2]]
            np.minimum.at(first, np.maximum.outer(p1, p2).ravel(), np.minimum.outer(p1, p2).ravel())
        return pos, first

    best = None
    orders = [np.arange(nb)]
    if nb > 2 and edges:
        orders.append(reverse_cuthill_mckee(nb, edges))
    for order in orders:
        pos, first_by_pos = envelope(order)
        size = int(np.sum(np.arange(cm.n_q) - first_by_pos + 1))
        if best is None or size < best[0]:
            best = (size, pos, first_by_pos)
    _, pos, first = best
    ptr = np.zeros(cm.n_q + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.arange(cm.n_q) - first + 1)

    # distance-2 colouring of the force graph: bodies of one colour share no neighbourhood
    nbrs = [{b} for b in range(nb)]
    for a, b in forces:
        nbrs[a].add(b)
        nbrs[b].add(a)
    colors = -np.ones(nb, dtype=np.int64)
    for b in range(nb):
        taken = {colors[x] for y in nbrs[b] for x in nbrs[y]}
        c = 0
        while c in taken:
            c += 1
        colors[b] = c
    adj_ptr = np.zeros(nb + 1, dtype=np.int64)
    adj_ptr[1:] = np.cumsum([len(s) for s in nbrs])
    adj_idx = np.array([x for s in nbrs for x in sorted(s)], dtype=np.int64)
    entry = {(b, int(adj_idx[e])): e for b in range(nb) for e in range(adj_ptr[b], adj_ptr[b + 1])}
    adj_rev = np.array([entry[(int(adj_idx[e]), b)] for b in range(nb) for e in range(adj_ptr[b], adj_ptr[b + 1])],
                       dtype=np.int64)

    # index tables of the assembly: pairs of each Jacobian row block and entries of each mass block
    index = lambda p1, p2: ptr[p1] + p2 - first[p1]  # noqa: E731  (requires p2 <= p1)
    translational = np.zeros(cm.n_q, dtype=bool)   # DP1 and ANGLE rows never involve these columns
    for b in range(nb):
        translational[m.body_q_adr[b] + np.array(translational_coordinates(m, b), dtype=np.int64)] = True
    jp, jp_ptr = [], [0]
    for k in range(cm.n_rows):
        rotational = m.row_type[k] in (ma.ROW_DP1, ma.ROW_ANGLE)
        cols = [(c, int(col)) for c, col in enumerate(m.row_cols[k])
                if col >= 0 and not (rotational and translational[col])]
        for c1 in range(m.row_cols.shape[1]):
            col1 = int(m.row_cols[k, c1])
            if col1 >= 0 and (c1, col1) in cols:
                jp += [(c2, index(pos[col1], pos[col2])) for c2, col2 in cols if pos[col2] <= pos[col1]]
            jp_ptr.append(len(jp))
    nq = max_body_coordinates(cm)
    midx = -np.ones((nb, nq, nq), dtype=np.int64)
    for b in range(nb):
        a = m.body_q_adr[b]
        for i in range(m.body_q_num[b]):
            for j in range(m.body_q_num[b]):
                if pos[a + j] <= pos[a + i]:
                    midx[b, i, j] = index(pos[a + i], pos[a + j])
    return Pattern(pos, first.astype(np.int64), ptr, colors, adj_ptr, adj_idx, np.array(jp_ptr, dtype=np.int64),
                   np.array(jp, dtype=np.int64).reshape(-1, 2), midx, adj_rev, bool(dynamic and with_forces))


def pattern_for(cm: CompiledModel, with_forces: bool) -> Pattern:
    """build_pattern(cm, with_forces), computed once per model and arrays object (the pattern reads only the
    model's structure: bodies, rows, force couplings, contact signatures) and returned as a copy: the kernels
    write the colours of a model with dynamic colouring (kernels/system.contact_colors)."""
    memo = cm.derived.setdefault("iteration_pattern", {})
    hit = memo.get(bool(with_forces))
    if hit is None or hit[0] is not cm.arrays:
        hit = (cm.arrays, build_pattern(cm, with_forces))
        memo[bool(with_forces)] = hit
    pattern = hit[1]
    return replace(pattern, **{f.name: getattr(pattern, f.name).copy() for f in fields(pattern)
                               if isinstance(getattr(pattern, f.name), np.ndarray)})
