"""Linear algebra for the implicit integrators: envelope (skyline) Cholesky of a symmetric positive
definite matrix, and dense Cholesky helpers. No allocation: every routine works in caller arrays.

Envelope storage (George & Liu, "Computer Solution of Large Sparse Positive Definite Systems", ch. 4):
row i of the lower triangle holds columns first[i] .. i contiguously at val[ptr[i] : ptr[i + 1]], so
L[i, j] = val[ptr[i] + j - first[i]]. The Cholesky factor has no fill outside the envelope, so a
chain numbered along the chain is factorised in O(n b^2) (b = half-bandwidth) instead of O(n^3).
"""

from __future__ import annotations

import math

from numba import njit

from .inner import inner_kernel


@inner_kernel
def env_add(first, ptr, val, i, j, x):
    """A[i, j] += x for the symmetric matrix (either triangle); entries outside the envelope are dropped
    and reported by returning False."""
    if j > i:
        i, j = j, i
    if j < first[i]:
        return False
    val[ptr[i] + j - first[i]] += x
    return True


@njit(cache=True)
def env_cholesky(first, ptr, val, pivot_tol):
    """In-place Cholesky A = L L^T in envelope storage. Returns -1 on success, else the row whose pivot
    fell below ``pivot_tol`` times the original diagonal (matrix not positive definite / singular)."""
    n = first.shape[0]
    for i in range(n):
        fi = first[i]
        pi = ptr[i] - fi            # L[i, k] = val[pi + k]
        for j in range(fi, i):
            fj = first[j]
            pj = ptr[j] - fj
            k0 = fi if fi > fj else fj
            s = val[pi + j]
            for k in range(k0, j):
                s -= val[pi + k] * val[pj + k]
            val[pi + j] = s / val[pj + j]
        d0 = val[pi + i]
        s = d0
        for k in range(fi, i):
            s -= val[pi + k] * val[pi + k]
        if not (s > pivot_tol * abs(d0)) or s <= 0.0:
            return i
        val[pi + i] = math.sqrt(s)
    return -1


@inner_kernel
def env_solve(first, ptr, val, x):
    """Solve L L^T x = b in place (x holds b on entry) with the factor from env_cholesky."""
    n = first.shape[0]
    for i in range(n):                       # L y = b
        fi = first[i]
        pi = ptr[i] - fi
        s = x[i]
        for k in range(fi, i):
            s -= val[pi + k] * x[k]
        x[i] = s / val[pi + i]
    for i in range(n - 1, -1, -1):           # L^T x = y
        fi = first[i]
        pi = ptr[i] - fi
        x[i] /= val[pi + i]
        xi = x[i]
        for k in range(fi, i):
            x[k] -= val[pi + k] * xi


@njit(cache=True)
def env_solve_permuted(first, ptr, val, perm, b, work):
    """Solve A x = b in place in ``b`` where the envelope holds P A P^T (row perm[i] of A is row i of the
    stored matrix); ``work`` is scratch of length n."""
    n = b.shape[0]
    for i in range(n):
        work[perm[i]] = b[i]
    env_solve(first, ptr, val, work)
    for i in range(n):
        b[i] = work[perm[i]]


@njit(cache=True)
def dense_cholesky(A, pivot_tol):
    """In-place lower Cholesky of the dense SPD matrix A (upper triangle ignored). Returns -1 or the
    failing row, as env_cholesky."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / A[j, j]
        d0 = A[i, i]
        s = d0
        for k in range(i):
            s -= A[i, k] * A[i, k]
        if not (s > pivot_tol * abs(d0)) or s <= 0.0:
            return i
        A[i, i] = math.sqrt(s)
    return -1


@njit(cache=True)
def dense_cholesky_solve(L, x):
    """Solve L L^T x = b in place (x holds b) with the factor of dense_cholesky."""
    n = L.shape[0]
    for i in range(n):
        s = x[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
