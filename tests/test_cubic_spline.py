"""The cubic spline of table time functions (fmu_mbs/compiler/cubic_spline.py) is scipy.interpolate.CubicSpline's:
the same coefficients on random tables (not-a-knot ends above three points, natural ends up to three), a cubic
reproduced exactly, and its pivoted tridiagonal solve against a dense solve on systems that are not diagonally
dominant."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from fmu_mbs.compiler.cubic_spline import cubic_spline_coefficients, solve_tridiagonal


@pytest.mark.parametrize("seed", range(3))
def test_coefficients_equal_scipys_cubic_spline(seed):
    rng = np.random.default_rng(seed)
    for _ in range(300):
        n = int(rng.integers(2, 40))
        t = np.cumsum(rng.uniform(1e-3, 2.0, n)) - 3.0
        y = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3)
        expected = CubicSpline(t, y, bc_type="not-a-knot" if n > 3 else "natural").c
        got = cubic_spline_coefficients(t, y)
        assert got.shape == expected.shape
        assert np.allclose(got, expected, rtol=0.0, atol=1e-11 * np.max(np.abs(expected)))


def test_a_cubic_is_reproduced_exactly():
    t = np.array([0.0, 0.3, 0.5, 1.2, 2.0, 2.1])
    c = cubic_spline_coefficients(t, 3.0 * t**3 - t**2 + 2.0)
    x = t[:-1]                                  # Taylor coefficients of the cubic at each knot
    assert np.allclose(c[0], 3.0) and np.allclose(c[1], 9.0 * x - 1.0)
    assert np.allclose(c[2], 9.0 * x**2 - 2.0 * x) and np.allclose(c[3], 3.0 * x**3 - x**2 + 2.0)


def test_tridiagonal_solve_with_pivoting():
    rng = np.random.default_rng(5)
    for n in list(range(1, 12)) + [50, 200]:
        lower, diag, upper, b = (rng.standard_normal(n) for _ in range(4))
        lower[0] = upper[-1] = 0.0
        A = np.diag(diag) + np.diag(upper[:-1], 1) + np.diag(lower[1:], -1)
        x = solve_tridiagonal(lower, diag, upper, b)
        assert np.allclose(A @ x, b, rtol=0.0, atol=1e-10 * np.linalg.norm(A, 1) * max(1.0, np.abs(x).max()))
    with pytest.raises(ValueError, match="singular"):
        solve_tridiagonal(np.zeros(3), np.array([1.0, 0.0, 1.0]), np.zeros(3), np.ones(3))


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="strictly increasing"):
        cubic_spline_coefficients([0.0, 1.0, 1.0, 2.0], [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="at least 2 points"):
        cubic_spline_coefficients([0.0], [1.0])
