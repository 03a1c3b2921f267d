"""A truss (bar) body: 2-node axial bars on 3-DOF nodes (ux uy uz), the simplest solid-like FE body.

Bar stiffness (EA/L) e e^T [1 -1; -1 1] and consistent mass rho A L/6 [2 1; 1 2] (x) I3 (translations in every
direction move with the bar's linear interpolation), or the lumped rho A L/2 per node (Przemieniecki 1968, ch. 5, 11).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError
from .body import FEBody


def truss_body(nodes: np.ndarray, elements: np.ndarray, EA: float, rhoA: float, lumped: bool = False,
               name: str = "truss") -> FEBody:
    """FE body of bars between node rows ``elements`` (e, 2); EA (N) and rho A (kg/m) for every bar."""
    nodes = np.asarray(nodes, float)
    el = np.asarray(elements, int)
    problems = []
    if nodes.ndim != 2 or nodes.shape[1] != 3:
        problems.append(f"{name}: nodes must be an (n, 3) array")
    if el.ndim != 2 or el.shape[1] != 2 or el.min() < 0 or el.max() >= len(nodes):
        problems.append(f"{name}: elements must be (e, 2) node rows in 0..{len(nodes) - 1}")
    if not (EA > 0 and rhoA > 0):
        problems.append(f"{name}: EA = {EA} and rhoA = {rhoA} must be positive")
    if problems:
        raise ModelError(problems)
    rows, cols, kv, mv = [], [], [], []
    mass_block = np.array([[0.5, 0.0], [0.0, 0.5]]) if lumped else np.array([[2.0, 1.0], [1.0, 2.0]]) / 6.0
    for k, (a, b) in enumerate(el):
        d = nodes[b] - nodes[a]
        L = float(np.linalg.norm(d))
        if L <= 0:
            raise ModelError(f"{name}: bar {k} joins node {a} to itself or to a node at the same place")
        e = d / L
        ke = EA / L * np.kron(np.array([[1.0, -1.0], [-1.0, 1.0]]), np.outer(e, e))
        me = rhoA * L * np.kron(mass_block, np.eye(3))
        idx = np.r_[np.arange(3 * a, 3 * a + 3), np.arange(3 * b, 3 * b + 3)]
        rows.append(np.repeat(idx, 6))
        cols.append(np.tile(idx, 6))
        kv.append(ke.ravel())
        mv.append(me.ravel())
    n = 3 * len(nodes)
    r, c = np.concatenate(rows), np.concatenate(cols)
    return FEBody(nodes=nodes, M=sp.csr_matrix((np.concatenate(mv), (r, c)), shape=(n, n)),
                  K=sp.csr_matrix((np.concatenate(kv), (r, c)), shape=(n, n)), dofs_per_node=3, name=name)
