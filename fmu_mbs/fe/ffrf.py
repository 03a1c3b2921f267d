"""Equations of motion of a free floating-frame (FFRF) modal body from its invariants: a numpy reference for the
solver's modal body kind (and for its tests), not a kernel.

Velocities in the body frame s = [v, omega, eta'] (frame-origin velocity, angular velocity, modal rates), kinetic
energy T = 1/2 s^T M(eta) s with M(eta) from ``Invariants.mass_matrix``. The momenta p = M(eta) s = [p_t, p_r, p_f]
obey the Boltzmann-Hamel (Euler-Poincare) equations of a body on SE(3) x R^m (e.g. Shabana 2013 §5.6 in
quasi-velocities; Simeon, *Computational Flexible Multibody Dynamics*, 2013, ch. 4):

    d/dt p_t + omega x p_t                 = F                       (force, body frame)
    d/dt p_r + omega x p_r + v x p_t       = N                       (torque about the frame origin, body frame)
    d/dt p_f - 1/2 s^T (dM/deta_k) s       = Q_f - K_ff eta - D_ff eta'

so M(eta) s' = Q_ext + Q_v - [0, 0, K_ff eta + D_ff eta'] with the quadratic velocity vector
Q_v = -M'(eta, eta') s - [omega x p_t, omega x p_r + v x p_t, -1/2 s^T dM/deta_k s], M' = sum_k eta'_k dM/deta_k.
Frame kinematics: r' = A v, A' = A skew(omega).
"""

from __future__ import annotations

import numpy as np

from .invariants import Invariants


def mass_matrix_derivatives(inv: Invariants, eta: np.ndarray) -> np.ndarray:
    """(m, 6+m, 6+m): dM/deta_k at eta, from the invariants (M is at most quadratic in eta)."""
    m = inv.n_modes
    E = np.kron(np.asarray(eta, float)[:, None], np.eye(3))
    P = inv.mPsiTildePsiTilde
    out = np.zeros((m, 6 + m, 6 + m))
    for k in range(m):
        blk = slice(3 * k, 3 * k + 3)
        d = out[k]
        d[:3, 3:6] = -inv.mPhitTPsiTilde[:, blk]
        S = inv.mXRefTildePsiTilde[:, blk]
        d[3:6, 3:6] = S + S.T + P[blk, :] @ E + E.T @ P[:, blk]
        d[3:6, 6:] = -inv.mPsiTildePsi[blk, :]
        lower = np.tril_indices(6 + m, -1)
        d[lower] = d.T[lower]
    return out


