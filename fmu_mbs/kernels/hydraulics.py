"""Hydraulic cylinder with a 4/3 proportional valve as a force element with internal states (p1, p2, U).

Model (Rahikainen et al., Multibody Syst. Dyn. 50:143-167, 2020; the same equations as the partner FMU
integration/partners/hydraulic_cylinder.py, so the two can be compared):

- piston position x = l - l_retracted (l the distance of the two marker origins), chamber lengths x and
  stroke - x, volumes V1 = V_hose1 + A1 x, V2 = V_hose2 + A2 (stroke - x);
- effective bulk modulus of oil, hose and cylinder in series, volume weighted:
  1/B_i = 1/B_oil + (A_i l_i / V_i)/B_cyl + (V_hose_i / V_i)/B_hose;
- spool dU/dt = (clip(Uref, -1, 1) - U)/tau, tau = 1/(2 pi f_45);
- critical-centre valve: U >= 0: Q1 = Cv U g(p_pump - p1), Q2 = Cv U g(p2 - p_tank); U < 0: Q1 = Cv U g(p1 - p_tank),
  Q2 = Cv U g(p_pump - p2); g(dp) = sign(dp) sqrt|dp| above the laminar limit dp_lam, dp/sqrt(dp_lam) below;
- dp1/dt = B1/V1 (Q1 - A1 l'), dp2/dt = B2/V2 (A2 l' - Q2);
- force along the line, positive extending: F = p1 A1 - p2 A2 - c l' + end stops (k_end, c_end within l_end of
  either end).

The states are integrated inside the force evaluation by the trapezoidal rule over the solver's step h from
the committed states of the step start (element-state convention of model_arrays), so the multibody Newton
iteration sees the cylinder's pressure build-up as a function of (q, q'), and its finite-difference tangent
contains the hydraulic stiffness. The state block of one cylinder is (p1, p2, U, dp1/dt, dp2/dt, dU/dt); the
rates of the step start are those of the last accepted step (NaN at the start: the first step is implicit Euler).
"""

from __future__ import annotations

import math

from numba import njit

from .inner import inner_kernel

# parameter vector of one cylinder (hyd_par row)
HP_A1 = 0           # piston area (m^2)
HP_A2 = 1           # annulus area (m^2)
HP_STROKE = 2       # stroke (m)
HP_L_RETRACTED = 3  # marker distance at full retraction (m)
HP_V_HOSE1 = 4      # hose volumes (m^3)
HP_V_HOSE2 = 5
HP_P_PUMP = 6       # supply and tank pressure (Pa)
HP_P_TANK = 7
HP_B_OIL = 8        # bulk moduli (Pa)
HP_B_HOSE = 9
HP_B_CYL = 10
HP_CV = 11          # valve coefficient Q_nom / sqrt(dp_nom) (m^3/s/sqrt(Pa))
HP_DP_LAM = 12      # laminar limit (Pa)
HP_TAU = 13         # spool time constant (s)
HP_DAMPING = 14     # viscous friction (N s/m)
HP_K_END = 15       # end stops (N/m, N s/m, m)
HP_C_END = 16
HP_L_END = 17
N_HP = 18

N_HYD_STATES = 6    # p1, p2, U, dp1/dt, dp2/dt, dU/dt
N_HYD_OUT = 8       # length, speed, force, p1, p2, U, Q1, Q2


@njit(cache=True)
def orifice(dp, dp_lam):
    """g(dp) and dg/d(dp) of the laminar/turbulent orifice law (sqrt(Pa), 1/sqrt(Pa))."""
    if abs(dp) >= dp_lam:
        r = math.sqrt(abs(dp))
        return math.copysign(r, dp), 0.5 / r
    r = math.sqrt(dp_lam)
    return dp / r, 1.0 / r


@njit(cache=True)
def chambers(par, x):
    """(B1/V1, B2/V2) (Pa/m^3) at piston position x (m)."""
    l1 = max(x, 0.0)
    l2 = max(par[HP_STROKE] - x, 0.0)
    vc1 = par[HP_A1] * l1
    vc2 = par[HP_A2] * l2
    v1 = par[HP_V_HOSE1] + vc1
    v2 = par[HP_V_HOSE2] + vc2
    b1 = 1.0 / (1.0 / par[HP_B_OIL] + vc1 / v1 / par[HP_B_CYL] + par[HP_V_HOSE1] / v1 / par[HP_B_HOSE])
    b2 = 1.0 / (1.0 / par[HP_B_OIL] + vc2 / v2 / par[HP_B_CYL] + par[HP_V_HOSE2] / v2 / par[HP_B_HOSE])
    return b1 / v1, b2 / v2


