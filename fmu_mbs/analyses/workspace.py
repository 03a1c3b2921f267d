"""The one factory of the solver's named data (kernels/solver_data.py): frames, constraint rows, the integration
State, the Work arrays and the Options, used by the Evaluator, every integrator and the ChannelEvaluator, so every
buffer has one shape and one name wherever it is used."""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..kernels.contact import new_contact_workspace
from ..kernels.forces import bind_families
from ..kernels.integrate_alf import N_SC, SC_T
from ..kernels.solver_data import Frames, Options, Rows, State, Work


def new_frames(cm: CompiledModel) -> Frames:
    nb, nm = len(cm.body_names), len(cm.marker_names)
    return Frames(np.zeros((nb, 3)), np.zeros((nb, 3, 3)), np.zeros((nb, 3)), np.zeros((nb, 3)),
                  np.zeros((nm, 3)), np.zeros((nm, 3, 3)), np.zeros((nm, 3)), np.zeros((nm, 3)))


def new_rows(n_rows: int, n_cols: int) -> Rows:
    """Rows of ``n_rows`` constraint rows of ``n_cols`` Jacobian columns (ModelArrays.row_cols' width)."""
    return Rows(np.zeros(n_rows), np.zeros((n_rows, n_cols)), np.zeros(n_rows), np.zeros(n_rows),
                np.zeros((n_rows, 12)))


def max_body_coordinates(cm: CompiledModel) -> int:
    """The largest body's coordinate count (the width of the mass and tangent blocks; 1 without bodies)."""
    return max(1, int(np.max(cm.arrays.body_q_num, initial=1)))


def new_work(cm: CompiledModel, envelope: int = 0, fd_blocks: int = 1) -> Work:
    """Work arrays of a compiled model; ``envelope``: values of the iteration matrix; ``fd_blocks``: adjacency
    entries of the finite-difference tangent (1 when there is none). Binds the force kernels of the model's element
    families (kernels/forces.bind_families): every kernel that evaluates forces runs with a Work."""
    bind_families(cm.arrays)
    n, nr, nb, nz = cm.n_q, cm.n_rows, len(cm.body_names), len(cm.arrays.z0)
    nq, ncol = max_body_coordinates(cm), cm.arrays.row_cols.shape[1]
    vec = np.zeros
    return Work(fr=new_frames(cm), out=vec(cm.n_out), cw=new_contact_workspace(cm.arrays), zn=np.array(cm.arrays.z0),
                rows=new_rows(nr, ncol), rows_end=new_rows(nr, ncol), Q=vec(n), Qa=vec(n), Qb=vec(n),
                mb=vec((nb, nq, nq)),
                q0=vec(n), qd0=vec(n), qdd0=vec(n), lam0=vec(nr), y=vec(nr), res=vec(n), dq=vec(n), rhs=vec(n),
                work=vec(n), val=vec(envelope), base=vec(envelope), Wx=vec((max(fd_blocks, 1), nq, nq)), dlt=vec(nb),
                jk=vec((nr, ncol)), y2=vec(nr), dq2=vec(n), pqd0=vec(n), pqdd0=vec(n), z0=vec(nz))


def new_state(cm: CompiledModel, t: float, q, qd, qdd, lam) -> State:
    """An integration State at (t, q, qd, qdd, lam) with the model's initial element states and zero inputs."""
    sc = np.zeros(N_SC)
    sc[SC_T] = t
    n = cm.n_q
    lam = np.array(lam, dtype=float)
    qdd = np.array(qdd, dtype=float)
    return State(sc=sc, q=np.array(q, dtype=float), qd=np.array(qd, dtype=float), qdd=qdd, lam=lam,
                 u=np.zeros(cm.n_inputs), zs=np.array(cm.arrays.z0, dtype=float), u_last=np.zeros(cm.n_inputs),
                 lam_star=lam.copy(), acc=qdd.copy(), vt=np.zeros(n), at=np.zeros(n), gc=np.zeros(n))


def new_options(**values: float) -> Options:
    """Options with every field given (floats)."""
    return Options(**{k: float(v) for k, v in values.items()})