def quadratic_velocity_vector(inv: Invariants, eta: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Q_v (6+m) of the module docstring at coordinates eta and body-frame velocities s = [v, omega, eta']."""
    m = inv.n_modes
    s = np.asarray(s, float)
    v, w, ed = s[:3], s[3:6], s[6:]
    M = inv.mass_matrix(eta)
    dM = mass_matrix_derivatives(inv, eta)
    p = M @ s
    Mdot = np.tensordot(ed, dM, axes=1)
    q = -Mdot @ s
    q[:3] -= np.cross(w, p[:3])
    q[3:6] -= np.cross(w, p[3:6]) + np.cross(v, p[:3])
    q[6:] += 0.5 * np.einsum("i,kij,j->k", s, dM, s) if m else 0.0
    return q


def accelerations(inv: Invariants, eta: np.ndarray, s: np.ndarray, force: np.ndarray | None = None,
                  torque: np.ndarray | None = None, modal_force: np.ndarray | None = None) -> np.ndarray:
    """s' = [v', omega', eta''] of the free body under a body-frame force and torque (about the frame origin) and
    modal forces, with the elastic K_ff eta and damping D_ff eta' forces."""
    m = inv.n_modes
    eta = np.asarray(eta, float)
    rhs = quadratic_velocity_vector(inv, eta, s)
    rhs[:3] += 0.0 if force is None else force
    rhs[3:6] += 0.0 if torque is None else torque
    rhs[6:] -= inv.K_ff @ eta + (0.0 if inv.D_ff is None else inv.D_ff @ np.asarray(s, float)[6:])
    if modal_force is not None and m:
        rhs[6:] += modal_force
    return np.linalg.solve(inv.mass_matrix(eta), rhs)


def node_frame(ms_basis: np.ndarray, nodes: np.ndarray, node: int, r: np.ndarray, A: np.ndarray, eta: np.ndarray,
               v_world: np.ndarray, w_world: np.ndarray, etad: np.ndarray) -> tuple[np.ndarray, ...]:
    """Position, rotation, velocity and angular velocity (world) of FE node ``node`` (6 DOFs per node) of a modal body
    with frame (r, A), world velocity v_world of the frame origin, world angular velocity w_world:

        o = r + A (x + Psi_t eta),       R = A rot(theta),  theta = Psi_r eta   (rot: Rodrigues' formula)
        o' = v + w x A (x + Psi_t eta) + A Psi_t eta',    w_node = w + A dexp(theta) Psi_r eta'

    with dexp(theta) = I + (1 - cos t)/t^2 [theta]x + (t - sin t)/t^3 [theta]x^2, t = |theta| (the exact angular
    velocity of R; the linear theory's w + A Psi_r eta' differs by O(|theta| |theta'|)). These are the marker
    equations of the modal body kind (a marker on an interface node)."""
    rows = slice(6 * node, 6 * node + 3)
    rrow = slice(6 * node + 3, 6 * node + 6)
    rho = A @ (nodes[node] + ms_basis[rows] @ eta)
    theta = ms_basis[rrow] @ eta
    t = float(np.linalg.norm(theta))
    K = np.array([[0.0, -theta[2], theta[1]], [theta[2], 0.0, -theta[0]], [-theta[1], theta[0], 0.0]])
    if t < 1e-6:
        s, c2, c3 = 1.0 - t * t / 6.0, 0.5 - t * t / 24.0, 1.0 / 6.0 - t * t / 120.0
    else:
        s, c2, c3 = np.sin(t) / t, (1.0 - np.cos(t)) / (t * t), (t - np.sin(t)) / t**3
    R = A @ (np.eye(3) + s * K + c2 * K @ K)
    vo = v_world + np.cross(w_world, rho) + A @ (ms_basis[rows] @ etad)
    wn = w_world + A @ ((np.eye(3) + c2 * K + c3 * K @ K) @ (ms_basis[rrow] @ etad))
    return r + rho, R, vo, wn


def rotating_linearization(inv: Invariants, omega: np.ndarray,
                           K_geo: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Modal equations of a body whose frame spins at the constant body-frame angular velocity omega (rad/s) about
    its fixed origin: M_ff eta'' + G eta' + (K_ff + K_geo - K_cf) eta = f_c, from the modal rows of the equations
    above with v = 0, omega' = 0:

        K_cf[k, l] = omega^T P_kl omega            (spin softening, P_kl the 3x3 blocks of mPsiTildePsiTilde)
        G[k, j]    = omega . (mPsiTildePsi[k-block, j] - mPsiTildePsi[j-block, k])    (gyroscopic, skew)
        f_c[k]     = omega^T mXRefTildePsiTilde[:, k-block] omega                      (centrifugal load)

    Returns (M_ff, G, K_ff + K_geo - K_cf, f_c). K_geo: the geometric stiffening of the same spin (fe.stiffening),
    without which a fast-spinning linear modal body softens and goes unstable (Kane, Ryan & Banerjee 1987)."""
    w = np.asarray(omega, float)
    m = inv.n_modes
    P = inv.mPsiTildePsiTilde.reshape(m, 3, m, 3)
    K_cf = np.einsum("a,kalb,b->kl", w, P, w)
    T = inv.mPsiTildePsi.reshape(m, 3, m)                     # T[k, :, j] = mPsiTildePsi[3k:3k+3, j]
    A = np.einsum("a,kaj->kj", w, T)
    G = A - A.T
    f_c = np.einsum("a,akb,b->k", w, inv.mXRefTildePsiTilde.reshape(3, m, 3), w)
    K = inv.K_ff - 0.5 * (K_cf + K_cf.T) + (0.0 if K_geo is None else K_geo)
    return inv.M_ff, G, K, f_c


def euler_parameter_matrices(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A, G_bar) of unit Euler parameters p = (e0, e1, e2, e3): A = (e0^2 - e.e) I + 2 e e^T + 2 e0 skew(e) and the
    body angular velocity omega = 2 G_bar p', G_bar = [-e, -skew(e) + e0 I] (Nikravesh 1988, §6; seed 004)."""
    e0, e1, e2, e3 = (float(v) for v in p)
    e = np.array([e1, e2, e3])
    E = np.array([[0.0, -e3, e2], [e3, 0.0, -e1], [-e2, e1, 0.0]])
    A = (e0 * e0 - e @ e) * np.eye(3) + 2.0 * np.outer(e, e) + 2.0 * e0 * E
    G = np.column_stack([-e, -E + e0 * np.eye(3)])
    return A, G


def rp_equations(inv: Invariants, p: np.ndarray, eta: np.ndarray, rd: np.ndarray, pd: np.ndarray,
                 etad: np.ndarray, force: np.ndarray | None = None, torque: np.ndarray | None = None,
                 modal_force: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mass matrix M_q and force vector Q_q of a modal body in the solver's r-p coordinates q = (r, p, eta) (world
    frame-origin position, Euler parameters, modal coordinates), by the velocity transformation s = B q',
    B = diag(A^T, 2 G_bar, I):

        M_q = B^T M(eta) B,    Q_q = B^T (Q_v + Q_ext - [0, 0, K eta + D eta'] - M(eta) B' q'),
        B' q' = [-omega x v, 0, 0]

    with force (N) at the frame origin and torque (N m) in world axes. M_q is singular along p; the solver adds the
    Euler-parameter constraint p^T p = 1 as for rigid bodies."""
    A, G = euler_parameter_matrices(p)
    m = inv.n_modes
    v, w = A.T @ np.asarray(rd, float), 2.0 * G @ np.asarray(pd, float)
    s = np.concatenate([v, w, np.asarray(etad, float)])
    B = np.zeros((6 + m, 7 + m))
    B[:3, :3] = A.T
    B[3:6, 3:7] = 2.0 * G
    B[6:, 7:] = np.eye(m)
    M = inv.mass_matrix(eta)
    q = quadratic_velocity_vector(inv, eta, s)
    q[:3] += 0.0 if force is None else A.T @ force
    q[3:6] += 0.0 if torque is None else A.T @ torque
    q[6:] -= inv.K_ff @ np.asarray(eta, float) + (0.0 if inv.D_ff is None else inv.D_ff @ s[6:])
    if modal_force is not None and m:
        q[6:] += modal_force
    Bd_qd = np.concatenate([-np.cross(w, v), np.zeros(3 + m)])
    return B.T @ M @ B, B.T @ (q - M @ Bd_qd)


def gravity_forces(inv: Invariants, eta: np.ndarray, g_body: np.ndarray) -> np.ndarray:
    """Generalised gravity forces [m g, m c(eta) x g, mPhitTPsi^T g] in the body-frame velocities, g_body = A^T g:
    the first three columns of M(eta) times g (uniform gravity accelerates a free body without deforming it)."""
    return inv.mass_matrix(eta)[:, :3] @ np.asarray(g_body, float)
