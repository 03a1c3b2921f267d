"""Lowering of the bodies: the body table (kind code, coordinate addresses and counts, mass, inertia), the initial
coordinates and their names, and the flexible and modal bodies' tables (kernels/bodies/flexible.FlexArrays,
kernels/bodies/modal.ModalArrays). One branch per body kind; a body of any other class is refused by name."""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..kernels import model_arrays as ma
from ..kernels.bodies.flexible import FlexArrays
from ..kernels.bodies.modal import ModalArrays
from ..model.elements import FlexibleBody, ModalBody, Model, PlanarBody, PointMass, RigidBody
from ..model.validate_flexible import marker_node
from ..model.validate_modal import node_row

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


def _euler(orientation, angular_velocity) -> tuple[list, list]:
    """Unit Euler parameters p and their rate p' = 1/2 E(p)^T w of a world angular velocity w."""
    p = np.asarray(orientation, dtype=float) / np.linalg.norm(orientation)
    E = np.array([[-p[1], p[0], -p[3], p[2]], [-p[2], p[3], p[0], -p[1]], [-p[3], -p[2], p[1], p[0]]])
    return list(p), list(0.5 * E.T @ np.asarray(angular_velocity, dtype=float))


def _modal(t: dict, i: int, b: ModalBody, q0: list, qd0: list, q_names: list) -> None:
    # imported here: it imports fmu_mbs.fe and scipy.linalg (~0.7 s), which only models with modal bodies need
    from ..model.modal_data import modal_data

    data = modal_data(b)
    m = data.inv.n_modes
    for name in ("modal_coordinates", "modal_velocities"):
        if len(getattr(b, name)) not in (0, m):
            raise ModelError(f"body '{b.name}': '{name}' must be empty or {m} numbers (its mode count), got "
                             f"{len(getattr(b, name))}")
    p, pd = _euler(b.orientation, b.angular_velocity)
    t["kind"][i] = ma.MODAL
    t["mass"][i] = data.inv.mass
    t["inertia"][i] = data.inv.inertia_at_com           # informative (the kernels use the invariants)
    t["modal"].append((i, b, data))
    q0 += list(b.position) + p + (list(b.modal_coordinates) or [0.0] * m)
    qd0 += list(b.velocity) + pd + (list(b.modal_velocities) or [0.0] * m)
    q_names += [f"{b.name}.{c}" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]
    q_names += [f"{b.name}.eta[{k + 1}]" for k in range(m)]


def lower_bodies(model: Model) -> dict:
    """Body table, initial coordinates and their names; ``flex``: the flexible bodies to pool (flex_arrays)."""
    dim = model.dimension
    nb = len(model.bodies)
    t = dict(kind=np.zeros(nb, dtype=np.int64), q_adr=np.zeros(nb, dtype=np.int64), q_num=np.zeros(nb, dtype=np.int64),
             mass=np.zeros(nb), inertia=np.zeros((nb, 3, 3)), q0=[], qd0=[], q_names=[], flex=[], modal=[])
    q0, qd0, q_names = t["q0"], t["qd0"], t["q_names"]
    for i, b in enumerate(model.bodies):
        t["q_adr"][i] = len(q0)
        if isinstance(b, RigidBody):
            t["mass"][i] = b.mass
            t["kind"][i] = ma.RIGID
            p, pd = _euler(b.orientation, b.angular_velocity)
            q0 += list(b.position) + p
            qd0 += list(b.velocity) + pd
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
        elif isinstance(b, ModalBody):
            _modal(t, i, b, q0, qd0, q_names)
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
                      np.array(node_dof, dtype=np.int64).reshape(-1, 6), m_node, modal_arrays(model, bodies, m_body))


#: ModalArrays fields that address an invariant in the pool, and the invariant (fe.invariants name)
_POOLED = (("phit_psi", "mPhitTPsi"), ("phit_psit", "mPhitTPsiTilde"), ("x_psi", "mXRefTildePsi"),
           ("x_psit", "mXRefTildePsiTilde"), ("psit_psi", "mPsiTildePsi"), ("psit_psit", "mPsiTildePsiTilde"),
           ("m_ff", "M_ff"), ("k_ff", "K_ff"), ("d_ff", "D_ff"))


def modal_arrays(model: Model, bodies: dict, m_body: np.ndarray) -> ModalArrays:
    """The modal bodies' tables (kernels/bodies/modal.ModalArrays): invariants pooled row-major per body, and the
    basis rows (6 x m) of each marker's node (``m_body``: the markers' body indices)."""
    nb = len(bodies["kind"])
    adr = {f: -np.ones(nb, dtype=np.int64) for f, _ in _POOLED}
    adr["k_geo"] = -np.ones(nb, dtype=np.int64)
    n_modes = np.zeros(nb, dtype=np.int64)
    com, j0, stiff = np.zeros((nb, 3)), np.zeros((nb, 3, 3)), np.zeros(nb, dtype=np.int64)
    pool: list[np.ndarray] = []
    size = 0
    data_of = {}
    for i, b, data in bodies["modal"]:
        inv = data.inv
        m = inv.n_modes
        n_modes[i] = m
        com[i], j0[i] = inv.center_of_mass, inv.inertia
        stiff[i] = 1 if b.stiffening and np.any(data.k_geo) else 0
        for f, name in _POOLED + (("k_geo", None),):
            value = data.k_geo if name is None else getattr(inv, name)
            value = np.zeros((m, m)) if value is None else np.asarray(value, dtype=float)
            adr[f][i] = size
            pool.append(value.ravel())
            size += value.size
        data_of[i] = (b, data)
    rows = -np.ones(len(model.markers), dtype=np.int64)
    for k, mk in enumerate(model.markers):
        bi = int(m_body[k])
        if bi in data_of:
            b, data = data_of[bi]
            j = node_row(data.nodes, mk.position)
            if j is None:
                raise ModelError(f"marker '{mk.name}': no FE node of modal body '{b.name}' at {tuple(mk.position)} "
                                 "(body frame)")
            rows[k] = size
            pool.append(data.rows[6 * j:6 * j + 6].ravel())
            size += pool[-1].size
    flat = np.concatenate(pool) if pool else np.zeros(0)
    return ModalArrays(n_modes=n_modes, com=com, j0=j0, stiffening=stiff, marker_rows=rows, pool=flat, **adr)


def translational_coordinates(m, b: int) -> list[int]:
    """Offsets (within body b's coordinates) of the coordinates that only translate markers: rotation-only rows
    (DP1, ANGLE) never involve them (the iteration matrix's pattern leaves their products out)."""
    kind = int(m.body_kind[b])
    if kind == ma.RIGID or kind == ma.MODAL:
        return [0, 1, 2]
    if kind == ma.PLANAR:
        return [0, 1]
    if kind == ma.POINT_MASS:
        return list(range(int(m.body_q_num[b])))
    if kind == ma.FLEXIBLE:
        dofs = m.flex.node_dof[m.flex.node_ptr[b]:m.flex.node_ptr[b + 1]]
        return sorted(int(d) for d in dofs[:, :3].ravel() if d >= 0)
    raise TypeError(f"body {b}: unknown body kind code {kind}")
