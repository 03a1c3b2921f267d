"""Index-3 augmented Lagrangian with mass-orthogonal projections (ALI3-P), on the trapezoidal rule or its
generalisation, the generalized-alpha scheme with numerical damping.

Bayo & Ledesma (Nonlinear Dyn. 1996); Cuadrado, Cugnon, Dopico & Naya (Multibody Syst. Dyn. 2000);
seed 000 eqs. 8.124-8.129 and 5.37 (penalty 1e7 x max M); generalized-alpha in the form of Arnold & Bruels
(Multibody Syst. Dyn. 18:185-202, 2007) with the Chung-Hulbert parameters (J. Appl. Mech. 60:371, 1993) of a
spectral radius at infinity rho in [0, 1]: am = (2 rho - 1)/(rho + 1), af = rho/(rho + 1), gam = 1/2 + af - am,
beta = (gam + 1/2)^2 / 4. Equilibrium holds at t + h; the pseudo-acceleration a is an extra state:

  (1 - am) a_1 + am a_n = (1 - af) qdd_1 + af qdd_n
  q_1 = q_n + h qd_n + h^2 (1/2 - beta) a_n + h^2 beta a_1,   qd_1 = qd_n + h (1 - gam) a_n + h gam a_1

rho = 1 gives am = af = gam = 1/2, beta = 1/4 and a = qdd: the trapezoidal rule, coefficient for coefficient
(the code below then computes the same floating-point operations as the trapezoidal ALF). Per step t -> t + h,
positions primary (d = q - q_n):

  qd = gam/(beta h) d + (1 - gam/beta) qd_n + h (1 - gam/(2 beta)) a_n               (trapezoidal: 2/h d - qd_n)
  qdd = ka d + kv qd_n + kaa a_n + kq qdd_n,  ka = (1 - am)/((1 - af) beta h^2) = dqdd/dq, kv = -ka h,
        kaa = (am - (1 - am)(1/2 - beta)/beta)/(1 - af), kq = -af/(1 - af)     (trapezoidal: 4/h^2 d - 4/h qd_n - qdd_n)
  residual  f(q) = s (M qdd - Q) + Phi_q^T (s lam* + c Phi),  s = 1/ka,  alpha = c ka   (trapezoidal: s = h^2/4)
  tangent   T = W + c Phi_q^T Phi_q,   W = M + s (dqd/dq) C + s K   (C = -dQ/dqd, K = -dQ/dq, optional,
            by finite differences, symmetrised; trapezoidal: s dqd/dq = h/2)
  Newton    T dq = -f from the predictor q_n + h qd_n + h^2/2 qdd_n (eq. 8.135), lam* += alpha Phi after
            every iteration (augmented Lagrangian update, lam* carried over steps); converged when
            max |dq| <= tol after at least one correction; that last dq is applied and the factorisation
            of its iteration serves both projections:
            T qd = W qd* + c Phi_q^T nu,   T qdd = W qdd* + c Phi_q^T gamma(q, qd)
            (solved in correction form, T (qd - qd*) = c Phi_q^T (nu - Phi_q qd*), so that round-off
            scales with the correction: with c = 1e7 kg the plain form lost ~1e-7 rad per 0.3 s)
  multipliers lam* += alpha (Phi + Phi_q dq) (the last correction's share), reported
            lam = lam* + c (Phi_q qdd - gamma) (the acceleration projection's share): second-order
            accurate, where lam* is first order.
  pseudo-acceleration  a_1 from the projected qdd_1 through the first relation above, so that a stays
            consistent with the accelerations the next step starts from (no projection acts on a model
            without constraints, where the scheme is exactly Chung-Hulbert's).

Joint friction (kernels/joint_friction.py) is loaded by the joint's reaction, i.e. by the multipliers: every
Newton iteration evaluates it with the estimate lam* + (lam_n - lam*_n), the iterate's AL multiplier (after its
update) plus the previous step's acceleration-projection share. lam* alone is first order (on the friction pendulum
of tests/test_joint_friction.py it is off by 1.6e-3 of the reaction at h = 5e-4 s) while that share changes by
O(h^2) per step (1.8e-5 there), so the friction is second order and a converged step carries the friction of its
own equilibrium. The finite-difference tangent keeps the reaction frozen (twist rows of the predictor and that
estimate), so it holds only the friction's slip and bristle terms.

c = penalty x (largest mass-matrix diagonal) is independent of h, so steps of any size share the
conditioning. The whole step loop runs here; the caller allocates every array once.

Energy-consistent trapezoid (OPT_ENERGY = 1, trapezoidal rule only). The ALI3-P scheme above loses energy at
large rotations per step (seed 000 E7.2 at 100 rad/s, h = 1 ms: 2.9 % in 20 s): its trapezoid applies the
constraint impulse h/2 (Phi_q(q_n)^T lam_n + Phi_q(q_1)^T lam_1), whose work on the chord dq = q_1 - q_n is,
for a quadratic row (Phi_q(q_1) dq = -Phi_q(q_n) dq = dq^T A dq / 2 when Phi(q_n) = Phi(q_1) = 0),
(lam_n - lam_1) dq^T A dq / 4 per step (two thirds of the loss), and the mass-orthogonal velocity projection
removes the kinetic energy of the velocity it cuts (one third); without the projections the scheme is unstable
(the multipliers' -1 eigenvalue). The energy-consistent variant applies the constraint impulse on the chord
gradient instead, as energy-momentum / discrete-gradient methods do (Gonzalez, J. Nonlinear Sci. 9:293, 1999):

  M (qd_1 - qd_n) = h/2 (Q_n + Q_1) - h/2 K^T lam,   K = Phi_q(q_n) + Phi_q(q_1),   Phi(q_1) = 0,

For a quadratic row (distance and point rows of point masses; any row linear in q) K dq / 2 = Phi(q_1) - Phi(q_n)
exactly, so the constraint impulse does no work, and with constant M the kinetic energy changes by exactly
dq^T (Q_n + Q_1) / 2 (the trapezoidal work of the applied forces; exact for gravity). For other rows K/2 is the
trapezoidal average of the gradient: still second order, energy no longer exact. The state carries the trapezoid's
own velocity vt and acceleration at (unprojected) and the end-point constraint force gc = Q - M at (so that
M_n at_n + gc_n = Q_n for any M(q)); the residual is

  f(q) = s (M qdd - Q - gc_n) + K^T (s lam* + c Phi),   qdd = 4/h^2 d - 4/h vt_n - at_n,

with the symmetric iteration matrix T = W + c/2 K^T K + s sum_k lh_k d2Phi_k/dq2 (the true constraint tangent
c K^T Phi_q(q_1) is not symmetric: each Newton correction is refined by fixed-point passes dq <- -T^-1 (f + c/2 K^T
(Phi_q(q_1) - Phi_q(q_n)) dq), which contract by about half the rotation of a row per step). The last term is the
geometric stiffness of the point rows (kernels/row_hessians.py) with the multiplier extrapolated to the step's
middle, lh = 2 lam_n - lam*_n; without it Newton is linear with rate h^2 lam / (4 m) (E7.2: 5.4 iterations per step
at h = 1 ms, 3.0 with it); if it makes T indefinite the iteration drops it. The AL update lam* += alpha Phi is
skipped after a correction with |dq|^2 > tol: the Phi of its quadratic remainder would make a multiplier jump
c Phi / s that the next correction has to undo (it halved that correction only). The velocity constraint of the
state is not enforced (Phi_q(q_mid) (vt_n + vt_1) = 0 holds; the end-point violation stays bounded); the
reported qd and qdd are the consistent ones: qd the mass-orthogonal projection of vt, qdd and lam the
augmented-Lagrangian solution of M qdd + Phi_q^T lam = Q, Phi_q qdd = gamma(q, qd) started from at (in
correction form: T dqdd = gc - Phi_q^T lam* + c Phi_q^T (gamma - Phi_q at), lam = lam* + c (Phi_q qdd - gamma)).
These outputs do not feed back into the step, so the projections remove no energy. Measured on E7.2 (h = 1 ms,
20 s): |E - E0|/E0 = 3e-7 (ALI3-P 2.9e-2; the book's joint-coordinate trapezoid 4.6e-4).

Energy bookkeeping per step (trapezoidal in time): W_diss = int P_diss dt with P_diss the power
removed by dampers, W_in = int P_in dt with P_in the power of time functions, loads, inputs,
actuators and drivers (-lam . nu). P come from three force evaluations with model variants
(system.force_variant): full, conservative + dampers, conservative. OPT_ENERGY_BALANCE = 0 skips them (four
force evaluations per step on a model with dampers, contact or inputs: a quarter of a large contact scene's
step); W_diss and W_in are then NaN.
"""

