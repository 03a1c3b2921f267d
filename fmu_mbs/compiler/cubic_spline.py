"""Cubic interpolating spline coefficients for table time functions (the kernels evaluate them piecewise).

The same spline as scipy.interpolate.CubicSpline (not-a-knot ends, or natural ends for tables of at most three
points), written here because importing scipy.interpolate cost every FMU with a table ~0.2 s of its start-up.
Slopes s_i from the C2 conditions (de Boor, *A Practical Guide to Splines*, 2001, ch. IV, eqs. (10)-(11)):
dx_i s_{i-1} + 2 (dx_{i-1} + dx_i) s_i + dx_{i-1} s_{i+1} = 3 (dx_i m_{i-1} + dx_{i-1} m_i), m_i the chord slopes,
closed by the end conditions; the tridiagonal system is solved by Gaussian elimination with partial pivoting (the
not-a-knot rows are not diagonally dominant), as LAPACK's dgtsv.
"""

from __future__ import annotations

import numpy as np


def cubic_spline_coefficients(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Coefficients (4, n-1), descending powers of (x - t_i) on [t_i, t_i+1], of the cubic spline through the n >= 2
    points (t strictly increasing): not-a-knot ends for n > 3, natural (zero second derivative) ends otherwise."""
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(t)
    if n < 2 or len(y) != n:
        raise ValueError(f"a cubic table needs at least 2 points and as many values as times, got {n} and {len(y)}")
    dx = np.diff(t)
    if not np.all(dx > 0.0):
        raise ValueError("table times must be strictly increasing")
    m = np.diff(y) / dx
    lower, diag, upper, b = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)   # lower[i]: row i, column i-1
    lower[1:-1], diag[1:-1], upper[1:-1] = dx[1:], 2.0 * (dx[:-1] + dx[1:]), dx[:-1]
    b[1:-1] = 3.0 * (dx[1:] * m[:-1] + dx[:-1] * m[1:])
    if n > 3:       # not-a-knot: the third derivative is continuous at t_1 and t_n-2
        d = t[2] - t[0]
        diag[0], upper[0] = dx[1], d
        b[0] = ((dx[0] + 2.0 * d) * dx[1] * m[0] + dx[0] ** 2 * m[1]) / d
        d = t[-1] - t[-3]
        lower[-1], diag[-1] = d, dx[-2]
        b[-1] = (dx[-1] ** 2 * m[-2] + (2.0 * d + dx[-1]) * dx[-2] * m[-1]) / d
    else:           # natural: 2 s_0 + s_1 = 3 m_0, s_n-2 + 2 s_n-1 = 3 m_n-2
        diag[0], upper[0], b[0] = 2.0, 1.0, 3.0 * m[0]
        lower[-1], diag[-1], b[-1] = 1.0, 2.0, 3.0 * m[-1]
    s = solve_tridiagonal(lower, diag, upper, b)
    c = np.empty((4, n - 1))
    k = (s[:-1] + s[1:] - 2.0 * m) / dx
    c[0] = k / dx
    c[1] = (m - s[:-1]) / dx - k
    c[2] = s[:-1]
    c[3] = y[:-1]
    return c


def solve_tridiagonal(lower: np.ndarray, diag: np.ndarray, upper: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with A x = b, A tridiagonal (row i: lower[i] x_i-1 + diag[i] x_i + upper[i] x_i+1), by elimination with
    partial pivoting (a row swap brings a second superdiagonal, as in LAPACK dgtsv). ValueError if A is singular."""
    n = len(diag)
    d, u, lo, r = diag.astype(float), upper.astype(float), lower.astype(float), b.astype(float)
    u2 = np.zeros(n)
    for i in range(n - 1):
        if abs(lo[i + 1]) > abs(d[i]):         # swap rows i and i+1
            f = d[i] / lo[i + 1]
            d[i], lo[i + 1] = lo[i + 1], 0.0
            u[i], d[i + 1] = d[i + 1], u[i] - f * d[i + 1]
            if i + 1 < n - 1:
                u2[i], u[i + 1] = u[i + 1], -f * u[i + 1]
            r[i], r[i + 1] = r[i + 1], r[i] - f * r[i + 1]
        else:
            if d[i] == 0.0:
                raise ValueError("singular tridiagonal system")
            f = lo[i + 1] / d[i]
            d[i + 1] -= f * u[i]
            r[i + 1] -= f * r[i]
    if d[-1] == 0.0:
        raise ValueError("singular tridiagonal system")
    x = np.empty(n)
    x[-1] = r[-1] / d[-1]
    if n > 1:
        x[-2] = (r[-2] - u[-2] * x[-1]) / d[-2]
    for i in range(n - 3, -1, -1):
        x[i] = (r[i] - u[i] * x[i + 1] - u2[i] * x[i + 2]) / d[i]
    return x
