"""Dynamic relaxation (seed 000 §6.1.5): integrate the constrained equations with added mass-proportional
damping from any assembled position until the model comes to rest at a stable equilibrium.

    M qdd + Phi_q^T lam = Q(q, qd, t) - alpha M qd,     Phi_q qdd = gamma     (index-1 KKT system)

stepped by semi-implicit (symplectic) Euler, qd += h qdd, q += h qd, followed by projection of q onto
Phi = 0 and of qd onto Phi_q qd = nu. The damping and the step come from the model, re-measured every
``estimate_every`` steps: the reduced stiffness and mass on the constraint null space give the squared
frequencies omega^2; alpha = 2 omega_low critically damps the lowest stable mode (and every underdamped
mode then decays at the same rate alpha / 2), and h = min(0.5 / omega_max, 1 / (alpha + c_max)) keeps the
explicit scheme stable (stability limits h omega < 2, h (alpha + c) < 2; c_max is the largest modal rate of
the model's own dampers). Because the stiffness can change by orders of magnitude along the path (a four-bar
near its toggle positions), each step is also guarded: see ``dynamic_relaxation``. With added damping the
motion can only come to rest at a stable equilibrium (a local minimum of the potential for conservative loads).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..compiler.bodies import translational_coordinates
from ..errors import AssemblyError
from .assembly import assemble_positions, solve_velocities
from .evaluate import Evaluator
from .linear import independent_rows, solve_kkt
from .statics import (
    damping_matrix,
    equilibrium_residual,
    equilibrium_stiffness,
    reduced_eigenvalues,
    static_multipliers,
)

LENGTH_SCALE = 1.0   # m: model size when it cannot be measured; with no measurable stiffness,
#                      omega = sqrt(force scale / (total mass * LENGTH_SCALE))
CHECK_EVERY = 10     # steps between evaluations of the static residual
MAX_MOVE = 0.05      # largest coordinate change per step (rad, Euler parameter, or fraction of the model size)
MAX_REJECTED = 12    # consecutive failed projections (step halvings) before giving up
MIN_PATIENCE = 500   # steps without halving the residual before a relaxation counts as stalled


@dataclass
class RelaxationResult:
    """End state of a relaxation (velocities ~ 0): q, the static multipliers there, the number of steps, the
    relative static residual max|Q(q, 0) - Phi_q^T lam| / force scale, and whether it reached ``tol``."""

    q: np.ndarray
    lam: np.ndarray
    steps: int
    residual: float
    converged: bool
    message: str = ""


def _time_scales(ev: Evaluator, t: float, q: np.ndarray, fscale: float) -> tuple[float, float, float]:
    """(h, alpha, omega_low) at q: step (s), damping rate (1/s) and the lowest (stable) frequency (rad/s)."""
    lam = static_multipliers(ev, t, q)
    K = equilibrium_stiffness(ev, t, q, lam)
    C = damping_matrix(ev, t, q)
    M = ev.mass(q).copy()
    ev.constraints(t, q)
    J = ev.J.copy()
    w2 = reduced_eigenvalues(-K, M, J)
    c = reduced_eigenvalues(C, M, J)
    mag = np.abs(w2[np.isfinite(w2)])
    top = float(np.max(mag)) if mag.size else 0.0
    if top <= 0.0:   # no stiffness anywhere (e.g. only constant loads): a time scale from force and mass
        total_mass = float(np.sum(ev.cm.arrays.body_mass)) or 1.0
        w_max = w_low = np.sqrt(fscale / (total_mass * LENGTH_SCALE))
    else:
        w_max = np.sqrt(top)
        stable = w2[np.isfinite(w2) & (w2 > 1e-9 * top)]
        w_low = np.sqrt(stable[0] if stable.size else float(np.min(mag[mag > 1e-9 * top])))
    alpha = 2.0 * w_low
    c_max = float(np.max(c[np.isfinite(c)])) if c.size and np.any(np.isfinite(c)) else 0.0
    h = min(0.5 / w_max, 1.0 / (alpha + max(c_max, 0.0)))
    return h, alpha, w_low


def _coordinate_scales(ev: Evaluator, t: float, q: np.ndarray) -> np.ndarray:
    """Per-coordinate scale: the model size (m) for positions, 1 for angles and Euler parameters."""
    m = ev.cm.arrays
    ev.forces(t, q, np.zeros_like(q))   # frames of bodies and markers
    pts = np.vstack([ev.r, ev.o]) if len(ev.o) else ev.r
    size = float(np.max(np.ptp(pts, axis=0))) if len(pts) > 1 else 0.0
    scale = np.ones_like(q)
    for b in range(len(m.body_kind)):
        scale[m.body_q_adr[b] + np.array(translational_coordinates(m, b), dtype=np.int64)] = \
            size if size > 0.0 else LENGTH_SCALE
    return scale


def dynamic_relaxation(ev: Evaluator, t: float, q: np.ndarray, *, fscale: float, tol: float = 1e-6,
                       max_steps: int = 20000, estimate_every: int = 50) -> RelaxationResult:
    """Relax from the (assembled) position q at rest until the relative static residual is below ``tol``, it stops
    decreasing (not halved within 20 e-folding times of the lowest mode, at least 500 steps), or ``max_steps``.

    Safeguards, since the stiffness can change by orders of magnitude along the path: the step is cut when the
    local stiffness along the motion, omega^2 ~ |d(qdd + alpha qd)| / |dq|, makes h omega > 1; each step moves
    a coordinate by at most MAX_MOVE (rad, or that fraction of the model size) by scaling the velocity down,
    which only removes energy; a step whose projection fails is retried from rest with half the step."""
    cm = ev.cm
    q = np.array(q, dtype=float)
    v = np.zeros_like(q)
    inv_scale = 1.0 / _coordinate_scales(ev, t, q)
    h_est, alpha, w_low = _time_scales(ev, t, q, fscale)
    h = h_est
    rows = independent_rows(ev.J)[0] if cm.n_rows else np.zeros(0, dtype=int)
    milestone, milestone_step, milestone_time, time = np.inf, 0, 0.0, 0.0
    resid = np.inf
    prev = None        # (q, qdd + alpha qd) of the previous step, for the local stiffness
    rejected = 0
    for step in range(1, max_steps + 1):
        M = ev.mass(q).copy()
        Q = ev.forces(t, q, v).copy()
        ev.zs[:] = ev.zn   # element states follow the path: count RSDA turns along the path (steps turn < MAX_MOVE rad)
        ev.constraints(t, q, v)
        try:
            a, _ = solve_kkt(M, ev.J, Q - alpha * (M @ v), ev.gamma, rows)
        except np.linalg.LinAlgError:
            return _result(ev, t, q, fscale, tol, step, "singular mass/constraint matrix (massless free directions?)")
        a_static = a + alpha * v   # the damping adds -alpha qd on the constraint manifold
        if prev is not None:
            dq = np.linalg.norm((q - prev[0]) * inv_scale)
            if dq > 0.0:
                w2_local = np.linalg.norm((a_static - prev[1]) * inv_scale) / dq
                if h * h * w2_local > 1.0:
                    h = 0.5 / np.sqrt(w2_local)
        v_new = v + h * a
        move = float(np.max(np.abs(h * v_new * inv_scale)))
        if move > MAX_MOVE:
            v_new *= MAX_MOVE / move
        try:
            q_new, _ = assemble_positions(ev, t, q + h * v_new)
            if not np.all(np.isfinite(q_new)):
                raise AssemblyError("non-finite coordinates")
        except AssemblyError as exc:
            rejected += 1
            if rejected > MAX_REJECTED:
                return _result(ev, t, q, fscale, tol, step, f"projection failed {rejected} times in a row ({exc})")
            h, v, prev = 0.5 * h, np.zeros_like(v), None
            continue
        rejected = 0
        prev = (q, a_static)
        q, time = q_new, time + h
        v = solve_velocities(ev, t, q, v_new)
        h = min(h_est, 1.2 * h)
        if step % CHECK_EVERY == 0:
            lam = static_multipliers(ev, t, q)
            rf, _ = equilibrium_residual(ev, t, q, lam)
            resid = float(np.max(np.abs(rf))) / fscale if rf.size else 0.0
            if resid <= tol:
                return RelaxationResult(q, lam, step, resid, True, f"converged in {step} steps "
                                                                     f"(relative residual {resid:.3g})")
            if resid < 0.5 * milestone:
                milestone, milestone_step, milestone_time = resid, step, time
            elif step - milestone_step > MIN_PATIENCE and time - milestone_time > 20.0 / w_low:
                return _result(ev, t, q, fscale, tol, step, f"stalled: relative static residual {resid:.3g} "
                                                            f"not halved in {step - milestone_step} steps")
        if step % estimate_every == 0:
            h_est, alpha, w_low = _time_scales(ev, t, q, fscale)
            h = min(h, h_est)
            rows = independent_rows(ev.J)[0] if cm.n_rows else rows
    return _result(ev, t, q, fscale, tol, max_steps, f"not converged in {max_steps} steps (relative static "
                                                     f"residual {resid:.3g})")


def _result(ev: Evaluator, t: float, q: np.ndarray, fscale: float, tol: float, steps: int,
            message: str) -> RelaxationResult:
    lam = static_multipliers(ev, t, q)
    rf, _ = equilibrium_residual(ev, t, q, lam)
    resid = float(np.max(np.abs(rf))) / fscale if rf.size else 0.0
    return RelaxationResult(q, lam, steps, resid, resid <= tol, message)
