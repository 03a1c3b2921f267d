"""The 3D beam finite element (fmu_mbs.fe) against beam theory: Euler-Bernoulli cantilever roots, Timoshenko
frequencies of short beams (L/h = 5, 10) from the exact Timoshenko equations, static tip deflection."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.optimize import brentq

from fmu_mbs.errors import ModelError
from fmu_mbs.fe import BeamSection, natural_modes, static_solve, straight_beam
from fmu_mbs.fe.beam import bending_matrices, local_matrices

# roots of cos(bL) cosh(bL) = -1 (clamped-free Euler-Bernoulli beam; e.g. Blevins, Formulas for Natural Frequency
# and Mode Shape, Table 8-1)
BETA_L = np.array([1.875104, 4.694091, 7.854757, 10.995541, 14.137168])
E, NU, RHO = 2.1e11, 0.3, 7850.0


def _planar(beam, n_el):
    """Supports: node 0 clamped; out-of-plane and axial DOFs held, leaving bending in the x-y plane."""
    return beam.dofs({0: "all", **{i: ["ux", "uz", "rx", "ry"] for i in range(1, n_el + 1)}})


def test_the_printed_roots_solve_the_frequency_equation():
    assert np.all(np.abs(np.cos(BETA_L) * np.cosh(BETA_L) + 1.0) < 1e-4 * np.cosh(BETA_L))


def test_element_matrices_equal_the_closed_forms():
    """Stiffness = Przemieniecki's Timoshenko matrix (1968, eq. 5.115); EB mass = the classic (L/420) matrix."""
    L, EI, kGA = 0.7, 3.0e4, 2.0e6
    phi = 12 * EI / (kGA * L * L)
    K, _ = bending_matrices(L, EI, kGA, 1.0, 0.0)
    a, b = (4 + phi) * L * L, (2 - phi) * L * L
    Kc = EI / ((1 + phi) * L**3) * np.array([[12, 6 * L, -12, 6 * L], [6 * L, a, -6 * L, b],
                                             [-12, -6 * L, 12, -6 * L], [6 * L, b, -6 * L, a]])
    assert np.allclose(K, Kc, rtol=1e-12, atol=1e-9 * np.abs(Kc).max())
    _, M = bending_matrices(L, EI, None, 2.5, 0.0)
    Mc = 2.5 * L / 420 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L * L, 13 * L, -3 * L * L],
                                   [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L * L, -22 * L, 4 * L * L]])
    assert np.allclose(M, Mc, rtol=1e-12, atol=1e-12 * np.abs(Mc).max())


def test_euler_bernoulli_cantilever_first_five_frequencies_converge_to_the_roots():
    s = BeamSection.rectangle(0.01, 0.01, E, NU, RHO)
    L = 1.0
    exact = BETA_L**2 / (2 * np.pi * L**2) * np.sqrt(E * s.Iz / (RHO * s.A))
    errors = []
    for n_el in (10, 20, 40):
        b = straight_beam(L, n_el, s, theory="euler-bernoulli")
        f = natural_modes(b.K, b.M, 5, fixed=_planar(b, n_el)).frequencies
        errors.append(np.abs(f / exact - 1.0))
    assert np.all(errors[-1] < 2e-5)                     # the roots are given to 7 digits
    assert np.all(errors[1][1:] < errors[0][1:] / 12) and np.all(errors[2][2:] < errors[1][2:] / 12)   # O(h^4)


def timoshenko_cantilever_omegas(EI, kGA, rhoA, rhoI, L, n, w_max):
    """Exact natural frequencies (rad/s) of a clamped-free Timoshenko beam (shear + rotary inertia), from the
    transfer matrix of the state y = (v, theta, M, Q): v' = theta + Q/kGA, theta' = M/EI, M' = -Q - rhoI w^2 theta,
    Q' = -rhoA w^2 v (Timoshenko 1921); clamped y(0) = (0, 0, M0, Q0), free M(L) = Q(L) = 0."""
    def det(w):
        A = np.array([[0, 1, 0, 1 / kGA], [0, 0, 1 / EI, 0], [0, -rhoI * w * w, 0, -1], [-rhoA * w * w, 0, 0, 0]])
        return np.linalg.det(expm(A * L)[2:, 2:])
    grid = np.linspace(1e-6 * w_max, w_max, 4000)
    d = [det(w) for w in grid]
    roots = [brentq(det, a, b, xtol=1e-12, rtol=1e-14)
             for a, b, da, db in zip(grid[:-1], grid[1:], d[:-1], d[1:]) if da * db < 0]
    return np.array(roots[:n])


# Timoshenko/Euler-Bernoulli frequency ratios of a square section, nu = 0.3, Cowper k: an independent FE study
# (anchors-flex-crash.md §2.4, 2000 linear elements), which the exact solution above must reproduce
RATIOS = {5: [0.97021, 0.83528, 0.71100, 0.60302, 0.51914], 10: [0.99225, 0.94952, 0.89259, 0.82694, 0.76209]}


