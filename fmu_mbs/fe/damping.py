"""Modal damping of a reduced body: Rayleigh (D = alpha M_r + beta K_r) or a damping ratio per mode.

Per-mode damping: with V the M_r-normalised eigenvectors of K_r v = omega^2 M_r v, D_r = M_r V diag(2 zeta_k
omega_k) V^T M_r, so that V^T D_r V = diag(2 zeta_k omega_k) (Craig & Kurdila 2006, §10.5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ModelError
from .modeset import ModeSet


def rayleigh(ms: ModeSet, alpha: float, beta: float) -> ModeSet:
    """D_r = alpha M_r + beta K_r (alpha 1/s, beta s): zeta(omega) = alpha/(2 omega) + beta omega/2."""
    if alpha < 0 or beta < 0:
        raise ModelError(f"{ms.body.name}: Rayleigh coefficients must be >= 0, got alpha={alpha}, beta={beta}")
    return ms.with_damping(alpha * ms.mass + beta * ms.stiffness)


def rayleigh_coefficients(f1: float, zeta1: float, f2: float, zeta2: float) -> tuple[float, float]:
    """(alpha, beta) giving damping ratios zeta1 at f1 and zeta2 at f2 (Hz)."""
    w1, w2 = 2 * np.pi * f1, 2 * np.pi * f2
    A = np.array([[1 / (2 * w1), w1 / 2], [1 / (2 * w2), w2 / 2]])
    a, b = np.linalg.solve(A, [zeta1, zeta2])
    return float(a), float(b)


def modal_damping(ms: ModeSet, zeta: float | Sequence[float]) -> ModeSet:
    """Damping ratio zeta_k for each mode of the reduced body (one value for all, or one per mode)."""
    omega, V = ms.eigen()
    z = np.broadcast_to(np.asarray(zeta, float), omega.shape) if np.ndim(zeta) == 0 else np.asarray(zeta, float)
    if z.shape != omega.shape or np.any(z < 0):
        raise ModelError(f"{ms.body.name}: give one damping ratio >= 0 or {len(omega)} of them, got {zeta!r}")
    MV = ms.mass @ V
    return ms.with_damping(MV @ np.diag(2.0 * z * omega) @ MV.T)
