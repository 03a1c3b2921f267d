"""compile_model: lowers a validated Model into ModelArrays (one pass per element family)."""

from __future__ import annotations

import math

import numpy as np

from ..kernels import model_arrays as ma
from ..kernels.hydraulics import N_HP, N_HYD_STATES
from ..kernels.model_arrays import MAX_ROW_COLS, ModelArrays
from ..model.elements import (
    GROUND,
    JOINT_COORDINATES,
    Actuator,
    Bushing,
    HydraulicCylinder,
    Model,
    PassiveCylinder,
    PlanarBody,
    PointLoad,
    PointMass,
    RigidBody,
    RotationalSpringDamper,
    SpringDamper,
)
from ..model.functions import External
from .compiled_model import CompiledModel
from .contacts import compile_contacts
from .functions import FunctionPool
from .hydraulics import hydraulic_parameters, hydraulic_states
from .joint_friction import compile_joint_friction
from .joints import coordinate_row, joint_rows
from .passive_cylinder import N_PC_PAR, N_PC_STATES, check_passive_geometry, passive_parameters, squared_stroke

_ROW_NAMES = {ma.ROW_CD: "CD", ma.ROW_DP1: "DP1", ma.ROW_DP2: "DP2", ma.ROW_D: "D", ma.ROW_ANGLE: "ANGLE",
              ma.ROW_NORM: "NORM"}


def _embed(v, n=3) -> list[float]:
    return list(v) + [0.0] * (n - len(v))


def _rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _quat_matrix(q) -> np.ndarray:
    """Rotation matrix of a unit quaternion [w, x, y, z] (numpy twin of kernels.rotation.quat_to_matrix, so that
    compiling a model never triggers a JIT compile)."""
    e0, e1, e2, e3 = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[2 * (e0 * e0 + e1 * e1) - 1, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                     [2 * (e1 * e2 + e0 * e3), 2 * (e0 * e0 + e2 * e2) - 1, 2 * (e2 * e3 - e0 * e1)],
                     [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 2 * (e0 * e0 + e3 * e3) - 1]])


class _Rows:
    """Accumulates constraint rows as columns of the row table."""

    def __init__(self) -> None:
        self.cols: dict[str, list] = {k: [] for k in ("type", "mi", "mj", "ai", "aj", "c", "fn", "bi", "bj")}
        self.owner: list[str] = []
        self.label: list[str] = []

    def add(self, spec, mi: int, mj: int, bi: int, bj: int, fn: int, owner: str, what: str) -> int:
        typ, ai, aj, c = spec
        for key, val in zip(self.cols, (typ, mi, mj, ai, aj, c, fn, bi, bj)):
            self.cols[key].append(val)
        self.label.append(f"{what} row {self.owner.count(owner) + 1} ({_ROW_NAMES[typ]})")
        self.owner.append(owner)
        return len(self.owner) - 1

    def __len__(self) -> int:
        return len(self.owner)


def _row_cols(types, bis, bjs, q_adr, q_num) -> np.ndarray:
    cols = -np.ones((len(types), MAX_ROW_COLS), dtype=np.int64)
    for k, (typ, bi, bj) in enumerate(zip(types, bis, bjs)):
        c = 0
        for b in (bi, bj):
            if b >= 0:
                cols[k, c:c + q_num[b]] = np.arange(q_adr[b], q_adr[b] + q_num[b]) + (3 if typ == ma.ROW_NORM else 0)
                c += q_num[b]
        if typ == ma.ROW_NORM:
            cols[k, 4:] = -1
    return cols


