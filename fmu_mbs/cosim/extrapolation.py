"""Polynomial input reconstruction of a coupling signal over one communication step [t0, t1].

The master knows a source output at communication points (and, in the iterative scheme or after a Gauss-Seidel
predecessor, at t1). The polynomial p through the newest ``order + 1`` points (constant, linear, quadratic; fewer
at the start) stands for the signal over the step. What the master sets depends on how the receiving FMU
reconstructs its inputs: an FMU that holds an input gets the mean of p over the step (its integral is exact for p),
an FMU that interpolates (linearly or quadratically, through the values set for earlier steps) gets p(t1).
"""

from __future__ import annotations

import math

#: 2-point Gauss-Legendre nodes on [0, 1]: exact mean for polynomials up to degree 3
_GAUSS = (0.5 - 0.5 / math.sqrt(3.0), 0.5 + 0.5 / math.sqrt(3.0))


def lagrange(points: list[tuple[float, float]], t: float) -> float:
    """Value at t of the polynomial through points [(t_i, y_i)] (distinct t_i)."""
    total = 0.0
    for i, (ti, yi) in enumerate(points):
        w = 1.0
        for j, (tj, _) in enumerate(points):
            if j != i:
                w *= (t - tj) / (ti - tj)
        total += w * yi
    return total


def step_value(points: list[tuple[float, float]], t0: float, t1: float, hold: bool) -> float:
    """The value a master sets for [t0, t1]: the mean of the polynomial over the step for an FMU that holds its
    inputs (``hold``), its value at t1 for one that interpolates them."""
    if len(points) == 1:
        return points[0][1]
    if not hold:
        return lagrange(points, t1)
    return 0.5 * sum(lagrange(points, t0 + g * (t1 - t0)) for g in _GAUSS)
