"""FFRF inertia invariants (fmu_mbs.fe.invariants): the rigid limit reproduces mass, centre of mass and inertia
tensor exactly; the deformation-dependent mass matrix equals the kinetic energy of the moving nodes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fmu_mbs.errors import ModelError
from fmu_mbs.fe import BeamSection, FEBody, compute_invariants, free_interface_modes, invariants, straight_beam
from fmu_mbs.fe.beam import element_rotation


def _skew_beam(theory):
    s = BeamSection.rectangle(0.03, 0.05, 7.0e10, 0.33, 2700.0)
    e = np.array([1.0, 2.0, 2.0]) / 3.0
    up = np.array([0.0, 1.0, 0.0]) - e[1] * e
    start = np.array([0.1, -0.2, 0.3])
    L = 2.0
    return s, e, up, start, L, straight_beam(L, 8, s, theory=theory, start=start, direction=e, up=up)


@pytest.mark.parametrize("theory", ["timoshenko", "euler-bernoulli"])
def test_rigid_limit_of_a_beam_reproduces_mass_centre_and_inertia_exactly(theory):
    """A prism: J_c = rho A L^3/12 (I - e e^T) + rho L (Ip e e^T + Iy ey ey^T + Iz ez ez^T); the Euler-Bernoulli
    model has no rotary inertia of bending (its rod limit), the torsional inertia rho Ip L always."""
    s, e, up, start, L, body = _skew_beam(theory)
    inv = invariants(free_interface_modes(body, 4))
    m = s.rho * s.A * L
    c = start + 0.5 * L * e
    _, ey, ez = element_rotation(start, start + e, up)
    rot = 1.0 if theory == "timoshenko" else 0.0
    Jc = s.rho * s.A * L**3 / 12 * (np.eye(3) - np.outer(e, e)) + s.rho * L * (
        s.polar * np.outer(e, e) + rot * (s.Iy * np.outer(ey, ey) + s.Iz * np.outer(ez, ez)))
    J0 = Jc + m * (c @ c * np.eye(3) - np.outer(c, c))
    assert inv.mass == pytest.approx(m, rel=1e-13)
    assert np.allclose(inv.center_of_mass, c, rtol=1e-13, atol=1e-13)
    assert np.allclose(inv.inertia, J0, rtol=1e-12, atol=1e-12 * np.abs(J0).max())
    assert np.allclose(inv.inertia_at_com, Jc, rtol=1e-10, atol=1e-10 * np.abs(Jc).max())


def _velocity_jacobian(nodes, d, basis, eta):
    """Column j: DOF velocities for unit generalised velocity j of [v, omega, eta'] (body frame), from
    w_i = v + omega x (x_i + u_i) + u_i' (translations) and omega + psi_i' (rotations)."""
    u = basis @ eta
    n = basis.shape[0]
    Lm = np.zeros((n, 6 + basis.shape[1]))
    for j in range(6 + basis.shape[1]):
        g = np.zeros(6 + basis.shape[1])
        g[j] = 1.0
        v, w, ed = g[:3], g[3:6], g[6:]
        ud = basis @ ed
        for i, x in enumerate(nodes):
            r = i * d
            Lm[r:r + 3, j] = v + np.cross(w, x + u[r:r + 3]) + ud[r:r + 3]
            if d == 6:
                Lm[r + 3:r + 6, j] = w + ud[r + 3:r + 6]
    return Lm


def test_mass_matrix_from_invariants_equals_the_kinetic_energy_of_the_nodes():
    _, _, _, _, _, body = _skew_beam("timoshenko")
    ms = free_interface_modes(body, 5)
    inv = invariants(ms)
    eta = np.array([0.3, -0.2, 0.05, 0.1, -0.4]) * 1e-1
    Lm = _velocity_jacobian(body.nodes, 6, ms.basis, eta)
    direct = Lm.T @ (body.M @ Lm)
    assert np.allclose(inv.mass_matrix(eta), direct, rtol=1e-10, atol=1e-10 * np.abs(direct).max())


def test_point_masses_deformed_inertia_and_centre_follow_the_modes():
    """Lumped point masses (3 DOFs per node): M_rr(eta) is the inertia of the deformed cloud about the frame origin
    and M_tr(eta) = -m skew(c(eta)), c(eta) its centre of mass: the eta-dependent invariants, checked directly."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(7, 3))
    mass = rng.uniform(0.5, 2.0, 7)
    basis = rng.normal(size=(21, 3))
    M = sp.diags(np.repeat(mass, 3))
    inv = compute_invariants(M, basis, x, 3, K_ff=np.eye(3))
    eta = np.array([0.2, -0.1, 0.3])
    y = x + (basis @ eta).reshape(7, 3)
    J = sum(mi * (yi @ yi * np.eye(3) - np.outer(yi, yi)) for mi, yi in zip(mass, y))
    c = (mass[:, None] * y).sum(0) / mass.sum()
    Mq = inv.mass_matrix(eta)
    assert inv.mass == pytest.approx(mass.sum(), rel=1e-14)
    assert np.allclose(inv.center_of_mass, (mass[:, None] * x).sum(0) / mass.sum(), atol=1e-14)
    assert np.allclose(Mq[3:6, 3:6], J, atol=1e-12)
    cx = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    assert np.allclose(Mq[:3, 3:6], -mass.sum() * cx, atol=1e-12)


def test_invariants_reject_mismatched_data():
    body = FEBody(nodes=np.zeros((2, 3)), M=sp.eye(6), K=sp.eye(6), dofs_per_node=3)
    with pytest.raises(ModelError, match="do not match"):
        compute_invariants(body.M, np.zeros((5, 1)), body.nodes, 3, K_ff=np.eye(1))
    with pytest.raises(ModelError, match="modal coordinates must have 1"):
        compute_invariants(body.M, np.ones((6, 1)), body.nodes, 3, K_ff=np.eye(1)).mass_matrix(np.zeros(2))


def test_planar_body_with_in_plane_modes_stays_in_its_plane():
    """A beam in the x-y plane with in-plane modes only: from an in-plane state the 3D equations give no out-of-plane
    acceleration, and the planar mass matrix is the 3D one restricted to (v_x, v_y, omega_z, eta)."""
    from fmu_mbs.fe.ffrf import accelerations
    from fmu_mbs.fe.invariants import planar_mass_matrix

    b = straight_beam(0.6, 8, BeamSection.rectangle(0.02, 0.01, 7.0e10, 0.33, 2700.0), start=(0.1, 0.05, 0.0))
    out_of_plane = b.dofs({i: ["uz", "rx", "ry"] for i in range(9)})
    ms = free_interface_modes(b, 8)                  # b = 0.02 along y, h = 0.01 along z: the planes separate
    keep = [k for k in range(ms.n_modes) if np.abs(ms.basis[out_of_plane, k]).max() < 1e-9]
    assert len(keep) >= 3
    inv = compute_invariants(b.M, ms.basis[:, keep], b.nodes, 6, ms.stiffness[np.ix_(keep, keep)])
    m = inv.n_modes
    rng = np.random.default_rng(2)
    eta, etad = 1e-3 * rng.normal(size=m), 0.1 * rng.normal(size=m)
    s = np.concatenate([[0.3, -0.4, 0.0], [0.0, 0.0, 2.5], etad])
    sd = accelerations(inv, eta, s, force=np.array([1.0, 2.0, 0.0]), torque=np.array([0.0, 0.0, 0.3]))
    assert np.allclose(sd[[2, 3, 4]], 0.0, atol=1e-9 * np.abs(sd).max())
    M3 = inv.mass_matrix(eta)
    assert np.allclose(M3[np.ix_([2, 3, 4], [0, 1, 5] + list(range(6, 6 + m)))], 0.0, atol=1e-12)
    assert planar_mass_matrix(inv, eta).shape == (3 + m, 3 + m)
