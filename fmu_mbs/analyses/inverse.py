"""Inverse dynamics of a fully driven mechanism: the forces that make it follow its drivers.

The motion comes from the kinematic analysis (``kinematics.kinematics``); with it known, the equations
of motion M qdd + Phi_q^T lam = Q are linear in lam (seed 004 §3.10 supplement, Haug §11.3):
Phi_q^T lam = Q - M qdd, solved for the minimum-norm lam (unique unless constraints are redundant).
Driver efforts -lam_driver (``reactions.driver_efforts``) are the actuator forces / torques (N, N m),
joint reactions follow from ``reactions.joint_reactions``.

Split with ``kinematics``: a kinematic run already returns these multipliers (reactions are available
from every analysis) but can skip them (``multipliers=False``); ``inverse_dynamics`` always computes
them and adds the power and energy terms that an actuator sizing needs (info 'driver_power' W,
'kinetic_energy', 'gravity_energy', 'spring_energy' J), so that the work of the drivers can be checked
against the change of mechanical energy.
"""

from __future__ import annotations

import numpy as np

from ..compiler import CompiledModel
from ..compiler.families import needs_after_step
from .assembly import joint_friction_fixed_point
from .evaluate import Evaluator
from .kinematics import Progress, kinematics
from .linear import min_norm_multipliers
from .trajectory import Trajectory


def inverse_dynamics_at(cm: CompiledModel, t: float, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                        evaluator: Evaluator | None = None) -> np.ndarray:
    """Minimum-norm multipliers lam with Phi_q^T lam = Q(t, q, qd) - M(q) qdd at one consistent state.
    Leaves ``evaluator`` holding constraints and frames at that state (ready for ``joint_reactions``)."""
    ev = evaluator or Evaluator(cm)
    q, qd, qdd = (np.asarray(x, dtype=float) for x in (q, qd, qdd))
    M = ev.mass(q).copy()
    if needs_after_step(cm.arrays):             # after-step hooks (passive cylinders: inertia at the known qdd)
        ev.forces(t, q, qd)
        ev.after_step(q, qdd)
    Q = ev.forces(t, q, qd).copy()
    ev.constraints(t, q, qd)
    if cm.n_rows == 0:
        return np.zeros(0)
    lam = min_norm_multipliers(ev.J, Q - M @ qdd)
    if ev.has_joint_friction:             # friction loaded by the reactions: fixed point on lam
        (lam,) = joint_friction_fixed_point(ev, t, q, Q, lam, lambda Qf: (min_norm_multipliers(ev.J, Qf - M @ qdd),))
    return lam


def driver_effort_history(cm: CompiledModel, traj: Trajectory) -> dict[str, np.ndarray]:
    """{driver name: effort over time (N or N m)}, the generalized force each driver applies along its
    coordinate (positive along increasing coordinate), -lam of the driver row."""
    return {name: -traj.lam[:, row] for name, row in cm.driver_rows.items()}


def inverse_dynamics(cm: CompiledModel, t_end: float, step: float, t_start: float = 0.0,
                     progress: Progress | None = None, evaluator: Evaluator | None = None) -> Trajectory:
    """Inverse dynamic analysis from t_start to t_end (s), output interval ``step`` (s): the driven motion,
    multipliers lam (M qdd + Phi_q^T lam = Q) and, in info, besides the kinematic residuals:
    'driver_power' (W, sum over drivers of effort times coordinate rate), 'kinetic_energy',
    'gravity_energy' and 'spring_energy' (J). Raises AnalysisError if the model has free degrees of
    freedom."""
    ev = evaluator or Evaluator(cm)
    traj = kinematics(cm, t_end, step, t_start, progress, ev, multipliers=True)
    traj.analysis = "inverse_dynamics"
    N = len(traj)
    power, kin, grav, spring = np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N)
    rows = np.array(list(cm.driver_rows.values()), dtype=int)
    for k in range(N):
        t, q, qd = traj.t[k], traj.q[k], traj.qd[k]
        ev.constraints(t, q, qd)
        power[k] = -float(traj.lam[k, rows] @ ev.nu[rows]) if rows.size else 0.0
        ev.forces(t, q, qd)
        spring[k] = ev.spring_energy
        kin[k] = ev.kinetic_energy(q, qd)
        grav[k] = ev.gravity_energy(q)
    traj.info.update(driver_power=power, kinetic_energy=kin, gravity_energy=grav, spring_energy=spring)
    return traj
