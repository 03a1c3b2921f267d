"""Spin-up of a flexible beam in the time domain (Kane, Ryan & Banerjee, J. Guidance 10 (1987) 139-151; data as in
anchors-flex-crash.md §2.5): the solver's floating modal body, clamped to a hub whose angle follows Kane's
profile theta(t) = (W/Ts) [t^2/2 + (Ts/2 pi)^2 (cos(2 pi t/Ts) - 1)] up to Ts = 15 s, then W (t - Ts/2),
W = 6 rad/s; L = 10 m, EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m, in-plane (chordwise) bending.

Independent reference, written here: assumed modes of the clamped-free Euler-Bernoulli beam in the hub frame,
chordwise deflection v(x, t) = sum phi_i(x) q_i(t) with phi_i the analytic modes (rho A-normalised),

    q_i'' + (omega_i^2 - theta'^2) q_i + theta'^2 sum_j G_ij q_j = -theta'' f_i,

f_i = int rho A x phi_i dx (the hub's angular acceleration), -theta'^2 q_i the centrifugal softening of in-plane
motion, G_ij = int T(x) phi_i' phi_j' dx / theta'^2 the geometric stiffness of the centrifugal tension
T(x) = rho A theta'^2 (L^2 - x^2) / 2 (axial foreshortening and the terms of second order in v neglected), solved
by scipy at tight tolerance. Without G the first mode's stiffness omega_1^2 - theta'^2 turns negative above
theta' = omega_1 = 3.516 / sqrt(rho A L^4 / EI) = 3.80 rad/s: a linear modal body without geometric stiffening must
diverge on this spin-up, and one with it stays bounded (issue 14's spin-up test)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ConvergenceError
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.functions import Table

L, RHO_A, EI = 10.0, 1.2, 1.4e4
E, AREA, RHO = 7.0e10, 4.0e-4, 3000.0        # EA = 2.8e7 N, EI = E I with I = 2e-7 m^4, rho A = 1.2 kg/m
W, TS, T_END = 6.0, 15.0, 20.0
H = 2e-3                                      # ALF step (s)
N_EL, N_MODES = 12, 8                         # 8 fixed-interface modes: the first four bending pairs (y and z)


def theta(t):
    t = np.asarray(t, dtype=float)
    ramp = W / TS * (t * t / 2.0 + (TS / (2.0 * math.pi)) ** 2 * (np.cos(2.0 * math.pi * t / TS) - 1.0))
    return np.where(t <= TS, ramp, W * (t - TS / 2.0))


def theta_d(t):
    return W / TS * (t - TS / (2.0 * math.pi) * math.sin(2.0 * math.pi * t / TS)) if t <= TS else W


def theta_dd(t):
    return W / TS * (1.0 - math.cos(2.0 * math.pi * t / TS)) if t <= TS else 0.0


def _model(stiffening: bool):
    b = ModelBuilder(f"kane_spinup_{int(stiffening)}", 3, gravity=(0.0, 0.0, 0.0))
    b.add_modal_body("beam", nodes=[(L * i / N_EL, 0.0, 0.0) for i in range(N_EL + 1)], E=E, G=E / 2.8,
                     rho=RHO, area=AREA, Iy=2.0e-7, Iz=2.0e-7, J=4.0e-7, n_modes=N_MODES, interfaces=[[0]],
                     damping=0.0, stiffening=stiffening, position=(0.0, 0.0, 0.0))
    b.add_marker("O", "ground")
    b.add_marker("hub", "beam", position=(0.0, 0.0, 0.0))
    b.add_marker("tip", "beam", position=(L, 0.0, 0.0))
    b.add_joint("pivot", "revolute", "O", "hub")
    knots = np.linspace(0.0, T_END, 401)
    b.add_driver("motor", "pivot", Table(tuple(knots), tuple(theta(knots)), "cubic"))
    return compile_model(b.build())


def _chordwise_tip(traj):
    t = np.asarray(traj["time"])
    x, y = np.asarray(traj["tip.r[1]"]), np.asarray(traj["tip.r[2]"])
    th = theta(t)
    return t, -np.sin(th) * x + np.cos(th) * y


def _clamped_free_mode(beta_l: float):
    """phi(x) and phi'(x) of the clamped-free beam mode with root beta L, normalised to int rho A phi^2 = 1."""
    b = beta_l / L
    s = (math.cosh(beta_l) + math.cos(beta_l)) / (math.sinh(beta_l) + math.sin(beta_l))

    def shape(x):
        return math.cosh(b * x) - math.cos(b * x) - s * (math.sinh(b * x) - math.sin(b * x))

    def slope(x):
        return b * (math.sinh(b * x) + math.sin(b * x) - s * (math.cosh(b * x) - math.cos(b * x)))

    c = 1.0 / math.sqrt(RHO_A * quad(lambda x: shape(x) ** 2, 0.0, L, limit=200)[0])
    return (lambda x: c * shape(x)), (lambda x: c * slope(x))


