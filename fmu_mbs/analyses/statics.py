"""Static equilibrium by Lagrange multipliers (seed 000 ch. 6 §6.1.2, eqs. 6.19-6.25).

With qd = qdd = 0 the equations of motion M qdd + Phi_q^T lam = Q reduce to

    R(q, lam) = Q(q, 0, t) - Phi_q(q, t)^T lam = 0     (N, or N m for rotations)
    Phi(q, t) = 0                                        (m or rad)

Q holds gravity, springs, loads and actuators; drivers are constraint rows, so their multipliers give
the holding efforts. Newton-Raphson on (q, lam) uses the tangent [[K, -Phi_q^T], [Phi_q, 0]] with
K = dR/dq by central differences (it includes the constraint curvature sum lam_k d2Phi_k/dq2), minimum-norm
least-squares steps (redundant constraints, neutral directions) and backtracking on the scaled residual norm.
The Euler-parameter normalisation rows of rigid bodies are ordinary constraint rows here. When Newton fails,
dynamic relaxation (seed 000 §6.1.5, ``relaxation.py``) brings the model near a stable equilibrium and
Newton polishes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..compiler import CompiledModel
from ..errors import AnalysisError, ConvergenceError
from .assembly import assemble_positions
from .evaluate import Evaluator
from .trajectory import Trajectory

FD_STEP = 6e-6        # central-difference step relative to max(1, |q_j|): ~eps^(1/3), error ~1e-11 relative
LSTSQ_RCOND = 1e-10   # singular values below this (relative) count as zero in Newton steps (neutral directions)
METHODS = ("auto", "newton", "relaxation")
ROUNDOFF_STEP = 1e-11     # Newton steps below this (relative to max(1 m, |q|)) are round-off: converged ...
ROUNDOFF_RESIDUAL = 1e-6  # ... if the scaled residual is below this too
WATCHDOG = 5         # newton_equilibrium's watchdog iterations for models with beam elements (stiff axial members)
MOVED = 1e-3          # a coordinate farther than this (m or rad) from its start: the start was not an equilibrium


def force_scale(ev: Evaluator, t: float, q: np.ndarray) -> float:
    """Reference force (N) for the relative force tolerance: the largest of 1 N, the total weight and the
    largest applied generalized force at q."""
    m = ev.cm.arrays
    weight = float(np.sum(m.body_mass) * np.linalg.norm(m.gravity))
    Q = ev.forces(t, q, np.zeros_like(q))
    return max(1.0, weight, float(np.max(np.abs(Q))) if Q.size else 0.0)


def equilibrium_residual(ev: Evaluator, t: float, q: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Q(q, 0) - Phi_q^T lam, Phi(q)) at time t; leaves ``ev.J`` evaluated at q."""
    Q = ev.forces(t, q, np.zeros_like(q)).copy()
    phi = ev.constraints(t, q).copy()
    return Q - ev.J.T @ lam, phi


def static_multipliers(ev: Evaluator, t: float, q: np.ndarray) -> np.ndarray:
    """Minimum-norm lam with Phi_q^T lam = Q(q, 0) in the least-squares sense (seed 000 Part 5 item 22)."""
    Q = ev.forces(t, q, np.zeros_like(q)).copy()
    ev.constraints(t, q)
    if ev.cm.n_rows == 0:
        return np.zeros(0)
    return np.linalg.lstsq(ev.J.T, Q, rcond=None)[0]


