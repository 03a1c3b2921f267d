"""Natural modes and static solutions of a linear FE body: K phi = omega^2 M phi, K u = f, with supports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import AnalysisError
from .body import free_dofs

DENSE_LIMIT = 2500   # below this many free DOFs the dense symmetric solver is faster and more robust than ARPACK
CLUSTER_RTOL = 1e-8  # eigenvalues closer than this (relative) count as one repeated eigenvalue: canonical_modes


@dataclass(frozen=True)
class Modes:
    """Natural modes: omega (rad/s, ascending), shapes (n_dofs, n) mass-normalised (shapes.T M shapes = I) with
    zeros at the supported DOFs."""

    omega: np.ndarray
    shapes: np.ndarray

    @property
    def frequencies(self) -> np.ndarray:
        """Natural frequencies (Hz)."""
        return self.omega / (2.0 * np.pi)


def generalized_eigen(K: sp.spmatrix | np.ndarray, M: sp.spmatrix | np.ndarray, n: int,
                      shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The n eigenpairs of K x = lam M x with lam closest above ``shift`` (lam ascending, x M-normalised).

    Dense LAPACK for small systems, ARPACK shift-invert about slightly below ``shift`` otherwise (that also handles
    a singular K, e.g. free-free bodies)."""
    size = K.shape[0]
    n = min(n, size)
    if n <= 0:
        return np.zeros(0), np.zeros((size, 0))
    if size <= DENSE_LIMIT or n >= size - 1:
        Kd = K.toarray() if sp.issparse(K) else np.asarray(K)
        Md = M.toarray() if sp.issparse(M) else np.asarray(M)
        lam, x = la.eigh(Kd, Md)
        keep = np.argsort(lam)[:n] if shift == 0.0 else np.argsort(np.abs(lam - shift))[:n]
        keep = keep[np.argsort(lam[keep])]
        scale = max(float(np.max(np.abs(lam))), 1e-300)
        return lam[keep], canonical_modes(lam[keep], x[:, keep], atol=1e-12 * scale)
    # shift a little below ``shift`` so that K - sigma M is regular even for a free body (singular K); the scale
    # is a cheap stand-in for the largest eigenvalue: the largest ratio of the diagonals
    Kc, Mc = sp.csc_matrix(K), sp.csc_matrix(M)
    dk, dm = np.abs(Kc.diagonal()), np.abs(Mc.diagonal())
    scale = float(np.max(dk[dm > 0] / dm[dm > 0])) if np.any(dm > 0) else 1.0
    lam, x = spla.eigsh(Kc, k=n, M=Mc, sigma=shift - 1e-9 * scale, which="LM")
    order = np.argsort(lam)
    x = x[:, order]
    x /= np.sqrt(np.einsum("ij,ij->j", x, M @ x))
    return lam[order], canonical_modes(lam[order], x, atol=1e-12 * scale)


def canonical_modes(lam: np.ndarray, X: np.ndarray, rtol: float = CLUSTER_RTOL, atol: float | None = None,
                    significant: float = 0.1) -> np.ndarray:
    """The eigenvectors X (columns, lam ascending, orthonormal in some metric M) in a basis that does not depend
    on round-off: within each cluster of (numerically) repeated eigenvalues, |lam_j - lam_i| <= rtol max|lam| +
    atol (default atol: 1e-12 of the largest |lam| given, a symmetric eigensolver's round-off), the eigensolver
    returns an arbitrary orthonormal basis of the eigenspace (a square or round beam section: bending in y and z at
    one frequency), and every eigenvector's sign is arbitrary. A model that stores modal coordinates (a static
    start) must find the same modes on every machine.

    Rule, per cluster with coefficient projector P (start I): take the first coordinate i (in the X's row order)
    whose projected row |P x_i| exceeds ``significant`` times the largest one; the next vector is the one of the
    remaining eigenspace with the largest i-th component (coefficients P x_i / |P x_i|, so that component is > 0);
    deflate P and repeat. Rotations within a cluster are orthogonal, so X stays M-orthonormal and, for exactly
    repeated eigenvalues, made of eigenvectors. The rows' norms under P do not depend on the basis the solver
    chose, so neither does the result (unless a row lies within round-off of the threshold)."""
    X = np.array(X, float, copy=True)
    k = len(lam)
    if atol is None:
        atol = 1e-12 * float(np.max(np.abs(lam), initial=0.0))
    start = 0
    while start < k:
        stop = start + 1
        while stop < k and abs(lam[stop] - lam[start]) <= rtol * max(abs(lam[stop]), abs(lam[start])) + atol:
            stop += 1
        Xc = X[:, start:stop]
        P = np.eye(stop - start)
        D = np.empty((stop - start, stop - start))
        for j in range(stop - start):
            A = Xc @ P
            r = np.sqrt(np.einsum("ij,ij->i", A, A))
            i = int(np.argmax(r > significant * r.max()))
            d = A[i] / r[i]
            D[:, j] = d
            P -= np.outer(d, d)
        X[:, start:stop] = Xc @ D
        start = stop
    return X


def natural_modes(K: sp.spmatrix, M: sp.spmatrix, n: int, fixed: Iterable[int] | None = None) -> Modes:
    """The n lowest natural modes of the body with the DOFs ``fixed`` held at zero."""
    free = free_dofs(K.shape[0], fixed)
    Kf = sp.csr_matrix(K)[free][:, free]
    Mf = sp.csr_matrix(M)[free][:, free]
    lam, x = generalized_eigen(Kf, Mf, n)
    shapes = np.zeros((K.shape[0], len(lam)))
    shapes[free] = x
    return Modes(omega=np.sqrt(np.clip(lam, 0.0, None)), shapes=shapes)


def static_solve(K: sp.spmatrix, f: np.ndarray, fixed: Iterable[int]) -> np.ndarray:
    """Displacements u (one column per column of f) of K u = f with the DOFs ``fixed`` held at zero."""
    free = free_dofs(K.shape[0], fixed)
    f = np.asarray(f, float)
    Kf = sp.csc_matrix(sp.csr_matrix(K)[free][:, free])
    try:
        lu = spla.splu(Kf)
    except RuntimeError as exc:
        raise AnalysisError(f"the stiffness matrix is singular with these supports ({exc}): "
                            "the body can still move rigidly") from exc
    u = np.zeros((K.shape[0],) + f.shape[1:])
    u[free] = lu.solve(f[free])
    return u