def _reference(n: int = 4):
    """Roots beta_i L, omega_i^2, f_i, G_ij and phi_i(L) of the assumed-modes model (module docstring)."""
    roots = [brentq(lambda b: math.cos(b) * math.cosh(b) + 1.0, (k + 0.5) * math.pi - 1.0, (k + 0.5) * math.pi + 1.0)
             for k in range(n)]
    modes = [_clamped_free_mode(r) for r in roots]
    omega2 = np.array([(r / L) ** 4 * EI / RHO_A for r in roots])
    f = np.array([quad(lambda x, p=p: RHO_A * x * p(x), 0.0, L, limit=200)[0] for p, _ in modes])
    G = np.array([[quad(lambda x, di=di, dj=dj: RHO_A * (L * L - x * x) / 2.0 * di(x) * dj(x), 0.0, L,
                        limit=200)[0] for _, dj in modes] for _, di in modes])
    tip = np.array([p(L) for p, _ in modes])
    return roots, omega2, f, G, tip


def _assumed_modes_tip(t_out, stiffening: bool, n: int = 4):
    _, omega2, f, G, tip = _reference(n)
    G = G if stiffening else 0.0 * G

    def rhs(t, z):
        q, qd = z[:n], z[n:]
        w2 = theta_d(t) ** 2
        return np.concatenate([qd, -(omega2 - w2) * q - w2 * (G @ q) - theta_dd(t) * f])

    sol = solve_ivp(rhs, (0.0, t_out[-1]), np.zeros(2 * n), t_eval=t_out, rtol=1e-10, atol=1e-12,
                    method="DOP853", max_step=0.05)
    return tip @ sol.y[:n]


def test_assumed_modes_reference_reproduces_the_stability_threshold():
    """The reference itself: the first clamped-free root is 1.875104 (omega_1 T = 3.5160), and at theta' = W
    (gamma = W T = 5.5549) its stiffened chordwise frequency is 4.1778 / T (anchors-flex-crash.md §2.5, from an
    80-element FE: omega_c^2 = omega_f^2 - gamma^2; four assumed modes are a Galerkin upper bound, 3e-4 above)."""
    roots, omega2, _, G, _ = _reference(4)
    T = math.sqrt(RHO_A * L ** 4 / EI)
    assert roots[0] == pytest.approx(1.875104, abs=1e-6)
    k = np.diag(omega2) + W * W * (G - np.eye(4))
    assert math.sqrt(np.linalg.eigvalsh(k)[0]) * T == pytest.approx(4.1778, rel=1e-3)


def test_stiffened_modal_body_follows_the_assumed_modes_spin_up():
    """With geometric stiffening (the default) the tip's chordwise deflection follows the reference over the whole
    spin-up and the steady spin after it (within 0.5 % of its peak; 0.05 % measured), and stays bounded (peak
    0.57 m, 6 % of L)."""
    traj = simulate(_model(True), T_END, H, output_step=0.02)
    t, v = _chordwise_tip(traj)
    ref = _assumed_modes_tip(t, stiffening=True)
    peak = np.max(np.abs(ref))
    assert 0.2 < peak < 1.0
    assert np.max(np.abs(v)) < 1.2 * peak
    assert np.max(np.abs(v - ref)) < 0.005 * peak
    # quasi-static check early in the ramp, independent of both integrations: a cantilever under the inertia load
    # rho A theta'' x bends its tip by 11 rho A theta'' L^5 / (120 EI) (lagging: negative v)
    k = np.searchsorted(t, 3.0)
    assert v[k] == pytest.approx(-11.0 * RHO_A * theta_dd(t[k]) * L ** 5 / (120.0 * EI), rel=0.05)


def test_modal_body_without_geometric_stiffening_diverges_above_omega_1():
    """Without stiffening the same spin-up must go unstable once theta' passes omega_1 = 3.80 rad/s (t = 9.6 s):
    up to then the tip follows the reference without G; after it the deflection grows past the beam's length or
    the integrator stops with a convergence error (at t = 12.2 s, h = 2 ms, on the day this was written)."""
    t_cross = brentq(lambda t: theta_d(t) - 3.516 / math.sqrt(RHO_A * L ** 4 / EI), 1.0, TS)
    traj = simulate(_model(False), t_cross, H, output_step=0.02)
    t, v = _chordwise_tip(traj)
    ref = _assumed_modes_tip(t, stiffening=False)
    assert np.max(np.abs(v - ref)) < 0.005 * np.max(np.abs(ref))
    t_stop = 14.0
    try:
        traj = simulate(_model(False), t_stop, H, output_step=0.02)
    except ConvergenceError as exc:
        t_fail = float(re.search(r"at t = ([-+0-9.eE]+) s", str(exc)).group(1))
    else:
        t, v = _chordwise_tip(traj)
        assert np.any(np.abs(v) > L), "the unstiffened modal body stayed bounded above its critical speed"
        t_fail = t[np.argmax(np.abs(v) > L)]
    assert t_cross < t_fail < t_stop
