"""Assembly: the configuration closest to the user's positions that satisfies Phi(q, t) = 0, then
consistent velocities, accelerations and multipliers (seed 000 ch. 3, least-squares Newton-Raphson
eq. 3.15; step halving when ||Phi|| does not decrease).

Redundant constraints are handled by minimum-norm (pseudo-inverse) steps; the report gives the
degrees of freedom n_q - rank(Phi_q) and the rows found dependent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..compiler import CompiledModel
from ..compiler.families import needs_after_step
from ..errors import AssemblyError, ConvergenceError
from .evaluate import Evaluator
from .joint_starts import JointStarts
from .linear import independent_rows, min_norm_multipliers, solve_kkt

POSITION_TOL = 1e-10   # max |Phi| accepted (m, or rad for angle rows)
RATE_TOL = 1e-10       # max |Phi_q qd - nu| of the given joint rates, relative to 1 + max |nu|, |qd|
FRICTION_TOL = 1e-12   # joint friction fixed point: max |lam change| relative to 1 + max |lam|
FRICTION_MAX_ITER = 100


@dataclass
class AssemblyResult:
    """A consistent state at time t: positions, velocities, accelerations and multipliers (SI)."""

    t: float
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    dof: int
    redundant: list[str] = field(default_factory=list)   # labels of dependent constraint rows
    iterations: int = 0
    residual: float = 0.0


def _worst_rows(cm: CompiledModel, phi: np.ndarray, k: int = 3) -> str:
    order = np.argsort(-np.abs(phi))[:k]
    return ", ".join(f"{cm.row_label[i]} = {phi[i]:.3g}" for i in order if abs(phi[i]) > POSITION_TOL)


def assemble_positions(ev: Evaluator, t: float, q_guess: np.ndarray, tol: float = POSITION_TOL,
                       max_iter: int = 100, starts: JointStarts | None = None) -> tuple[np.ndarray, int]:
    """Newton-Raphson with minimum-norm steps dq = -pinv(Phi_q) Phi and step halving; returns (q, iterations).
    ``starts``: joints whose initial coordinates (s_start) are appended as rows s(q) - s_start = 0.
    Raises AssemblyError naming the worst constraint rows (and the joints whose s_start cannot be met)."""
    cm = ev.cm
    q = np.array(q_guess, dtype=float)
    holds = starts is not None and bool(starts.s_rows)
    if cm.n_rows == 0 and not holds:
        return q, 0

    def rows(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        phi = ev.constraints(t, q).copy()
        if not holds:
            return phi, ev.J
        r, Js = starts.position_rows(t, q)
        return np.concatenate([phi, r]), np.vstack([ev.J, Js])

    phi, J = rows(q)
    norm = np.linalg.norm(phi)
    for it in range(1, max_iter + 1):
        if np.max(np.abs(phi)) <= tol:
            return q, it - 1
        dq = -np.linalg.lstsq(J, phi, rcond=None)[0]
        if not np.all(np.isfinite(dq)):
            break
        step = 1.0
        for _ in range(30):
            q_try = q + step * dq
            phi_try, J_try = rows(q_try)
            if np.all(np.isfinite(phi_try)) and np.linalg.norm(phi_try) < norm * (1.0 - 1e-4 * step):
                break
            step *= 0.5
        else:
            # no decrease along the Newton direction: accept a small step if it is converged enough
            break
        q, phi, J, norm = q_try, phi_try, J_try, np.linalg.norm(phi_try)
    if np.max(np.abs(phi)) <= tol:
        return q, max_iter
    if holds:
        given = ", ".join(f"{j}.s_start = {v:.6g} (off by {r:.3g})"
                          for j, v, r in zip(starts.s_joint, starts.s_value, phi[cm.n_rows:]))
        raise AssemblyError(f"model '{cm.model.name}': the initial joint coordinates are inconsistent with the "
                            f"constraints at t = {t:g} s: {given}; max |Phi| = {np.max(np.abs(phi)):.3g} after "
                            f"Newton-Raphson" + (f", worst rows: {_worst_rows(cm, phi[:cm.n_rows])}"
                                                 if np.max(np.abs(phi[:cm.n_rows]), initial=0.0) > tol else ""))
    raise AssemblyError(f"model '{cm.model.name}': constraints cannot be satisfied at t = {t:g} s "
                        f"(max |Phi| = {np.max(np.abs(phi)):.3g} after Newton-Raphson); worst rows: "
                        f"{_worst_rows(cm, phi)}")


def solve_velocities(ev: Evaluator, t: float, q: np.ndarray, qd_guess: np.ndarray,
                     starts: JointStarts | None = None) -> np.ndarray:
    """Velocities closest to ``qd_guess`` with Phi_q qd = nu (minimum-norm correction); ``starts``: joints whose
    initial rates (sd_start) are kept exactly (AssemblyError naming them if the constraints do not allow them)."""
    cm = ev.cm
    holds = starts is not None and bool(starts.sd_rows)
    if cm.n_rows == 0 and not holds:
        return np.array(qd_guess, dtype=float)
    ev.constraints(t, q, qd_guess)
    J, nu = ev.J, ev.nu
    if holds:
        Js, sd = starts.rate_rows(t, q)
        J, nu = np.vstack([J, Js]), np.concatenate([nu, sd])
    qd = qd_guess + np.linalg.lstsq(J, nu - J @ qd_guess, rcond=None)[0]
    if holds:
        resid = J @ qd - nu
        scale = 1.0 + float(np.max(np.abs(nu), initial=0.0)) + float(np.max(np.abs(qd), initial=0.0))
        if np.max(np.abs(resid)) > RATE_TOL * scale:
            given = ", ".join(f"{j}.sd_start = {v:.6g} (off by {r:.3g})"
                              for j, v, r in zip(starts.sd_joint, starts.sd_value, resid[cm.n_rows:]))
            raise AssemblyError(f"model '{cm.model.name}': the initial joint rates are inconsistent with the "
                                f"velocity constraints at t = {t:g} s: {given} (more rates given than the "
                                f"mechanism has degrees of freedom, or rates that contradict each other)")
    return qd


def solve_dynamics(ev: Evaluator, t: float, q: np.ndarray, qd: np.ndarray,
                   rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Accelerations and multipliers from M qdd + Phi_q^T lam = Q, Phi_q qdd = gamma (index-1 form,
    seed 002 eq. 4.8 with the sign of eq. 4.4). With redundant rows, qdd uses the independent rows and
    lam is the minimum-norm solution of Phi_q^T lam = Q - M qdd. Joint friction depends on lam (its reaction):
    joint_friction_fixed_point from the friction-free solution."""
    M = ev.mass(q).copy()
    Q = ev.forces(t, q, qd).copy()
    ev.constraints(t, q, qd)
    J = ev.J.copy()
    if rows is None:
        rows, redundant = independent_rows(J)
    else:
        redundant = np.setdiff1d(np.arange(J.shape[0]), rows)
    qdd, lam = solve_kkt(M, J, Q, ev.gamma, rows)
    if len(redundant):
        lam = min_norm_multipliers(J, Q - M @ qdd)
    if not ev.has_joint_friction:
        return qdd, lam

    def solve(Qf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        qdd_f, lam_f = solve_kkt(M, J, Qf, ev.gamma, rows)
        return qdd_f, (min_norm_multipliers(J, Qf - M @ qdd_f) if len(redundant) else lam_f)

    return joint_friction_fixed_point(ev, t, q, Q, lam, solve)


def joint_friction_fixed_point(ev: Evaluator, t: float, q: np.ndarray, Q: np.ndarray, lam: np.ndarray, solve):
    """``solve(Q + joint friction(lam))`` iterated from ``lam`` until its multipliers (the last item it returns)
    change by less than FRICTION_TOL; ``ev`` holds frames and twist rows at (t, q). Returns solve's last result.
    Joint friction depends on the reaction, so the multipliers of any analysis with friction are this fixed point
    (a contraction while mu r_pin / lever < 1 in effect); ConvergenceError otherwise."""
    change = np.inf
    for _ in range(FRICTION_MAX_ITER):
        ev.Q[:] = Q
        out = solve(ev.joint_friction(q, lam).copy())
        change = float(np.max(np.abs(out[-1] - lam), initial=0.0))
        lam = out[-1]
        if change <= FRICTION_TOL * (1.0 + float(np.max(np.abs(lam), initial=0.0))):
            return out
    raise ConvergenceError(f"model '{ev.cm.model.name}': joint friction and reactions do not converge at t = "
                           f"{t:.9g} s (multipliers still change by {change:.3g} after {FRICTION_MAX_ITER} "
                           f"fixed-point iterations): friction arms too large for the joint's geometry?")


def passive_consistent_dynamics(ev: Evaluator, t: float, q: np.ndarray, qd: np.ndarray, rows: np.ndarray,
                                qdd: np.ndarray, lam: np.ndarray, max_iter: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Accelerations consistent with the inertia of passive cylinders (kernels.passive_cylinder), whose loads use
    stored end accelerations: store those of qdd, solve again, until qdd settles (a contraction when the parts
    are light against the bodies they hang on). Leaves the stored accelerations in ``ev.zs``."""
    for _ in range(max_iter):
        ev.forces(t, q, qd)                                  # frames at (q, qd)
        ev.after_step(q, qdd)
        qdd_new, lam = solve_dynamics(ev, t, q, qd, rows)
        done = np.max(np.abs(qdd_new - qdd), initial=0.0) <= 1e-12 * (1.0 + np.max(np.abs(qdd_new), initial=0.0))
        qdd = qdd_new
        if done:
            break
    ev.forces(t, q, qd)
    ev.after_step(q, qdd)
    return qdd, lam


def assemble(cm: CompiledModel, t: float = 0.0, q: np.ndarray | None = None, qd: np.ndarray | None = None,
             evaluator: Evaluator | None = None, tol: float = POSITION_TOL) -> AssemblyResult:
    """Full assembly at time t from the model's initial values (or given q, qd): positions, velocities,
    and, where the mass matrix allows, accelerations and multipliers of the forward dynamics. The joints' initial
    coordinates (s_start, unless q is given) and rates (sd_start, unless qd is given) are kept exactly."""
    ev = evaluator or Evaluator(cm)
    starts = JointStarts(cm)
    q_a, iters = assemble_positions(ev, t, cm.q0 if q is None else q, tol, starts=starts if q is None else None)
    qd_a = solve_velocities(ev, t, q_a, cm.qd0 if qd is None else qd, starts=starts if qd is None else None)
    ev.constraints(t, q_a, qd_a)
    J = ev.J.copy()
    rows, redundant = independent_rows(J)
    dof = cm.n_q - len(rows)
    qdd, lam = solve_dynamics(ev, t, q_a, qd_a, rows)
    if needs_after_step(cm.arrays):
        qdd, lam = passive_consistent_dynamics(ev, t, q_a, qd_a, rows, qdd, lam)
    return AssemblyResult(t=t, q=q_a, qd=qd_a, qdd=qdd, lam=lam, dof=dof,
                          redundant=[cm.row_label[i] for i in redundant], iterations=iters,
                          residual=float(np.max(np.abs(ev.phi))) if cm.n_rows else 0.0)
