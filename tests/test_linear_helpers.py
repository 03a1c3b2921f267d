"""The small linear-algebra and graph helpers written in numpy for the FMU's start-up path (no scipy import there):
the pivoted QR's rank and row choice against scipy.linalg's LAPACK dgeqp3, and the reverse Cuthill-McKee order
against scipy.sparse.csgraph and a graph whose best order is known."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee as scipy_rcm

from fmu_mbs.analyses.graph_order import reverse_cuthill_mckee
from fmu_mbs.analyses.linear import independent_rows, pivoted_qr_diagonal


def test_pivoted_qr_diagonal_equals_lapack_on_general_matrices():
    """Without ties the pivot order is unique: |diag R| and the permutation equal LAPACK's (dgeqp3)."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        A = rng.standard_normal((rng.integers(2, 12), rng.integers(2, 12)))
        _, R, piv = sla.qr(A, mode="economic", pivoting=True)
        diag, piv2 = pivoted_qr_diagonal(A)
        k = min(A.shape)
        assert np.allclose(diag, np.abs(np.diag(R))[:k], rtol=1e-10, atol=1e-13)
        assert (piv2[:k] == piv[:k]).all()


@pytest.mark.parametrize("seed", range(4))
def test_independent_rows_of_rank_deficient_jacobians(seed):
    """Rows chosen as independent span the row space (numpy's SVD rank) and number exactly the rank, also for
    integer matrices with many equal norms (redundant joints give such rows)."""
    rng = np.random.default_rng(seed)
    for _ in range(40):
        m, n = rng.integers(2, 15), rng.integers(2, 20)
        r = rng.integers(1, min(m, n) + 1)
        J = rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
        if rng.random() < 0.5:
            J = np.round(J)
        rank = np.linalg.matrix_rank(J)
        rows, redundant = independent_rows(J)
        assert len(rows) == rank and len(rows) + len(redundant) == m
        assert np.linalg.matrix_rank(J[rows]) == rank


def test_rcm_orders_a_shuffled_path_to_bandwidth_one():
    rng = np.random.default_rng(3)
    labels = rng.permutation(12)
    edges = {(int(labels[i]), int(labels[i + 1])) for i in range(11)}
    order = reverse_cuthill_mckee(12, edges)
    pos = np.empty(12, dtype=int)
    pos[order] = np.arange(12)
    assert sorted(order) == list(range(12))
    assert max(abs(pos[a] - pos[b]) for a, b in edges) == 1


def _profile(order, edges, n):
    """Envelope size sum_i (i - first neighbour position of row i) of the symmetric pattern in this order."""
    pos = np.empty(n, dtype=int)
    pos[order] = np.arange(n)
    first = np.arange(n)
    for a, b in edges:
        i, j = max(pos[a], pos[b]), min(pos[a], pos[b])
        first[i] = min(first[i], j)
    return int(np.sum(np.arange(n) - first))


def test_rcm_is_cuthill_mckee_reversed_and_as_good_as_scipys():
    """The reversed order is a breadth-first order from a least-degree node of each component, each node's new
    neighbours in nondecreasing degree (the definition); over 300 random graphs its envelope is within 5 % of
    scipy.sparse.csgraph's (the two differ only in how ties are broken)."""
    rng = np.random.default_rng(11)
    ours = theirs = 0
    for _ in range(300):
        n = int(rng.integers(3, 25))
        edges = {(int(a), int(b)) for a, b in rng.integers(0, n, (int(rng.integers(1, 3 * n)), 2)) if a != b}
        edges |= {(b, a) for a, b in edges}
        nbrs = [{b for a, b in edges if a == i} for i in range(n)]
        degree = [len(s) for s in nbrs]
        cm = list(reverse_cuthill_mckee(n, edges)[::-1])
        assert sorted(cm) == list(range(n))
        seen, head = {cm[0]}, 0
        assert degree[cm[0]] == min(degree)
        k = 1
        while k < n:
            if head == k:                                   # a new component: starts at a least-degree node
                assert degree[cm[k]] == min(degree[i] for i in range(n) if i not in seen)
                seen.add(cm[k])
                k += 1
                continue
            fresh = nbrs[cm[head]] - seen
            block = cm[k:k + len(fresh)]
            assert set(block) == fresh
            assert [degree[i] for i in block] == sorted(degree[i] for i in block)
            seen |= fresh
            k += len(fresh)
            head += 1
        graph = csr_matrix((np.ones(len(edges)), ([a for a, _ in edges], [b for _, b in edges])), shape=(n, n))
        ours += _profile(reverse_cuthill_mckee(n, edges), edges, n)
        theirs += _profile(np.asarray(scipy_rcm(graph, symmetric_mode=True)), edges, n)
    assert ours <= 1.05 * theirs