def equilibrium_stiffness(ev: Evaluator, t: float, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """K = d(Q(q, 0) - Phi_q^T lam)/dq (n_q x n_q) by central differences at fixed lam (N/m, N m/rad).
    -K restricted to the constraint null space is the Hessian of V + Phi^T lam (seed 000 eq. 6.25)."""
    n = len(q)
    K = np.empty((n, n))
    for j in range(n):
        h = FD_STEP * max(1.0, abs(q[j]))
        qp, qm = q.copy(), q.copy()
        qp[j] += h
        qm[j] -= h
        rp, _ = equilibrium_residual(ev, t, qp, lam)
        rm, _ = equilibrium_residual(ev, t, qm, lam)
        K[:, j] = (rp - rm) / (2.0 * h)
    return K


def damping_matrix(ev: Evaluator, t: float, q: np.ndarray) -> np.ndarray:
    """C = -dQ/dqd at qd = 0 (N s/m, N m s/rad) by central differences (model dampers; inertia forces are
    quadratic in qd and drop out)."""
    n = len(q)
    C = np.empty((n, n))
    for j in range(n):
        vp = np.zeros(n)
        vp[j] = FD_STEP
        fp = ev.forces(t, q, vp).copy()
        fm = ev.forces(t, q, -vp).copy()
        C[:, j] = -(fp - fm) / (2.0 * FD_STEP)
    return C


def reduced_eigenvalues(A: np.ndarray, M: np.ndarray, J: np.ndarray) -> np.ndarray:
    """Eigenvalues (ascending) of sym(A) against M on the null space of J: the squared natural frequencies
    omega^2 (1/s^2) for A = -K (negative: unstable), or modal damping rates for A = C."""
    N = sla.null_space(J) if J.shape[0] else np.eye(A.shape[0])
    if N.shape[1] == 0:
        return np.zeros(0)
    Ar = N.T @ (0.5 * (A + A.T)) @ N
    Mr = N.T @ M @ N
    try:
        return np.sort(sla.eigh(Ar, Mr, eigvals_only=True))
    except (np.linalg.LinAlgError, ValueError):   # massless directions: Mr singular
        return np.sort(np.real(np.linalg.eigvals(np.linalg.pinv(Mr) @ Ar)))


@dataclass
class NewtonResult:
    q: np.ndarray
    lam: np.ndarray
    iterations: int
    converged: bool
    message: str = ""


def _scaled_norm(rf: np.ndarray, phi: np.ndarray, fscale: float) -> float:
    return float(np.sqrt(np.sum((rf / fscale) ** 2) + np.sum(phi ** 2)))


def _converged(rf: np.ndarray, phi: np.ndarray, fscale: float, tol: float) -> bool:
    return (not rf.size or np.max(np.abs(rf)) <= tol * fscale) and (not phi.size or np.max(np.abs(phi)) <= tol)


def newton_equilibrium(ev: Evaluator, t: float, q: np.ndarray, lam: np.ndarray, fscale: float, tol: float = 1e-9,
                       max_iter: int = 50, watchdog: int = 0) -> NewtonResult:
    """Newton-Raphson on R(q, lam) = 0, Phi(q) = 0 (seed 000 eq. 6.25) with least-squares steps and
    backtracking (Armijo on ||(R / fscale, Phi)||). Converged when max|R| <= tol fscale and max|Phi| <= tol.

    ``watchdog`` > 0 (Chamberlain, Powell, Lemarechal & Pedersen, Math. Prog. Study 16, 1982): full Newton steps
    are taken even when the residual grows, for up to that many iterations in a row; if none of them gets below
    the best residual so far, Newton goes back to the best point and backtracks from there. Structures with stiff
    axial members need it: a full step that rotates an element stretches it to second order (a large residual),
    which the next step removes, while backtracking would crawl."""
    q, lam = np.array(q, dtype=float), np.array(lam, dtype=float)
    n, m = len(q), len(lam)
    rf, phi = equilibrium_residual(ev, t, q, lam)
    norm = _scaled_norm(rf, phi, fscale)
    best, trial, fallback = (q, lam, rf, phi, norm), 0, False
    for it in range(max_iter + 1):
        if _converged(rf, phi, fscale, tol):
            return NewtonResult(q, lam, it, True)
        if it == max_iter:
            break
        K = equilibrium_stiffness(ev, t, q, lam)
        ev.constraints(t, q)
        T = np.zeros((n + m, n + m))   # unknowns (dq, dlam / fscale), force rows divided by fscale
        T[:n, :n] = K / fscale
        T[:n, n:] = -ev.J.T
        T[n:, :n] = ev.J
        d = np.linalg.lstsq(T, -np.concatenate([rf / fscale, phi]), rcond=LSTSQ_RCOND)[0]
        if not np.all(np.isfinite(d)):
            return NewtonResult(q, lam, it, False, f"non-finite Newton step at iteration {it + 1}")
        dq, dlam = d[:n], d[n:] * fscale
        if np.max(np.abs(dq), initial=0.0) <= ROUNDOFF_STEP * max(1.0, np.max(np.abs(q), initial=0.0)) \
                and norm <= ROUNDOFF_RESIDUAL:
            # the residual is round-off of forces that cancel (a stiff member: EA eps / L is 1e-8 N for steel):
            # the correction it asks for is below the coordinates' own precision
            return NewtonResult(q, lam, it, True)
        if watchdog and not fallback:              # the watchdog's full step, whatever its residual
            q_try, lam_try = q + dq, lam + dlam
            rf_try, phi_try = equilibrium_residual(ev, t, q_try, lam_try)
            norm_try = _scaled_norm(rf_try, phi_try, fscale)
            if np.isfinite(norm_try):
                q, lam, rf, phi, norm = q_try, lam_try, rf_try, phi_try, norm_try
                trial = 0 if norm < best[4] else trial + 1
                if trial == 0:
                    best = (q, lam, rf, phi, norm)
                elif trial >= watchdog:            # no progress: back to the best point, backtrack from there
                    q, lam, rf, phi, norm = best
                    fallback, trial = True, 0
                continue
        step = 1.0
        for _ in range(40):
            q_try, lam_try = q + step * dq, lam + step * dlam
            rf_try, phi_try = equilibrium_residual(ev, t, q_try, lam_try)
            norm_try = _scaled_norm(rf_try, phi_try, fscale)
            if np.isfinite(norm_try) and norm_try <= norm * (1.0 - 1e-4 * step):
                break
            step *= 0.5
        else:
            return NewtonResult(q, lam, it, False, f"no decrease of the residual along the Newton direction at "
                                                   f"iteration {it + 1} (scaled residual {norm:.3g})")
        q, lam, rf, phi, norm = q_try, lam_try, rf_try, phi_try, norm_try
        best, fallback = (q, lam, rf, phi, norm), False
    return NewtonResult(q, lam, max_iter, False, f"not converged in {max_iter} iterations (scaled residual "
                                                 f"{norm:.3g})")


def _unbalance_report(ev: Evaluator, t: float, q: np.ndarray, fscale: float, tol: float, k: int = 3) -> str:
    cm = ev.cm
    lam = static_multipliers(ev, t, q)
    rf, phi = equilibrium_residual(ev, t, q, lam)
    parts = []
    order = np.argsort(-np.abs(rf))[:k]
    coords = [f"{cm.q_names[i]} = {rf[i]:.4g}" for i in order if abs(rf[i]) > tol * fscale]
    if coords:
        parts.append("largest unbalanced generalized forces (N or N m): " + ", ".join(coords))
    rows = [f"{cm.row_label[i]} = {phi[i]:.3g}" for i in np.argsort(-np.abs(phi))[:k] if abs(phi[i]) > tol]
    if rows:
        parts.append("violated constraint rows: " + ", ".join(rows))
    return "; ".join(parts)


def moved_note(cm: CompiledModel, q_start: np.ndarray, q_eq: np.ndarray, start_unbalance: str, k: int = 3) -> str:
    """A sentence for the user when the equilibrium q_eq lies away from the assembled start q_start (some
    coordinate moved by more than MOVED, m or rad): the largest moves and the unbalance that drove them; "" if not."""
    dq = np.asarray(q_eq, dtype=float) - np.asarray(q_start, dtype=float)
    if not dq.size or np.max(np.abs(dq)) <= MOVED:
        return ""
    order = [i for i in np.argsort(-np.abs(dq))[:k] if abs(dq[i]) > MOVED]
    moves = ", ".join(f"{cm.q_names[i]} {q_start[i]:.4g} -> {q_eq[i]:.4g}" for i in order)
    why = f" At the start: {start_unbalance}." if start_unbalance else ""
    return (f"model '{cm.model.name}': the static equilibrium is not where the model starts (largest moves, m or "
            f"rad: {moves}).{why} If the model should rest where it starts, hold it there (a driver, an actuator "
            f"or input force, a spring).")


def statics(cm: CompiledModel, t: float = 0.0, q: np.ndarray | None = None, *, tol: float = 1e-9,
            max_iter: int = 50, evaluator: Evaluator | None = None, method: str = "auto",
            watchdog: int | None = None) -> Trajectory:
    """Static equilibrium (see _statics); the result gives the channels by name (``traj["crank.r[1]"]``). When
    the equilibrium lies away from the start, ``traj.notes`` says so (moved_note) and ``info['moved']`` is the
    largest coordinate change (m or rad)."""
    traj = _statics(cm, t, q, tol=tol, max_iter=max_iter, evaluator=evaluator, method=method, watchdog=watchdog)
    traj.model = cm
    return traj


def _statics(cm: CompiledModel, t: float = 0.0, q: np.ndarray | None = None, *, tol: float = 1e-9,
             max_iter: int = 50, evaluator: Evaluator | None = None, method: str = "auto",
             watchdog: int | None = None) -> Trajectory:
    """Static equilibrium at time t, starting from ``q`` (default: the model's initial positions), assembled first.

    ``method``: "newton", "relaxation" (dynamic relaxation, then Newton polish) or "auto" (Newton; then
    relaxation if Newton fails or lands on an unstable equilibrium, as a user asking for "the" static
    equilibrium of a free mechanism means the stable one; the unstable Newton result is returned only if
    relaxation finds nothing). "newton" may return an unstable equilibrium (check 'omega2_min'); relaxation
    only comes to rest at stable ones. ``watchdog``: newton_equilibrium's (None: WATCHDOG for models with beam
    elements, else 0). Returns a one-row Trajectory (qd = qdd = 0) whose ``lam``
    gives reactions and driver efforts through ``reactions.joint_reactions`` / ``driver_efforts``; the
    evaluator is left evaluated at the equilibrium for those calls, with its RSDA turn reference set there.
    ``info``: 'iterations' (final Newton), 'relaxation_steps', 'residual' (max of max|R| / force scale and
    max|Phi|), 'residual_force' (N), 'residual_position' (m or rad) and 'omega2_min' (1/s^2, lowest
    eigenvalue of the reduced stiffness against the reduced mass: negative for an unstable equilibrium, nan
    without degrees of freedom). Raises ConvergenceError naming the model and the worst unbalanced
    coordinates and constraint rows when no equilibrium is found.
    """
    if method not in METHODS:
        raise AnalysisError(f"model '{cm.model.name}': unknown statics method '{method}' (use one of {METHODS})")
    ev = evaluator or Evaluator(cm)
    if watchdog is None:
        watchdog = WATCHDOG if len(cm.arrays.gebeam.mi) else 0
    q_a, _ = assemble_positions(ev, t, cm.q0 if q is None else np.asarray(q, dtype=float))
    fscale = force_scale(ev, t, q_a)
    start_unbalance = _unbalance_report(ev, t, q_a, fscale, tol)

    def noted(traj: Trajectory) -> Trajectory:
        traj.info["moved"] = np.atleast_1d(float(np.max(np.abs(traj.q[0] - q_a), initial=0.0)))
        note = moved_note(cm, q_a, traj.q[0], start_unbalance)
        if note:
            traj.notes.append(note)
        return traj
    attempts = []
    steps = 0
    unstable = None
    if method != "relaxation":
        res = newton_equilibrium(ev, t, q_a, static_multipliers(ev, t, q_a), fscale, tol, max_iter, watchdog)
        if res.converged:
            traj = _finish(ev, t, res, fscale, "statics (newton)", 0)
            if method == "newton" or not traj.info["omega2_min"][0] < 0.0:
                return noted(traj)
            unstable = traj   # auto: look for a stable equilibrium before settling for this one
        else:
            attempts.append(f"newton from the assembled start: {res.message}")
            last_q, where = res.q, "the last Newton iterate"
    if method != "newton":
        from .relaxation import dynamic_relaxation  # relaxation.py imports this module's helpers

        try:
            rel = dynamic_relaxation(ev, t, q_a, fscale=fscale)
        except ConvergenceError:
            if unstable is None:
                raise
            return noted(_refinish(ev, unstable))
        steps = rel.steps
        last_q, where = rel.q, "the end of the relaxation"
        attempts.append(f"dynamic relaxation: {rel.message}")
        res = newton_equilibrium(ev, t, rel.q, rel.lam, fscale, tol, max_iter, watchdog)
        if res.converged:
            return noted(_finish(ev, t, res, fscale, "statics (dynamic relaxation + newton)", steps))
        attempts.append(f"newton after relaxation: {res.message}")
        if unstable is not None:
            return noted(_refinish(ev, unstable))
    raise ConvergenceError(f"model '{cm.model.name}': no static equilibrium found at t = {t:g} s ("
                           + "; ".join(attempts) + f"). At {where}: "
                           + (_unbalance_report(ev, t, last_q, fscale, tol) or "no unbalance above tolerance"))


def load_increments(cm: CompiledModel, times, *, tol: float = 1e-9, max_iter: int = 50,
                    method: str = "newton") -> Trajectory:
    """Static equilibria along a load path (load increments): the model's loads given as functions of a pseudo-time
    t (a Linear ramp of a point load), one equilibrium per entry of ``times`` (s, increasing), each Newton solve
    starting from the previous equilibrium, so large deflections are reached in steps that each stay inside
    Newton's region of convergence (seed 000 §11.3.7: "load in 6 equal increments"). Returns one row per time,
    with the channels by name; ConvergenceError names the increment that failed."""
    times = np.asarray(times, dtype=float)
    if times.ndim != 1 or not times.size or np.any(np.diff(times) <= 0.0):
        raise AnalysisError(f"model '{cm.model.name}': load increments need increasing times, got {times}")
    ev = Evaluator(cm)
    q, rows = None, []
    for k, t in enumerate(times):
        try:
            row = _statics(cm, float(t), q, tol=tol, max_iter=max_iter, evaluator=ev, method=method)
        except ConvergenceError as e:
            raise ConvergenceError(f"load increment {k + 1} of {len(times)} (t = {t:g}): {e}") from e
        q = row.q[0]
        rows.append(row)
    info = {key: np.concatenate([r.info[key] for r in rows]) for key in rows[0].info}
    traj = Trajectory(times, *(np.vstack([getattr(r, a) for r in rows]) for a in ("q", "qd", "qdd", "lam")),
                      u=np.vstack([r.u for r in rows]), info=info, analysis=f"statics ({len(times)} load increments)")
    traj.model = cm
    return traj


def _refinish(ev: Evaluator, traj: Trajectory) -> Trajectory:
    """Leave the evaluator at an earlier result's equilibrium again (for reactions) and return it."""
    t, q, lam = float(traj.t[0]), traj.q[0], traj.lam[0]
    equilibrium_residual(ev, t, q, lam)
    ev.zs[:] = ev.zn
    return traj


def _finish(ev: Evaluator, t: float, res: NewtonResult, fscale: float, analysis: str, steps: int) -> Trajectory:
    q = res.q
    lam = static_multipliers(ev, t, q) if ev.cm.n_rows else res.lam   # minimum norm if rows are redundant
    K = equilibrium_stiffness(ev, t, q, lam)
    M = ev.mass(q).copy()
    rf, phi = equilibrium_residual(ev, t, q, lam)   # also leaves ev.J, ev.jtw and the frames at q
    ev.zs[:] = ev.zn                                 # later analyses count RSDA turns from the equilibrium
    w2 = reduced_eigenvalues(-K, M, ev.J)
    rf_max = float(np.max(np.abs(rf))) if rf.size else 0.0
    phi_max = float(np.max(np.abs(phi))) if phi.size else 0.0
    zero = np.zeros_like(q)
    traj = Trajectory.single(t, q, zero, zero, lam, analysis, iterations=res.iterations, relaxation_steps=steps,
                             residual=max(rf_max / fscale, phi_max), residual_force=rf_max,
                             residual_position=phi_max, omega2_min=w2[0] if w2.size else np.nan)
    traj.u = np.atleast_2d(ev.u.copy())
    return traj
