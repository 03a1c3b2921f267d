"""Interfaces of a reduced body: where joints, forces and contacts attach, and how they constrain the nodes.

An interface has coordinates q and a linear constraint C u = E q on the body's DOFs u:

- ``rigid`` (NASTRAN RBE2 style): the nodes move as a rigid body with a reference point; q = the 6 small motions
  (ux uy uz rx ry rz) of the point; C selects every DOF of the nodes and E = R_B, the rigid modes of the nodes about
  the point. Stiffens the body locally (Exudyn ``HCBstaticModeSelection.RBE2``).
- ``averaged`` (RBE3 style): q = the weighted least-squares rigid motion of the nodes' translations,
  q = (R_t^T D R_t)^-1 R_t^T D u_t (D = diag of the weights), so the interface does not stiffen the body; it may
  deform more than the real joint (Exudyn's warning for RBE3). Needs >= 3 nodes not on one line.
- ``nodes``: q = every DOF of the nodes themselves (classical Craig-Bampton boundary set).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from ..errors import ModelError
from .body import COMPONENTS, FEBody

KINDS = ("rigid", "averaged", "nodes")


@dataclass(frozen=True)
class Interface:
    """An interface: name, node rows of the FE body, kind (see module), reference point (m, default the centroid
    of the nodes) and, for 'averaged', one weight per node (default equal)."""

    name: str
    nodes: tuple[int, ...]
    kind: str = "rigid"
    point: tuple[float, float, float] | None = None
    weights: tuple[float, ...] | None = None

    def reference_point(self, body: FEBody) -> np.ndarray:
        """The interface's reference point in the body frame (m)."""
        return body.nodes[list(self.nodes)].mean(axis=0) if self.point is None else np.asarray(self.point, float)

    def coordinate_names(self, body: FEBody) -> list[str]:
        """Names of the interface coordinates q: '<name>.ux' ... or '<name>.<node>.ux' for kind 'nodes'."""
        if self.kind == "nodes":
            return [f"{self.name}.{body.node_ids[n]}.{c}" for n in self.nodes for c in COMPONENTS[:body.dofs_per_node]]
        return [f"{self.name}.{c}" for c in COMPONENTS]

    def check(self, body: FEBody) -> None:
        """Raise ModelError naming the interface and every problem found."""
        p = []
        if self.kind not in KINDS:
            p.append(f"interface '{self.name}': kind '{self.kind}' is unknown; use one of {KINDS}")
        if not self.nodes:
            p.append(f"interface '{self.name}': no nodes")
        bad = [n for n in self.nodes if not 0 <= n < body.n_nodes]
        if bad:
            p.append(f"interface '{self.name}': nodes {bad} do not exist in '{body.name}' (0..{body.n_nodes - 1})")
        if self.weights is not None and (len(self.weights) != len(self.nodes) or min(self.weights) <= 0):
            p.append(f"interface '{self.name}': weights must be {len(self.nodes)} positive numbers")
        if p:
            raise ModelError(p)
        if self.kind in ("rigid", "averaged"):
            Rt = self._rigid(body)[0 if self.kind == "averaged" else 1]
            if np.linalg.matrix_rank(Rt, tol=1e-9 * max(1.0, np.abs(Rt).max())) < 6:
                need = "3 nodes not on one line" if self.kind == "averaged" or body.dofs_per_node == 3 else "a node"
                raise ModelError(f"interface '{self.name}': the {self.kind} interface cannot carry rotations; "
                                 f"it needs {need}")

    def _rigid(self, body: FEBody) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Translation rows R_t (3 per node), all rows R_B, and the DOF indices of the nodes."""
        d = body.dofs_per_node
        dofs = np.array([n * d + c for n in self.nodes for c in range(d)])
        RB = body.rigid_modes(self.reference_point(body))[dofs]
        trans = np.array([k for k in range(len(dofs)) if k % d < 3])
        return RB[trans], RB, dofs

    def constraint(self, body: FEBody) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """(C, E, pivots): C u = E q, C (rows, n_dofs) sparse, E (rows, n_q) dense, and ``rows`` DOFs (pivots) that
        the constraint can be solved for, so u[pivots] = C_P^-1 (E q - C_O u_others)."""
        self.check(body)
        d = body.dofs_per_node
        n = body.n_dofs
        if self.kind == "nodes":
            dofs = np.array([nd * d + c for nd in self.nodes for c in range(d)])
            C = sp.csr_matrix((np.ones(len(dofs)), (np.arange(len(dofs)), dofs)), shape=(len(dofs), n))
            return C, np.eye(len(dofs)), dofs
        Rt, RB, dofs = self._rigid(body)
        if self.kind == "rigid":
            C = sp.csr_matrix((np.ones(len(dofs)), (np.arange(len(dofs)), dofs)), shape=(len(dofs), n))
            return C, RB, dofs
        w = np.repeat(np.ones(len(self.nodes)) if self.weights is None else np.asarray(self.weights, float), 3)
        W = np.linalg.solve(Rt.T @ (w[:, None] * Rt), Rt.T * w)           # (6, 3 n_nodes)
        tdofs = np.array([nd * d + c for nd in self.nodes for c in range(3)])
        # pivots: the 6 best-conditioned columns (QR with column pivoting)
        _, _, perm = la.qr(W, pivoting=True, mode="economic")
        C = sp.csr_matrix((W.ravel(), (np.repeat(np.arange(6), len(tdofs)), np.tile(tdofs, 6))), shape=(6, n))
        return C, np.eye(6), tdofs[perm[:6]]


def constraint_set(body: FEBody, interfaces: Sequence[Interface]) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Stacked (C, E, pivots) of several interfaces; E block-diagonal. Interfaces must not share nodes."""
    seen: dict[int, str] = {}
    for itf in interfaces:
        for nd in itf.nodes:
            if nd in seen:
                raise ModelError(f"interfaces '{seen[nd]}' and '{itf.name}' share node {nd}; an FE node can belong "
                                 "to one interface only")
            seen[nd] = itf.name
    parts = [itf.constraint(body) for itf in interfaces]
    if len({itf.name for itf in interfaces}) != len(interfaces):
        raise ModelError("interface names must be unique")
    C = sp.vstack([p[0] for p in parts]).tocsr()
    E = np.zeros((C.shape[0], sum(p[1].shape[1] for p in parts)))
    r = c = 0
    for p in parts:
        E[r:r + p[1].shape[0], c:c + p[1].shape[1]] = p[1]
        r += p[1].shape[0]
        c += p[1].shape[1]
    return C, E, np.concatenate([p[2] for p in parts])


def null_space_basis(C: sp.csr_matrix, pivots: np.ndarray) -> sp.csr_matrix:
    """N (n, n - rows) with C N = 0: u = N z, z the non-pivot DOFs, u[pivots] = -C_P^-1 C_O z."""
    n = C.shape[1]
    others = np.setdiff1d(np.arange(n), pivots)
    col_of = np.full(n, -1)
    col_of[others] = np.arange(len(others))
    rows, cols, vals = [others], [np.arange(len(others))], [np.ones(len(others))]
    CO = C[:, others].tocsc()
    used = np.nonzero(np.diff(CO.indptr))[0]          # only the coupled columns (averaged interfaces)
    if len(used):
        dep = -np.linalg.solve(C[:, pivots].toarray(), CO[:, used].toarray())
        r, c = np.nonzero(dep)
        rows.append(pivots[r])
        cols.append(used[c])
        vals.append(dep[r, c])
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=(n, len(others)))
