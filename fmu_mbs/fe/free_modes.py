"""Free-interface normal modes and static correction modes.

Free-interface modes: the lowest elastic eigenmodes of the unsupported body; they are M-orthogonal to the six
rigid modes, so they satisfy the mean-axis conditions exactly (Agrawal & Shabana 1986). Static correction
(residual flexibility) modes for loads on interior nodes: the static response to unit loads, with the interfaces
held (Craig-Bampton sets) or, for a free body, under inertia relief with the mean-axis conditions as the support
(Craig & Kurdila 2006, §17.4; Chrono's ``SetUseStaticCorrection``), then M-orthogonalised against the basis.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import AnalysisError, ModelError
from .body import FEBody, free_dofs
from .craig_bampton import _held, constrained_solver
from .eigen import generalized_eigen
from .interfaces import Interface
from .modeset import ModeSet, augment, m_orthonormal_complement


def free_interface_modes(body: FEBody, n_modes: int, fixed: Iterable[int] | None = None) -> ModeSet:
    """The n_modes lowest elastic modes (rigid modes dropped, mass-normalised). With ``fixed`` DOFs the body is
    supported (reference 'clamped'); without, reference 'mean-axis'."""
    fx = [] if fixed is None else [int(i) for i in fixed]
    free = free_dofs(body.n_dofs, fx)
    n_rigid = 0 if fx else 6
    K = body.K[free][:, free]
    M = body.M[free][:, free]
    lam, x = generalized_eigen(K, M, n_modes + n_rigid)
    shapes = np.zeros((body.n_dofs, x.shape[1]))
    shapes[free] = x
    if not fx:
        # drop the modes that lie in the rigid span (robust against the scale of near-zero eigenvalues)
        R = m_orthonormal_complement(body, np.zeros((body.n_dofs, 0)), body.rigid_modes())
        resid = shapes - R @ (R.T @ (body.M @ shapes))
        elastic = np.einsum("ij,ij->j", resid, body.M @ resid) > 1e-6
        shapes = shapes[:, elastic][:, :n_modes]
    else:
        shapes = shapes[:, :n_modes]
    names = tuple(f"free {k + 1}" for k in range(shapes.shape[1]))
    return ModeSet(body, shapes, names, "clamped" if fx else "mean-axis")


def static_response(body: FEBody, F: np.ndarray, interfaces: Sequence[Interface] = (),
                    fixed: Iterable[int] | None = None) -> np.ndarray:
    """Static displacements (n_dofs, k) for the load columns F: interfaces and ``fixed`` held; with neither,
    inertia relief f - M R (R^T M R)^-1 R^T f with R^T M u = 0 (mean axes)."""
    F = np.asarray(F, float)
    fx = [] if fixed is None else [int(i) for i in fixed]
    if interfaces or fx:
        C, _, piv = _held(body, interfaces, fx)
        N, lu = constrained_solver(body, C, piv)
        return np.asarray(N @ lu.solve(np.asarray(N.T @ F)))
    R = m_orthonormal_complement(body, np.zeros((body.n_dofs, 0)), body.rigid_modes())
    MR = np.asarray(body.M @ R)
    Fr = F - MR @ (R.T @ F)
    A = sp.bmat([[body.K, sp.csr_matrix(MR)], [sp.csr_matrix(MR.T), None]], format="csc")
    try:
        lu = spla.splu(A)
    except RuntimeError as exc:
        raise AnalysisError(f"{body.name}: inertia-relief static problem is singular ({exc})") from exc
    return lu.solve(np.vstack([Fr, np.zeros((R.shape[1], Fr.shape[1]))]))[:body.n_dofs]


def static_modes(body: FEBody, load_dofs: Sequence[int], interfaces: Sequence[Interface] = (),
                 fixed: Iterable[int] | None = None) -> np.ndarray:
    """(n_dofs, len(load_dofs)) static responses to unit loads at ``load_dofs`` (supports as static_response)."""
    F = np.zeros((body.n_dofs, len(load_dofs)))
    F[np.asarray(load_dofs, int), np.arange(len(load_dofs))] = 1.0
    return static_response(body, F, interfaces, fixed)


def with_static_correction(ms: ModeSet, load_dofs: Sequence[int] = (), fixed: Iterable[int] | None = None,
                           loads: np.ndarray | None = None) -> ModeSet:
    """``ms`` plus static correction modes for unit loads at ``load_dofs`` and for the load vectors ``loads``
    (n_dofs, k), held like ``ms``: its interfaces for Craig-Bampton / tangent sets, inertia relief for mean-axis
    sets. In a Craig-Bampton set they are M-orthogonalised against the columns that vanish on the interfaces only,
    so they stay zero there and the interface coordinates keep meaning the interface DOFs."""
    held = ms.interfaces if ms.reference != "mean-axis" else ()
    if ms.reference == "clamped" and not held and fixed is None:
        raise ModelError(f"{ms.body.name}: the mode set is clamped; give its supports ('fixed') for the static modes")
    F = np.zeros((ms.body.n_dofs, len(load_dofs)))
    F[np.asarray(load_dofs, int), np.arange(len(load_dofs))] = 1.0
    if loads is not None:
        F = np.hstack([F, np.asarray(loads, float).reshape(ms.body.n_dofs, -1)])
    against = None
    if held:
        prefixes = tuple(itf.name + "." for itf in held)
        against = np.array([k for k, n in enumerate(ms.names) if not n.startswith(prefixes)], int)
    return augment(ms, static_response(ms.body, F, held, fixed), "static", against)
