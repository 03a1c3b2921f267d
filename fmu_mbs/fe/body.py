"""A linear finite-element body: node positions, sparse mass and stiffness, its DOF layout and supports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError

if TYPE_CHECKING:
    from .beam_body import BeamMesh

COMPONENTS = ("ux", "uy", "uz", "rx", "ry", "rz")


@dataclass(frozen=True)
class FEBody:
    """Linear FE data in the body frame (SI units).

    nodes: (n, 3) reference positions (m); M, K: (n*d, n*d) sparse mass (kg, kg m, kg m^2) and stiffness;
    dofs_per_node d: 6 (ux uy uz rx ry rz, beams and shells) or 3 (ux uy uz, solids); DOF of node i,
    component c is i*d + c. node_ids: the labels of the source (FE tool node numbers), default 0..n-1.
    beam: the element data when the body was assembled from beam elements (section forces, geometric stiffness).
    """

    nodes: np.ndarray
    M: sp.csr_matrix
    K: sp.csr_matrix
    dofs_per_node: int = 6
    node_ids: np.ndarray = field(default=None)  # type: ignore[assignment]
    name: str = "body"
    beam: BeamMesh | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        nodes = np.asarray(self.nodes, float)
        object.__setattr__(self, "nodes", nodes)
        n = self.n_dofs
        problems = []
        if nodes.ndim != 2 or nodes.shape[1] != 3:
            problems.append(f"{self.name}: nodes must be an (n, 3) array, got shape {nodes.shape}")
        if self.dofs_per_node not in (3, 6):
            problems.append(f"{self.name}: dofs_per_node must be 3 or 6, got {self.dofs_per_node}")
        for label, mat in (("M", self.M), ("K", self.K)):
            if mat.shape != (n, n):
                problems.append(f"{self.name}: {label} is {mat.shape}, expected ({n}, {n}) for "
                                f"{len(nodes)} nodes x {self.dofs_per_node} DOFs")
        if problems:
            raise ModelError(problems)
        object.__setattr__(self, "M", sp.csr_matrix(self.M))
        object.__setattr__(self, "K", sp.csr_matrix(self.K))
        ids = np.arange(len(nodes)) if self.node_ids is None else np.asarray(self.node_ids, int)
        if len(ids) != len(nodes) or len(set(ids.tolist())) != len(ids):
            raise ModelError(f"{self.name}: node_ids must be {len(nodes)} distinct labels")
        object.__setattr__(self, "node_ids", ids)

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    @property
    def n_dofs(self) -> int:
        return len(self.nodes) * self.dofs_per_node

    def index(self, node_id: int) -> int:
        """Row of the node with the source label node_id."""
        hit = np.nonzero(self.node_ids == node_id)[0]
        if not len(hit):
            raise ModelError(f"{self.name}: no node with label {node_id}")
        return int(hit[0])

    def dof(self, node: int, component: str) -> int:
        """Global DOF of node row ``node`` and component 'ux' ... 'rz'."""
        c = COMPONENTS.index(component) if component in COMPONENTS else -1
        if c < 0 or c >= self.dofs_per_node:
            raise ModelError(f"{self.name}: component '{component}' is not one of "
                             f"{COMPONENTS[:self.dofs_per_node]}")
        return node * self.dofs_per_node + c

    def dofs(self, supports: Mapping[int, str | Iterable[str]]) -> np.ndarray:
        """Sorted DOF indices of supports {node row: 'all' | component names}, e.g. {0: 'all', 10: ['uy', 'uz']}."""
        out = []
        for node, comps in supports.items():
            if not 0 <= node < self.n_nodes:
                raise ModelError(f"{self.name}: support on node {node}, which does not exist (0..{self.n_nodes - 1})")
            names = COMPONENTS[:self.dofs_per_node] if comps == "all" else ([comps] if isinstance(comps, str)
                                                                                  else list(comps))
            out += [self.dof(node, c) for c in names]
        return np.array(sorted(set(out)), dtype=int)

    def rigid_modes(self, origin: np.ndarray | None = None) -> np.ndarray:
        """(n_dofs, 6) displacements of the six small rigid motions about ``origin`` (translations x, y, z, then
        rotations about x, y, z): u_i = t + theta x (x_i - origin), node rotation = theta."""
        o = np.zeros(3) if origin is None else np.asarray(origin, float)
        d = self.dofs_per_node
        R = np.zeros((self.n_dofs, 6))
        for i, x in enumerate(self.nodes - o):
            R[i * d:i * d + 3, 0:3] = np.eye(3)
            R[i * d:i * d + 3, 3:6] = -skew(x)
            if d == 6:
                R[i * d + 3:i * d + 6, 3:6] = np.eye(3)
        return R


def skew(v: np.ndarray) -> np.ndarray:
    """The cross-product matrix: skew(a) @ b = a x b."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def free_dofs(n_dofs: int, fixed: Iterable[int] | None) -> np.ndarray:
    """The DOFs not in ``fixed``."""
    mask = np.ones(n_dofs, bool)
    if fixed is not None:
        mask[np.asarray(list(fixed), int)] = False
    return np.nonzero(mask)[0]
