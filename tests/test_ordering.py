"""The reverse Cuthill-McKee ordering (fmu_mbs/analyses/ordering.py) that orders the ALF's envelope matrix: a
permutation, the bandwidths graph theory gives for paths and grids, and profiles no worse than scipy's
implementation of the same algorithm on random sparse graphs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee as scipy_rcm

from fmu_mbs.analyses.ordering import reverse_cuthill_mckee


def bandwidth_and_profile(n: int, edges: list[tuple[int, int]], order: np.ndarray) -> tuple[int, int]:
    """(bandwidth, profile) of the adjacency matrix with its diagonal, rows and columns in ``order``."""
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    first = np.arange(n)
    for a, b in edges:
        i, j = max(pos[a], pos[b]), min(pos[a], pos[b])
        first[i] = min(first[i], j)
    return int(np.max(np.arange(n) - first)), int(np.sum(np.arange(n) - first + 1))


def random_graph(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    """A chain-like sparse graph (bodies joined mostly to nearby ones, a few long links), nodes shuffled."""
    perm = rng.permutation(n)
    edges = [(int(perm[i]), int(perm[i + 1 + rng.integers(0, 3)])) for i in range(n - 4)]
    edges += [(int(rng.integers(n)), int(rng.integers(n))) for _ in range(n // 10)]
    return edges


def test_a_permutation_of_every_node_with_isolated_nodes_and_components() -> None:
    edges = [(0, 3), (3, 5), (5, 0), (7, 8), (8, 8), (3, 0)]
    order = reverse_cuthill_mckee(10, edges)
    assert order.dtype == np.int64
    assert sorted(order.tolist()) == list(range(10))
    assert np.array_equal(order, reverse_cuthill_mckee(10, list(reversed(edges))))   # deterministic


def test_a_shuffled_path_gets_bandwidth_one() -> None:
    rng = np.random.default_rng(3)
    perm = rng.permutation(40)
    edges = [(int(perm[i]), int(perm[i + 1])) for i in range(39)]
    bw, _ = bandwidth_and_profile(40, edges, reverse_cuthill_mckee(40, edges))
    assert bw == 1


@pytest.mark.parametrize("p, q", [(3, 7), (5, 5), (4, 12)])
def test_a_grid_gets_the_level_structure_bound(p: int, q: int) -> None:
    """A numbering by the BFS levels of a corner (anti-diagonals, at most min(p, q) nodes each) puts the ends of an
    edge in two consecutive levels: bandwidth <= 2 min(p, q) - 1 (natural row-wise numbering: max(p, q))."""
    rng = np.random.default_rng(p * 100 + q)
    label = rng.permutation(p * q)
    node = label.reshape(p, q)
    edges = [(int(node[i, j]), int(node[i + 1, j])) for i in range(p - 1) for j in range(q)]
    edges += [(int(node[i, j]), int(node[i, j + 1])) for i in range(p) for j in range(q - 1)]
    bw, _ = bandwidth_and_profile(p * q, edges, reverse_cuthill_mckee(p * q, edges))
    assert bw <= 2 * min(p, q) - 1


def test_profiles_no_worse_than_scipys_rcm_on_random_sparse_graphs() -> None:
    rng = np.random.default_rng(11)
    ours = theirs = 0
    for n in list(range(5, 60, 3)) + [200, 500]:
        edges = random_graph(rng, n)
        sym = sorted(set(edges) | {(b, a) for a, b in edges})     # as alf.py passed them to scipy
        graph = csr_matrix((np.ones(len(sym)), ([a for a, _ in sym], [b for _, b in sym])), shape=(n, n))
        ref = np.asarray(scipy_rcm(graph, symmetric_mode=True), dtype=np.int64)
        ours += bandwidth_and_profile(n, sym, reverse_cuthill_mckee(n, edges))[1]
        theirs += bandwidth_and_profile(n, sym, ref)[1]
    assert ours <= theirs, (ours, theirs)


def test_an_edge_outside_the_graph_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        reverse_cuthill_mckee(3, [(0, 3)])