from __future__ import annotations

import math

from numba import njit

from .constraints import eval_constraint_rows
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW, add_contact_forces
from .linalg import env_cholesky, env_solve_permuted
from .model_arrays import ModelArrays
from .passive_cylinder import store_end_accelerations
from .row_hessians import add_geometric_stiffness
from .system import (
    VARIANT_CONSERVATIVE,
    VARIANT_DAMPED,
    VARIANT_NO_INPUTS,
    add_marker_inputs,
    assemble_iteration_matrix,
    base_forces_ws,
    eval_frames_ws,
    fd_force_jacobian,
    force_variant,
    jac_t_times,
    jac_times,
    joint_friction_ws,
    mass_blocks,
    mass_times,
    powers,
    step_report,
)

# status codes returned by alf_advance
OK = 0
SINGULAR = 1        # iteration matrix not positive definite
NOT_FINITE = 2      # NaN or inf in the Newton correction
DIVERGED = 3        # a Newton correction exceeds 100 times the smallest one of the step
NOT_CONVERGED = 4   # max_iter reached with the correction above accept_tol
CONTACT_PAIRS = 5   # the contact pair buffer was too short (the caller grows it and redoes the step)
CONTACT_STATES = 6  # the contact state table is full (compile option contact_state_capacity)

# option vector layout (float64 array)
OPT_C = 0           # c = penalty * m_ref (kg)
OPT_TOL = 1         # convergence: max |dq| <= tol
OPT_ACCEPT = 2      # accept after max_iter if max |dq| <= accept_tol
OPT_MAX_ITER = 3
OPT_USE_FD = 4      # 1: add h/2 C + h^2/4 K (finite differences) to W
OPT_NONCONS = 5     # 1: the model has non-conservative elements (energy split needs force variants)
OPT_PIVOT = 6       # relative pivot tolerance of the Cholesky factorisation
OPT_FD_EPS = 7      # relative finite-difference step
OPT_RHO = 8         # spectral radius at infinity of the generalized-alpha scheme (1: trapezoidal rule)
OPT_ENERGY = 9      # 1: energy-consistent trapezoid (constraint impulse on the chord gradient; needs OPT_RHO = 1)
OPT_DYN_COLORS = 10  # 1: finite-difference colours from the contact pairs at each tangent refresh
OPT_FD_EVERY = 11   # refresh the finite-difference tangent at the predictor of every k-th step (1: every step);
                    # the first step of a call and stalled Newton iterations always refresh
