"""Geometric (stress) stiffening of beam bodies: the geometric stiffness of an axial prestress and its modal
projection for the inertia loads of a moving frame (centrifugal and translational), the terms a linear FFRF body
lacks (Kane, Ryan & Banerjee, J. Guidance 10 (1987) 139-151; Wallrapp's SID "geometric stiffness" terms).

Element geometric stiffness for an axial force N(x) varying linearly between the element's end values (tension
positive): K_G = int N(x) N_v'^T N_v' dx in each bending plane, N_v the element's deflection functions (fe.beam),
e.g. N/(30L) [36 3L -36 3L; 3L 4L^2 -3L -L^2; ...] for constant N and Euler-Bernoulli (Przemieniecki 1968, §15).
Torsional (Wagner) and axial terms of the geometric stiffness are neglected.

Inertia load cases in the body frame: a frame rotating with omega and accelerating with a (origin) loads the body
with -rho (a + omega x (omega x x)); omega x (omega x x) = (omega omega^T - |omega|^2 I) x is quadratic in omega, so
K_geo(omega, a) = sum_{i<=j} omega_i omega_j K_ij + sum_k a_k K_k with six plus three constant modal matrices,
each Psi^T K_G(prestress of its unit load case) Psi. The loads use the translational masses (rotation rows of the
acceleration field zero); the prestress is solved with the mode set's support: its reference interface (tangent),
the given fixed DOFs (clamped) or inertia relief (mean axes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError
from .beam import _W, _XI, _bending_shapes, element_rotation
from .body import FEBody
from .free_modes import static_response
from .modeset import ModeSet
from .recovery import section_forces

PAIRS = ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))


def element_geometric_stiffness(L: float, N1: float, N2: float, phi_y: float = 0.0, phi_z: float = 0.0) -> np.ndarray:
    """12x12 local geometric stiffness for axial forces N1, N2 (N, tension +) at the element ends; phi_y, phi_z the
    shear parameters of the x-y and x-z bending planes (0: Euler-Bernoulli)."""
    out = np.zeros((12, 12))
    for idx, phi, sign in (([1, 5, 7, 11], phi_y, np.ones(4)), ([2, 4, 8, 10], phi_z, np.array([1, -1, 1, -1]))):
        _, dnv, _, _ = _bending_shapes(L, phi, _XI)       # (4, Gauss points)
        kg = (dnv * (_W * L * (N1 * (1 - _XI) + N2 * _XI))) @ dnv.T
        out[np.ix_(idx, idx)] = sign[:, None] * kg * sign[None, :]
    return out


def geometric_stiffness(body: FEBody, u: np.ndarray) -> sp.csr_matrix:
    """Global geometric stiffness of the axial prestress of the static displacement field u (n_dofs,)."""
    return geometric_stiffness_cases(body, np.asarray(u, float)[:, None])[0]


def geometric_stiffness_cases(body: FEBody, U: np.ndarray) -> list[sp.csr_matrix]:
    """geometric_stiffness of each column of U (n_dofs, c), each element's frame and section forces found once."""
    mesh = body.beam
    if mesh is None:
        raise ModelError(f"{body.name}: geometric stiffness needs a body assembled from beam elements")
    S = section_forces(body, U)                         # (e, 2, 6, c)
    rows, cols = [], []
    vals: list[list[np.ndarray]] = [[] for _ in range(U.shape[1])]
    timo = mesh.theory == "timoshenko"
    for k, (a, b) in enumerate(mesh.elements):
        s = mesh.sections[k]
        L = float(np.linalg.norm(body.nodes[b] - body.nodes[a]))
        phi_y = 12 * s.E * s.Iz / (s.ky * s.G * s.A * L * L) if timo else 0.0
        phi_z = 12 * s.E * s.Iy / (s.kz * s.G * s.A * L * L) if timo else 0.0
        T = np.kron(np.eye(4), element_rotation(body.nodes[a], body.nodes[b], mesh.ups[k]))
        d = np.r_[np.arange(6 * a, 6 * a + 6), np.arange(6 * b, 6 * b + 6)]
        rows.append(np.repeat(d, 12))
        cols.append(np.tile(d, 12))
        for c, out in enumerate(vals):
            out.append((T.T @ element_geometric_stiffness(L, S[k, 0, 0, c], S[k, 1, 0, c], phi_y, phi_z) @ T).ravel())
    r, cc = np.concatenate(rows), np.concatenate(cols)
    return [sp.csr_matrix((np.concatenate(v), (r, cc)), shape=(body.n_dofs, body.n_dofs)) for v in vals]


@dataclass(frozen=True)
class ModalGeometricStiffness:
    """K_geo(omega, a) = sum omega_i omega_j omega_pairs[p] + sum a_k accel[k] (p over PAIRS: xx yy zz xy xz yz)."""

    omega_pairs: np.ndarray     # (6, m, m)
    accel: np.ndarray           # (3, m, m)

    def at(self, omega: np.ndarray, accel: np.ndarray | None = None) -> np.ndarray:
        """The modal geometric stiffness for body-frame angular velocity omega (rad/s) and frame-origin
        acceleration minus gravity ``accel`` (m/s^2), both in body axes."""
        w = np.asarray(omega, float)
        K = sum(w[i] * w[j] * self.omega_pairs[p] for p, (i, j) in enumerate(PAIRS))
        if accel is not None:
            K = K + np.tensordot(np.asarray(accel, float), self.accel, axes=1)
        return K


def _prestress(ms: ModeSet, F: np.ndarray, fixed: Iterable[int] | None) -> np.ndarray:
    """Static response to the load columns F with the support implied by the mode set's reference."""
    fx = [] if fixed is None else [int(i) for i in fixed]
    if ms.reference.startswith("tangent:"):
        return static_response(ms.body, F, [ms.interface(ms.reference.split(":", 1)[1])], fx)
    if fx or ms.reference == "mean-axis":
        return static_response(ms.body, F, (), fx)
    raise ModelError(f"{ms.body.name}: give the supports ('fixed') of a mode set with reference '{ms.reference}'")


def modal_geometric_stiffness(ms: ModeSet, fixed: Iterable[int] | None = None) -> ModalGeometricStiffness:
    """The nine modal geometric stiffness matrices of the inertia load cases (module docstring)."""
    body = ms.body
    d = body.dofs_per_node
    acc = np.zeros((body.n_dofs, 9))
    for p, (i, j) in enumerate(PAIRS):
        B = np.zeros((3, 3))
        B[i, j] = B[j, i] = 1.0
        if i == j:
            B -= np.eye(3)
        for n, x in enumerate(body.nodes):
            acc[n * d:n * d + 3, p] = B @ x
    for k in range(3):
        acc[k::d, 6 + k] = 1.0
    F = -(body.M @ acc)
    U = _prestress(ms, F, fixed)
    mats = np.array([ms.basis.T @ (Kg @ ms.basis) for Kg in geometric_stiffness_cases(body, U)])
    mats = 0.5 * (mats + mats.transpose(0, 2, 1))
    return ModalGeometricStiffness(omega_pairs=mats[:6], accel=mats[6:])
