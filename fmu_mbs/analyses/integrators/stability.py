"""What limits an explicit step: the highest frequency of the linearised equations of motion at a state, and the
energy-balance drift of a run.

The frequency is the spectral radius of the first-order Jacobian F = [[0, I], [dqdd/dq, dqdd/dqd]] of the index-1
accelerations (analyses.assembly.solve_dynamics), estimated by power iteration with finite-difference products
F v = (v_qd, (qdd(q + e v_q, qd + e v_qd) - qdd(q, qd)) / e): ||F^k v||^(1/k) tends to the largest |eigenvalue|
whether it is real (a stiff spring or damper) or a complex pair (an oscillation, a spin), independent of the
units of the coordinates. An explicit Runge-Kutta step is stable for h |mu| below a bound of the method (about 2
for the midpoint rule and 3 for Dormand-Prince 5(4) on the negative real axis; Hairer & Wanner, Solving ODEs II,
IV.2), so 2 / |mu| is the step it reports.
"""

from __future__ import annotations

import numpy as np

from ...compiler import CompiledModel
from ..assembly import solve_dynamics
from ..evaluate import Evaluator
from ..linear import independent_rows


def highest_frequency(cm: CompiledModel, t: float, q: np.ndarray, qd: np.ndarray, iterations: int = 40,
                      seed: int = 0) -> float:
    """Estimated largest |eigenvalue| (1/s, rad/s for an oscillation) of the linearised equations of motion at
    (t, q, qd); NaN if the accelerations cannot be evaluated there."""
    ev = Evaluator(cm)
    n = cm.n_q
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    try:
        ev.constraints(t, q)
        rows = independent_rows(ev.J)[0] if cm.n_rows else None
        a0, _ = solve_dynamics(ev, t, q, qd, rows)
    except (np.linalg.LinAlgError, ValueError):
        return float("nan")
    scale = 1.0 + float(np.max(np.abs(np.concatenate([q, qd]))))
    v = np.random.default_rng(seed).standard_normal(2 * n)
    v /= np.linalg.norm(v)
    logs = []
    for _ in range(iterations):
        e = 1e-7 * scale
        try:
            a1, _ = solve_dynamics(ev, t, q + e * v[:n], qd + e * v[n:], rows)
        except np.linalg.LinAlgError:
            return float("nan")
        w = np.concatenate([v[n:], (a1 - a0) / e])
        size = float(np.linalg.norm(w))
        if not (np.isfinite(size) and size > 0.0):
            break
        logs.append(np.log(size))
        v = w / size
    if not logs:
        return float("nan")
    tail = logs[len(logs) // 2:]              # the growth rate once the dominant eigenvalues have taken over
    return float(np.exp(np.mean(tail)))


def energy_drift(report: np.ndarray, e0: float, scale: float) -> tuple[float, int]:
    """(largest |E - e0| / scale, the report row where it occurs) of E = kinetic + potential + dissipated - input
    per step (report rows of REPORT_KEYS); (0, -1) if the balance is not kept (NaN work)."""
    from ...kernels import integrate_alf as K
    if len(report) == 0:
        return 0.0, -1
    E = report[:, K.REP_KIN] + report[:, K.REP_POT] + report[:, K.REP_DISS] - report[:, K.REP_IN]
    if not np.all(np.isfinite(E)):
        return 0.0, -1
    d = np.abs(E - e0) / scale
    k = int(np.argmax(d))
    return float(d[k]), k
