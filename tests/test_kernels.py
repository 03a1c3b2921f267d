"""Kernels against finite differences and closed forms: Jacobians, gamma, nu, conservative forces, kinetic
energy, time functions. Every joint type and force element is exercised (tests/models_for_tests.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.compiler import compile_model
from fmu_mbs.kernels.functions import eval_curve, eval_time_function
from fmu_mbs.kernels.model_arrays import RIGID
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.functions import Harmonic, Linear, Polynomial, SmoothRamp, Table

from models_for_tests import every_joint_planar, every_joint_spatial

EPS = 1e-6   # central differences: truncation O(EPS^2) ~ 1e-12 times the third derivative, round-off ~1e-16/EPS


def _state(cm, seed=1):
    rng = np.random.default_rng(seed)
    q = cm.q0 + 0.05 * rng.standard_normal(cm.n_q)
    qd = rng.standard_normal(cm.n_q)
    for b in range(len(cm.body_names)):
        if cm.arrays.body_kind[b] == RIGID:   # unit Euler parameters and p . p' = 0
            a = cm.arrays.body_q_adr[b] + 3
            q[a:a + 4] /= np.linalg.norm(q[a:a + 4])
            qd[a:a + 4] -= q[a:a + 4] * (q[a:a + 4] @ qd[a:a + 4])
    return q, qd


MODELS = {"spatial": every_joint_spatial, "planar": every_joint_planar}


@pytest.fixture(scope="module", params=list(MODELS))
def case(request):
    cm = compile_model(MODELS[request.param]())
    return cm, Evaluator(cm)


def test_jacobian_matches_finite_differences(case):
    cm, ev = case
    q, qd = _state(cm)
    t = 0.37
    ev.constraints(t, q, qd)
    J = ev.J.copy()
    rng = np.random.default_rng(7)
    for _ in range(3):
        dq = rng.standard_normal(cm.n_q)
        fd = (ev.constraints(t, q + EPS * dq).copy() - ev.constraints(t, q - EPS * dq).copy()) / (2 * EPS)
        # tolerance: FD truncation + round-off, relative to the row scale (|J dq| is O(1..10))
        assert np.abs(fd - J @ dq).max() < 1e-7


def test_gamma_and_nu_match_time_derivatives(case):
    cm, ev = case
    q, qd = _state(cm)
    t = 0.37
    ev.constraints(t, q, qd)
    gamma, nu = ev.gamma.copy(), ev.nu.copy()

    def j_qd(e):
        ev.constraints(t + e, q + e * qd, qd)
        return ev.J @ qd, ev.nu.copy()

    def deriv(h):  # Phi = g(q) - f(t): gamma = -(d/dt J) qd + f'' with f'' = d(nu)/dt
        (jp, nup), (jm, num) = j_qd(h), j_qd(-h)
        return -(jp - jm) / (2 * h) + (nup - num) / (2 * h)

    # Richardson extrapolation removes the O(h^2) term (the ANGLE rows here have gamma ~4e3 and large
    # third derivatives); the remaining O(h^4) error is far below the bound
    h = 1e-3
    ref = (4.0 * deriv(h / 2) - deriv(h)) / 3.0
    scale = np.maximum(1.0, np.abs(gamma))
    assert np.max(np.abs(gamma - ref) / scale) < 1e-7
    phi_t = (ev.constraints(t + EPS, q).copy() - ev.constraints(t - EPS, q).copy()) / (2 * EPS)
    assert np.abs(nu + phi_t).max() < 1e-8


@pytest.mark.parametrize("make", [every_joint_spatial, every_joint_planar])
def test_conservative_forces_are_minus_gradient_of_potential(make):
    cm = compile_model(make(conservative=True))
    ev = Evaluator(cm)
    q, _ = _state(cm)
    zero = np.zeros(cm.n_q)
    Q = ev.forces(0.0, q, zero).copy()

    def V(qq):
        ev.forces(0.0, qq, zero)
        return ev.spring_energy + ev.gravity_energy(qq)

    rng = np.random.default_rng(3)
    for _ in range(3):
        dq = rng.standard_normal(cm.n_q)
        dV = (V(q + EPS * dq) - V(q - EPS * dq)) / (2 * EPS)
        assert abs(Q @ dq + dV) < 1e-6 * max(1.0, abs(dV))


@pytest.mark.parametrize("make", [every_joint_spatial, every_joint_planar])
def test_kinetic_energy_is_quadratic_form_of_mass_matrix(make):
    cm = compile_model(make())
    ev = Evaluator(cm)
    q, qd = _state(cm)
    assert math.isclose(0.5 * qd @ ev.mass(q) @ qd, ev.kinetic_energy(q, qd), rel_tol=1e-13)


def test_rigid_body_kinetic_energy_from_angular_velocity():
    """T = 1/2 m v^2 + 1/2 w^T (A J A^T) w for a body given a world angular velocity."""
    b = ModelBuilder("free", 3, (0.0, 0.0, 0.0))
    J = np.array([[0.3, 0.01, 0.02], [0.01, 0.4, 0.03], [0.02, 0.03, 0.5]])
    p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    w = np.array([1.0, -2.0, 0.5])
    v = np.array([0.3, 0.1, -0.2])
    b.add_rigid_body("b", 2.0, J, orientation=p, velocity=v, angular_velocity=w)
    cm = compile_model(b.build())
    e0, e = p[0], p[1:]
    et = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
    A = (2 * e0 * e0 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * et)
    T_ref = 0.5 * 2.0 * v @ v + 0.5 * w @ (A @ J @ A.T) @ w
    assert math.isclose(Evaluator(cm).kinetic_energy(cm.q0, cm.qd0), T_ref, rel_tol=1e-13)


def _fn_value(fn, t):
    from fmu_mbs.compiler.functions import FunctionPool
    pool = FunctionPool()
    k = pool.add(fn)
    ft, fa, fl, fp, _ = pool.arrays()
    return eval_time_function(ft, fa, fl, fp, k, t)


@pytest.mark.parametrize("fn,exact", [
    (Linear(0.5, 2.0), lambda t: (0.5 + 2 * t, 2.0, 0.0)),
    (Polynomial((1.0, -2.0, 0.5, 0.25)), lambda t: (1 - 2 * t + 0.5 * t**2 + 0.25 * t**3, -2 + t + 0.75 * t**2,
                                                    1 + 1.5 * t)),
    (Harmonic(0.3, 2.0, 0.1, 1.0), lambda t: (1 + 0.3 * math.sin(2 * t + 0.1), 0.6 * math.cos(2 * t + 0.1),
                                              -1.2 * math.sin(2 * t + 0.1))),
])
def test_time_functions_closed_form(fn, exact):
    for t in (0.0, 0.3, 1.7):
        assert np.allclose(_fn_value(fn, t), exact(t), rtol=1e-14, atol=1e-14)


def test_smooth_ramp_is_the_quintic_step():
    fn = SmoothRamp(1.0, 3.0, 2.0, 5.0)
    for t, x in ((0.5, 0.0), (1.5, 0.25), (2.0, 0.5), (2.9, 0.95), (4.0, 1.0)):
        xc = min(max(x, 0.0), 1.0)
        h = 10 * xc**3 - 15 * xc**4 + 6 * xc**5
        hd = (30 * xc**2 - 60 * xc**3 + 30 * xc**4) / 2.0
        hdd = (60 * xc - 180 * xc**2 + 120 * xc**3) / 4.0
        assert np.allclose(_fn_value(fn, t), (2 + 3 * h, 3 * hd, 3 * hdd), atol=1e-13)


def test_tables_interpolate_and_hold_ends():
    t = (0.0, 1.0, 2.0, 3.0, 4.0)
    cubic = [3.0 * x**3 - x**2 + 2.0 for x in t]     # a cubic is reproduced exactly by a not-a-knot spline
    for x in (0.0, 0.01, 0.4, 1.5, 3.99):   # t_0 included: the table moves from its first point
        f, fd, fdd = _fn_value(Table(t, tuple(cubic)), x)
        assert np.allclose((f, fd, fdd), (3 * x**3 - x**2 + 2, 9 * x**2 - 2 * x, 18 * x - 2), atol=1e-10)
    assert np.allclose(_fn_value(Table(t, tuple(cubic)), 5.0), (cubic[-1], 0.0, 0.0))   # held beyond the ends
    assert np.allclose(_fn_value(Table(t, tuple(cubic)), -1.0), (cubic[0], 0.0, 0.0))
    for x in (0.0, 0.5):
        f, fd, _ = _fn_value(Table((0.0, 2.0), (1.0, 5.0), "linear"), x)
        assert (f, fd) == (1.0 + 2.0 * x, 2.0)


def test_curve_value_slope_and_integral():
    par = np.array([-1.0, 0.0, 2.0, -3.0, 0.0, 4.0])   # x = (-1, 0, 2), y = (-3, 0, 4)
    y, s, integral = eval_curve(par, 0, 3, 3.0)        # extrapolated with the last slope 2
    assert (y, s) == (6.0, 2.0)
    assert math.isclose(integral, 0.5 * 2 * 4 + 0.5 * (4 + 6) * 1)
    y, s, integral = eval_curve(par, 0, 3, -2.0)       # extrapolated with the first slope 3
    assert (y, s) == (-6.0, 3.0)
    assert math.isclose(integral, 0.5 * 1 * 3 + 0.5 * (3 + 6) * 1)
