"""compile_model: lowers a validated Model into ModelArrays (one pass per element family)."""

from __future__ import annotations

import math

import numpy as np

from ..kernels import model_arrays as ma
from ..model.elements import GROUND, JOINT_COORDINATES, Model
from ..model.functions import External
from ..model.interface import Signal
from ..model.rotations import quat_matrix
from .bodies import flex_arrays, lower_bodies
from .compiled_model import CompiledModel
from .families import FAMILIES, ModelArrays, elements_of
from .functions import FunctionPool
from .joints import coordinate_row, joint_rows
from .layout import Layout
from .lowering import LoweringContext

_ROW_NAMES = {ma.ROW_CD: "CD", ma.ROW_DP1: "DP1", ma.ROW_DP2: "DP2", ma.ROW_D: "D", ma.ROW_ANGLE: "ANGLE",
              ma.ROW_NORM: "NORM"}


def _embed(v, n=3) -> list[float]:
    return list(v) + [0.0] * (n - len(v))


def _rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


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
    """Columns of each row: body i's coordinates, then body j's (-1 = unused); 2 x the largest body's count wide."""
    cols = -np.ones((len(types), 2 * max(1, int(np.max(q_num, initial=1)))), dtype=np.int64)
    for k, (typ, bi, bj) in enumerate(zip(types, bis, bjs)):
        c = 0
        for b in (bi, bj):
            if b >= 0:
                cols[k, c:c + q_num[b]] = np.arange(q_adr[b], q_adr[b] + q_num[b]) + (3 if typ == ma.ROW_NORM else 0)
                c += q_num[b]
        if typ == ma.ROW_NORM:
            cols[k, 4:] = -1
    return cols


def _row_table(src: _Rows, q_adr, q_num) -> dict:
    col = lambda key, dtype=np.int64: np.array(src.cols[key], dtype=dtype)  # noqa: E731
    types, bis, bjs = col("type"), col("bi"), col("bj")
    return dict(row_type=types, row_mi=col("mi"), row_mj=col("mj"), row_axis_i=col("ai"), row_axis_j=col("aj"),
                row_c=np.array(src.cols["c"], dtype=float).reshape(len(src), 3), row_fn=col("fn"), row_body_i=bis,
                row_body_j=bjs, row_cols=_row_cols(types, bis, bjs, q_adr, q_num))


def _joint_and_driver_rows(model: Model, ctx: LoweringContext, rows: _Rows, mbody) -> tuple[dict, dict]:
    """Constraint rows of the joints and drivers; (rows of each driver, fn_par address of each external driver)."""
    dim, midx, pool = model.dimension, ctx.midx, ctx.pool
    joints = {j.name: j for j in model.joints}
    for j in model.joints:
        mi, mj = midx[j.marker_i], midx[j.marker_j]
        ids = []
        for spec in joint_rows(j.type, dim):
            fn = pool.constant(j.length ** 2) if spec[0] == ma.ROW_D else -1
            ids.append(rows.add(spec, mi, mj, mbody(j.marker_i), mbody(j.marker_j), fn, j.name, f"joint '{j.name}'"))
        ctx.joint_rows[j.name] = ids
    driver_rows: dict[str, int] = {}
    external: dict[str, int] = {}
    for d in model.drivers:
        j = joints[d.joint]
        coord = JOINT_COORDINATES[j.type][d.coordinate - 1]
        fn = pool.add(d.function)
        if isinstance(d.function, External):
            external[d.name] = pool.adrs[fn]
        driver_rows[d.name] = rows.add(coordinate_row(coord, dim), midx[j.marker_i], midx[j.marker_j],
                                       mbody(j.marker_i), mbody(j.marker_j), fn, d.name, f"driver '{d.name}'")
    return driver_rows, external


def _measure_rows(model: Model, midx: dict, mbody) -> tuple[_Rows, dict]:
    """Joint-coordinate measurement rows (same kernel, f = 0)."""
    meas = _Rows()
    coordinate_rows: dict[str, list[int]] = {}
    for j in model.joints:
        ids = []
        for coord in JOINT_COORDINATES.get(j.type, ()):
            ids.append(meas.add(coordinate_row(coord, model.dimension), midx[j.marker_i], midx[j.marker_j],
                                mbody(j.marker_i), mbody(j.marker_j), -1, j.name, f"joint '{j.name}' {coord}"))
        if ids:
            coordinate_rows[j.name] = ids
    return meas, coordinate_rows