OPT_ENERGY_BALANCE = 12  # 1: energy bookkeeping (P_diss, P_in per step); 0: skip it, W_diss and W_in are NaN
N_OPT = 13

# state scalars sc
SC_T = 0
SC_W_DISS = 1
SC_W_IN = 2
SC_STEPS = 3
SC_P_DISS = 4       # dissipated and input power at the current state (W), valid if SC_P_VALID == 1
SC_P_IN = 5
SC_P_VALID = 6
SC_EC_READY = 7     # 1 once the energy-consistent scheme's own state (vt, at, gc) is initialised (explicit
                    # integrator: once qdd, lam are its own start-state accelerations)
N_SC = 8

# report columns
REP_ITER = 0
REP_PHI = 1
REP_VEL = 2
REP_ACC = 3
REP_KIN = 4
REP_POT = 5
REP_DISS = 6
REP_IN = 7
REP_REJECTED = 8    # rejected attempts of the step (filled by the caller that retries failed steps)
N_REP = 9


@njit(cache=True)
def galpha_parameters(rho):
    """(am, af, gam, beta) of the generalized-alpha scheme with spectral radius rho at infinity (Chung &
    Hulbert 1993, eqs. 25 and 17-18); rho = 1 gives the trapezoidal rule (1/2, 1/2, 1/2, 1/4) exactly."""
    am = (2.0 * rho - 1.0) / (rho + 1.0)
    af = rho / (rho + 1.0)
    gam = 0.5 + af - am
    beta = 0.25 * (gam + 0.5) * (gam + 0.5)
    return am, af, gam, beta


@njit(cache=True, _nrt=False)
def scan_inputs(u, u_last):
    """(any input nonzero, any input changed since u_last); u_last takes the values of u."""
    nonzero = False
    changed = False
    for i in range(u.shape[0]):
        if u[i] != 0.0:
            nonzero = True
        if u[i] != u_last[i]:
            changed = True
            u_last[i] = u[i]
    return nonzero, changed


@njit(cache=True)
def energy_variants(m, off, mx, split):
    """(damped, conservative) model variants of the energy split (system.force_variant), or mx twice without it."""
    if split:
        return force_variant(m, off, VARIANT_DAMPED), force_variant(m, off, VARIANT_CONSERVATIVE)
    return mx, mx


@njit(cache=True, _nrt=False)
def project(row_cols, jac, target, c, first, ptr, val, pos, work, y, rhs, x):
    """Mass-orthogonal projection in correction form: x += T^-1 c Phi_q^T (target - Phi_q x), with T = M + c
    Phi_q^T Phi_q already factorised (envelope storage); ``y`` (n_rows) and ``rhs`` (n_q) are scratch."""
    jac_times(row_cols, jac, x, y)
    for k in range(y.shape[0]):
        y[k] = target[k] - y[k]
    for i in range(rhs.shape[0]):
        rhs[i] = 0.0
    jac_t_times(row_cols, jac, y, rhs, c)
    env_solve_permuted(first, ptr, val, pos, rhs, work)
    for i in range(x.shape[0]):
        x[i] += rhs[i]


