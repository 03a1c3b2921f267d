"""Craig-Bampton reduction: interface constraint modes plus fixed-interface normal modes.

Craig & Bampton, "Coupling of substructures for dynamic analyses", AIAA J. 6 (1968) 1313-1319; Hurty (1965).
With the interface constraints C u = E q (fe.interfaces) and N a basis of C u = 0 (u = N z):

- constraint modes Psi_c: the static shapes for unit interface coordinates with no other load,
  Psi_c = P - N (N^T K N)^-1 N^T K P, P a particular solution of C P = E;
- fixed-interface normal modes Phi = N z_k with (N^T K N) z_k = omega_k^2 (N^T M N) z_k;
- basis Psi = [Psi_c, Phi]; coordinates [q, eta].

Reference conditions (fe.modeset): ``tangent`` drops the constraint modes of the reference interface (default the
first; the frame is attached to it, as Exudyn's ``excludeRigidBodyMotion``), so a body with k interfaces of 6
coordinates and n normal modes has 6(k-1) + n coordinates; ``mean-axis`` keeps all and projects out the six rigid
motions (6k + n - 6 coordinates); ``none`` keeps all 6k + n (rigid motion inside the basis).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import AnalysisError, ModelError
from .body import FEBody
from .eigen import generalized_eigen
from .interfaces import Interface, constraint_set, null_space_basis
from .modeset import ModeSet, mean_axis_projection, orthogonalize

REFERENCES = ("tangent", "mean-axis", "none")


def _held(body: FEBody, interfaces: Sequence[Interface], fixed: Iterable[int] | None):
    """Constraints of all interfaces plus the grounded DOFs ``fixed``: (C, E, pivots)."""
    C, E, piv = constraint_set(body, interfaces) if interfaces else \
        (sp.csr_matrix((0, body.n_dofs)), np.zeros((0, 0)), np.zeros(0, int))
    fx = np.array(sorted(set(() if fixed is None else (int(i) for i in fixed))), int)
    if len(np.intersect1d(fx, piv)):
        raise ModelError(f"{body.name}: a grounded DOF is also an interface DOF ({np.intersect1d(fx, piv)})")
    if len(fx):
        S = sp.csr_matrix((np.ones(len(fx)), (np.arange(len(fx)), fx)), shape=(len(fx), body.n_dofs))
        C = sp.vstack([C, S]).tocsr()
        E = np.vstack([E, np.zeros((len(fx), E.shape[1]))])
        piv = np.concatenate([piv, fx])
    return C, E, piv


def constrained_solver(body: FEBody, C: sp.csr_matrix, piv: np.ndarray):
    """(N, solve): the null-space basis of C and a factorisation solving (N^T K N) z = b."""
    N = null_space_basis(C, piv)
    KN = sp.csc_matrix(N.T @ body.K @ N)
    try:
        lu = spla.splu(KN)
    except RuntimeError as exc:
        raise AnalysisError(f"{body.name}: the body can still move rigidly with its interfaces held; add an "
                            "interface or supports that remove all six rigid motions") from exc
    return N, lu


def craig_bampton(body: FEBody, interfaces: Sequence[Interface], n_modes: int, reference: str = "tangent",
                  reference_interface: str | None = None, fixed: Iterable[int] | None = None,
                  diagonalize: bool = False) -> ModeSet:
    """Craig-Bampton mode set of ``body`` (see module docstring). fixed: grounded DOFs held in every mode
    (reference 'clamped' then applies). diagonalize: return eigen-coordinates of the reduced system."""
    if reference not in REFERENCES:
        raise ModelError(f"{body.name}: reference '{reference}' is unknown; use one of {REFERENCES}")
    if not interfaces:
        raise ModelError(f"{body.name}: Craig-Bampton needs at least one interface")
    C, E, piv = _held(body, interfaces, fixed)
    N, lu = constrained_solver(body, C, piv)
    # particular solution of C P = E: only the pivot DOFs move
    P = np.zeros((body.n_dofs, E.shape[1]))
    P[piv] = np.linalg.solve(C[:, piv].toarray(), E)
    psi_c = P - N @ lu.solve(np.asarray(N.T @ (body.K @ P)))
    KN = N.T @ body.K @ N
    MN = N.T @ body.M @ N
    lam, z = generalized_eigen(KN, MN, n_modes)
    if np.any(lam < -1e-8 * abs(lam).max(initial=1.0)):
        raise AnalysisError(f"{body.name}: negative eigenvalue with the interfaces held: K is not positive")
    phi = np.asarray(N @ z)
    names = [n for itf in interfaces for n in itf.coordinate_names(body)]
    names += [f"normal {k + 1}" for k in range(phi.shape[1])]
    basis = np.hstack([psi_c, phi])
    grounded = fixed is not None and len(list(fixed)) > 0
    if grounded:
        ms = ModeSet(body, basis, tuple(names), "clamped", tuple(interfaces))
    elif reference == "tangent":
        ref = interfaces[0] if reference_interface is None else \
            next((i for i in interfaces if i.name == reference_interface), None)
        if ref is None:
            raise ModelError(f"{body.name}: reference interface '{reference_interface}' is not an interface")
        Cr = ref.constraint(body)[0]
        if np.linalg.matrix_rank(np.asarray(Cr @ body.rigid_modes())) < 6:
            raise ModelError(f"{body.name}: interface '{ref.name}' cannot be the reference (tangent) frame: "
                             "it does not hold all six rigid motions")
        drop = set(ref.coordinate_names(body))
        keep = [k for k, n in enumerate(names) if n not in drop]
        ms = ModeSet(body, basis[:, keep], tuple(names[k] for k in keep), f"tangent:{ref.name}", tuple(interfaces))
    elif reference == "mean-axis":
        b = mean_axis_projection(body, basis)
        ms = ModeSet(body, b, tuple(f"mean-axis {k + 1}" for k in range(b.shape[1])), "mean-axis",
                     tuple(interfaces))
    else:
        ms = ModeSet(body, basis, tuple(names), "none", tuple(interfaces))
    return orthogonalize(ms) if diagonalize else ms
