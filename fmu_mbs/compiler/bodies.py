"""Lowering of the bodies: the body table (kind code, coordinate addresses and counts, mass, inertia), the initial
coordinates and their names, and the flexible bodies' tables (kernels/bodies/flexible.FlexArrays). One branch per
body kind; a body of any other class is refused by name."""

from __future__ import annotations

import numpy as np

from ..kernels import model_arrays as ma
from ..kernels.bodies.flexible import FlexArrays
from ..model.elements import FlexibleBody, Model, PlanarBody, PointMass, RigidBody
from ..model.validate_flexible import marker_node

_AXES = ("x", "y", "z", "rx", "ry", "rz")


def _flexible(t: dict, i: int, b: FlexibleBody, q0: list, qd0: list, q_names: list) -> None:
    n = len(b.mass_matrix)
    M = np.array(b.mass_matrix, dtype=float)
    dofs = np.array(b.node_dofs, dtype=np.int64).reshape(-1, 6)
    T = np.zeros((n, 3))
    names = [f"{b.name}.u{c}" for c in range(n)]
    for j, row in enumerate(dofs):
        for c in range(6):
            if row[c] >= 0:
                names[row[c]] = f"{b.name}.n{j}_{_AXES[c]}"
                if c < 3:
                    T[row[c], c] = 1.0
    t["kind"][i] = ma.FLEXIBLE
    t["mass"][i] = float(T[:, 0] @ M @ T[:, 0]) if T[:, 0].any() else 0.0    # translating mass (kg), informative
    t["flex"].append((i, b, M, T, dofs))
    q0 += list(b.displacement) if len(b.displacement) else [0.0] * n
    qd0 += list(b.velocity) if len(b.velocity) else [0.0] * n
    q_names += names


def lower_bodies(model: Model) -> dict:
    """Body table, initial coordinates and their names; ``flex``: the flexible bodies to pool (flex_arrays)."""
    dim = model.dimension
    nb = len(model.bodies)
    t = dict(kind=np.zeros(nb, dtype=np.int64), q_adr=np.zeros(nb, dtype=np.int64), q_num=np.zeros(nb, dtype=np.int64),
             mass=np.zeros(nb), inertia=np.zeros((nb, 3, 3)), q0=[], qd0=[], q_names=[], flex=[])
    q0, qd0, q_names = t["q0"], t["qd0"], t["q_names"]
    for i, b in enumerate(model.bodies):
        t["q_adr"][i] = len(q0)
        if isinstance(b, RigidBody):
            t["mass"][i] = b.mass
            t["kind"][i] = ma.RIGID
            p = np.asarray(b.orientation) / np.linalg.norm(b.orientation)
            E = np.array([[-p[1], p[0], -p[3], p[2]], [-p[2], p[3], p[0], -p[1]], [-p[3], -p[2], p[1], p[0]]])
            q0 += list(b.position) + list(p)
            qd0 += list(b.velocity) + list(0.5 * E.T @ np.asarray(b.angular_velocity))
            t["inertia"][i] = np.asarray(b.inertia)
            q_names += [f"{b.name}.{c}" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]
        elif isinstance(b, PlanarBody):
            t["mass"][i] = b.mass
            t["kind"][i] = ma.PLANAR
            q0 += list(b.position) + [b.angle]
            qd0 += list(b.velocity) + [b.angular_velocity]
            t["inertia"][i, 2, 2] = b.inertia
            q_names += [f"{b.name}.{c}" for c in ("x", "y", "theta")]
        elif isinstance(b, PointMass):
            t["mass"][i] = b.mass
            t["kind"][i] = ma.POINT_MASS
            q0 += list(b.position)
            qd0 += list(b.velocity)
            q_names += [f"{b.name}.{c}" for c in ("x", "y", "z")[:dim]]
        elif isinstance(b, FlexibleBody):
            _flexible(t, i, b, q0, qd0, q_names)
        else:
            raise TypeError(f"body '{getattr(b, 'name', b)}': unknown body kind {type(b).__name__}")
        t["q_num"][i] = len(q0) - t["q_adr"][i]
    return t


def flex_arrays(model: Model, bodies: dict, m_body: np.ndarray) -> FlexArrays:
    """The flexible bodies' pools: M, K, C (n x n) and M T (n x 3) per body, the node tables and the node of each
    marker on a flexible body (``m_body``: the markers' body indices)."""
    nb = len(bodies["kind"])
    mat_adr = -np.ones(nb, dtype=np.int64)
    pool: list[float] = []
    node_pos: list = []
    node_dof: list = []
    node_ptr = np.zeros(nb + 1, dtype=np.int64)
    first_node = {}
    for i, b, M, T, dofs in bodies["flex"]:
        n = M.shape[0]
        C = np.array(b.damping_matrix, dtype=float) if len(b.damping_matrix) else np.zeros((n, n))
        mat_adr[i] = len(pool)
        MT = np.array(b.gravity_load, dtype=float) if len(b.gravity_load) else M @ T
        pool += list(M.ravel()) + list(np.array(b.stiffness_matrix, dtype=float).ravel()) + list(C.ravel()) \
            + list(MT.ravel())
        first_node[i] = len(node_pos)
        node_pos += [list(map(float, x)) for x in b.node_positions]
        node_dof += dofs.tolist()
        node_ptr[i + 1] = len(node_pos) - first_node[i]
    node_ptr = np.cumsum(node_ptr)
    m_node = -np.ones(len(model.markers), dtype=np.int64)
    for k, mk in enumerate(model.markers):
        b = int(m_body[k])
        if b >= 0 and bodies["kind"][b] == ma.FLEXIBLE:
            j = marker_node(model.bodies[b], mk.position)
            if j is None:
                raise ValueError(f"marker '{mk.name}': no node of flexible body '{model.bodies[b].name}' at "
                                 f"{tuple(mk.position)}")
            m_node[k] = first_node[b] + j
    return FlexArrays(mat_adr, np.array(pool, dtype=float), node_ptr, np.array(node_pos, dtype=float).reshape(-1, 3),
                      np.array(node_dof, dtype=np.int64).reshape(-1, 6), m_node)


def translational_coordinates(m, b: int) -> list[int]:
    """Offsets (within body b's coordinates) of the coordinates that only translate markers: rotation-only rows
    (DP1, ANGLE) never involve them (the iteration matrix's pattern leaves their products out)."""
    kind = int(m.body_kind[b])
    if kind == ma.RIGID:
        return [0, 1, 2]
    if kind == ma.PLANAR:
        return [0, 1]
    if kind == ma.POINT_MASS:
        return list(range(int(m.body_q_num[b])))
    if kind == ma.FLEXIBLE:
        dofs = m.flex.node_dof[m.flex.node_ptr[b]:m.flex.node_ptr[b + 1]]
        return sorted(int(d) for d in dofs[:, :3].ravel() if d >= 0)
    raise TypeError(f"body {b}: unknown body kind code {kind}")