@njit(cache=True, _nrt=False)
def chord_jacobian(jac_n, jac, jk):
    """K = Phi_q(q_n) + Phi_q(q), twice the chord gradient of a quadratic row (both share the row's columns)."""
    for k in range(jac.shape[0]):
        for c in range(jac.shape[1]):
            jk[k, c] = jac_n[k, c] + jac[k, c]


@njit(cache=True, _nrt=False)
def chord_correction(row_cols, jac, jac_n, jk, c, res, dq, y, tmp, first, ptr, val, pos, work, max_pass):
    """Refine the Newton correction dq = -T^-1 res (T = W + c/2 K^T K factorised) of the energy-consistent
    residual towards the true constraint tangent c K^T Phi_q(q): dq <- -T^-1 (res + c/2 K^T (Phi_q(q) -
    Phi_q(q_n)) dq), until a pass changes dq by less than 1e-3 of its size (at most max_pass passes)."""
    nr = jac.shape[0]
    ncol = jac.shape[1]
    n = dq.shape[0]
    for _ in range(max_pass):
        for k in range(nr):
            sk = 0.0
            for cc in range(ncol):
                col = row_cols[k, cc]
                if col >= 0:
                    sk += (jac[k, cc] - jac_n[k, cc]) * dq[col]
            y[k] = 0.5 * c * sk
        for i in range(n):
            tmp[i] = -res[i]
        for k in range(nr):
            yk = y[k]
            if yk == 0.0:
                continue
            for cc in range(ncol):
                col = row_cols[k, cc]
                if col >= 0:
                    tmp[col] -= jk[k, cc] * yk
        env_solve_permuted(first, ptr, val, pos, tmp, work)
        change = 0.0
        size = 0.0
        for i in range(n):
            e = abs(tmp[i] - dq[i])
            if e > change:
                change = e
            if abs(tmp[i]) > size:
                size = abs(tmp[i])
            dq[i] = tmp[i]
        if not (change > 1e-3 * size):
            break


@njit(cache=True, _nrt=False)
def consistent_accelerations(row_cols, jac, gamma, lam_g, c, gc, first, ptr, val, pos, work, y, rhs, x, lam):
    """From the trapezoid's acceleration x (M x = Q - gc), one augmented-Lagrangian solve of M qdd + Phi_q^T lam =
    Q, Phi_q qdd = gamma with T = M + c Phi_q^T Phi_q factorised, in correction form: T dx = gc - Phi_q^T lam_g
    + c Phi_q^T (gamma - Phi_q x), x += dx, lam = lam_g + c (Phi_q x - gamma) (lam_g: a multiplier guess; it may be
    lam itself). Returns max |Phi_q x - gamma| after the pass (m/s^2 or rad/s^2)."""
    nr = jac.shape[0]
    jac_times(row_cols, jac, x, y)
    for k in range(nr):
        y[k] = c * (gamma[k] - y[k]) - lam_g[k]
    for i in range(rhs.shape[0]):
        rhs[i] = gc[i]
    jac_t_times(row_cols, jac, y, rhs, 1.0)
    env_solve_permuted(first, ptr, val, pos, rhs, work)
    for i in range(x.shape[0]):
        x[i] += rhs[i]
    jac_times(row_cols, jac, x, y)
    res = 0.0
    for k in range(nr):
        e = y[k] - gamma[k]
        lam[k] = lam_g[k] + c * e
        if abs(e) > res:
            res = abs(e)
    return res


@njit(cache=True, _nrt=False)
def record_step(m, step, iters, V, q, qd, qdd, lam, zs, phi, jac, nu, gamma, sc, rep, rec_q, rec_qd, rec_qdd, rec_lam,
                rec_z):
    """Report row ``step`` of an accepted step (REP_*: ``iters``, residuals of the rows phi, jac, nu, gamma at the
    state, energies with the elastic energy V and the work in sc), and the state into rec_* if they have rows."""
    res_pos = 0.0
    for k in range(phi.shape[0]):
        if abs(phi[k]) > res_pos:
            res_pos = abs(phi[k])
    rep[step, REP_ITER] = iters
    rep[step, REP_PHI] = res_pos
    res_vel, res_acc, e_kin, e_pot = step_report(m, q, qd, qdd, jac, nu, gamma)
    rep[step, REP_VEL] = res_vel
    rep[step, REP_ACC] = res_acc
    rep[step, REP_KIN] = e_kin
    rep[step, REP_POT] = e_pot + V
    rep[step, REP_DISS] = sc[SC_W_DISS]
    rep[step, REP_IN] = sc[SC_W_IN]
    if rec_q.shape[0] > 0:
        for i in range(q.shape[0]):
            rec_q[step, i] = q[i]
            rec_qd[step, i] = qd[i]
            rec_qdd[step, i] = qdd[i]
        for k in range(lam.shape[0]):
            rec_lam[step, k] = lam[k]
        for k in range(zs.shape[0]):
            rec_z[step, k] = zs[k]


