"""Second derivatives of the point rows (kernels/row_hessians.py) against central finite differences of the
constraint Jacobian (kernels/constraints.py, an independent code path), and the rows the module leaves out."""

from __future__ import annotations

import numpy as np

from fmu_mbs.compiler import compile_model
from fmu_mbs.kernels.bodies.dispatch import eval_body_frames, eval_marker_frames
from fmu_mbs.kernels.constraints import eval_constraints, scatter_dense
from fmu_mbs.kernels.model_arrays import ROW_CD, ROW_D
from fmu_mbs.kernels.row_hessians import row_hessian
from fmu_mbs.model import ModelBuilder


def planar_mechanism():
    """Planar bodies with offset markers and a point mass: revolute (two CD rows), distance joints between
    planar bodies, between a planar body and a point mass, and from the ground to the point mass."""
    b = ModelBuilder("hessians", dimension=2, gravity=(0.0, -9.81))
    b.add_planar_body("a", 1.0, 0.1, position=(0.5, 0.1), angle=0.3)
    b.add_planar_body("b", 2.0, 0.2, position=(1.5, 0.4), angle=-0.5)
    b.add_point_mass("p", 1.0, position=(2.0, 1.0))
    b.add_marker("O", "ground")
    b.add_marker("G1", "ground", (3.0, 0.5))
    b.add_marker("a0", "a", (-0.5, 0.0))
    b.add_marker("a1", "a", (0.5, 0.05))
    b.add_marker("b0", "b", (-0.4, 0.1))
    b.add_marker("b1", "b", (0.3, -0.2))
    b.add_marker("pm", "p")
    b.add_joint("hinge", "revolute", "O", "a0")
    b.add_joint("ab", "distance", "a1", "b0", length=0.3)
    b.add_joint("bp", "distance", "b1", "pm", length=0.7)
    b.add_joint("gp", "distance", "G1", "pm", length=1.2)
    return compile_model(b.build())


def _jacobian(cm, q):
    m = cm.arrays
    nr = len(m.row_type)
    phi, nu, gamma = np.zeros(nr), np.zeros(nr), np.zeros(nr)
    jac, jtw = np.zeros((nr, m.row_cols.shape[1])), np.zeros((nr, 12))
    eval_constraints(m, 0.0, q, np.zeros_like(q), phi, jac, nu, gamma, jtw)
    out = np.zeros((nr, len(q)))
    scatter_dense(jac, m.row_cols, out)
    return out


def _frames(cm, q):
    m = cm.arrays
    nb, nm = len(m.body_kind), len(m.marker_body)
    r, A, v, w = np.zeros((nb, 3)), np.zeros((nb, 3, 3)), np.zeros((nb, 3)), np.zeros((nb, 3))
    o, R, vo, wm = np.zeros((nm, 3)), np.zeros((nm, 3, 3)), np.zeros((nm, 3)), np.zeros((nm, 3))
    eval_body_frames(m, q, np.zeros_like(q), r, A, v, w)
    eval_marker_frames(m, q, np.zeros_like(q), r, A, v, w, o, R, vo, wm)
    return r, o


def test_point_row_hessians_match_finite_differences_of_the_jacobian():
    """At a configuration off the constraint manifold (random offsets of every coordinate), each row's Hessian
    d2Phi_k/dq2, scattered to the model's columns, equals the central difference of its Jacobian row (step 1e-6:
    truncation ~1e-12, round-off ~1e-10; measured agreement ~1e-9 on entries of order 1)."""
    cm = planar_mechanism()
    m = cm.arrays
    rng = np.random.default_rng(7)
    q = np.array(cm.q0, dtype=float) + rng.normal(0.0, 0.3, cm.n_q)
    r, o = _frames(cm, q)
    eps = 1e-6
    fd = np.zeros((len(m.row_type), cm.n_q, cm.n_q))
    for i in range(cm.n_q):
        dq = np.zeros(cm.n_q)
        dq[i] = eps
        fd[:, :, i] = (_jacobian(cm, q + dq) - _jacobian(cm, q - dq)) / (2.0 * eps)
    assert sorted(set(int(t) for t in m.row_type)) == [ROW_CD, ROW_D]
    checked = 0
    for k in range(len(m.row_type)):
        hl = np.zeros((m.row_cols.shape[1], m.row_cols.shape[1]))
        assert row_hessian(m, k, r, o, hl)
        H = np.zeros((cm.n_q, cm.n_q))
        cols = m.row_cols[k]
        for c1 in range(m.row_cols.shape[1]):
            for c2 in range(m.row_cols.shape[1]):
                if cols[c1] >= 0 and cols[c2] >= 0:
                    H[cols[c1], cols[c2]] += hl[c1, c2]
        assert np.allclose(H, H.T, atol=0.0)
        np.testing.assert_allclose(H, fd[k], atol=1e-7)
        checked += int(np.any(H != 0.0))
    assert checked == len(m.row_type)           # every row of this model has curvature in q (angles, distances)


def test_rows_outside_the_module_are_reported():
    """A spatial rigid-body row (not covered) returns False and leaves the output untouched."""
    b = ModelBuilder("rigid", dimension=3, gravity=(0.0, 0.0, -9.81))
    b.add_rigid_body("body", 1.0, (0.1, 0.1, 0.1), position=(0.5, 0.0, 0.0))
    b.add_marker("O", "ground")
    b.add_marker("bO", "body", (-0.5, 0.0, 0.0))
    b.add_joint("ball", "spherical", "O", "bO")
    cm = compile_model(b.build())
    m = cm.arrays
    r, o = _frames(cm, np.array(cm.q0, dtype=float))
    hl = np.full((m.row_cols.shape[1], m.row_cols.shape[1]), 7.0)
    assert not any(row_hessian(m, k, r, o, hl) for k in range(len(m.row_type)))
    assert np.all(hl == 7.0)
