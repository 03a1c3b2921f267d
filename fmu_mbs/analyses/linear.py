"""Small dense linear-algebra helpers for the analyses: rank-revealing row selection and KKT solves."""

from __future__ import annotations

import numpy as np

RANK_TOL = 1e-9  # relative to the largest diagonal of R in the pivoted QR of Phi_q^T
FULL_RANK_MARGIN = 10.0   # the singular-value test of full rank keeps this factor from RANK_TOL (round-off)


def independent_rows(J: np.ndarray, tol: float = RANK_TOL) -> tuple[np.ndarray, np.ndarray]:
    """(independent, redundant) row indices of J by pivoted QR of J^T (Golub-Van Loan 5.4.1).

    A J of full row rank is recognised first from its singular values (numpy): for the pivoted QR J^T P = Q R,
    |R_00| (the largest column norm) <= sigma_max and every |R_kk| >= sigma_min (R is triangular: its diagonal is
    its spectrum), so sigma_min > tol sigma_max means the QR keeps every row. Only rank-deficient (redundant)
    constraint sets go on to scipy's pivoted QR, whose import (scipy.linalg, 0.15-0.3 s) an FMU's start-up then
    does not pay (fmu_mbs/startup.py)."""
    m = J.shape[0]
    if m == 0:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    if m <= J.shape[1] and np.all(np.isfinite(J)):
        sv = np.linalg.svd(J, compute_uv=False)
        if sv[0] > 0.0 and sv[-1] > FULL_RANK_MARGIN * tol * sv[0]:
            return np.arange(m), np.zeros(0, dtype=int)
    import scipy.linalg as sla  # here: see the docstring

    _, R, piv = sla.qr(J.T, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    scale = diag[0] if diag.size and diag[0] > 0 else 1.0
    rank = int(np.sum(diag > tol * scale))
    return np.sort(piv[:rank]), np.sort(piv[rank:])


def solve_kkt(M: np.ndarray, J: np.ndarray, rhs_q: np.ndarray, rhs_c: np.ndarray,
              rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Solve [M J^T; J 0] [x; lam] = [rhs_q; rhs_c] using only ``rows`` of J (independent rows);
    multipliers of the other rows are zero. Returns (x, lam) with lam of full length."""
    if rows is None:
        rows = np.arange(J.shape[0])
    Jr = J[rows]
    n, k = M.shape[0], len(rows)
    K = np.zeros((n + k, n + k))
    K[:n, :n] = M
    K[:n, n:] = Jr.T
    K[n:, :n] = Jr
    sol = np.linalg.solve(K, np.concatenate([rhs_q, rhs_c[rows]]))
    lam = np.zeros(J.shape[0])
    lam[rows] = sol[n:]
    return sol[:n], lam


def min_norm_multipliers(J: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Minimum-norm lam solving J^T lam = rhs in the least-squares sense (redundant constraints)."""
    return np.linalg.lstsq(J.T, rhs, rcond=None)[0]