@pytest.mark.parametrize("slenderness", [5, 10])
def test_timoshenko_short_cantilever_against_timoshenko_theory(slenderness):
    h = 0.1
    L = slenderness * h
    s = BeamSection.rectangle(h, h, E, NU, RHO)
    EI, kGA = E * s.Iz, s.ky * s.G * s.A
    w_eb = BETA_L**2 / L**2 * np.sqrt(EI / (RHO * s.A))
    exact = timoshenko_cantilever_omegas(EI, kGA, RHO * s.A, RHO * s.Iz, L, 5, 1.2 * w_eb[-1])
    assert np.allclose(exact / w_eb, RATIOS[slenderness], atol=2e-5)
    err = {}
    for n_el in (40, 80):
        b = straight_beam(L, n_el, s, theory="timoshenko")
        err[n_el] = np.abs(natural_modes(b.K, b.M, 5, fixed=_planar(b, n_el)).omega / exact - 1.0)
    assert np.all(err[80] < 1e-3)
    assert np.all(err[80] < err[40] / 3.5)               # second-order convergence to the exact values
    # Euler-Bernoulli would be far off for the short beam: the shear effect is real, not noise
    assert exact[1] / w_eb[1] < 0.96


def test_static_tip_deflection_bending_plus_shear():
    """delta = P L^3/(3EI) + P L/(k G A): exact for the Timoshenko element; check the Nachbagauer, Gruber &
    Gerstmayr (2013) plane-stress case too (published continuum-beam value 8.091623e-4 m)."""
    s = BeamSection.rectangle(0.5, 0.1, 2.07e11, 0.3, 2000.0)      # 0.5 along local y: bending about z
    L, P = 2.0, -62500.0
    for n_el in (1, 4, 7):
        b = straight_beam(L, n_el, s, theory="timoshenko")
        f = np.zeros(b.n_dofs)
        f[b.dof(n_el, "uy")] = P
        u = static_solve(b.K, f, b.dofs({0: "all"}))
        formula = P * L**3 / (3 * s.E * s.Iz) + P * L / (s.ky * s.G * s.A)
        assert u[b.dof(n_el, "uy")] == pytest.approx(formula, rel=1e-10)
    assert abs(u[b.dof(n_el, "uy")]) == pytest.approx(8.0990e-4, rel=1e-4)
    assert abs(u[b.dof(n_el, "uy")]) == pytest.approx(8.091623235e-4, rel=1.5e-3)
    b = straight_beam(L, 4, s, theory="euler-bernoulli")
    f = np.zeros(b.n_dofs)
    f[b.dof(4, "uz")] = P
    u = static_solve(b.K, f, b.dofs({0: "all"}))
    assert u[b.dof(4, "uz")] == pytest.approx(P * L**3 / (3 * s.E * s.Iy), rel=1e-10)
    assert u[b.dof(4, "ry")] == pytest.approx(-P * L**2 / (2 * s.E * s.Iy), rel=1e-10)   # ry = -dw/dx


def test_orientation_any_direction_same_frequencies_and_sections_axes():
    s = BeamSection.rectangle(0.02, 0.05, E, NU, RHO)     # Iy (about local y, height along z) > Iz
    a = straight_beam(1.0, 12, s)
    e = np.array([1.0, 2.0, 2.0]) / 3.0
    up = np.array([0.0, 1.0, 0.0]) - e[1] * e
    b = straight_beam(1.0, 12, s, start=(0.3, -0.2, 1.0), direction=e, up=up)
    fa = natural_modes(a.K, a.M, 8, fixed=a.dofs({0: "all"})).frequencies
    fb = natural_modes(b.K, b.M, 8, fixed=b.dofs({0: "all"})).frequencies
    assert np.allclose(fa, fb, rtol=1e-9)
    modes = natural_modes(a.K, a.M, 2, fixed=a.dofs({0: "all"}))
    first = modes.shapes[:, 0]
    assert np.abs(first[1::6]).max() > 10 * np.abs(first[2::6]).max()     # the weak direction is global y (Iz)
    ratio = modes.omega[1] / modes.omega[0]
    assert ratio == pytest.approx(np.sqrt(s.Iy / s.Iz), rel=2e-3)          # slender: EB scaling sqrt(I)


def test_bad_input_is_named():
    with pytest.raises(ModelError, match="E = -1"):
        straight_beam(1.0, 2, BeamSection(E=-1, G=1, A=1, Iy=1, Iz=1, J=1, rho=1))
    with pytest.raises(ModelError, match="theory 'bernoulli'"):
        local_matrices(1.0, BeamSection.rectangle(0.1, 0.1, E, NU, RHO), theory="bernoulli")
    b = straight_beam(1.0, 2, BeamSection.rectangle(0.1, 0.1, E, NU, RHO))
    with pytest.raises(ModelError, match="node 5"):
        b.dofs({5: "all"})
