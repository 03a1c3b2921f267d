"""Kinematic analysis of a fully driven mechanism (0 degrees of freedom): the motion follows from the
drivers alone (seed 000 ch. 3).

At each output time t_k:

- positions: Newton-Raphson on Phi(q, t_k) = 0 (``assembly.assemble_positions``, minimum-norm steps, so
  redundant constraints are allowed), started from the predictor q + qd h + qdd h^2 / 2 (seed 000 §3.3,
  eq. 3.10), or from the previous q right after a nearly singular position;
- velocities: Phi_q qd = nu; accelerations: Phi_q qdd = gamma (seed 000 eqs. 3.6, 3.7), both in the
  least-squares sense with one pivoted QR factorization of Phi_q (exact when the redundant rows are
  consistent, which they are at a converged position, seed 000 §3.4);
- multipliers (optional, default on): the minimum-norm lam with Phi_q^T lam = Q - M qdd, so joint
  reactions and driver efforts (``analyses.reactions``) are available from a kinematic run too. With
  redundant constraints the reactions inside the redundant set are not unique; lam is the minimum-norm
  choice, while the driver efforts stay unique whenever each driver removes a true degree of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..compiler import CompiledModel
from ..compiler.families import needs_after_step
from ..errors import AnalysisError
from .assembly import POSITION_TOL, assemble_positions, joint_friction_fixed_point
from .evaluate import Evaluator
from .linear import RANK_TOL, independent_rows
from .trajectory import Trajectory

Progress = Callable[[float], None]

#: near a singular position (cond(Phi_q) above this) the rates are huge and unreliable, so the next
#: Newton-Raphson starts from the previous position instead of the rate predictor (seed 000 §3.3 notes
#: that the predictor is not always better); a jump of whole turns in the angles is avoided that way
PREDICTOR_COND_LIMIT = 1e4


@dataclass
class KinematicState:
    """One solved instant: q, qd, qdd (and lam, zeros when not computed) with the solver's residuals."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    iterations: int
    residual_position: float
    residual_velocity: float
    residual_acceleration: float
    residual_force: float
    condition: float        # estimate of cond(Phi_q): ratio of the extreme diagonals of its pivoted QR


def time_grid(t_start: float, t_end: float, step: float) -> np.ndarray:
    """Output times t_start, t_start + step, ..., t_end (s); the last interval may be shorter."""
    if not (math.isfinite(t_start) and math.isfinite(t_end) and math.isfinite(step)):
        raise AnalysisError(f"time grid needs finite values (t_start = {t_start}, t_end = {t_end}, step = {step})")
    if step <= 0.0:
        raise AnalysisError(f"output step must be positive, got {step} s")
    if t_end < t_start:
        raise AnalysisError(f"t_end = {t_end} s is before t_start = {t_start} s")
    n = math.ceil((t_end - t_start) / step - 1e-9)
    times = t_start + step * np.arange(n + 1, dtype=float)
    times[-1] = t_end
    return times


def degrees_of_freedom(ev: Evaluator, t: float, q: np.ndarray) -> tuple[int, list[str]]:
    """(n_q - rank Phi_q, labels of the redundant rows) at an assembled position."""
    cm = ev.cm
    ev.constraints(t, q)
    rows, redundant = independent_rows(ev.J.copy())
    return cm.n_q - len(rows), [cm.row_label[i] for i in redundant]


def require_driven(ev: Evaluator, t: float, q: np.ndarray, analysis: str = "kinematic analysis") -> None:
    """Raise AnalysisError unless the mechanism has 0 degrees of freedom at (t, q)."""
    dof, _ = degrees_of_freedom(ev, t, q)
    if dof > 0:
        cm = ev.cm
        raise AnalysisError(
            f"model '{cm.model.name}': {analysis} needs a fully driven mechanism, but it has {dof} degree(s) of "
            f"freedom at t = {t:g} s with {len(cm.model.drivers)} driver(s); add a driver for each free "
            f"degree of freedom (or run a dynamic simulation)")


