"""Reverse Cuthill-McKee ordering of a small undirected graph (the bodies of a model and their couplings).

Cuthill & McKee (1969), reversed as in George & Liu, *Computer Solution of Large Sparse Positive Definite Systems*
(1981), ch. 4: a breadth-first search from a node of least degree in each connected component, each node's
unvisited neighbours taken in increasing degree (ties by node number), the whole order reversed. Written here for
the few dozen bodies of a model: scipy.sparse.csgraph gives the same ordering up to ties, but importing scipy.sparse
cost an FMU ~0.12 s of its start-up.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def reverse_cuthill_mckee(n: int, edges: Iterable[tuple[int, int]]) -> np.ndarray:
    """Permutation (int64, length n) of the nodes 0..n-1 of the graph with the undirected ``edges``; self loops
    and repeated edges are ignored."""
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        if a != b:
            neighbours[a].add(b)
            neighbours[b].add(a)
    degree = [len(s) for s in neighbours]
    visited = [False] * n
    order: list[int] = []
    for seed in sorted(range(n), key=lambda i: (degree[i], i)):
        if visited[seed]:
            continue
        visited[seed] = True
        order.append(seed)
        head = len(order) - 1
        while head < len(order):
            fresh = sorted((j for j in neighbours[order[head]] if not visited[j]), key=lambda j: (degree[j], j))
            for j in fresh:
                visited[j] = True
            order.extend(fresh)
            head += 1
    return np.array(order[::-1], dtype=np.int64)
