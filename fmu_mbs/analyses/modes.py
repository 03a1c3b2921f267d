"""Natural modes of a mechanism linearised about its static equilibrium (seed 000 ch. 9; issue 14's
``fmu-mbs modes``): rigid and flexible (modal-body) coordinates together.

At the equilibrium (q, lam) of analyses.statics, small motions dq = N x in the null space N of the constraint
Jacobian Phi_q obey N^T M N x'' + N^T K N x = 0 with K = -d(Q - Phi_q^T lam)/dq (the tangent of
statics.equilibrium_stiffness, constraint curvature included), so omega^2 are the eigenvalues of
(N^T K N, N^T M N) and the mode shapes are N x (coordinates q). Damping and velocity forces are left out
(undamped modes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..compiler import CompiledModel
from ..fe.eigen import canonical_modes
from .evaluate import Evaluator
from .statics import equilibrium_stiffness, statics


@dataclass(frozen=True)
class Modes:
    """Undamped natural modes: ``omega2`` (1/s^2, ascending; negative: unstable), ``shapes`` (n_q x k, columns
    M-normalised in coordinate space), the equilibrium ``q`` they are taken about and the coordinate names."""

    omega2: np.ndarray
    shapes: np.ndarray
    q: np.ndarray
    names: list[str]

    @property
    def frequencies(self) -> np.ndarray:
        """Natural frequencies (Hz); nan for unstable (negative omega^2) modes."""
        with np.errstate(invalid="ignore"):
            return np.where(self.omega2 >= 0.0, np.sqrt(self.omega2) / (2.0 * np.pi), np.nan)


def mechanism_modes(cm: CompiledModel, t: float = 0.0, q: np.ndarray | None = None) -> Modes:
    """The undamped modes of ``cm`` about its static equilibrium at time t (s) (module docstring), searched from
    the positions ``q`` (None: the model's assembled start)."""
    ev = Evaluator(cm)
    eq = statics(cm, t, q=q, evaluator=ev)
    q, lam = eq.q[-1].copy(), eq.lam[-1].copy()
    K = -equilibrium_stiffness(ev, t, q, lam)
    ev.constraints(t, q)
    J = ev.J.copy()
    M = ev.mass(q).copy()
    N = sla.null_space(J) if J.shape[0] else np.eye(len(q))
    Kr, Mr = N.T @ (0.5 * (K + K.T)) @ N, N.T @ M @ N
    lam2, X = sla.eigh(Kr, Mr)
    return Modes(lam2, canonical_modes(lam2, N @ X), q, list(cm.q_names))