def compile_model(model: Model, *, contact_state_capacity: int | None = None) -> CompiledModel:
    """Lower ``model`` (already validated by its builder) into flat arrays for the kernels: bodies, markers,
    constraint rows, then every element family of the registry (compiler/families.py) through the layout
    allocator. ``contact_state_capacity``: records of the contact state table (compiler.contacts; None = the
    default, 8 per shape on contacts with states)."""
    dim = model.dimension
    bodies = lower_bodies(model)
    body_names = [b.name for b in model.bodies]
    bidx = {n: i for i, n in enumerate(body_names)}
    bidx[GROUND] = -1
    marker_names = [mk.name for mk in model.markers]
    midx = {n: i for i, n in enumerate(marker_names)}
    nm = len(model.markers)
    m_body = np.array([bidx[mk.body] for mk in model.markers], dtype=np.int64)
    m_pos = np.array([_embed(mk.position) for mk in model.markers], dtype=float).reshape(nm, 3)
    m_rot = np.array([_rot_z(mk.angle) if dim == 2 else quat_matrix(mk.orientation) for mk in model.markers],
                     dtype=float).reshape(nm, 3, 3)
    ctx = LoweringContext(model, FunctionPool(), Layout(), midx, bidx, bodies["q0"], m_pos, m_rot, {},
                          {"contact_state_capacity": contact_state_capacity})

    def mbody(marker: str) -> int:
        return int(m_body[midx[marker]])

    # constraint rows: joints, drivers, the families' rows, then Euler-parameter normalisation
    rows = _Rows()
    driver_rows, external = _joint_and_driver_rows(model, ctx, rows, mbody)
    for fam in FAMILIES:
        if fam.rows is not None:
            fam.rows(elements_of(model, fam), ctx, rows)
    for b in range(len(body_names)):
        if bodies["kind"][b] in (ma.RIGID, ma.MODAL):
            rows.add((ma.ROW_NORM, 0, 0, (0.0, 0.0, 0.0)), -1, -1, b, -1, -1, body_names[b],
                     f"body '{body_names[b]}' Euler-parameter norm")
    meas, coordinate_rows = _measure_rows(model, midx, mbody)

    # element families (registry order: their states, inputs and outputs), then the marker input ports
    family_arrays = {fam.key: fam.lower(elements_of(model, fam), ctx) for fam in FAMILIES}
    m_input = np.array([ctx.layout.inputs(mk.name, (Signal("F", "N", 3), Signal("T", "N.m", 3)))[0]
                        for mk in model.markers], dtype=np.int64)
    fn_type, fn_adr, fn_len, fn_par, curve_par = ctx.pool.arrays()
    q_adr, q_num = bodies["q_adr"], bodies["q_num"]
    arrays = ModelArrays(
        dim=dim, gravity=np.array(_embed(model.gravity), dtype=float),
        body_kind=bodies["kind"], body_q_adr=q_adr, body_q_num=q_num, body_mass=bodies["mass"],
        body_inertia=bodies["inertia"], flex=flex_arrays(model, bodies, m_body), marker_body=m_body,
        marker_pos=m_pos, marker_rot=m_rot,
        marker_input_adr=m_input, **_row_table(rows, q_adr, q_num),
        fn_type=fn_type, fn_adr=fn_adr, fn_len=fn_len, fn_par=fn_par, curve_par=curve_par,
        z0=ctx.layout.z0_array(), **ctx.core, **family_arrays)
    measure = arrays._replace(**_row_table(meas, q_adr, q_num))
    for arr in _all_arrays(arrays) + _all_arrays(measure):
        arr.flags.writeable = False
    return CompiledModel(
        model=model, arrays=arrays, measure=measure, n_q=len(bodies["q0"]), n_rows=len(rows),
        n_inputs=len(ctx.layout.input_names), q0=np.array(bodies["q0"], dtype=float),
        qd0=np.array(bodies["qd0"], dtype=float), body_names=body_names, marker_names=marker_names,
        row_owner=rows.owner, row_label=rows.label, joint_rows=ctx.joint_rows, driver_rows=driver_rows,
        coordinate_rows=coordinate_rows, input_names=ctx.layout.input_names, q_names=bodies["q_names"],
        external_drivers=external, n_out=ctx.layout.n_out, output_slots=ctx.layout.output_slots)


def _all_arrays(tree) -> list[np.ndarray]:
    """Every numpy array of a (nested) named tuple."""
    out = []
    for x in tree:
        if isinstance(x, np.ndarray):
            out.append(x)
        elif isinstance(x, tuple):
            out += _all_arrays(x)
    return out
