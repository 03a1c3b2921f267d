"""Injury and severity criteria of sampled crash histories, pure numpy/scipy (definitions and sources:
docs/crash.md).

Every history is taken as the straight-line interpolant of its samples, and every criterion is the exact
optimum of that interpolant (no window grid):

- HIC (FMVSS 208 S6.2): max over t1 < t2, t2 - t1 <= W of (t2 - t1) [int_t1^t2 a dt / (t2 - t1)]^2.5, a the
  resultant head acceleration in g (CFC 1000), t in s; W = 15 ms (HIC15) or 36 ms (HIC36). The window is
  reported.
- 3 ms clip, two definitions, named: ``cumulative`` (FMVSS 208: the level exceeded for a cumulative 3 ms, the
  largest L with measure{a >= L} >= 3 ms) and ``continuous`` (the largest L that a stays above for one unbroken
  3 ms window, = max over t of min over [t, t + 3 ms]).
- Viscous criterion (ECE R94 Annex 3 / SAE J1727): VC(t) = s V(t) D(t)/b with the five-point difference
  V(t) = [8 (D(t+dt) - D(t-dt)) - (D(t+2dt) - D(t-2dt))] / (12 dt); s = 1.3, b = 0.229 m (Hybrid III 50th).
- ASI (EN 1317-1:1998): ASI(t) = sqrt((ax/12)^2 + (ay/9)^2 + (az/10)^2), components in g averaged over a 50 ms
  moving window; ASI = max over t.
- THIV (EN 1317-1:1998): a free point head 0.6 m behind a frontal and 0.3 m beside a lateral surface of the
  vehicle, moving on with the vehicle's initial velocity; THIV is its speed relative to the vehicle (in vehicle
  axes) when it reaches a surface (km/h in the standard; here m/s and km/h).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .crash_filters import sample_interval

G0 = 9.80665   # standard gravity (m/s^2): accelerations in g are a / G0


class Window(NamedTuple):
    """A criterion's value and the time window it came from (s)."""
    value: float
    t1: float
    t2: float


def _check(t: np.ndarray, x: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    if t.ndim != 1 or x.shape != t.shape or t.shape[0] < 2:
        raise ValueError(f"{what}: needs matching 1-D time and value arrays of at least 2 samples, got "
                         f"{t.shape} and {x.shape}")
    if np.any(np.diff(t) <= 0.0):
        raise ValueError(f"{what}: times must increase")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what}: the history has NaN or infinite values")
    return t, x


def cumulative_integral(t: np.ndarray, a: np.ndarray) -> np.ndarray:
    """int_t0^t a dt at the samples (trapezoidal rule: exact for the straight-line interpolant)."""
    return np.concatenate(([0.0], np.cumsum(0.5 * (a[1:] + a[:-1]) * np.diff(t))))


def integral_at(t: np.ndarray, a: np.ndarray, v: np.ndarray, tau: np.ndarray | float) -> np.ndarray:
    """int_t0^tau a dt of the straight-line interpolant at any times ``tau`` in [t0, tN] (v: cumulative_integral)."""
    tau = np.clip(np.asarray(tau, dtype=float), t[0], t[-1])
    k = np.clip(np.searchsorted(t, tau, side="right") - 1, 0, t.shape[0] - 2)
    h = t[k + 1] - t[k]
    s = tau - t[k]
    return v[k] + a[k] * s + (a[k + 1] - a[k]) * s * s / (2.0 * h)


# --- HIC -------------------------------------------------------------------------------------------------------

def _hic_value(t, a, v, t1, t2):
    d = t2 - t1
    if d <= 0.0:
        return 0.0
    i = (integral_at(t, a, v, t2) - integral_at(t, a, v, t1)) / d
    return d * max(i, 0.0) ** 2.5


