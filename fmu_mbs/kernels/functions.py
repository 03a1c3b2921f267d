"""Time functions f(t), f'(t), f''(t) and piecewise-linear curves y(x) with slope and integral.

Codes and parameter layouts: see model_arrays.FN_*. Curves live in ``curve_par`` at (adr, n) as
[x_0..x_n-1, y_0..y_n-1], evaluated with linear extrapolation beyond the end points.
"""

from __future__ import annotations

import math

from numba import njit

from .inner import inner_kernel
from .model_arrays import (
    FN_CONSTANT,
    FN_HARMONIC,
    FN_LINEAR,
    FN_POLYNOMIAL,
    FN_SMOOTH_RAMP,
    FN_TABLE_CUBIC,
    FN_TABLE_LINEAR,
)


@inner_kernel(_nrt=False)
def _interval(par, adr, n, t):
    """Index k of the interval [t_k, t_k+1] holding t (t inside the table), by bisection."""
    lo = 0
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if par[adr + mid] <= t:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True, _nrt=False)
def eval_time_function(fn_type, fn_adr, fn_len, fn_par, k, t):
    """(f, f', f'') of time function ``k`` at time t (s); k < 0 gives zeros."""
    if k < 0:
        return 0.0, 0.0, 0.0
    kind = fn_type[k]
    a = fn_adr[k]
    n = fn_len[k]
    p = fn_par
    if kind == FN_CONSTANT:
        return p[a], 0.0, 0.0
    if kind == FN_LINEAR:
        return p[a] + p[a + 1] * t, p[a + 1], 0.0
    if kind == FN_POLYNOMIAL:
        f = 0.0
        fd = 0.0
        fdd = 0.0
        for i in range(n - 1, -1, -1):  # Horner for f and its derivatives
            fdd = fdd * t + 2.0 * fd
            fd = fd * t + f
            f = f * t + p[a + i]
        return f, fd, fdd
    if kind == FN_SMOOTH_RAMP:
        t0 = p[a]
        t1 = p[a + 1]
        s0 = p[a + 2]
        ds = p[a + 3] - s0
        if t <= t0:
            return s0, 0.0, 0.0
        if t >= t1:
            return s0 + ds, 0.0, 0.0
        T = t1 - t0
        x = (t - t0) / T
        h = x * x * x * (10.0 + x * (-15.0 + 6.0 * x))
        hd = 30.0 * x * x * (1.0 - x) * (1.0 - x)
        hdd = 60.0 * x * (1.0 - x) * (1.0 - 2.0 * x)
        return s0 + ds * h, ds * hd / T, ds * hdd / (T * T)
    if kind == FN_HARMONIC:
        amp = p[a]
        w = p[a + 1]
        arg = w * t + p[a + 2]
        return p[a + 3] + amp * math.sin(arg), amp * w * math.cos(arg), -amp * w * w * math.sin(arg)
    if kind == FN_TABLE_LINEAR:
        m = n // 2
        if t < p[a]:  # at t_0 itself the first interval's slope: a driver starting there moves from its start
            return p[a + m], 0.0, 0.0
        if t >= p[a + m - 1]:
            return p[a + 2 * m - 1], 0.0, 0.0
        i = _interval(p, a, m, t)
        t0 = p[a + i]
        t1 = p[a + i + 1]
        y0 = p[a + m + i]
        slope = (p[a + m + i + 1] - y0) / (t1 - t0)
        return y0 + slope * (t - t0), slope, 0.0
    if kind == FN_TABLE_CUBIC:
        m = (n + 4) // 5  # n = m + 4 (m - 1)
        if t < p[a]:
            return p[a + m + 3 * (m - 1)], 0.0, 0.0  # constant coefficient of the first interval
        if t >= p[a + m - 1]:
            i = m - 2
            x = p[a + m - 1] - p[a + i]
        else:
            i = _interval(p, a, m, t)
            x = t - p[a + i]
        c0 = p[a + m + i]
        c1 = p[a + m + (m - 1) + i]
        c2 = p[a + m + 2 * (m - 1) + i]
        c3 = p[a + m + 3 * (m - 1) + i]
        f = ((c0 * x + c1) * x + c2) * x + c3
        if t >= p[a + m - 1]:
            return f, 0.0, 0.0
        return f, (3.0 * c0 * x + 2.0 * c1) * x + c2, 6.0 * c0 * x + 2.0 * c1
    return 0.0, 0.0, 0.0


@njit(cache=True, _nrt=False)
def eval_curve(curve_par, adr, n, x):
    """(y, dy/dx, integral of y from 0 to x) of a piecewise-linear curve with linear extrapolation."""
    xs0 = curve_par[adr]
    xsn = curve_par[adr + n - 1]
    if x <= xs0:
        i = 0
    elif x >= xsn:
        i = n - 2
    else:
        i = _interval(curve_par, adr, n, x)
    x0 = curve_par[adr + i]
    y0 = curve_par[adr + n + i]
    slope = (curve_par[adr + n + i + 1] - y0) / (curve_par[adr + i + 1] - x0)
    y = y0 + slope * (x - x0)
    return y, slope, _curve_antiderivative(curve_par, adr, n, x) - _curve_antiderivative(curve_par, adr, n, 0.0)


@inner_kernel(_nrt=False)
def _curve_antiderivative(curve_par, adr, n, x):
    """Integral of the extrapolated curve from x_0 to x."""
    total = 0.0
    for i in range(n - 1):
        a = curve_par[adr + i]
        b = curve_par[adr + i + 1]
        ya = curve_par[adr + n + i]
        slope = (curve_par[adr + n + i + 1] - ya) / (b - a)
        lo = a if i > 0 else -1e300
        hi = b if i < n - 2 else 1e300
        # part of [x_0, x] (or [x, x_0], negative) that falls in this segment's extended range
        if x >= curve_par[adr]:
            u0 = max(lo, curve_par[adr])
            u1 = min(hi, x)
            sign = 1.0
        else:
            u0 = max(lo, x)
            u1 = min(hi, curve_par[adr])
            sign = -1.0
        if u1 > u0:
            ya0 = ya + slope * (u0 - a)
            ya1 = ya + slope * (u1 - a)
            total += sign * 0.5 * (ya0 + ya1) * (u1 - u0)
    return total
