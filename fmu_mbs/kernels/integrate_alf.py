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
actuators and drivers (-lam . nu). P come from three force evaluations by mode (system.powers): full, damped
(conservative + dampers), conservative. Options.energy_balance = 0 skips them (four force evaluations per step on
a model with dampers, contact or inputs: a quarter of a large contact scene's step); W_diss and W_in are then NaN.

Data (kernels/solver_data.py): the model m (ModelArrays), the State st, the Work ws, the Options opt and the
PatternArrays pat; the step loop is split into inline phases (predictor, Newton, end of step) that read them by
name.
"""

from __future__ import annotations

from numba import njit

from .inner import inner_kernel
from .linalg import env_solve_permuted
from .model_arrays import arrays_type
from .system import (
    jac_t_times,
    jac_times,
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
SC_T0 = 8           # the step clock (step_clock): steps end at t = T0 + k H, k counted from the anchor time T0
SC_K = 9            # ... steps since T0
SC_H = 10           # ... the step H (s) of the grid; 0: no grid yet
SC_FD_AGE = 11      # steps since the finite-difference tangent was refreshed (0: refresh at the next step)
N_SC = 12

#: relative round-off within which a step size and a time are taken as the clock's (step_clock)
CLOCK_TOL = 1e-9

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

#: the scheme's coefficients for one step size (module docstring; trapezoidal: b1 = 2/h, cv1 = -1, cv2 = 0,
#: ka = 4/h^2, kv = -4/h, kaa = 0, kq = -1, s = h^2/4, hc = h/2)
Coefficients = arrays_type("Coefficients", ["am", "af", "b1", "cv1", "cv2", "ka", "kv", "kaa", "kq", "s", "hc",
                                            "alpha"], __name__)


@inner_kernel
def galpha_parameters(rho):
    """(am, af, gam, beta) of the generalized-alpha scheme with spectral radius rho at infinity (Chung &
    Hulbert 1993, eqs. 25 and 17-18); rho = 1 gives the trapezoidal rule (1/2, 1/2, 1/2, 1/4) exactly."""
    am = (2.0 * rho - 1.0) / (rho + 1.0)
    af = rho / (rho + 1.0)
    gam = 0.5 + af - am
    beta = 0.25 * (gam + 0.5) * (gam + 0.5)
    return am, af, gam, beta


@njit(cache=True, _nrt=False, inline="always")
def step_clock(sc, h):
    """The step size of a call of steps of ``h`` (s), and the clock it runs on: steps end at t_k = T0 + k H
    (sc[SC_T0], sc[SC_K], sc[SC_H]; step_time). A call whose h is the grid's step and whose start time sc[SC_T] is a
    grid time, both to CLOCK_TOL relative round-off of H, continues the grid (sc[SC_T] is set to the grid time and
    H is returned); any other call starts a new grid at sc[SC_T] with step h. So a run's step times and sizes do not
    depend on how the caller splits it into calls (one per output row, per FMU communication step, per chunk) or
    on the round-off of the caller's times (t + H, t_start + i dt, span / n): the same steps give the same
    numbers bit for bit. t0 + k H also keeps the clock to one rounding, where a sum of steps drifts."""
    H = sc[SC_H]
    if H > 0.0 and abs(h - H) <= CLOCK_TOL * H:
        t_grid = sc[SC_T0] + sc[SC_K] * H
        if abs(sc[SC_T] - t_grid) <= CLOCK_TOL * H:
            sc[SC_T] = t_grid
            return H
    sc[SC_T0] = sc[SC_T]
    sc[SC_K] = 0.0
    sc[SC_H] = h
    return h


@njit(cache=True, _nrt=False, inline="always")
def step_time(sc, k):
    """Time (s) at the end of the k-th step (k = 1, 2, ...) of the current call on the clock of step_clock."""
    return sc[SC_T0] + (sc[SC_K] + k) * sc[SC_H]


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
def chord_jacobian(jac_n, jac, jk):
    """K = Phi_q(q_n) + Phi_q(q), twice the chord gradient of a quadratic row (both share the row's columns)."""
    for k in range(jac.shape[0]):
        for c in range(jac.shape[1]):
            jk[k, c] = jac_n[k, c] + jac[k, c]


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
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


@inner_kernel(_nrt=False)
def record_step(m, step, iters, V, st, rows, rep, rec_q, rec_qd, rec_qdd, rec_lam, rec_z):
    """Report row ``step`` of an accepted step (REP_*: ``iters``, residuals of the ``rows`` at the state ``st``,
    energies with the elastic energy V and the work in st.sc; rep has one row per step of the call), and the state
    into rec_* if this step is one that they record (record_row: every (rep rows / rec rows)-th step)."""
    q, qd, qdd, lam, zs, sc = st.q, st.qd, st.qdd, st.lam, st.zs, st.sc
    phi, jac, nu, gamma = rows.phi, rows.jac, rows.nu, rows.gamma
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
    row = record_row(step, rep.shape[0], rec_q.shape[0])
    if row >= 0:
        for i in range(q.shape[0]):
            rec_q[row, i] = q[i]
            rec_qd[row, i] = qd[i]
            rec_qdd[row, i] = qdd[i]
        for k in range(lam.shape[0]):
            rec_lam[row, k] = lam[k]
        for k in range(zs.shape[0]):
            rec_z[row, k] = zs[k]


@njit(cache=True, _nrt=False, inline="always")
def record_row(step, n_steps, n_rows):
    """Row of the recorded state after step ``step`` (0-based) of a call of ``n_steps`` steps whose record arrays
    have ``n_rows`` rows: every (n_steps / n_rows)-th step is recorded (the caller makes n_steps a multiple of
    n_rows), the last step in the last row; -1: not recorded (also when n_rows = 0)."""
    if n_rows == 0:
        return -1
    every = n_steps // n_rows
    if every < 1 or (step + 1) % every != 0:
        return -1
    return (step + 1) // every - 1