def hic(t: np.ndarray, a_g: np.ndarray, window: float = 0.015) -> Window:
    """HIC over windows no longer than ``window`` (s) of the resultant acceleration ``a_g`` (g) at times ``t`` (s):
    (value, t1, t2). Every pair of samples is searched, then the best pair is refined to the exact optimum of the
    interpolant (the optimum has a(t1) = a(t2) = 0.6 x the window's mean, or the full width W)."""
    from scipy.optimize import minimize, minimize_scalar
    t, a = _check(t, a_g, "HIC")
    if not window > 0.0:
        raise ValueError(f"HIC: the window must be positive, got {window}")
    v = cumulative_integral(t, a)
    n = t.shape[0]
    best = (0.0, float(t[0]), float(t[0]))
    lag = 1
    while lag < n:                                   # all pairs (i, i + lag) of samples with t_j - t_i <= W
        d = t[lag:] - t[:-lag]
        ok = d <= window * (1.0 + 1e-12)
        if not np.any(ok):
            break
        val = np.where(ok, d * np.maximum((v[lag:] - v[:-lag]) / d, 0.0) ** 2.5, -1.0)
        k = int(np.argmax(val))
        if val[k] > best[0]:
            best = (float(val[k]), float(t[k]), float(t[k + lag]))
        lag += 1
    if best[0] == 0.0:
        return Window(*best)
    h = float(np.max(np.diff(t)))
    _, s1, s2 = best
    # the window capped at W: one variable
    r = minimize_scalar(lambda x: -_hic_value(t, a, v, x, x + window),
                        bounds=(max(t[0], s1 - 2 * h), min(t[-1] - window, s1 + 2 * h)), method="bounded",
                        options={"xatol": 1e-12 * max(1.0, abs(t[-1]))}) if t[-1] - t[0] >= window else None
    cands = [best]
    if r is not None and r.success:
        cands.append((-float(r.fun), float(r.x), float(r.x) + window))
    # a free window inside W
    x0 = np.array([s1, s2])
    res = minimize(lambda x: -_hic_value(t, a, v, x[0], x[1]), x0, method="SLSQP",
                   bounds=[(max(t[0], s1 - 2 * h), s1 + 2 * h), (s2 - 2 * h, min(t[-1], s2 + 2 * h))],
                   constraints=[{"type": "ineq", "fun": lambda x: window - (x[1] - x[0])},
                                {"type": "ineq", "fun": lambda x: x[1] - x[0] - 1e-9}],
                   options={"ftol": 1e-15, "maxiter": 200})
    if res.success and res.x[1] - res.x[0] <= window * (1.0 + 1e-9):
        cands.append((-float(res.fun), float(res.x[0]), float(res.x[1])))
    cands.append(_alternating_refinement(t, a, v, s1, s2, window, h))
    return Window(*max(cands, key=lambda c: c[0]))


def _alternating_refinement(t, a, v, s1: float, s2: float, window: float, h: float,
                            sweeps: int = 30) -> tuple[float, float, float]:
    """(value, t1, t2): the free window refined one end at a time (bounded Brent searches within 2 h of the best
    sample pair, t2 - t1 <= W). SLSQP's finite-difference gradient starts on a kink of the interpolant (the sample
    pair) and, depending on round-off, stops there without moving (a square pulse: 466.67 instead of the
    interpolant's 468.54); a one-dimensional search needs no gradient."""
    from scipy.optimize import minimize_scalar
    lo1, hi1 = max(t[0], s1 - 2 * h), s1 + 2 * h
    lo2, hi2 = s2 - 2 * h, min(t[-1], s2 + 2 * h)
    x1, x2 = s1, s2
    best = _hic_value(t, a, v, x1, x2)
    tol = 1e-13 * max(1.0, abs(float(t[-1])))
    for _ in range(sweeps):
        moved = False
        b1 = (max(lo1, x2 - window), min(hi1, x2 - 1e-9))
        if b1[1] > b1[0]:
            r = minimize_scalar(lambda x, e=x2: -_hic_value(t, a, v, x, e), bounds=b1, method="bounded",
                                options={"xatol": tol})
            if -r.fun > best * (1.0 + 1e-15):
                moved = abs(float(r.x) - x1) > tol
                x1, best = float(r.x), -float(r.fun)
        b2 = (max(lo2, x1 + 1e-9), min(hi2, x1 + window))
        if b2[1] > b2[0]:
            r = minimize_scalar(lambda x, s=x1: -_hic_value(t, a, v, s, x), bounds=b2, method="bounded",
                                options={"xatol": tol})
            if -r.fun > best * (1.0 + 1e-15):
                moved = moved or abs(float(r.x) - x2) > tol
                x2, best = float(r.x), -float(r.fun)
        if not moved:
            break
    return best, x1, x2


# --- 3 ms clip -------------------------------------------------------------------------------------------------

