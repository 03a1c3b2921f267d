"""Accurate variable-step reference integration (for validating the fixed-step integrators).

The index-1 form M qdd + Phi_q^T lam = Q, Phi_q qdd = gamma (analyses.assembly.solve_dynamics) gives
y' = (qd, qdd, P_diss, P_in), integrated by scipy's solve_ivp (DOP853 or Radau) between output
times; at every output time q and qd are projected back onto Phi = 0 and Phi_q qd = nu (minimum-norm
Newton and least-squares corrections, analyses.assembly) and the integration restarts from there
(coordinate projection, Hairer & Wanner VII.2). Not for singular positions: the KKT matrix is
singular there. Passive cylinders take the end accelerations of the right-hand side itself (a fixed point of
store and solve, analyses.assembly.passive_consistent_dynamics): no one-step lag, unlike the fixed-step solvers.
Joint friction enters through the fixed-point iteration of solve_dynamics (its reaction
depends on lam); its bristle law, whose deflection integrates per fixed step, is not available here.
"""

from __future__ import annotations

import numpy as np

from ...compiler import CompiledModel
from ...compiler.families import needs_after_step
from ...errors import AnalysisError, ConvergenceError
from ...kernels.model_arrays import MODE_CONSERVATIVE, MODE_DAMPED, MODE_FULL
from ...model.elements import JointFriction
from ..assembly import (
    AssemblyResult,
    assemble,
    assemble_positions,
    passive_consistent_dynamics,
    solve_dynamics,
    solve_velocities,
)
from ..evaluate import Evaluator
from ..linear import independent_rows
from ..trajectory import Trajectory
from .alf import REPORT_KEYS, nonconservative


class _Powers:
    """Dissipated and input power (W) at a state, from the force modes of the ALF kernel (full, damped,
    conservative: kernels.model_arrays MODE_*)."""

    def __init__(self, cm: CompiledModel, ev: Evaluator):
        self.ev = ev
        self.noncons = nonconservative(cm)

    def __call__(self, t: float, q: np.ndarray, qd: np.ndarray, lam: np.ndarray) -> tuple[float, float]:
        ev = self.ev
        p_in = -float(lam @ ev.nu)                      # rheonomic constraints (drivers): -lam . nu
        if not (self.noncons or np.any(ev.u)):
            return 0.0, p_in
        Q = {}
        for mode in (MODE_DAMPED, MODE_CONSERVATIVE, MODE_FULL):     # the full one last: its outputs and states stay
            ev.forces(t, q, qd, mode)
            Q[mode] = ev.joint_friction(q, lam, mode).copy()
        Qf, Qd, Qc = Q[MODE_FULL], Q[MODE_DAMPED], Q[MODE_CONSERVATIVE]
        return float(-(Qd - Qc) @ qd), p_in + float((Qf - Qd) @ qd)


def integrate_reference(cm: CompiledModel, t_out: np.ndarray, initial: AssemblyResult | None = None, *,
                        method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-10,
                        max_step: float = np.inf, progress=None) -> Trajectory:
    """Trajectory at the times ``t_out`` (s, increasing, t_out[0] = start time) from ``initial`` (default:
    assemble(cm) at t_out[0]). ``info`` holds REPORT_KEYS; 'iterations' = right-hand-side evaluations
    per output interval; 'rejected' stays 0 (solve_ivp keeps its step control to itself)."""
    from scipy.integrate import solve_ivp  # here: it imports scipy.optimize (~0.3 s at every FMU start-up)

    t_out = np.asarray(t_out, dtype=float)
    for f in cm.model.forces:
        if isinstance(f, JointFriction) and f.friction == "bristle":
            raise AnalysisError(f"joint friction '{f.name}': the bristle law's deflection is a per-step state of "
                                f"the fixed-step integrators; the reference integrator takes coulomb or stribeck "
                                f"joint friction only (use integrator 'alf' or 'galpha')")
    initial = initial if initial is not None else assemble(cm, t=float(t_out[0]))
    ev = Evaluator(cm)
    powers = _Powers(cm, ev)
    n = cm.n_q
    passive = needs_after_step(cm.arrays)
    ev.constraints(float(t_out[0]), initial.q)
    rows = independent_rows(ev.J)[0]

    def rhs(t, y):
        q, qd = y[:n], y[n:2 * n]
        try:
            qdd, lam = solve_dynamics(ev, t, q, qd, rows)
        except np.linalg.LinAlgError:
            raise ConvergenceError(f"model '{cm.model.name}': reference integration: singular KKT matrix at "
                                   f"t = {t:.9g} s (a singular position, or a coordinate without mass or "
                                   f"constraint); the ALF integrator passes such states") from None
        if passive:                                    # passive cylinders: their inertia at these accelerations
            qdd, lam = passive_consistent_dynamics(ev, t, q, qd, rows, qdd, lam)
        ev.zs[:] = ev.zn                               # element states (turn counting) follow the solution
        p_diss, p_in = powers(t, q, qd, lam)
        return np.concatenate([qd, qdd, [p_diss, p_in]])

    N = len(t_out)
    out = {k: np.zeros((N, n)) for k in ("q", "qd", "qdd")}
    lam_out = np.zeros((N, cm.n_rows))
    info = {k: np.zeros(N) for k in REPORT_KEYS}
    y = np.concatenate([initial.q, initial.qd, [0.0, 0.0]])
    for i, t in enumerate(t_out):
        if i > 0:
            sol = solve_ivp(rhs, (t_out[i - 1], t), y, method=method, rtol=rtol, atol=atol, max_step=max_step)
            if not sol.success:
                raise ConvergenceError(f"model '{cm.model.name}': reference integration failed between "
                                       f"t = {t_out[i - 1]:.9g} s and {t:.9g} s: {sol.message}")
            y = sol.y[:, -1].copy()
            info["iterations"][i] = sol.nfev
        # coordinate projection onto the constraint manifold, then consistent accelerations
        q, _ = assemble_positions(ev, t, y[:n])
        qd = solve_velocities(ev, t, q, y[n:2 * n])
        y[:n], y[n:2 * n] = q, qd
        ev.constraints(t, q, qd)
        rows = independent_rows(ev.J)[0]
        qdd, lam = solve_dynamics(ev, t, q, qd, rows)
        if passive:
            qdd, lam = passive_consistent_dynamics(ev, t, q, qd, rows, qdd, lam)
        out["q"][i], out["qd"][i], out["qdd"][i], lam_out[i] = q, qd, qdd, lam
        info["residual_position"][i] = np.max(np.abs(ev.phi), initial=0.0)
        info["residual_velocity"][i] = np.max(np.abs(ev.J @ qd - ev.nu), initial=0.0)
        info["residual_acceleration"][i] = np.max(np.abs(ev.J @ qdd - ev.gamma), initial=0.0)
        info["energy_kinetic"][i] = ev.kinetic_energy(q, qd)
        info["energy_potential"][i] = ev.gravity_energy(q) + ev.spring_energy
        info["energy_dissipated"][i], info["energy_input"][i] = y[2 * n], y[2 * n + 1]
        if progress is not None:
            progress((t - t_out[0]) / max(t_out[-1] - t_out[0], 1e-300))
    return Trajectory(t_out.copy(), out["q"], out["qd"], out["qdd"], lam_out, u=np.zeros((N, cm.n_inputs)),
                      info=info, analysis="dynamics (reference)")
