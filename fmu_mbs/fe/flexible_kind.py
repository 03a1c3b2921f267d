"""The fields of the solver's ``flexible`` body kind (model/elements.FlexibleBody: a linear FE substructure fixed in
the world) from an FE body of this package, so a beam built here or imported FE data runs in the solver today.

Coordinates: the DOFs that are not ``fixed``, in the FE body's order. The weight map is M_full T_full restricted to
them (T_full the rigid translation of every node): the consistent gravity load including the mass coupling to the
supports, which the reduced M T would miss.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import ModelError
from .body import COMPONENTS, FEBody, free_dofs
from .modeset import ModeSet


def flexible_body_fields(body: FEBody, fixed: Iterable[int], damping: np.ndarray | None = None,
                         origin: Sequence[float] = (0.0, 0.0, 0.0)) -> dict[str, np.ndarray | list]:
    """Keyword arguments of ModelBuilder.add_flexible_body (after the name): mass_matrix, stiffness_matrix,
    node_positions (world: body nodes + origin, m), node_dofs (per node 6 coordinate indices, -1 = fixed or absent),
    gravity_load and, when given, damping_matrix (full n_dofs x n_dofs, restricted here)."""
    free = free_dofs(body.n_dofs, fixed)
    if len(free) == body.n_dofs:
        raise ModelError(f"{body.name}: the solver's flexible body is fixed in the world; give its supports")
    index = np.full(body.n_dofs, -1)
    index[free] = np.arange(len(free))
    d = body.dofs_per_node
    node_dofs = [[int(index[i * d + c]) if c < d else -1 for c in range(6)] for i in range(body.n_nodes)]
    T = np.zeros((body.n_dofs, 3))
    for c in range(3):
        T[c::d, c] = 1.0
    M = body.M.toarray()
    out: dict[str, np.ndarray | list] = {
        "mass_matrix": M[np.ix_(free, free)], "stiffness_matrix": body.K.toarray()[np.ix_(free, free)],
        "node_positions": body.nodes + np.asarray(origin, float), "node_dofs": node_dofs,
        "gravity_load": (M @ T)[free]}
    if damping is not None:
        D = np.asarray(damping, float)
        if D.shape != (body.n_dofs, body.n_dofs):
            raise ModelError(f"{body.name}: damping must be {body.n_dofs} x {body.n_dofs}")
        out["damping_matrix"] = D[np.ix_(free, free)]
    return out


def reduced_flexible_body_fields(ms: ModeSet,
                                 origin: Sequence[float] = (0.0, 0.0, 0.0)) -> dict[str, np.ndarray | list]:
    """The same fields for a Craig-Bampton mode set held in the world: its reference interface (or its supports) is
    fixed and its coordinates are [interface DOFs, modal coordinates]. Markers can sit on the nodes of its 'nodes'
    interfaces, whose DOFs are coordinates of their own (the constraint modes are unit displacements there and the
    normal modes vanish there); the other nodes are not listed. Weight map Psi^T M_full T_full."""
    if not (ms.reference.startswith("tangent:") or ms.reference == "clamped"):
        raise ModelError(f"{ms.body.name}: the solver's flexible body is fixed in the world; use a Craig-Bampton set "
                         f"with a tangent (held) reference interface, not '{ms.reference}'")
    body = ms.body
    col = {name: k for k, name in enumerate(ms.names)}
    held = ms.reference.split(":", 1)[1] if ms.reference.startswith("tangent:") else None
    positions, node_dofs = [], []
    for itf in ms.interfaces:
        if itf.kind != "nodes":
            raise ModelError(f"interface '{itf.name}': markers of the solver's flexible body need 'nodes' interfaces")
        for nd in itf.nodes:
            names = [f"{itf.name}.{body.node_ids[nd]}.{c}" for c in COMPONENTS[:body.dofs_per_node]]
            if itf.name != held and not all(n in col for n in names):
                raise ModelError(f"{body.name}: interface '{itf.name}' has no coordinates in the mode set "
                                 "(diagonalized?); keep the Craig-Bampton coordinates")
            dofs = [-1] * 6 if itf.name == held else [col[n] for n in names] + [-1] * (6 - len(names))
            rows = ms.basis[nd * body.dofs_per_node:(nd + 1) * body.dofs_per_node]
            unit = np.zeros_like(rows)
            for c, k in enumerate(dofs[:body.dofs_per_node]):
                if k >= 0:
                    unit[c, k] = 1.0
            if not np.allclose(rows, unit, atol=1e-9 * max(1.0, np.abs(ms.basis).max())):
                raise ModelError(f"{body.name}: node {body.node_ids[nd]} of interface '{itf.name}' does not move "
                                 "with its own coordinates alone (a basis column mixed in; use "
                                 "with_static_correction, which keeps interface DOFs apart)")
            positions.append(body.nodes[nd] + np.asarray(origin, float))
            node_dofs.append(dofs)
    T = np.zeros((body.n_dofs, 3))
    for c in range(3):
        T[c::body.dofs_per_node, c] = 1.0
    out: dict[str, np.ndarray | list] = {
        "mass_matrix": ms.mass, "stiffness_matrix": ms.stiffness, "node_positions": np.array(positions),
        "node_dofs": node_dofs, "gravity_load": ms.basis.T @ (body.M @ T)}
    if ms.damping is not None:
        out["damping_matrix"] = ms.damping
    return out
