"""The projections that end an accepted variable step (kernels/integrate_dopri.py): mass-orthogonal corrections of the
Runge-Kutta solution onto the position constraints Phi = 0 and the velocity constraints Phi_q qd = nu (Hairer,
Lubich & Wanner, Geometric Numerical Integration, IV.4; the T = M + c Phi_q^T Phi_q form of
kernels/integrate_alf.project):

  q  <- q - T(q_1)^-1 c Phi_q^T Phi(q)          passes while max |Phi| > tol (at most MAX_POSITION_PASSES)
  qd <- qd + T(q)^-1 c Phi_q^T (nu - Phi_q qd)   at the projected q, once max |Phi_q qd - nu| > tol

The velocity projection factorises T again at the projected positions when the position passes moved them: with
T(q_1) and the Jacobian at the projected q, the correction is amplified in the directions that the old Jacobian
leaves to the mass alone, by about c |Phi_q(q) - Phi_q(q_1)| / m (penalty x mass ratio x the position correction:
measured 76 m/s of spurious velocity after a 9e-5 m position correction on the spatial slider-crank from 40 rad/s
at rtol 1e-2, and NaN two steps later). The factorisation at the projected positions also serves the end state's
accelerations.

The step is refused (the caller rejects it and retries with a fifth of its size) when T is not positive definite
at the new positions, when the position passes leave max |Phi| above max(10 tol, 0.01 atol), or when a correction
is larger than PROJ_MAX times the step's error tolerance atol + rtol |y| on any component: then the Runge-Kutta
solution left the constraints by more than its error estimate says, which happens at loose tolerances in fast
motion, where the index-1 solution drifts quadratically within a step.
"""

from __future__ import annotations

import math

from numba import njit

from .bodies.dispatch import mass_blocks
from .inner import inner_kernel
from .integrate_alf import project
from .linalg import env_cholesky, env_solve_permuted
from .model_arrays import FALSE
from .system import assemble_iteration_matrix, eval_frames_ws, eval_rows_ws, jac_t_times, jac_times

MAX_POSITION_PASSES = 3
PROJ_MAX = 10.0        # a correction beyond this many times the error tolerance refuses the step

#: why a projection refused a step (returned, and kept in DopriWork.ctl[C_REFUSED] for the messages)
REFUSED_SINGULAR = 1   # T not positive definite at the new positions
REFUSED_POSITION = 2   # the position passes did not bring max |Phi| down
REFUSED_SIZE = 3       # a correction larger than PROJ_MAX x the error tolerance


@njit(cache=True, _nrt=False, inline="always")
def _factorise(m, bv, pat, st, ws, c, pivot):
    """T = M + c Phi_q^T Phi_q at st.q (rows in ws.rows) into ws.val; the failing envelope row or -1."""
    mass_blocks(bv, st.q, ws.mb)
    assemble_iteration_matrix(bv, ws.mb, ws.rows.jac, c, ws.Wx, FALSE, pat, ws.val)
    return env_cholesky(pat.first, pat.ptr, ws.val, pivot)


@njit(cache=True, _nrt=False, inline="always")
def _max_abs(x):
    worst = 0.0
    for k in range(x.shape[0]):
        if not abs(x[k]) <= worst:     # NaN wins
            worst = abs(x[k])
    return worst


@inner_kernel(_nrt=False)
def project_step(m, bv, pat, st, ws, t1, tol, c, pivot, rtol, atol, limit):
    """Project the state (t1, st.q, st.qd) onto the constraints (module docstring); the unprojected state must be
    in ws.q0, ws.qd0; ``limit``: refuse a correction beyond PROJ_MAX x the error tolerance (a step's end; not for a
    start state, whose violation does not shrink with the step). Returns (0 or REFUSED_*, the failing envelope row
    for REFUSED_SINGULAR else -1, whether T is factorised at the returned positions and ws.rows are those of the
    returned state)."""
    n = st.q.shape[0]
    nr = st.lam.shape[0]
    rc = m.row_cols
    rows = ws.rows
    eval_frames_ws(m, st.q, st.qd, ws.fr)
    eval_rows_ws(m, t1, st.q, st.qd, ws.fr, rows)
    if nr == 0:
        return 0, -1, False
    factorised = False
    worst = _max_abs(rows.phi)
    if worst > tol:
        bad = _factorise(m, bv, pat, st, ws, c, pivot)
        if bad >= 0:
            return REFUSED_SINGULAR, bad, False
        for _ in range(MAX_POSITION_PASSES):
            for i in range(n):
                ws.rhs[i] = 0.0
            jac_t_times(rc, rows.jac, rows.phi, ws.rhs, -c)
            env_solve_permuted(pat.first, pat.ptr, ws.val, pat.pos, ws.rhs, ws.work)
            for i in range(n):
                st.q[i] += ws.rhs[i]
            eval_frames_ws(m, st.q, st.qd, ws.fr)
            eval_rows_ws(m, t1, st.q, st.qd, ws.fr, rows)
            worst = _max_abs(rows.phi)
            if not worst > tol:
                break
        if not worst <= max(10.0 * tol, 0.01 * atol):
            return REFUSED_POSITION, -1, False
        bad = _factorise(m, bv, pat, st, ws, c, pivot)      # T where the velocities are projected
        if bad >= 0:
            return REFUSED_SINGULAR, bad, False
        factorised = True
    jac_times(rc, rows.jac, st.qd, ws.y)
    worst = 0.0
    for k in range(nr):
        if not abs(ws.y[k] - rows.nu[k]) <= worst:
            worst = abs(ws.y[k] - rows.nu[k])
    if worst > tol:
        if not factorised:
            bad = _factorise(m, bv, pat, st, ws, c, pivot)
            if bad >= 0:
                return REFUSED_SINGULAR, bad, False
            factorised = True
        project(rc, rows.jac, rows.nu, c, pat.first, pat.ptr, ws.val, pat.pos, ws.work, ws.y, ws.rhs, st.qd)
        eval_frames_ws(m, st.q, st.qd, ws.fr)          # gamma and the frames' velocities at the new qd
        eval_rows_ws(m, t1, st.q, st.qd, ws.fr, rows)
    if not limit:
        return 0, -1, factorised
    size = 0.0
    for i in range(n):
        sq = abs(st.q[i] - ws.q0[i]) / (atol + rtol * max(abs(st.q[i]), abs(ws.q0[i])))
        sv = abs(st.qd[i] - ws.qd0[i]) / (atol + rtol * max(abs(st.qd[i]), abs(ws.qd0[i])))
        if not (sq <= size and sv <= size):
            size = max(sq, sv) if (math.isfinite(sq) and math.isfinite(sv)) else math.inf
    if size > PROJ_MAX:
        return REFUSED_SIZE, -1, False
    return 0, -1, factorised
