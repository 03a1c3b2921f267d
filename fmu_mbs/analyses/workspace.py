"""The one factory of the solver's named data (kernels/solver_data.py): frames, constraint rows, the integration
State, the Work arrays and the Options, used by the Evaluator, every integrator and the ChannelEvaluator, so every
buffer has one shape and one name wherever it is used."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from ..compiler import CompiledModel
from ..kernels.contact import new_contact_workspace
from ..kernels.forces import bind_families
from ..kernels.integrate_alf import N_SC, SC_T
from ..kernels.solver_data import Frames, Options, Rows, State, Work

T = TypeVar("T")


def in_one_block(build: Callable[[Callable[..., np.ndarray]], T]) -> T:
    """``build(zeros)`` with a ``zeros(shape)`` that hands out float64 zeros carved from one buffer, each array at a
    cache-line boundary. A step's kernels read and write dozens of small arrays; allocated one by one in a process
    whose heap is fragmented (an FMU host's, a benchmark's) they scatter over many pages: the same 1,500 steps of the
    beam slider-crank took 54.7 ms after fragmenting the heap against 33.7 ms in a fresh process. ``build`` runs
    twice (the first time to learn the shapes), so it must do nothing but allocate."""
    shapes: list = []

    def measure(shape):
        shapes.append(shape)
        return np.zeros(shape)
    build(measure)
    sizes = [math.prod(s) if isinstance(s, tuple) else int(s) for s in shapes]

    def lines(k: int) -> int:            # float64 entries of whole 64-byte lines
        return -(-max(k, 1) // 8) * 8
    buf = np.zeros(sum(lines(k) for k in sizes) + 8)
    at = (-(buf.ctypes.data // 8)) % 8       # the first array on a line boundary
    given = iter(sizes)

    def carve(shape):
        nonlocal at
        k = next(given)
        a = buf[at:at + k].reshape(shape)
        at += lines(k)
        return a
    return build(carve)


def new_frames(cm: CompiledModel, zeros: Callable[..., np.ndarray] = np.zeros) -> Frames:
    nb, nm = len(cm.body_names), len(cm.marker_names)
    return Frames(zeros((nb, 3)), zeros((nb, 3, 3)), zeros((nb, 3)), zeros((nb, 3)),
                  zeros((nm, 3)), zeros((nm, 3, 3)), zeros((nm, 3)), zeros((nm, 3)))


def new_rows(n_rows: int, n_cols: int, zeros: Callable[..., np.ndarray] = np.zeros) -> Rows:
    """Rows of ``n_rows`` constraint rows of ``n_cols`` Jacobian columns (ModelArrays.row_cols' width)."""
    return Rows(zeros(n_rows), zeros((n_rows, n_cols)), zeros(n_rows), zeros(n_rows), zeros((n_rows, 12)))


def max_body_coordinates(cm: CompiledModel) -> int:
    """The largest body's coordinate count (the width of the mass and tangent blocks; 1 without bodies)."""
    return max(1, int(np.max(cm.arrays.body_q_num, initial=1)))


def new_work(cm: CompiledModel, envelope: int = 0, fd_blocks: int = 1) -> Work:
    """Work arrays of a compiled model (in one block: in_one_block); ``envelope``: values of the iteration matrix;
    ``fd_blocks``: adjacency entries of the finite-difference tangent (1 when there is none). Binds the force
    kernels of the model's element families (kernels/forces.bind_families): every kernel that evaluates forces runs
    with a Work."""
    bind_families(cm.arrays)
    n, nr, nb, nz = cm.n_q, cm.n_rows, len(cm.body_names), len(cm.arrays.z0)
    nq, ncol = max_body_coordinates(cm), cm.arrays.row_cols.shape[1]
    cw = new_contact_workspace(cm.arrays)

    def build(vec):
        return Work(fr=new_frames(cm, vec), out=vec(cm.n_out), cw=cw, zn=vec(nz), rows=new_rows(nr, ncol, vec),
                    rows_end=new_rows(nr, ncol, vec), Q=vec(n), Qa=vec(n), Qb=vec(n), mb=vec((nb, nq, nq)),
                    q0=vec(n), qd0=vec(n), qdd0=vec(n), lam0=vec(nr), y=vec(nr), res=vec(n), dq=vec(n), rhs=vec(n),
                    work=vec(n), val=vec(envelope), base=vec(envelope), Wx=vec((max(fd_blocks, 1), nq, nq)),
                    dlt=vec(nb), jk=vec((nr, ncol)), y2=vec(nr), dq2=vec(n), pqd0=vec(n), pqdd0=vec(n), z0=vec(nz))
    ws = in_one_block(build)
    ws.zn[:] = cm.arrays.z0
    return ws


def new_state(cm: CompiledModel, t: float, q, qd, qdd, lam) -> State:
    """An integration State at (t, q, qd, qdd, lam) with the model's initial element states and zero inputs (in one
    block: in_one_block)."""
    n, nr, nz, nu = cm.n_q, np.size(lam), len(cm.arrays.z0), cm.n_inputs

    def build(vec):
        return State(sc=vec(N_SC), q=vec(n), qd=vec(n), qdd=vec(n), lam=vec(nr), u=vec(nu), zs=vec(nz),
                     u_last=vec(nu), lam_star=vec(nr), acc=vec(n), vt=vec(n), at=vec(n), gc=vec(n))
    st = in_one_block(build)
    st.sc[SC_T] = t
    st.q[:], st.qd[:], st.qdd[:], st.lam[:], st.lam_star[:], st.acc[:] = q, qd, qdd, lam, lam, qdd
    st.zs[:] = cm.arrays.z0
    return st


def new_options(**values: float) -> Options:
    """Options with every field given (floats)."""
    return Options(**{k: float(v) for k, v in values.items()})
