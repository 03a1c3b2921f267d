"""A reduced body: the FE body, a mode basis Psi (u = Psi eta), the reduced matrices and how the basis was made.

Reduced matrices: M_r = Psi^T M Psi, K_r = Psi^T K Psi (Craig & Kurdila, *Fundamentals of Structural Dynamics*,
2nd ed. 2006, ch. 17), damping D_r from fe.damping. ``reference`` states the reference conditions that tie the
floating frame to the body:

- ``tangent:<interface>``: the basis is zero at that interface (the frame is attached to it: a tangent frame);
- ``mean-axis``: Psi^T M R = 0 for the six rigid modes R (Buckens / Tisserand mean axes: the deformation carries
  no linear or angular momentum relative to the frame; Agrawal & Shabana 1986);
- ``clamped``: the FE body is supported in its own frame (no rigid motion in the basis);
- ``none``: the basis contains rigid motion (only for a body fixed in the world).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import scipy.linalg as la

from ..errors import ModelError
from .body import FEBody
from .eigen import canonical_modes
from .interfaces import Interface


@dataclass(frozen=True)
class ModeSet:
    """Mode basis of an FE body; see the module docstring. basis: (n_dofs, m); names: one per column."""

    body: FEBody
    basis: np.ndarray
    names: tuple[str, ...]
    reference: str
    interfaces: tuple[Interface, ...] = ()
    damping: np.ndarray | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.basis.shape[0] != self.body.n_dofs or self.basis.shape[1] != len(self.names):
            raise ModelError(f"{self.body.name}: mode basis is {self.basis.shape}, expected ({self.body.n_dofs}, "
                             f"{len(self.names)})")
        if self.damping is not None and self.damping.shape != (self.n_modes, self.n_modes):
            raise ModelError(f"{self.body.name}: damping matrix must be {self.n_modes} x {self.n_modes}")

    @property
    def n_modes(self) -> int:
        return self.basis.shape[1]

    @cached_property
    def mass(self) -> np.ndarray:
        """Reduced mass M_r = Psi^T M Psi (kg-consistent units of the coordinates)."""
        return _sym(self.basis.T @ (self.body.M @ self.basis))

    @cached_property
    def stiffness(self) -> np.ndarray:
        """Reduced stiffness K_r = Psi^T K Psi."""
        return _sym(self.basis.T @ (self.body.K @ self.basis))

    def eigen(self) -> tuple[np.ndarray, np.ndarray]:
        """(omega in rad/s ascending, V M_r-normalised) of K_r v = omega^2 M_r v."""
        lam, V = la.eigh(self.stiffness, self.mass)
        V = canonical_modes(lam, V)
        return np.sqrt(np.clip(lam, 0.0, None)), V

    def frequencies(self) -> np.ndarray:
        """Natural frequencies of the reduced body in its reference conditions (Hz)."""
        return self.eigen()[0] / (2.0 * np.pi)

    def with_damping(self, D: np.ndarray) -> ModeSet:
        """The same mode set with the reduced damping matrix D (N s/m in the coordinates' units)."""
        return replace(self, damping=np.asarray(D, float))

    def interface_basis(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(point (3,), rows (6, m)): the interface's reference point (m, body frame) and the map from the modal
        coordinates to its small motion (ux uy uz rx ry rz) -- where a marker on the interface sits and how it
        moves: the rigid fit of its nodes ('rigid'), their weighted average ('averaged'), or the node itself
        ('nodes', one 6-DOF node)."""
        itf = self.interface(name)
        C, E, _ = itf.constraint(self.body)
        if itf.kind == "nodes" and E.shape[1] != 6:
            raise ModelError(f"interface '{name}': a marker needs a 'rigid' or 'averaged' interface or one 6-DOF node")
        rows = np.linalg.lstsq(E, np.asarray(C @ self.basis), rcond=None)[0]
        return itf.reference_point(self.body), rows

    def interface(self, name: str) -> Interface:
        for itf in self.interfaces:
            if itf.name == name:
                return itf
        raise ModelError(f"{self.body.name}: no interface '{name}' (have {[i.name for i in self.interfaces]})")


def _sym(A: np.ndarray) -> np.ndarray:
    return 0.5 * (A + A.T)


def orthogonalize(ms: ModeSet) -> ModeSet:
    """Replace the coordinates by the eigenvectors of the reduced problem: M_r = I, K_r = diag(omega^2).
    The span (and so every response) is unchanged; names become 'mode 1', 'mode 2', ..."""
    _, V = ms.eigen()
    return replace(ms, basis=ms.basis @ V, names=tuple(f"mode {k + 1}" for k in range(V.shape[1])), damping=None)


def m_orthonormal_complement(body: FEBody, basis: np.ndarray, vectors: np.ndarray,
                             tol: float = 1e-8) -> np.ndarray:
    """The part of ``vectors`` M-orthogonal to ``basis``, M-orthonormalised; directions that are (numerically)
    already in the span are dropped."""
    M = body.M
    V = np.array(vectors, float, copy=True)
    if basis.shape[1]:
        Mb = basis.T @ (M @ basis)
        V -= basis @ np.linalg.solve(Mb, basis.T @ (M @ V))
    G = _sym(V.T @ (M @ V))
    norm0 = np.einsum("ij,ij->j", vectors, M @ vectors)
    lam, W = la.eigh(G)
    keep = lam > tol * max(norm0.max(initial=0.0), 1e-300)
    return canonical_modes(lam[keep], V @ (W[:, keep] / np.sqrt(lam[keep])), atol=0.0)


def augment(ms: ModeSet, vectors: np.ndarray, prefix: str, against: np.ndarray | None = None) -> ModeSet:
    """Append ``vectors`` (e.g. static correction modes) M-orthogonalised against the basis columns ``against``
    (default all); names '<prefix> k'."""
    basis = ms.basis if against is None else ms.basis[:, np.asarray(against, int)]
    extra = m_orthonormal_complement(ms.body, basis, vectors)
    names = ms.names + tuple(f"{prefix} {k + 1}" for k in range(extra.shape[1]))
    return replace(ms, basis=np.hstack([ms.basis, extra]), names=names, damping=None)


def mean_axis_projection(body: FEBody, basis: np.ndarray) -> np.ndarray:
    """Project the rigid motion out of ``basis`` (Psi - R (R^T M R)^-1 R^T M Psi) and drop the columns that become
    dependent, M-orthonormalising the rest, so that Psi^T M R = 0 (mean-axis conditions)."""
    R = body.rigid_modes()
    rigid = m_orthonormal_complement(body, np.zeros((body.n_dofs, 0)), R)
    P = basis - rigid @ (rigid.T @ (body.M @ basis))
    return m_orthonormal_complement(body, rigid, P)
