"""Channel frequency class (CFC) filters of crash-test data: SAE J211-1 (Mar 1995) Appendix C, pure numpy.

The filter is a two-pole Butterworth low-pass designed by the bilinear transform with pre-warping at the design
frequency f_d = 2.0775 CFC (ISO 6487 uses 25/12 = 2.0833 instead), run forward and then backward over the samples,
so the result has no phase shift and four poles' attenuation:

    w_d = 2 pi CFC 2.0775,  w_a = tan(w_d T / 2),  den = 1 + sqrt(2) w_a + w_a^2
    a0 = w_a^2 / den,  a1 = 2 a0,  a2 = a0,  b1 = -2 (w_a^2 - 1) / den,  b2 = (-1 + sqrt(2) w_a - w_a^2) / den
    Y[n] = a0 X[n] + a1 X[n-1] + a2 X[n-2] + b1 Y[n-1] + b2 Y[n-2]             (J211-1 App. C, eq. C1)

T is the sample interval (s). The gain of the phaseless (two-pass) filter at frequency f is exactly
|H|^2 = 1 / (1 + (tan(pi f T) / tan(pi f_d T))^4): -6.02 dB at f_d and -3 dB at (5/3) CFC in the analog limit
(2.0775 = (5/3) / (sqrt(2) - 1)^(1/4)). The start-up copies the first two samples into the output of each pass
(J211 App. C); J211 asks for data before the event and after it (at least 10 ms each side) so that the ends do
not matter.

CFC classes (J211-1 Table 1 as tabulated by DADiSP): vehicle structure and barrier forces 60, integration to
velocity or displacement 180, thorax spine acceleration 180, component analysis 600, head acceleration 1000.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

J211_FACTOR = 2.0775          # design frequency / CFC, SAE J211-1 Appendix C
ISO6487_FACTOR = 25.0 / 12.0  # design frequency / CFC, ISO 6487 (2.0833)
CFC_CLASSES = (60, 180, 600, 1000)


class CfcCoefficients(NamedTuple):
    """One pass of the J211 recursion Y[n] = a0 X[n] + a1 X[n-1] + a2 X[n-2] + b1 Y[n-1] + b2 Y[n-2]."""
    a0: float
    a1: float
    a2: float
    b1: float
    b2: float


def cfc_coefficients(cfc: float, dt: float, factor: float = J211_FACTOR) -> CfcCoefficients:
    """The J211-1 App. C coefficients for channel class ``cfc`` (Hz) at sample interval ``dt`` (s)."""
    if not cfc > 0.0:
        raise ValueError(f"CFC filter: the channel frequency class must be positive, got {cfc}")
    if not dt > 0.0:
        raise ValueError(f"CFC filter: the sample interval must be positive, got {dt}")
    wd = 2.0 * math.pi * cfc * factor
    if wd * dt / 2.0 >= math.pi / 2.0:
        raise ValueError(f"CFC filter: CFC {cfc} needs a design frequency {cfc * factor:g} Hz below the Nyquist "
                         f"frequency {0.5 / dt:g} Hz of the samples (sample faster, at least 10 x CFC)")
    wa = math.tan(wd * dt / 2.0)
    den = 1.0 + math.sqrt(2.0) * wa + wa * wa
    a0 = wa * wa / den
    return CfcCoefficients(a0, 2.0 * a0, a0, -2.0 * (wa * wa - 1.0) / den, (-1.0 + math.sqrt(2.0) * wa - wa * wa) / den)


def _one_pass(x: np.ndarray, c: CfcCoefficients) -> np.ndarray:
    """One pass of eq. C1 (scipy's lfilter runs the recursion); the first two outputs are the first two inputs
    (J211 App. C start-up)."""
    from scipy.signal import lfilter, lfiltic
    b, a = [c.a0, c.a1, c.a2], [1.0, -c.b1, -c.b2]
    y = np.empty_like(x)
    y[:2] = x[:2]
    if x.shape[0] > 2:
        zi = lfiltic(b, a, y=[x[1], x[0]], x=[x[1], x[0]])
        y[2:] = lfilter(b, a, x[2:], zi=zi)[0]
    return y


def sample_interval(t: np.ndarray, what: str = "history") -> float:
    """The uniform sample interval of the time column ``t`` (s); a clear error if it is not uniform."""
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.shape[0] < 3:
        raise ValueError(f"{what}: needs at least 3 samples, got {t.shape}")
    steps = np.diff(t)
    dt = float(np.mean(steps))
    if not dt > 0.0 or np.max(np.abs(steps - dt)) > 1e-6 * dt:
        raise ValueError(f"{what}: the samples must be uniformly spaced in time (steps from {steps.min():g} to "
                         f"{steps.max():g} s); resample or write the result with a fixed output step")
    return dt


def cfc_filter(t: np.ndarray, x: np.ndarray, cfc: float, factor: float = J211_FACTOR) -> np.ndarray:
    """The J211-1 phaseless CFC filter of the samples ``x`` at the uniform times ``t`` (s): the two-pole
    recursion forward, then backward. ``factor`` = ``ISO6487_FACTOR`` gives the ISO 6487 variant."""
    dt = sample_interval(t, f"CFC {cfc:g} filter")
    x = np.asarray(x, dtype=float)
    if x.shape != np.shape(t):
        raise ValueError(f"CFC {cfc:g} filter: {x.shape[0]} values for {np.shape(t)[0]} times")
    c = cfc_coefficients(cfc, dt, factor)
    return _one_pass(_one_pass(x, c)[::-1], c)[::-1].copy()


def cfc_gain_db(f: np.ndarray | float, cfc: float, dt: float, factor: float = J211_FACTOR) -> np.ndarray:
    """Design gain (dB) of the phaseless two-pass filter at frequency ``f`` (Hz): -20 log10(1 + r^4),
    r = tan(pi f dt) / tan(pi f_d dt)."""
    r = np.tan(np.pi * np.asarray(f, dtype=float) * dt) / math.tan(math.pi * factor * cfc * dt)
    return -20.0 * np.log10(1.0 + r ** 4)


def j211_corridor_db(f: np.ndarray | float, cfc: float) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) limits (dB) of the J211-1 / ISO 6487 response corridor of class ``cfc`` at ``f`` (Hz), for
    0.1 Hz <= f: upper +0.5 dB up to F_N = (5/3) CFC, then -9 dB/octave; lower -0.5 dB up to F_H / 2, -1 dB at
    F_H = CFC, -4 dB at F_N (straight lines in log f), then -24 dB/octave. No floor is applied (the standard lets
    the lower limit fall to -infinity below -30 dB). Corridor as recalled from the J211-1 figure, not read from the
    standard in this project: see docs/crash.md."""
    f = np.asarray(f, dtype=float)
    fh, fn = float(cfc), 5.0 / 3.0 * cfc
    up = np.where(f <= fn, 0.5, 0.5 - 9.0 * np.log2(np.maximum(f, fn) / fn))
    lf = np.log2(np.maximum(f, 1e-300))
    low = np.where(f <= fh / 2.0, -0.5,
                   np.where(f <= fh, -0.5 - 0.5 * (lf - math.log2(fh / 2.0)),
                            np.where(f <= fn, -1.0 - 3.0 * (lf - math.log2(fh)) / math.log2(fn / fh),
                                     -4.0 - 24.0 * (lf - math.log2(fn)))))
    return low, up


__all__ = ["J211_FACTOR", "ISO6487_FACTOR", "CFC_CLASSES", "CfcCoefficients", "cfc_coefficients", "cfc_filter",
           "cfc_gain_db", "j211_corridor_db", "sample_interval"]