@njit(cache=True)
def alf_advance(mt, off, pat, st, ws, opt, n_steps, h, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z):
    """Advance the state ``st`` by n_steps steps of size h (s). Returns (status, steps done, max |dq| of
    the failing step, or for SINGULAR the envelope row whose pivot failed); on failure the state is left
    at the start of the failing step.

    mt: tuple(ModelArrays); off: arrays for system.force_variant; pat: see system.assemble_iteration_matrix
    (colors: finite-difference colour of each body); st = (sc, q, qd, qdd, lam, u, zs, u_last, lam*, a, vt, at,
    gc) with zs the committed element states, u_last the inputs of the powers kept in sc, lam* the AL multipliers,
    a the generalized-alpha pseudo-accelerations and (vt, at, gc) the energy-consistent scheme's trapezoid
    velocity, acceleration and end-point constraint force (unused otherwise); ws: workspace (built by
    analyses.integrators.alf); opt: OPT_*; rep (n_steps, N_REP); rec_* (n_steps, .), or (0, .) to skip (rec_z:
    element states)."""
    m = ModelArrays(*mt)
    mx = force_variant(m, off, VARIANT_NO_INPUTS)
    # the arrays the per-iteration kernels need (a ModelArrays argument to a kernel LLVM does not inline costs ~0.1 us)
    bv = (m.body_kind, m.body_q_adr, m.body_q_num, m.body_mass, m.body_inertia)
    rc = m.row_cols
    pos, first, ptr, colors, adj_ptr, adj_idx, jp_ptr, jp, midx, adj_rev = pat
    sc, q, qd, qdd, lam, u, zs, u_last, lam_s, acc, vt, at, gc = st
    (fr, fo, zn, phi, jac, nu, gamma, jtw, Q, Qa, Qb, mb, q0, qd0, qdd0, lam0, y, res, dq, rhs, work, val, Wx,
     dlt, phi2, jac2, nu2, gamma2, jtw2, jk, y2, dq2, pqd0, pqdd0) = ws

    n = q.shape[0]
    nr = lam.shape[0]
    c = opt[OPT_C]
    tol = opt[OPT_TOL]
    accept_tol = opt[OPT_ACCEPT]
    max_iter = int(opt[OPT_MAX_ITER])
    use_fd = opt[OPT_USE_FD] > 0.0
    pivot = opt[OPT_PIVOT]
    fd_eps = opt[OPT_FD_EPS]
    noncons = opt[OPT_NONCONS] > 0.0
    balance = opt[OPT_ENERGY_BALANCE] > 0.0
    ec = opt[OPT_ENERGY] > 0.0
    dynamic = opt[OPT_DYN_COLORS] > 0.0
    fd_every = max(int(opt[OPT_FD_EVERY]), 1)
    fd_age = fd_every              # steps since the last predictor refresh: the first step refreshes
    nonzero, u_changed = scan_inputs(u, u_last)
    noncons = noncons or nonzero
    md, mc = energy_variants(m, off, mx, noncons and balance)
    n_colors = 0
    for b in range(colors.shape[0]):
        if colors[b] + 1 > n_colors:
            n_colors = colors[b] + 1
    has_contact = fo[5].shape[0] > 0
    has_jf = m.jf_type.shape[0] > 0

    # generalized-alpha coefficients (module docstring); rho = 1 gives exactly 2/h, -1, 0 and 4/h^2, -4/h, 0, -1
    am, af, gam, beta = galpha_parameters(opt[OPT_RHO])
    hh = h * h
    b1 = gam / (beta * h)
    cv1 = 1.0 - gam / beta
    cv2 = h * (1.0 - gam / (2.0 * beta))
    ka = (1.0 - am) / ((1.0 - af) * beta * hh)
    kv = -(1.0 - am) / ((1.0 - af) * beta * h)
    kaa = (am - (1.0 - am) * (0.5 - beta) / beta) / (1.0 - af)
    kq = -af / (1.0 - af)
    hh4 = (1.0 - af) * beta * hh / (1.0 - am)      # s = 1/ka, the residual scale (h^2/4 for rho = 1)
    hc = (1.0 - af) * gam / (1.0 - am) * h         # s dqd/dq, the damping scale of W (h/2 for rho = 1)
    alpha = c * ka
    t0 = sc[SC_T]

    # powers at the start state, unless kept from the last call with the same inputs
    if not balance:
        sc[SC_W_DISS] = math.nan
        sc[SC_W_IN] = math.nan
        sc[SC_P_VALID] = 0.0
    elif sc[SC_P_VALID] == 0.0 or u_changed:
        eval_frames_ws(m, q, qd, fr)
        r, A, v, w, o, R, vo, wm = fr
        eval_constraint_rows(m, t0, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw)
        sc[SC_P_DISS], sc[SC_P_IN] = powers(m, mx, md, mc, t0, q, qd, u, zs, zn, fr, fo, Qa, Qb, lam, nu,
                                             noncons, jtw)
        sc[SC_P_VALID] = 1.0
    p_diss0 = sc[SC_P_DISS]
    p_in0 = sc[SC_P_IN]
    if ec:
        # Phi_q(q_n) of the first step's chord; the scheme's own state starts from the consistent one
        eval_frames_ws(m, q, qd, fr)
        r, A, v, w, o, R, vo, wm = fr
        eval_constraint_rows(m, t0, q, qd, r, o, R, vo, wm, phi2, jac2, nu2, gamma2, jtw2)
        if sc[SC_EC_READY] == 0.0:
            for i in range(n):
                vt[i] = qd[i]
                at[i] = qdd[i]
                gc[i] = 0.0
            jac_t_times(rc, jac2, lam, gc, 1.0)      # M qdd = Q - Phi_q^T lam
            sc[SC_EC_READY] = 1.0

    for step in range(n_steps):
        t1 = t0 + (step + 1) * h
        for i in range(n):
            q0[i] = q[i]
            qd0[i] = qd[i]
            qdd0[i] = qdd[i]
        if ec:                                # the trapezoid runs on its own (unprojected) state
            for i in range(n):
                pqd0[i] = qd[i]
                pqdd0[i] = qdd[i]
                qd0[i] = vt[i]
                qdd0[i] = at[i]
        for k in range(nr):
            lam0[k] = lam_s[k]
        # predictor (seed 000 eq. 8.135) and the velocities/accelerations of the scheme
        for i in range(n):
            d = h * qd0[i] + 0.5 * h * h * qdd0[i]
            q[i] = q0[i] + d
            qd[i] = b1 * d + cv1 * qd0[i] + cv2 * acc[i]
            qdd[i] = ka * d + kv * qd0[i] + kaa * acc[i] + kq * qdd0[i]
        if use_fd and fd_age >= fd_every:
            if has_jf:       # joint friction's frozen reaction: twist rows at the predictor, multiplier estimate
                eval_frames_ws(m, q, qd, fr)
                r, A, v, w, o, R, vo, wm = fr
                eval_constraint_rows(m, t1, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw)
                for k in range(nr):
                    y[k] = lam_s[k] + (lam[k] - lam0[k])
            n_colors = fd_force_jacobian(m, mx, t1, q, qd, u, h, zs, zn, fr, fo, Qa, Qb, Wx, hh4, hc, fd_eps,
                                         colors, n_colors, adj_ptr, adj_idx, adj_rev, dlt, dynamic, jtw, y)
            fd_age = 0
        fd_age += 1

        status = OK
        err = 0.0
        err_min = math.inf
        iters = 0
        V_s = 0.0
        relax = 1.0
        err_prev = math.inf
        err_prev2 = math.inf
        for it in range(max_iter):
            if use_fd and it >= 2 and err_prev > 0.9 * err_prev2:
                # a stalled step (the last correction did not shrink): the force law changed regime since the
                # predictor (contact, friction ramp), so the tangent there is wrong and a stale tangent across a
                # kink cycles: refresh it at the iterate (converging steps keep the predictor's tangent)
                for k in range(nr):
                    y[k] = lam_s[k] + (lam[k] - lam0[k])
                n_colors = fd_force_jacobian(m, mx, t1, q, qd, u, h, zs, zn, fr, fo, Qa, Qb, Wx, hh4, hc, fd_eps,
                                             colors, n_colors, adj_ptr, adj_idx, adj_rev, dlt, dynamic, jtw, y)
            V_s = base_forces_ws(m, mx, t1, q, qd, fr, u, h, zs, zn, Q, fo)
            r, A, v, w, o, R, vo, wm = fr
            if u.shape[0] > 0:                # here, not in a branch of base_forces_ws (see there)
                add_marker_inputs(m, q, fr, u, Q)
            if has_contact:
                V_s += add_contact_forces(mx, q, r, o, R, vo, wm, h, zs, zn, Q, fo[5], fo[8])
            eval_constraint_rows(m, t1, q, qd, r, o, R, vo, wm, phi, jac, nu, gamma, jtw)
            mass_blocks(bv, q, mb)
            # energy-consistent: no AL update after a correction whose quadratic remainder |dq|^2 (the Phi it
            # leaves) exceeds tol, where c Phi / s would be a spurious multiplier jump to be undone (halves the
            # next correction only); the converged step's update below always applies
            if it > 0 and not (ec and err_prev * err_prev > tol):
                for k in range(nr):
                    lam_s[k] += alpha * phi[k]
            if has_jf:       # joint friction loaded by the iterate's multiplier estimate (module docstring)
                for k in range(nr):
                    y[k] = lam_s[k] + (lam[k] - lam0[k])
                joint_friction_ws(mx, q, fr, jtw, y, h, zs, zn, Q, fo)
            # residual f = s (M qdd - Q) + Phi_q^T (s lam* + c Phi), s = h^2/4 for the trapezoidal rule
            # (energy-consistent: f = s (M qdd - Q - gc_n) + K^T (s lam* + c Phi), T = W + c/2 K^T K)
            mass_times(bv, mb, qdd, res, hh4, False)
            for k in range(nr):
                y[k] = hh4 * lam_s[k] + c * phi[k]
            if ec:
                for i in range(n):
                    res[i] -= hh4 * (Q[i] + gc[i])
                chord_jacobian(jac2, jac, jk)
                jac_t_times(rc, jk, y, res, 1.0)
                assemble_iteration_matrix(bv, mb, jk, 0.5 * c, Wx, use_fd, pat, val)
                # geometric stiffness s sum_k lam_k d2Phi_k/dq2 (point rows, kernels/row_hessians.py), the part
                # of d(K^T y)/dq that stays as Phi -> 0, with the chord multiplier extrapolated to the step's
                # middle, 2 lam_n - lam*_n (lam*_n: the last chord's; the iterates' lam* jump by c Phi / s)
                for k in range(nr):
                    y2[k] = 2.0 * lam[k] - lam0[k]
                add_geometric_stiffness(m, r, o, y2, hh4, jp_ptr, jp, val)
            else:
                for i in range(n):
                    res[i] -= hh4 * Q[i]
                jac_t_times(rc, jac, y, res, 1.0)
                assemble_iteration_matrix(bv, mb, jac, c, Wx, use_fd, pat, val)
            iters = it + 1
            bad = env_cholesky(first, ptr, val, pivot)
            if bad >= 0 and ec:
                # compressive rows can make the geometric stiffness indefinite: keep T = W + c/2 K^T K then
                assemble_iteration_matrix(bv, mb, jk, 0.5 * c, Wx, use_fd, pat, val)
                bad = env_cholesky(first, ptr, val, pivot)
            if bad >= 0:
                status = SINGULAR
                err = float(bad)             # the failing envelope row, for the error message
                break
            for i in range(n):
                dq[i] = -res[i]
            env_solve_permuted(first, ptr, val, pos, dq, work)
            if ec and nr > 0:
                chord_correction(rc, jac, jac2, jk, c, res, dq, y2, dq2, first, ptr, val, pos, work, 2)
            err = 0.0
            for i in range(n):
                e = abs(dq[i])
                if not (e <= err):
                    err = e
            if not math.isfinite(err):
                status = NOT_FINITE
                break
            if err <= tol and it > 0:       # at least one correction: the predictor alone is explicit
                break
            if err < err_min:
                err_min = err
            if it >= 2 and err > 100.0 * err_min and err > accept_tol:
                status = DIVERGED
                break
            if it == max_iter - 1:
                if err > accept_tol:
                    status = NOT_CONVERGED
                break
            if use_fd and it >= 2:
                # a correction reversing the previous one without shrinking: Newton cycles across a kink of the
                # force law (friction saturation); halve the steps from here on (rhs holds the previous one)
                turn = 0.0
                for i in range(n):
                    turn += dq[i] * rhs[i]
                if turn < 0.0 and err > 0.9 * err_prev:
                    relax *= 0.5
            err_prev2 = err_prev
            err_prev = err
            for i in range(n):
                rhs[i] = dq[i]
                q[i] += relax * dq[i]
                d = q[i] - q0[i]
                qd[i] = b1 * d + cv1 * qd0[i] + cv2 * acc[i]
                qdd[i] = ka * d + kv * qd0[i] + kaa * acc[i] + kq * qdd0[i]

        cstat = fo[8][8]
        if status == OK and cstat[ST_PAIR_OVERFLOW] != 0:
            status = CONTACT_PAIRS
        if status == OK and cstat[ST_STATE_OVERFLOW] != 0:
            status = CONTACT_STATES
        if status == OK and ec:
            # the output projections need T = W + c Phi_q^T Phi_q (the Newton matrix held K)
            assemble_iteration_matrix(bv, mb, jac, c, Wx, use_fd, pat, val)
            bad = env_cholesky(first, ptr, val, pivot)
            if bad >= 0:
                status = SINGULAR
                err = float(bad)
        if status != OK:
            for i in range(n):
                q[i] = q0[i]
                qd[i] = qd0[i]
                qdd[i] = qdd0[i]
            if ec:
                for i in range(n):
                    qd[i] = pqd0[i]
                    qdd[i] = pqdd0[i]
            for k in range(nr):
                lam_s[k] = lam0[k]
            return status, step, err

        # converged: apply the last correction dq (below tol) without a new evaluation. The multipliers
        # take its constraint part, lam = lam* + alpha (Phi + Phi_q dq); without it lam would be off by
        # up to alpha * tol (4e3 N for c = 1e7 kg, h = 1e-3 s, tol = 1e-10 m).
        jac_times(rc, jac, dq, y)
        for k in range(nr):
            lam_s[k] += alpha * (phi[k] + y[k])
        for i in range(n):
            q[i] += dq[i]
            d = q[i] - q0[i]
            qd[i] = b1 * d + cv1 * qd0[i] + cv2 * acc[i]
            qdd[i] = ka * d + kv * qd0[i] + kaa * acc[i] + kq * qdd0[i]
        # projections with the factorisation T of the last iteration and its Phi_q (so that T and the right
        # sides agree: with c = 1e7 kg, a Phi_q one tolerance away would move qdd by 1e-3 of the correction),
        # in correction form: T (qd - qd*) = c Phi_q^T (nu - Phi_q qd*) is T qd = W qd* + c Phi_q^T nu, with
        # round-off relative to the small correction (the plain form lost ~1e-7 rad per 0.3 s)
        if ec:
            # the trapezoid's state: vt, at and the end-point constraint force gc = Q - M at (last evaluation)
            mass_times(bv, mb, qdd, gc, -1.0, False)
            for i in range(n):
                gc[i] += Q[i]
                vt[i] = qd[i]
                at[i] = qdd[i]
        project(rc, jac, nu, c, first, ptr, val, pos, work, y, rhs, qd)
        eval_frames_ws(m, q, qd, fr)      # gamma(q, qd) and the residuals at the final state
        r, A, v, w, o, R, vo, wm = fr
        eval_constraint_rows(m, t1, q, qd, r, o, R, vo, wm, phi2, jac2, nu2, gamma2, jtw2)
        if ec:
            # consistent accelerations and multipliers for the output (the step does not read them back)
            consistent_accelerations(rc, jac, gamma2, lam_s, c, gc, first, ptr, val, pos, work, y, rhs,
                                     qdd, lam)
            for i in range(n):
                acc[i] = qdd[i]
        else:
            project(rc, jac, gamma2, c, first, ptr, val, pos, work, y, rhs, qdd)
            # multipliers consistent with the projected accelerations: the projection changed M qdd by
            # Phi_q^T c (gamma - Phi_q qdd) (W-orthogonally), so lam = lam* + c (Phi_q qdd - gamma) is second-
            # order accurate (lam*, the trapezoidal multiplier, is first order). lam* stays the AL multiplier of
            # the next step: starting it from lam costs 0.2 more Newton iterations per step.
            jac_times(rc, jac, qdd, y)
            for k in range(nr):
                lam[k] = lam_s[k] + c * (y[k] - gamma2[k])
            # pseudo-accelerations from the projected accelerations, (1 - am) a_1 = (1 - af) qdd_1 + af qdd_n - am a_n
            for i in range(n):
                acc[i] = ((1.0 - af) * qdd[i] + (af * qdd0[i] - am * acc[i])) / (1.0 - am)
        for k in range(zs.shape[0]):          # element states of the last evaluation are committed
            zs[k] = zn[k]
        store_end_accelerations(m, q, qdd, r, w, o, zs)   # passive cylinders: accelerations for the next step

        # reports
        if not balance:                 # no energy bookkeeping (sc[SC_W_*] stay NaN)
            p_diss1, p_in1 = math.nan, math.nan
        elif noncons:
            p_diss1, p_in1 = powers(m, mx, md, mc, t1, q, qd, u, zs, zn, fr, fo, Qa, Qb, lam, nu2, noncons,
                                    jtw2)
        else:                           # conservative: only the drivers' power, without passing four models
            p_diss1, p_in1 = 0.0, 0.0
            for k in range(nr):
                p_in1 -= lam[k] * nu2[k]
        sc[SC_W_DISS] += 0.5 * h * (p_diss0 + p_diss1)
        sc[SC_W_IN] += 0.5 * h * (p_in0 + p_in1)
        p_diss0 = p_diss1
        p_in0 = p_in1
        sc[SC_P_DISS] = p_diss1
        sc[SC_P_IN] = p_in1
        sc[SC_T] = t1
        sc[SC_STEPS] += 1.0
        record_step(m, step, iters, V_s, q, qd, qdd, lam, zs, phi2, jac2, nu2, gamma2, sc, rep, rec_q, rec_qd, rec_qdd,
                    rec_lam, rec_z)
    return OK, n_steps, 0.0