@njit(cache=True)
def flows(par, p1, p2, U):
    """(Q1, dQ1/dp1, Q2, dQ2/dp2) of the valve (m^3/s, m^3/s/Pa): Q1 into chamber 1, Q2 out of chamber 2."""
    cv = par[HP_CV]
    lam = par[HP_DP_LAM]
    if U >= 0.0:
        g1, d1 = orifice(par[HP_P_PUMP] - p1, lam)
        g2, d2 = orifice(p2 - par[HP_P_TANK], lam)
        return cv * U * g1, -cv * U * d1, cv * U * g2, cv * U * d2
    g1, d1 = orifice(p1 - par[HP_P_TANK], lam)
    g2, d2 = orifice(par[HP_P_PUMP] - p2, lam)
    return cv * U * g1, cv * U * d1, cv * U * g2, -cv * U * d2


@inner_kernel
def cylinder_force(par, p1, p2, x, xd):
    """Force along the line (N, positive extending) at pressures p1, p2, piston position x and speed xd."""
    f = p1 * par[HP_A1] - p2 * par[HP_A2] - par[HP_DAMPING] * xd
    l_end = par[HP_L_END]
    if x <= l_end:
        f += par[HP_K_END] * (l_end - x) - par[HP_C_END] * xd
    elif par[HP_STROKE] - x <= l_end:
        f -= par[HP_K_END] * (l_end - (par[HP_STROKE] - x)) + par[HP_C_END] * xd
    return f


@inner_kernel
def advance_states(par, zs, a, x, xd, uref, h, zn):
    """Candidate states zn[a:a+6] at piston position x (m), speed xd (m/s) and valve reference uref after a step h
    (s) from the committed zs[a:a+6] (trapezoidal rule; implicit Euler when the start rates are unknown; h = 0:
    the committed pressures and spool with their rates here). Returns the valve flows (Q1, Q2) (m^3/s) at the new
    state; if the local Newton iteration fails, p1 is NaN, so the force is NaN and the integrator rejects the step."""
    k1, k2 = chambers(par, x)
    ur = min(1.0, max(-1.0, uref))
    tau = par[HP_TAU]
    a1 = par[HP_A1]
    a2 = par[HP_A2]
    p1 = zs[a]
    p2 = zs[a + 1]
    U = zs[a + 2]
    if h > 0.0:
        r1, r2, r3 = zs[a + 3], zs[a + 4], zs[a + 5]
        th = 0.5
        if not (math.isfinite(r1) and math.isfinite(r2) and math.isfinite(r3)):
            th = 1.0                      # implicit Euler: x1 = x0 + h f(x1)
            r1 = r2 = r3 = 0.0
        w0 = (1.0 - th) * h
        w1 = th * h
        U1 = (U + w0 * r3 + w1 * ur / tau) / (1.0 + w1 / tau)
        x1 = p1
        x2 = p2
        scale = 1e-10 * max(par[HP_P_PUMP], 1.0)
        ok = False
        for _ in range(50):
            q1, dq1, q2, dq2 = flows(par, x1, x2, U1)
            f1 = x1 - p1 - w0 * r1 - w1 * k1 * (q1 - a1 * xd)
            f2 = x2 - p2 - w0 * r2 - w1 * k2 * (a2 * xd - q2)
            d1 = f1 / (1.0 - w1 * k1 * dq1)
            d2 = f2 / (1.0 + w1 * k2 * dq2)
            x1 -= d1
            x2 -= d2
            if abs(d1) <= scale and abs(d2) <= scale:
                ok = True
                break
        p1, p2, U = x1, x2, U1
        if not ok:
            p1 = math.nan
    q1, _, q2, _ = flows(par, p1, p2, U)
    zn[a] = p1
    zn[a + 1] = p2
    zn[a + 2] = U
    zn[a + 3] = k1 * (q1 - a1 * xd)
    zn[a + 4] = k2 * (a2 * xd - q2)
    zn[a + 5] = (ur - U) / tau
    return q1, q2
