"""Inertia invariants of a floating-frame (FFRF) modal body, and the mass matrix they give.

The set and names follow Exudyn's ``ObjectFFRFreducedOrder`` (Zwoelfer & Gerstmayr, "A concise nodal-based
derivation of the floating frame of reference formulation for displacement-based solid finite elements",
Multibody System Dynamics 49 (2020) 291-313), which are the nodal form of Shabana's inertia shape integrals
(Shabana, *Dynamics of Multibody Systems*, 4th ed. 2013, §5.5-5.6). Generalised here to nodes with rotations
(beams): with d DOFs per node, the body-frame matrices

    Phi_t   (n x 3):   translation rows I3, rotation rows 0           (rigid translation)
    X~      (n x 3):   translation rows skew(x_i), rotation rows -I3   (so -X~ is the small rigid rotation)
    Psi~_k  (n x 3):   translation rows skew(psi_ik), rotation rows 0  (mode k seen by a rotation)

give the velocity of every DOF as  w' = Phi_t v + Psi eta' - (X~ + sum_k eta_k Psi~_k) omega,  v the frame's
velocity and omega its angular velocity (both in the body frame). With the FE mass M, the invariants are

    m I3 = Phi_t^T M Phi_t,   m skew(c) = Phi_t^T M X~,   J_0 = X~^T M X~       (mass, centre of mass, inertia)
    mPhitTPsi = Phi_t^T M Psi,        mPhitTPsiTilde = Phi_t^T M Psi~,
    mXRefTildePsi = X~^T M Psi,       mXRefTildePsiTilde = X~^T M Psi~,
    mPsiTildePsi = Psi~^T M Psi,      mPsiTildePsiTilde = Psi~^T M Psi~,      M_ff = Psi^T M Psi,  K_ff.

For 3-DOF nodes they are exactly Exudyn's. M may be the consistent FE mass or a lumped diagonal (the .fem file).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError
from .body import skew
from .modeset import ModeSet


@dataclass(frozen=True)
class Invariants:
    """FFRF inertia invariants (SI; see module docstring). mode counts m: shapes (3, m), (3, 3m), (3m, m), ..."""

    mass: float
    center_of_mass: np.ndarray        # (3,) m, in the body frame
    inertia: np.ndarray               # (3, 3) kg m^2 about the frame origin
    mPhitTPsi: np.ndarray
    mPhitTPsiTilde: np.ndarray
    mXRefTildePsi: np.ndarray
    mXRefTildePsiTilde: np.ndarray
    mPsiTildePsi: np.ndarray
    mPsiTildePsiTilde: np.ndarray
    M_ff: np.ndarray
    K_ff: np.ndarray
    D_ff: np.ndarray | None = None

    @property
    def n_modes(self) -> int:
        return self.M_ff.shape[0]

    @property
    def inertia_at_com(self) -> np.ndarray:
        """Inertia about the centre of mass (kg m^2), by the parallel-axis theorem."""
        c = self.center_of_mass
        return self.inertia - self.mass * (c @ c * np.eye(3) - np.outer(c, c))

    def mass_matrix(self, eta: np.ndarray) -> np.ndarray:
        """(6 + m) square mass matrix in body-frame velocities [v, omega, eta'] at modal coordinates eta:

            M_tt = m I,  M_tr = -(m skew(c) + mPhitTPsiTilde (eta x I3)),  M_tf = mPhitTPsi,
            M_rr = J_0 + S + S^T + (eta x I3)^T mPsiTildePsiTilde (eta x I3),  S = mXRefTildePsiTilde (eta x I3),
            M_rf = -(mXRefTildePsi + (eta x I3)^T mPsiTildePsi),  M_ff.
        """
        eta = np.asarray(eta, float)
        if eta.shape != (self.n_modes,):
            raise ModelError(f"modal coordinates must have {self.n_modes} entries, got {eta.shape}")
        E = np.kron(eta[:, None], np.eye(3))                    # (3m, 3): Psi~ (eta x I3) = sum_k eta_k Psi~_k
        m = self.n_modes
        out = np.zeros((6 + m, 6 + m))
        out[:3, :3] = self.mass * np.eye(3)
        out[:3, 3:6] = -(self.mass * skew(self.center_of_mass) + self.mPhitTPsiTilde @ E)
        out[:3, 6:] = self.mPhitTPsi
        S = self.mXRefTildePsiTilde @ E
        out[3:6, 3:6] = self.inertia + S + S.T + E.T @ self.mPsiTildePsiTilde @ E
        out[3:6, 6:] = -(self.mXRefTildePsi + E.T @ self.mPsiTildePsi)
        out[6:, 6:] = self.M_ff
        lower = np.tril_indices(6 + m, -1)
        out[lower] = out.T[lower]
        return out


PLANAR_ROWS = (0, 1, 5)     # v_x, v_y, omega_z of [v, omega] in the x-y plane


def planar_mass_matrix(inv: Invariants, eta: np.ndarray) -> np.ndarray:
    """(3 + m) mass matrix in [v_x, v_y, omega_z, eta'] of a body moving in the x-y plane whose modes deform it in
    that plane only (mode translations with no z part, rotations about z only): the rows and columns of the 3D
    mass matrix; for such modes the dropped rows carry no coupling to in-plane motion (tested)."""
    M = inv.mass_matrix(eta)
    keep = list(PLANAR_ROWS) + list(range(6, 6 + inv.n_modes))
    return M[np.ix_(keep, keep)]


def _skew_rows(v: np.ndarray) -> np.ndarray:
    """(..., 3, 3) cross-product matrices of the vectors v (..., 3)."""
    out = np.zeros(v.shape[:-1] + (3, 3))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def velocity_matrices(nodes: np.ndarray, dofs_per_node: int, basis: np.ndarray) -> tuple[np.ndarray, ...]:
    """(Phi_t, X~, Psi~) of the module docstring; Psi~ as (n, 3m), block k for mode k."""
    d = dofs_per_node
    nn = len(nodes)
    m = basis.shape[1]
    Phit = np.zeros((nn, d, 3))
    Phit[:, :3, :] = np.eye(3)
    X = np.zeros((nn, d, 3))
    X[:, :3, :] = _skew_rows(np.asarray(nodes, float))
    if d == 6:
        X[:, 3:, :] = -np.eye(3)
    trans = basis.reshape(nn, d, m)[:, :3, :].transpose(0, 2, 1)           # (nn, m, 3)
    Pt = np.zeros((nn, d, m, 3))
    Pt[:, :3] = _skew_rows(trans).transpose(0, 2, 1, 3)                     # (nn, 3, m, 3)
    return Phit.reshape(nn * d, 3), X.reshape(nn * d, 3), Pt.reshape(nn * d, 3 * m)


def compute_invariants(M: sp.spmatrix | np.ndarray, basis: np.ndarray, nodes: np.ndarray, dofs_per_node: int,
                       K_ff: np.ndarray, M_ff: np.ndarray | None = None, D_ff: np.ndarray | None = None) -> Invariants:
    """Invariants from the FE (or lumped) mass M (n x n), the mode basis (n x m), node positions (n_nodes x 3, m)
    and the reduced stiffness. M_ff defaults to basis^T M basis (give the tool's reduced mass to keep it)."""
    nodes = np.asarray(nodes, float)
    if M.shape != (len(nodes) * dofs_per_node,) * 2 or basis.shape[0] != M.shape[0]:
        raise ModelError(f"mass {M.shape}, basis {basis.shape} and {len(nodes)} nodes x {dofs_per_node} DOFs "
                         "do not match")
    Phit, X, Pt = velocity_matrices(nodes, dofs_per_node, basis)
    M = sp.csr_matrix(M)
    MPhit, MX, MPsi, MPt = M @ Phit, M @ X, M @ basis, M @ Pt
    mass = float(np.trace(Phit.T @ MPhit) / 3.0)
    if not mass > 0:
        raise ModelError(f"the body's mass is {mass}; the mass matrix carries no translational inertia")
    mc = Phit.T @ MX                                              # = m skew(c)
    c = np.array([mc[2, 1] - mc[1, 2], mc[0, 2] - mc[2, 0], mc[1, 0] - mc[0, 1]]) / (2.0 * mass)
    J = X.T @ MX
    Mff = 0.5 * (basis.T @ MPsi + (basis.T @ MPsi).T) if M_ff is None else np.asarray(M_ff, float)
    return Invariants(mass=mass, center_of_mass=c, inertia=0.5 * (J + J.T),
                      mPhitTPsi=Phit.T @ MPsi, mPhitTPsiTilde=Phit.T @ MPt,
                      mXRefTildePsi=X.T @ MPsi, mXRefTildePsiTilde=X.T @ MPt,
                      mPsiTildePsi=Pt.T @ MPsi, mPsiTildePsiTilde=Pt.T @ MPt,
                      M_ff=Mff, K_ff=np.asarray(K_ff, float), D_ff=D_ff)


def invariants(ms: ModeSet) -> Invariants:
    """Invariants of a mode set built from an FE body (consistent mass)."""
    return compute_invariants(ms.body.M, ms.basis, ms.body.nodes, ms.body.dofs_per_node, ms.stiffness, ms.mass,
                              ms.damping)