def compile_model(model: Model, *, contact_state_capacity: int | None = None) -> CompiledModel:
    """Lower ``model`` (already validated by its builder) into flat arrays for the kernels.
    ``contact_state_capacity``: records of the contact state table (compiler.contacts; None = the default,
    8 per shape on contacts with states)."""
    dim = model.dimension
    pool = FunctionPool()

    # bodies and coordinates
    body_names = [b.name for b in model.bodies]
    bidx = {n: i for i, n in enumerate(body_names)}
    bidx[GROUND] = -1
    nb = len(model.bodies)
    kind = np.zeros(nb, dtype=np.int64)
    q_adr = np.zeros(nb, dtype=np.int64)
    q_num = np.zeros(nb, dtype=np.int64)
    mass = np.zeros(nb)
    inertia = np.zeros((nb, 3, 3))
    q0: list[float] = []
    qd0: list[float] = []
    q_names: list[str] = []
    for i, b in enumerate(model.bodies):
        q_adr[i] = len(q0)
        mass[i] = b.mass
        if isinstance(b, RigidBody):
            kind[i] = ma.RIGID
            p = np.asarray(b.orientation) / np.linalg.norm(b.orientation)
            E = np.array([[-p[1], p[0], -p[3], p[2]], [-p[2], p[3], p[0], -p[1]], [-p[3], -p[2], p[1], p[0]]])
            q0 += list(b.position) + list(p)
            qd0 += list(b.velocity) + list(0.5 * E.T @ np.asarray(b.angular_velocity))
            inertia[i] = np.asarray(b.inertia)
            q_names += [f"{b.name}.{c}" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]
        elif isinstance(b, PlanarBody):
            kind[i] = ma.PLANAR
            q0 += list(b.position) + [b.angle]
            qd0 += list(b.velocity) + [b.angular_velocity]
            inertia[i, 2, 2] = b.inertia
            q_names += [f"{b.name}.{c}" for c in ("x", "y", "theta")]
        elif isinstance(b, PointMass):
            kind[i] = ma.POINT_MASS
            q0 += list(b.position)
            qd0 += list(b.velocity)
            q_names += [f"{b.name}.{c}" for c in ("x", "y", "z")[:dim]]
        q_num[i] = len(q0) - q_adr[i]
    n_q = len(q0)

    # markers and the input vector layout: actuator forces first, then 6 load inputs per marker
    marker_names = [mk.name for mk in model.markers]
    midx = {n: i for i, n in enumerate(marker_names)}
    nm = len(model.markers)
    actuators = [f for f in model.forces if isinstance(f, Actuator)]
    input_names = [f"{a.name}.f" for a in actuators]
    cylinders = [f for f in model.forces if isinstance(f, HydraulicCylinder)]
    hyd_input_adr = np.arange(len(input_names), len(input_names) + len(cylinders), dtype=np.int64)
    input_names += [f"{c.name}.Uref" for c in cylinders]
    passive = [f for f in model.forces if isinstance(f, PassiveCylinder)]
    pc_input_adr = np.full(len(passive), -1, dtype=np.int64)
    for k, pc in enumerate(passive):
        if pc.stroke is None:
            pc_input_adr[k] = len(input_names)
            input_names.append(f"{pc.name}.f")
    m_body = np.zeros(nm, dtype=np.int64)
    m_pos = np.zeros((nm, 3))
    m_rot = np.zeros((nm, 3, 3))
    m_input = np.zeros(nm, dtype=np.int64)
    for k, mk in enumerate(model.markers):
        m_body[k] = bidx[mk.body]
        m_pos[k] = _embed(mk.position)
        m_rot[k] = _rot_z(mk.angle) if dim == 2 else _quat_matrix(mk.orientation)
        m_input[k] = len(input_names)
        input_names += [f"{mk.name}.F[{c}]" for c in (1, 2, 3)] + [f"{mk.name}.T[{c}]" for c in (1, 2, 3)]

    def mbody(marker: str) -> int:
        return int(m_body[midx[marker]])

    # constraint rows: joints, drivers, then Euler-parameter normalisation
    rows = _Rows()
    joint_rows_of: dict[str, list[int]] = {}
    joints = {j.name: j for j in model.joints}
    for j in model.joints:
        mi, mj = midx[j.marker_i], midx[j.marker_j]
        ids = []
        for spec in joint_rows(j.type, dim):
            fn = pool.constant(j.length ** 2) if spec[0] == ma.ROW_D else -1
            ids.append(rows.add(spec, mi, mj, mbody(j.marker_i), mbody(j.marker_j), fn, j.name, f"joint '{j.name}'"))
        joint_rows_of[j.name] = ids
    driver_rows: dict[str, int] = {}
    external: dict[str, int] = {}
    for d in model.drivers:
        j = joints[d.joint]
        coord = JOINT_COORDINATES[j.type][d.coordinate - 1]
        mi, mj = midx[j.marker_i], midx[j.marker_j]
        fn = pool.add(d.function)
        if isinstance(d.function, External):
            external[d.name] = pool.adrs[fn]
        driver_rows[d.name] = rows.add(coordinate_row(coord, dim), mi, mj, mbody(j.marker_i), mbody(j.marker_j),
                                       fn, d.name, f"driver '{d.name}'")
    pc_row = np.array([rows.add((ma.ROW_D, 0, 0, (0.0, 0.0, 0.0)), midx[pc.marker_i], midx[pc.marker_j],
                                mbody(pc.marker_i), mbody(pc.marker_j), pool.add(squared_stroke(pc)), pc.name,
                                f"passive cylinder '{pc.name}' stroke")
                       if pc.stroke is not None else -1 for pc in passive], dtype=np.int64)
    for b in range(nb):
        if kind[b] == ma.RIGID:
            rows.add((ma.ROW_NORM, 0, 0, (0.0, 0.0, 0.0)), -1, -1, b, -1, -1, body_names[b],
                     f"body '{body_names[b]}' Euler-parameter norm")

    # joint-coordinate measurement rows (same kernel, f = 0)
    meas = _Rows()
    coordinate_rows: dict[str, list[int]] = {}
    for j in model.joints:
        ids = []
        for coord in JOINT_COORDINATES.get(j.type, ()):
            ids.append(meas.add(coordinate_row(coord, dim), midx[j.marker_i], midx[j.marker_j],
                                mbody(j.marker_i), mbody(j.marker_j), -1, j.name, f"joint '{j.name}' {coord}"))
        if ids:
            coordinate_rows[j.name] = ids

    # force elements
    tsda = [f for f in model.forces if isinstance(f, SpringDamper)]
    rsda = [f for f in model.forces if isinstance(f, RotationalSpringDamper)]
    bush = [f for f in model.forces if isinstance(f, Bushing)]
    loads = [f for f in model.forces if isinstance(f, PointLoad)]

    def pair(items):
        return (np.array([midx[f.marker_i] for f in items], dtype=np.int64),
                np.array([midx[f.marker_j] for f in items], dtype=np.int64))

    tsda_mi, tsda_mj = pair(tsda)
    rsda_mi, rsda_mj = pair(rsda)
    bush_mi, bush_mj = pair(bush)
    act_mi, act_mj = pair(actuators)
    tsda_fn = np.array([pool.add(f.force) for f in tsda], dtype=np.int64)
    rsda_fn = np.array([pool.add(f.torque) for f in rsda], dtype=np.int64)
    act_fn = np.array([pool.add(f.force) for f in actuators], dtype=np.int64)
    hyd_mi, hyd_mj = pair(cylinders)
    hyd_fn = np.array([pool.add(f.valve) for f in cylinders], dtype=np.int64)
    curves = lambda items, attr: np.array([pool.add_curve(getattr(f, attr)) for f in items],  # noqa: E731
                                          dtype=np.int64).reshape(len(items), 2)
    tsda_spring, tsda_damper = curves(tsda, "spring_curve"), curves(tsda, "damper_curve")
    rsda_spring, rsda_damper = curves(rsda, "spring_curve"), curves(rsda, "damper_curve")
    load_fn = -np.ones((len(loads), 6), dtype=np.int64)
    for k, ld in enumerate(loads):
        comps = (list(ld.force) + [None]) if dim == 2 else list(ld.force)
        comps += ([None, None] + list(ld.torque)) if dim == 2 else list(ld.torque)
        for c, fn in enumerate(comps):
            load_fn[k, c] = pool.add(fn)
    contact_fields, z_contact = compile_contacts(model, midx, pool, len(rsda) + N_HYD_STATES * len(cylinders),
                                                 contact_state_capacity)
    pc_mi, pc_mj = pair(passive)
    pc_fn = np.array([pool.add(f.force) for f in passive], dtype=np.int64)
    z_pc_adr = len(rsda) + N_HYD_STATES * len(cylinders) + len(z_contact)
    check_passive_geometry(model, passive, q0, bidx, midx, m_pos, m_rot)
    jf_fields, z_jf = compile_joint_friction(model, midx, joint_rows_of, z_pc_adr + N_PC_STATES * len(passive))
    fn_type, fn_adr, fn_len, fn_par, curve_par = pool.arrays()

    def vec3(items, attr):
        return np.array([_embed(getattr(f, attr)) for f in items], dtype=float).reshape(len(items), 3)

    def column(key, dtype=np.int64, src=rows):
        return np.array(src.cols[key], dtype=dtype)

    def row_table(src: _Rows) -> dict:
        types = column("type", src=src)
        bis, bjs = column("bi", src=src), column("bj", src=src)
        return dict(row_type=types, row_mi=column("mi", src=src), row_mj=column("mj", src=src),
                    row_axis_i=column("ai", src=src), row_axis_j=column("aj", src=src),
                    row_c=np.array(src.cols["c"], dtype=float).reshape(len(src), 3),
                    row_fn=column("fn", src=src), row_body_i=bis, row_body_j=bjs,
                    row_cols=_row_cols(types, bis, bjs, q_adr, q_num))

    arrays = ModelArrays(
        dim=dim, gravity=np.array(_embed(model.gravity), dtype=float),
        body_kind=kind, body_q_adr=q_adr, body_q_num=q_num, body_mass=mass, body_inertia=inertia,
        marker_body=m_body, marker_pos=m_pos, marker_rot=m_rot, marker_input_adr=m_input,
        **row_table(rows),
        fn_type=fn_type, fn_adr=fn_adr, fn_len=fn_len, fn_par=fn_par, curve_par=curve_par,
        tsda_mi=tsda_mi, tsda_mj=tsda_mj, tsda_k=np.array([f.stiffness for f in tsda], dtype=float),
        tsda_l0=np.array([f.free_length for f in tsda], dtype=float),
        tsda_c=np.array([f.damping for f in tsda], dtype=float), tsda_fn=tsda_fn,
        tsda_spring=tsda_spring, tsda_damper=tsda_damper,
        rsda_mi=rsda_mi, rsda_mj=rsda_mj, rsda_k=np.array([f.stiffness for f in rsda], dtype=float),
        rsda_theta0=np.array([f.free_angle for f in rsda], dtype=float),
        rsda_c=np.array([f.damping for f in rsda], dtype=float), rsda_fn=rsda_fn,
        rsda_spring=rsda_spring, rsda_damper=rsda_damper,
        bush_mi=bush_mi, bush_mj=bush_mj, bush_k=vec3(bush, "stiffness"), bush_c=vec3(bush, "damping"),
        bush_kr=vec3(bush, "rotational_stiffness"), bush_cr=vec3(bush, "rotational_damping"),
        load_marker=np.array([midx[f.marker] for f in loads], dtype=np.int64), load_fn=load_fn,
        load_frame=np.array([1 if f.frame == "marker" else 0 for f in loads], dtype=np.int64),
        act_mi=act_mi, act_mj=act_mj, act_fn=act_fn,
        act_input_adr=np.arange(len(actuators), dtype=np.int64),
        rsda_z_adr=np.arange(len(rsda), dtype=np.int64),     # element states: an RSDA's angle (turn counting)
        z0=np.concatenate([[f.free_angle for f in rsda]] + [hydraulic_states(c) for c in cylinders]
                          + [z_contact, np.zeros(N_PC_STATES * len(passive)), z_jf]).astype(float),
        hyd_mi=hyd_mi, hyd_mj=hyd_mj, hyd_par=np.array([hydraulic_parameters(c) for c in cylinders],
                                                        dtype=float).reshape(len(cylinders), N_HP),
        hyd_fn=hyd_fn, hyd_input_adr=hyd_input_adr,
        hyd_z_adr=len(rsda) + N_HYD_STATES * np.arange(len(cylinders), dtype=np.int64),
        **contact_fields,
        pc_mi=pc_mi, pc_mj=pc_mj, pc_par=np.array([passive_parameters(f) for f in passive],
                                                  dtype=float).reshape(len(passive), N_PC_PAR),
        pc_fn=pc_fn, pc_input_adr=pc_input_adr,
        pc_z_adr=z_pc_adr + N_PC_STATES * np.arange(len(passive), dtype=np.int64), pc_row=pc_row,
        **jf_fields,
    )
    measure = arrays._replace(**row_table(meas))
    for arr in list(arrays) + list(measure):
        if isinstance(arr, np.ndarray):
            arr.flags.writeable = False
    return CompiledModel(
        model=model, arrays=arrays, measure=measure, n_q=n_q, n_rows=len(rows), n_inputs=len(input_names),
        q0=np.array(q0, dtype=float), qd0=np.array(qd0, dtype=float), body_names=body_names,
        marker_names=marker_names, row_owner=rows.owner, row_label=rows.label, joint_rows=joint_rows_of,
        driver_rows=driver_rows, coordinate_rows=coordinate_rows, input_names=input_names, q_names=q_names,
        external_drivers=external)
