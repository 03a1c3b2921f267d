"""The fields of the solver's ``flexible`` body kind (model/elements.FlexibleBody: a linear FE substructure fixed in
the world) from an FE body of this package, so a beam built here or imported FE data runs in the solver today.

Coordinates: the DOFs that are not ``fixed``, in the FE body's order. The weight map is M_full T_full restricted to
them (T_full the rigid translation of every node): the consistent gravity load including the mass coupling to the
supports, which the reduced M T would miss.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from fmu_mbs.errors import ModelError

from .body import FEBody, free_dofs


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
