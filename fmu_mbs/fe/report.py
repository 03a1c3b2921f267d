"""Modal participation and effective modal masses of a supported FE body, and a text table of its modes.

For mass-normalised modes phi_k of a body supported at its base, the participation factor of base motion in
direction r (a rigid-body field, e.g. a unit translation) is Gamma_k = phi_k^T M r and the effective modal mass
m_k = Gamma_k^2; summed over all modes it equals r^T M r over the free DOFs, the mass that moves with the base
(Craig & Kurdila 2006, §13.4; NASA-HDBK-7005 §4.4)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .body import COMPONENTS, FEBody, free_dofs
from .eigen import Modes


def effective_masses(body: FEBody, modes: Modes, fixed: Iterable[int] | None = None,
                     origin: np.ndarray | None = None) -> np.ndarray:
    """(n_modes, 6) effective masses (kg for translations x y z, kg m^2 for rotations about ``origin``) of the modes
    (mass-normalised, zero at ``fixed``)."""
    R = body.rigid_modes(origin)
    R[np.setdiff1d(np.arange(body.n_dofs), free_dofs(body.n_dofs, fixed))] = 0.0
    gamma = modes.shapes.T @ (body.M @ R)
    return gamma**2


def mode_table(body: FEBody, modes: Modes, fixed: Iterable[int] | None = None) -> str:
    """Text table: mode, frequency (Hz), effective mass fractions (%) for the three translations."""
    eff = effective_masses(body, modes, fixed)
    R = body.rigid_modes()
    R[np.setdiff1d(np.arange(body.n_dofs), free_dofs(body.n_dofs, fixed))] = 0.0
    total = np.einsum("ij,ij->j", R, body.M @ R)[:3]
    head = f"{'mode':>5} {'f (Hz)':>14} " + " ".join(f"{'m_eff ' + c + ' %':>12}" for c in COMPONENTS[:3])
    lines = [f"{body.name}: {body.n_nodes} nodes, {body.n_dofs} DOFs, movable mass "
             + ", ".join(f"{c} {t:.6g} kg" for c, t in zip("xyz", total)), head]
    for k, f in enumerate(modes.frequencies):
        frac = 100.0 * eff[k, :3] / np.where(total > 0, total, 1.0)
        lines.append(f"{k + 1:>5} {f:>14.6g} " + " ".join(f"{v:>12.3f}" for v in frac))
    sums = 100.0 * eff[:, :3].sum(0) / np.where(total > 0, total, 1.0)
    lines.append(f"{'sum':>5} {'':>14} " + " ".join(f"{v:>12.3f}" for v in sums))
    return "\n".join(lines)