def _superlevel(t: np.ndarray, a: np.ndarray, level: float) -> tuple[float, float, float]:
    """(total length, longest unbroken length, its start) of {t: a(t) >= level} for the interpolant."""
    a0, a1 = a[:-1], a[1:]
    h = np.diff(t)
    up0, up1 = a0 >= level, a1 >= level
    span = np.abs(a1 - a0)
    frac = np.where(span > 0.0, (np.maximum(a0, a1) - level) / np.where(span > 0.0, span, 1.0), 0.0)
    cover = np.where(up0 & up1, h, np.where(up0 | up1, np.clip(frac, 0.0, 1.0) * h, 0.0))
    total = float(np.sum(cover))
    above = a >= level
    if not np.any(above):
        return 0.0, 0.0, float(t[0])
    run_of_sample = np.cumsum(np.concatenate(([above[0]], above[1:] & ~above[:-1])))   # run id of each sample
    seg_run = np.where(up0, run_of_sample[:-1], run_of_sample[1:])
    lengths = np.bincount(seg_run, weights=cover, minlength=int(run_of_sample[-1]) + 1)
    r = int(np.argmax(lengths))
    first = int(np.flatnonzero(above & (run_of_sample == r))[0])
    start = float(t[first]) - (float(cover[first - 1]) if first > 0 and not up0[first - 1] else 0.0)
    return total, float(lengths[r]), start


def clip_3ms(t: np.ndarray, a_g: np.ndarray, duration: float = 0.003) -> dict[str, float]:
    """The 3 ms clip of the resultant acceleration ``a_g`` (g): {'cumulative': level exceeded for a cumulative
    ``duration`` (FMVSS 208), 'continuous': level held for one unbroken ``duration`` (the sliding-window minimum),
    'continuous_t1': start of that window (s)}. Both by bisection on the level (exact for the interpolant)."""
    t, a = _check(t, a_g, "3 ms clip")
    if t[-1] - t[0] < duration:
        raise ValueError(f"3 ms clip: the history ({t[-1] - t[0]:g} s) is shorter than {duration:g} s")
    out = {}
    for name, pick in (("cumulative", 0), ("continuous", 1)):
        lo, hi = float(np.min(a)), float(np.max(a))
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if _superlevel(t, a, mid)[pick] >= duration * (1.0 - 1e-12):
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-12 * max(1.0, abs(hi)):
                break
        out[name] = lo
    out["continuous_t1"] = _superlevel(t, a, out["continuous"])[2]
    return out


# --- chest: deflection and viscous criterion -------------------------------------------------------------------

def viscous_criterion(t: np.ndarray, deflection: np.ndarray, b: float = 0.229, s: float = 1.3) -> Window:
    """Max of VC(t) = s V(t) D(t)/b (m/s) with the ECE R94 five-point velocity of the chest deflection D (m,
    positive in compression) at uniform times ``t`` (s): (VC_max, time, time). The first and last two samples have
    no VC."""
    t, d = _check(t, deflection, "viscous criterion")
    dt = sample_interval(t, "viscous criterion")
    if t.shape[0] < 5:
        raise ValueError("viscous criterion: needs at least 5 samples")
    vel = (8.0 * (d[3:-1] - d[1:-3]) - (d[4:] - d[:-4])) / (12.0 * dt)
    vc = s * vel * d[2:-2] / b
    k = int(np.argmax(vc))
    return Window(float(vc[k]), float(t[k + 2]), float(t[k + 2]))


# --- EN 1317: ASI and THIV -------------------------------------------------------------------------------------

