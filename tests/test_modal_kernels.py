"""The floating modal body kind's kernel functions (kernels/bodies/modal.py, modal_inertia.py) against the numpy
reference of the FFRF equations (fmu_mbs.fe.ffrf: rp_equations, gravity_forces, node_frame) at random states, and
the marker Jacobian against the marker velocities it must reproduce (virtual power), the quadratic accelerations
against central differences of the marker velocities along q(t) = q + t q'.

Body: a free steel beam (1 m, 11 nodes, Euler-Bernoulli) reduced by Craig-Bampton with rigid interfaces at both
ends (tangent frame at the first) and 3 normal modes: 9 modal coordinates, modal damping 2 %."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from fmu_mbs.compiler import compile_model
from fmu_mbs.fe.ffrf import euler_parameter_matrices, gravity_forces, node_frame, rp_equations
from fmu_mbs.kernels import model_arrays as ma
from fmu_mbs.kernels.bodies import modal, modal_inertia, rigid
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.modal_data import modal_data

G = np.array([0.3, -1.2, -9.81])
NODES = [(0.1 * i, 0.0, 0.0) for i in range(11)]
BEAM = dict(nodes=NODES, E=2.1e11, G=8.0e10, rho=7850.0, area=4e-4, Iy=1.3e-8, Iz=2.1e-8, J=2.5e-8, n_modes=3,
            interfaces=[[0], [10]], damping=0.02)


def _model(stiffening: bool):
    b = ModelBuilder("modal_kernels", 3, gravity=tuple(G))
    b.add_modal_body("rod", stiffening=stiffening, **BEAM)
    b.add_marker("A", "rod", position=(0.0, 0.0, 0.0))
    b.add_marker("M", "rod", position=(0.5, 0.0, 0.0), orientation=(0.5, 0.5, -0.5, 0.5))
    b.add_marker("B", "rod", position=(1.0, 0.0, 0.0))
    return b.build()


Z = ma.ZERO   # not the literal 0: numba would compile each cached callee once more for it (kernels/model_arrays.py)


# numba harnesses: the body-kind functions called directly (no dispatcher, no model-wide kernel compile)
@njit(cache=False)
def _mass(md, a, mass, q, n):
    out = np.zeros((n, n))
    modal_inertia.mass_block(md, Z, a, mass, q, out, Z)
    return out


@njit(cache=False)
def _forces(md, a, mass, g, q, qd):
    Q = np.zeros(q.shape[0])
    modal_inertia.add_internal_forces(md, Z, a, mass, g, q, qd, Q)
    return Q


@njit(cache=False)
def _gravity(md, a, mass, g, q):
    Q = np.zeros(q.shape[0])
    modal_inertia.add_gravity(md, Z, a, mass, g, q, Q)
    return Q


@njit(cache=False)
def _energies(md, a, mass, g, q, qd):
    return (modal_inertia.kinetic_energy(md, Z, a, mass, q, qd), modal_inertia.potential_energy(md, Z, a, mass, g, q),
            modal_inertia.damping_power(md, Z, a, qd))


@njit(cache=False)
def _frames(md, a, q, qd, marker_pos, marker_rot):
    nm = marker_pos.shape[0]
    r, A, v, w = np.zeros((1, 3)), np.zeros((1, 3, 3)), np.zeros((1, 3)), np.zeros((1, 3))
    o, R, vo, wm = np.zeros((nm, 3)), np.zeros((nm, 3, 3)), np.zeros((nm, 3)), np.zeros((nm, 3))
    rigid.body_frame(a, q, qd, Z, r, A, v, w)
    for k in range(nm):
        modal.marker_frame(md, a, Z, k, q, qd, marker_pos, marker_rot, r, A, v, w, o, R, vo, wm)
    return r, o, R, vo, wm


@njit(cache=False)
def _row(md, a, k, q, r, o, gv, gw):
    out = np.zeros(q.shape[0])
    modal.row_to_q(md, a, Z, k, q, r, o, gv[0], gv[1], gv[2], gw[0], gw[1], gw[2], out, Z)
    return out


@njit(cache=False)
def _load(md, a, k, q, r, o, p, F, T):
    Q = np.zeros(q.shape[0])
    modal.add_load(md, a, Z, k, q, r, o, p[0], p[1], p[2], F[0], F[1], F[2], T[0], T[1], T[2], 1.0, Q)
    return Q


@njit(cache=False)
def _quad(md, a, k, q, qd, r, o):
    return modal.quad_acc(md, a, Z, k, q, qd, r, o), modal.quad_alpha(md, a, Z, k, q, qd)


@pytest.fixture(scope="module")
def setup():
    model = _model(stiffening=False)
    cm = compile_model(model)
    assert cm.arrays.body_kind[0] == ma.MODAL
    data = modal_data(model.bodies[0])
    return model, cm, data


def _state(cm, data, seed):
    """A random state: unit p with p' normal to p, small modal coordinates (the beam's deflection ~ mm)."""
    rng = np.random.default_rng(seed)
    m = data.inv.n_modes
    p = rng.normal(size=4)
    p /= np.linalg.norm(p)
    pd = rng.normal(size=4)
    pd -= (pd @ p) * p
    scale = 1e-3 / np.abs(data.rows).max(axis=0)
    q = np.concatenate([rng.normal(size=3), p, scale * rng.normal(size=m)])
    qd = np.concatenate([rng.normal(size=3), 3.0 * pd, 50.0 * scale * rng.normal(size=m)])
    return q, qd


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mass_matrix_and_forces_equal_the_ffrf_reference(setup, seed):
    _, cm, data = setup
    md, inv = cm.arrays.flex.modal, data.inv
    q, qd = _state(cm, data, seed)
    n = len(q)
    M_ref, Q_ref = rp_equations(inv, q[3:7], q[7:], qd[:3], qd[3:7], qd[7:])
    M = _mass(md, 0, inv.mass, q, n)
    assert np.allclose(M, M_ref, rtol=1e-10, atol=1e-10 * np.abs(M_ref).max())
    Q = _forces(md, 0, inv.mass, G, q, qd)
    assert np.allclose(Q, Q_ref, rtol=1e-9, atol=1e-9 * np.abs(Q_ref).max())
    A, Gb = euler_parameter_matrices(q[3:7])
    B = np.zeros((6 + inv.n_modes, n))
    B[:3, :3], B[3:6, 3:7], B[6:, 7:] = A.T, 2.0 * Gb, np.eye(inv.n_modes)
    Qg_ref = B.T @ gravity_forces(inv, q[7:], A.T @ G)
    assert np.allclose(_gravity(md, 0, inv.mass, G, q), Qg_ref, rtol=1e-10, atol=1e-10 * np.abs(Qg_ref).max())
    T, V, P = _energies(md, 0, inv.mass, G, q, qd)
    s = B @ qd
    assert T == pytest.approx(0.5 * s @ inv.mass_matrix(q[7:]) @ s, rel=1e-11)
    mc = inv.mass * inv.center_of_mass + inv.mPhitTPsi @ q[7:]
    assert V == pytest.approx(-G @ (inv.mass * q[:3] + A @ mc) + 0.5 * q[7:] @ inv.K_ff @ q[7:], rel=1e-11)
    assert P == pytest.approx(qd[7:] @ inv.D_ff @ qd[7:], rel=1e-11)
    assert P > 0.0


def test_geometric_stiffening_adds_minus_kgeo_eta(setup):
    model, cm, data = setup
    stiff = compile_model(_model(stiffening=True))
    md0, md1 = cm.arrays.flex.modal, stiff.arrays.flex.modal
    assert md1.stiffening[0] == 1 and md0.stiffening[0] == 0
    q, qd = _state(cm, data, 4)
    diff = _forces(md1, 0, data.inv.mass, G, q, qd) - _forces(md0, 0, data.inv.mass, G, q, qd)
    from fmu_mbs.fe import modal_geometric_stiffness
    kg = modal_geometric_stiffness(data.modes)
    A, Gb = euler_parameter_matrices(q[3:7])
    K = kg.at(2.0 * Gb @ qd[3:7], -A.T @ G)
    assert np.allclose(diff[:7], 0.0, atol=1e-12)
    assert np.allclose(diff[7:], -K @ q[7:], rtol=1e-9, atol=1e-9 * np.abs(K @ q[7:]).max())


@pytest.mark.parametrize("seed", [0, 3])
def test_marker_frames_jacobian_loads_and_quadratic_accelerations(setup, seed):
    model, cm, data = setup
    m_ = cm.arrays
    md = m_.flex.modal
    q, qd = _state(cm, data, seed)
    r, o, R, vo, wm = _frames(md, 0, q, qd, m_.marker_pos, m_.marker_rot)
    A, Gb = euler_parameter_matrices(q[3:7])
    w_world = A @ (2.0 * Gb @ qd[3:7])
    rng = np.random.default_rng(seed + 10)
    for k, node in enumerate((0, 5, 10)):
        o_ref, R_ref, vo_ref, wn_ref = node_frame(data.rows, data.nodes, node, q[:3], A, q[7:], qd[:3], w_world,
                                                  qd[7:])
        assert np.allclose(o[k], o_ref, atol=1e-13)
        assert np.allclose(R[k], R_ref @ m_.marker_rot[k], atol=1e-13)
        assert np.allclose(vo[k], vo_ref, atol=1e-12) and np.allclose(wm[k], wn_ref, atol=1e-12)
        # Jacobian row: row . q' = g_v . o' + g_w . w_m for any (g_v, g_w)
        gv, gw = rng.normal(size=3), rng.normal(size=3)
        assert _row(md, 0, k, q, r, o, gv, gw) @ qd == pytest.approx(gv @ vo[k] + gw @ wm[k], rel=1e-11)
        # load: Q . q' = F . (velocity of the point p carried by the node) + T . w_m (virtual power)
        p, F, T = o[k] + rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
        power = F @ (vo[k] + np.cross(wm[k], p - o[k])) + T @ wm[k]
        assert _load(md, 0, k, q, r, o, p, F, T) @ qd == pytest.approx(power, rel=1e-11)
        # quadratic accelerations: d/dt (o', w_m) along q(t) = q + t q' (q'' = 0), central differences
        h = 1e-5
        _, _, _, vo_p, wm_p = _frames(md, 0, q + h * qd, qd, m_.marker_pos, m_.marker_rot)
        _, _, _, vo_m, wm_m = _frames(md, 0, q - h * qd, qd, m_.marker_pos, m_.marker_rot)
        acc, alpha = _quad(md, 0, k, q, qd, r, o)
        assert np.allclose(acc, (vo_p[k] - vo_m[k]) / (2 * h), rtol=1e-6, atol=1e-6 * np.abs(acc).max())
        assert np.allclose(alpha, (wm_p[k] - wm_m[k]) / (2 * h), rtol=1e-6, atol=1e-6 * max(np.abs(alpha).max(), 1.0))