def solve_state(ev: Evaluator, t: float, q_guess: np.ndarray, multipliers: bool = True,
                tol: float = POSITION_TOL) -> KinematicState:
    """Positions, velocities, accelerations (and multipliers) of a driven mechanism at time t (SI units).
    Raises AssemblyError if Phi(q, t) = 0 has no solution near ``q_guess`` and AnalysisError if Phi_q has
    lost rank (a dead point or lock-up: the drivers no longer determine the velocities)."""
    cm = ev.cm
    q, iters = assemble_positions(ev, t, q_guess, tol)
    n = cm.n_q
    zeros = np.zeros(n)
    ev.constraints(t, q, zeros)
    res_pos = float(np.max(np.abs(ev.phi))) if cm.n_rows else 0.0
    J = ev.J.copy()
    Qf, R, piv = sla.qr(J, mode="economic", pivoting=True)   # J[:, piv] = Qf R, R is n x n when rank n
    diag = np.abs(np.diag(R))
    if R.shape[0] < n or diag.size == 0 or diag[-1] <= RANK_TOL * diag[0]:
        rank = int(np.sum(diag > RANK_TOL * diag[0])) if diag.size else 0
        raise AnalysisError(f"model '{cm.model.name}': Phi_q has rank {rank} < n_q = {n} at t = {t:g} s (singular "
                            f"position: dead point or lock-up); the drivers no longer determine the motion")

    def lsq(b: np.ndarray) -> np.ndarray:        # least-squares solution of J x = b
        x = np.empty(n)
        x[piv] = sla.solve_triangular(R, Qf.T @ b)
        return x

    nu = ev.nu.copy()
    qd = lsq(nu)
    ev.constraints(t, q, qd)
    gamma = ev.gamma.copy()
    qdd = lsq(gamma)
    res_vel = float(np.max(np.abs(J @ qd - nu))) if cm.n_rows else 0.0
    res_acc = float(np.max(np.abs(J @ qdd - gamma))) if cm.n_rows else 0.0
    lam = np.zeros(cm.n_rows)
    res_force = 0.0
    if multipliers and cm.n_rows:
        M = ev.mass(q).copy()
        if needs_after_step(cm.arrays):         # after-step hooks (passive cylinders: inertia at the known qdd)
            ev.forces(t, q, qd)
            ev.after_step(q, qdd)
        Q = ev.forces(t, q, qd).copy()
        rhs = Q - M @ qdd
        # J^T = P R^T Qf^T: R^T y = rhs[piv], lam = Qf y is the minimum-norm solution of J^T lam = rhs
        y = sla.solve_triangular(R, rhs[piv], trans="T")
        lam = Qf @ y
        if ev.has_joint_friction:         # friction loaded by the reactions: fixed point on lam
            def solve(Qjf):
                return (Qf @ sla.solve_triangular(R, (Qjf - M @ qdd)[piv], trans="T"),)

            (lam,) = joint_friction_fixed_point(ev, t, q, Q, lam, solve)
            rhs = ev.Q - M @ qdd
        res_force = float(np.max(np.abs(J.T @ lam - rhs)))
    return KinematicState(q, qd, qdd, lam, iters, res_pos, res_vel, res_acc, res_force, float(diag[0] / diag[-1]))


def kinematics(cm: CompiledModel, t_end: float, step: float, t_start: float = 0.0, progress: Progress | None = None,
               evaluator: Evaluator | None = None, multipliers: bool = True) -> Trajectory:
    """Kinematic analysis from t_start to t_end (s) with output interval ``step`` (s) of a mechanism whose
    drivers fix every degree of freedom. The first position is assembled from the model's initial values.
    ``progress(fraction)`` is called as time advances. ``multipliers=False`` skips the mass matrix and
    forces (lam stays zero). info: 'iterations', 'residual_position' (max |Phi|), 'residual_velocity'
    (max |Phi_q qd - nu|), 'residual_acceleration' (max |Phi_q qdd - gamma|), 'residual_force'
    (max |Phi_q^T lam - Q + M qdd|), 'condition' (estimate of cond(Phi_q); above ~1e4 the mechanism is
    close to a singular position and its rates there are unreliable). Raises AnalysisError if the model
    has free degrees of freedom, AssemblyError if the drivers ask for an unreachable position."""
    ev = evaluator or Evaluator(cm)
    times = time_grid(t_start, t_end, step)
    span = times[-1] - times[0]
    q0, iters0 = assemble_positions(ev, times[0], cm.q0)
    require_driven(ev, times[0], q0)
    N = len(times)
    out_q, out_qd, out_qdd = np.zeros((N, cm.n_q)), np.zeros((N, cm.n_q)), np.zeros((N, cm.n_q))
    out_lam, out_u = np.zeros((N, cm.n_rows)), np.zeros((N, cm.n_inputs))
    keys = ("iterations", "residual_position", "residual_velocity", "residual_acceleration", "residual_force",
            "condition")
    info = {k: np.zeros(N) for k in keys}
    info["iterations"] = np.zeros(N, dtype=int)
    if progress is not None:
        progress(0.0)
    guess, prev = q0, None
    for k, t in enumerate(times):
        if prev is not None:
            h = t - times[k - 1]
            guess = prev.q
            if prev.condition < PREDICTOR_COND_LIMIT:
                guess = prev.q + prev.qd * h + 0.5 * prev.qdd * h * h
        s = solve_state(ev, t, guess, multipliers)
        out_q[k], out_qd[k], out_qdd[k], out_lam[k], out_u[k] = s.q, s.qd, s.qdd, s.lam, ev.u
        for key in keys:
            info[key][k] = getattr(s, key)
        if k == 0:
            info["iterations"][0] += iters0
        prev = s
        if progress is not None:
            progress(1.0 if span <= 0.0 else float((t - times[0]) / span))
    return Trajectory(times, out_q, out_qd, out_qdd, out_lam, out_u, info, analysis="kinematics", model=cm)