def moving_average(t: np.ndarray, a: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """(window starts, mean of the interpolant over [t, t + width]) for every sample t with t + width <= tN."""
    t, a = _check(t, a, "moving average")
    v = cumulative_integral(t, a)
    starts = t[t + width <= t[-1] * (1.0 + 1e-12) + 1e-15]
    return starts, (integral_at(t, a, v, starts + width) - integral_at(t, a, v, starts)) / width


def asi(t: np.ndarray, ax_g: np.ndarray, ay_g: np.ndarray | None = None, az_g: np.ndarray | None = None,
        width: float = 0.050) -> Window:
    """ASI of EN 1317-1:1998 from the vehicle accelerations (g) at its centre of mass: (ASI, t, t + 50 ms) of the
    worst 50 ms window. Limits 12 g, 9 g, 10 g (x, y, z); classes A <= 1.0, B <= 1.4, C <= 1.9."""
    t = np.asarray(t, dtype=float)
    if t[-1] - t[0] < width:
        raise ValueError(f"ASI: the history ({t[-1] - t[0]:g} s) is shorter than the {width:g} s window")
    total = 0.0
    for comp, limit in ((ax_g, 12.0), (ay_g, 9.0), (az_g, 10.0)):
        if comp is None:
            continue
        starts, mean = moving_average(t, comp, width)
        total = total + (mean / limit) ** 2
    value = np.sqrt(total)
    k = int(np.argmax(value))
    return Window(float(value[k]), float(starts[k]), float(starts[k]) + width)


class Thiv(NamedTuple):
    """THIV (m/s and km/h), its flight time (s) and the surface the head reached ('front', 'side' or 'none')."""
    value: float
    kmh: float
    time: float
    surface: str


def thiv(t: np.ndarray, ax: np.ndarray, ay: np.ndarray | None = None, yaw_rate: np.ndarray | None = None,
         v0: float = 0.0, dx: float = 0.6, dy: float = 0.3) -> Thiv:
    """THIV of EN 1317-1:1998 from the vehicle accelerations ``ax``, ``ay`` (m/s^2, vehicle axes, x forward),
    its yaw rate (rad/s) and initial forward speed ``v0`` (m/s). The head starts at rest in the vehicle and moves
    on in a straight line; the vehicle's motion is integrated (trapezoidal rule) in ground axes."""
    t, ax = _check(t, ax, "THIV")
    ay = np.zeros_like(ax) if ay is None else np.asarray(ay, dtype=float)
    r = np.zeros_like(ax) if yaw_rate is None else np.asarray(yaw_rate, dtype=float)
    psi = cumulative_integral(t, r)
    c, s = np.cos(psi), np.sin(psi)
    gx, gy = ax * c - ay * s, ax * s + ay * c              # vehicle acceleration, ground axes
    vx, vy = v0 + cumulative_integral(t, gx), cumulative_integral(t, gy)
    px, py = cumulative_integral(t, vx), cumulative_integral(t, vy)
    rx, ry = v0 * (t - t[0]) - px, -py                     # head relative to the vehicle, ground axes
    xb, yb = rx * c + ry * s, -rx * s + ry * c             # ... in vehicle axes
    hit = (np.abs(xb) >= dx) | (np.abs(yb) >= dy)
    if not np.any(hit):
        return Thiv(float("nan"), float("nan"), float("nan"), "none")
    k = int(np.argmax(hit))
    # interpolate the contact time inside the last step on the reached coordinate
    j = k - 1
    if np.abs(xb[k]) >= dx:
        f = (dx - abs(xb[j])) / (abs(xb[k]) - abs(xb[j]))
        surface = "front"
    else:
        f = (dy - abs(yb[j])) / (abs(yb[k]) - abs(yb[j]))
        surface = "side"
    f = min(max(f, 0.0), 1.0)
    wx = (1 - f) * (v0 - vx[j]) + f * (v0 - vx[k])
    wy = (1 - f) * (-vy[j]) + f * (-vy[k])
    ps = (1 - f) * psi[j] + f * psi[k]
    ux, uy = wx * math.cos(ps) + wy * math.sin(ps), -wx * math.sin(ps) + wy * math.cos(ps)
    value = math.hypot(ux, uy)
    return Thiv(value, value * 3.6, float((1 - f) * t[j] + f * t[k] - t[0]), surface)


# --- crush and energy ------------------------------------------------------------------------------------------

def max_crush(t: np.ndarray, crush: np.ndarray) -> Window:
    """(largest crush (m), its time (s), its time) of a crush (deflection) history."""
    t, x = _check(t, crush, "maximum crush")
    k = int(np.argmax(x))
    return Window(float(x[k]), float(t[k]), float(t[k]))


def energy_partition(channels: dict[str, np.ndarray], initial: float | None = None) -> dict[str, float]:
    """Final energy partition (J) from a result's channels: 'initial' (default: the first kinetic energy plus the
    first absorbed energies), 'kinetic', 'absorbed:<e>' of every crush element (``<e>.absorbed``: the work done
    on it, elastic part included) and 'other', the rest (dampers, contact, friction, springs). The potential
    energy channel is not used: it counts a crush element's loading-curve area, which is part of its
    absorbed work."""
    if "energy.kinetic" not in channels:
        raise ValueError("energy partition: the result has no 'energy.kinetic' channel")
    parts = {name[: -len(".absorbed")]: v for name, v in channels.items() if name.endswith(".absorbed")}
    kin = float(channels["energy.kinetic"][-1])
    if initial is None:
        initial = float(channels["energy.kinetic"][0]) + sum(float(v[0]) for v in parts.values())
    out = {"initial": initial, "kinetic": kin}
    out.update({f"absorbed:{k}": float(v[-1]) for k, v in parts.items()})
    out["other"] = initial - kin - sum(float(v[-1]) for v in parts.values())
    return out


__all__ = ["G0", "Window", "Thiv", "hic", "clip_3ms", "viscous_criterion", "asi", "thiv", "max_crush",
           "energy_partition", "moving_average", "cumulative_integral", "integral_at"]
