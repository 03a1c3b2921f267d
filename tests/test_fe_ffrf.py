"""The FFRF reference equations (fmu_mbs.fe.ffrf) conserve what a free flexible body must conserve: linear and
angular momentum and energy, integrated independently (scipy DOP853, quaternion frame kinematics)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.fe import BeamSection, Interface, craig_bampton, free_interface_modes, invariants, straight_beam
from fmu_mbs.fe.ffrf import accelerations, mass_matrix_derivatives


def _rot(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _integrate(inv, s0, eta0, t_end):
    m = inv.n_modes

    def rhs(_, y):
        q, eta, s = y[3:7], y[7:7 + m], y[7 + m:]
        w = s[3:6]
        qd = 0.5 * np.array([-q[1:] @ w, q[0] * w[0] + q[2] * w[2] - q[3] * w[1],
                             q[0] * w[1] + q[3] * w[0] - q[1] * w[2], q[0] * w[2] + q[1] * w[1] - q[2] * w[0]])
        return np.concatenate([_rot(q) @ s[:3], qd, s[6:], accelerations(inv, eta, s)])

    y0 = np.concatenate([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], eta0, s0])
    return solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=1e-11, atol=1e-13, dense_output=True)


def _invariants_of(y, inv):
    m = inv.n_modes
    r, q, eta, s = y[:3], y[3:7], y[7:7 + m], y[7 + m:]
    A = _rot(q)
    p = inv.mass_matrix(eta) @ s
    lin = A @ p[:3]
    ang = A @ p[3:6] + np.cross(r, lin)
    energy = 0.5 * s @ p + 0.5 * eta @ inv.K_ff @ eta
    return lin, ang, energy


@pytest.mark.parametrize("reference", ["tangent", "mean-axis"])
def test_free_floating_flexible_beam_conserves_momentum_angular_momentum_and_energy(reference):
    sec = BeamSection.rectangle(0.02, 0.01, 7.0e7, 0.33, 2700.0)      # soft (rubber-like) so the test runs fast
    body = straight_beam(0.5, 10, sec, start=(-0.1, 0.02, 0.0))
    if reference == "tangent":
        ms = craig_bampton(body, [Interface("a", (0,), "nodes"), Interface("b", (10,), "nodes")], 2)
    else:
        ms = free_interface_modes(body, 4)
    inv = invariants(ms)
    rng = np.random.default_rng(1)
    s0 = np.concatenate([[0.3, -0.2, 0.1], [1.5, 4.0, -2.0], 0.2 * rng.normal(size=inv.n_modes)])
    eta0 = 1e-4 * rng.normal(size=inv.n_modes)
    sol = _integrate(inv, s0, eta0, 0.2)
    assert sol.success
    lin0, ang0, e0 = _invariants_of(sol.y[:, 0], inv)
    for t in np.linspace(0.0, 0.2, 11):
        lin, ang, e = _invariants_of(sol.sol(t), inv)
        assert np.allclose(lin, lin0, atol=1e-8 * np.linalg.norm(lin0))
        assert np.allclose(ang, ang0, atol=1e-8 * np.linalg.norm(ang0))
        assert abs(e - e0) < 1e-8 * e0
    # the deformation really exchanged energy with the rigid motion (the test is not of a rigid body)
    eta_end = sol.y[7:7 + inv.n_modes, -1]
    assert abs(0.5 * eta_end @ inv.K_ff @ eta_end - 0.5 * eta0 @ inv.K_ff @ eta0) > 1e-4 * e0


def test_mass_matrix_derivatives_match_finite_differences():
    body = straight_beam(0.5, 6, BeamSection.rectangle(0.02, 0.01, 7.0e10, 0.33, 2700.0))
    inv = invariants(free_interface_modes(body, 3))
    eta = np.array([0.01, -0.02, 0.005])
    dM = mass_matrix_derivatives(inv, eta)
    h = 1e-6
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        fd = (inv.mass_matrix(eta + e) - inv.mass_matrix(eta - e)) / (2 * h)
        assert np.allclose(dM[k], fd, atol=1e-8 * np.abs(inv.mass_matrix(eta)).max())


def test_node_frame_velocity_is_the_time_derivative_of_its_position():
    from scipy.spatial.transform import Rotation

    from fmu_mbs.fe.ffrf import node_frame

    body = straight_beam(0.5, 6, BeamSection.rectangle(0.02, 0.01, 7.0e10, 0.33, 2700.0))
    ms = free_interface_modes(body, 3)
    r0, v = np.array([0.1, 0.2, -0.3]), np.array([0.5, -1.0, 0.2])
    w = np.array([0.3, -0.7, 1.1])
    eta0, etad = np.array([1e-3, -2e-3, 5e-4]), np.array([0.02, 0.01, -0.03])
    A0 = Rotation.from_rotvec([0.2, -0.1, 0.4]).as_matrix()

    def at(t):
        A = Rotation.from_rotvec(w * t).as_matrix() @ A0
        return node_frame(ms.basis, body.nodes, 4, r0 + v * t, A, eta0 + etad * t, v, w, etad)

    h = 1e-6
    o_p, R_p, _, _ = at(h)
    o_m, R_m, _, _ = at(-h)
    _, R0, vo, wn = at(0.0)
    assert np.allclose((o_p - o_m) / (2 * h), vo, rtol=1e-7, atol=1e-9)
    W = (R_p - R_m) / (2 * h) @ R0.T                     # skew(angular velocity) to first order in the small rotation
    assert np.allclose([W[2, 1], W[0, 2], W[1, 0]], wn, atol=1e-7)


def test_rp_form_gives_the_same_motion_as_the_body_frame_form():
    """The solver's coordinates (r, p, eta) with the constraint p^T p = 1: M_q q'' + 2 p lambda = Q_q,
    p^T p'' = -p'^T p'; mapped back, s' = B q'' + B' q' must equal the body-frame accelerations."""
    from fmu_mbs.fe.ffrf import euler_parameter_matrices, rp_equations

    body = straight_beam(0.5, 6, BeamSection.rectangle(0.02, 0.01, 7.0e10, 0.33, 2700.0), start=(0.05, 0.01, 0))
    inv = invariants(craig_bampton(body, [Interface("a", (0,), "nodes"), Interface("b", (6,), "nodes")], 2))
    rng = np.random.default_rng(5)
    m = inv.n_modes
    p = rng.normal(size=4)
    p /= np.linalg.norm(p)
    pd = rng.normal(size=4)
    pd -= (p @ pd) * p
    rd, eta, etad = rng.normal(size=3), 1e-3 * rng.normal(size=m), 0.1 * rng.normal(size=m)
    F, N = np.array([3.0, -1.0, 2.0]), np.array([0.2, 0.1, -0.3])
    Mq, Qq = rp_equations(inv, p, eta, rd, pd, etad, force=F, torque=N)
    n = 7 + m
    Phi = np.zeros(n)
    Phi[3:7] = 2 * p
    S = np.block([[Mq, Phi[:, None]], [Phi[None, :], np.zeros((1, 1))]])
    qdd = np.linalg.solve(S, np.concatenate([Qq, [-2 * pd @ pd]]))[:n]
    A, G = euler_parameter_matrices(p)
    v, w = A.T @ rd, 2 * G @ pd
    sd = np.concatenate([A.T @ qdd[:3] - np.cross(w, v), 2 * G @ qdd[3:7], qdd[7:]])
    ref = accelerations(inv, eta, np.concatenate([v, w, etad]), force=A.T @ F, torque=A.T @ N)
    assert np.allclose(sd, ref, rtol=1e-8, atol=1e-8 * np.abs(ref).max())


def test_uniform_gravity_does_not_deform_a_free_body():
    from fmu_mbs.fe.ffrf import gravity_forces

    body = straight_beam(0.5, 6, BeamSection.rectangle(0.02, 0.01, 7.0e10, 0.33, 2700.0), start=(0.05, 0.01, 0))
    inv = invariants(craig_bampton(body, [Interface("a", (0,), "nodes"), Interface("b", (6,), "nodes")], 2))
    g = np.array([0.0, -9.81, 3.0])
    Q = gravity_forces(inv, np.zeros(inv.n_modes), g)
    assert Q[:3] == pytest.approx(inv.mass * g)
    assert np.allclose(Q[3:6], inv.mass * np.cross(inv.center_of_mass, g))
    sd = accelerations(inv, np.zeros(inv.n_modes), np.zeros(6 + inv.n_modes), force=Q[:3], torque=Q[3:6],
                       modal_force=Q[6:])
    assert np.allclose(sd, np.concatenate([g, np.zeros(3 + inv.n_modes)]), atol=1e-9)
