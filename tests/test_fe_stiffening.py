"""Geometric stiffening of beam bodies (fmu_mbs.fe.stiffening) and section-force recovery (fmu_mbs.fe.recovery):
Euler buckling load, the rotating-cantilever flapwise frequency table, statics of a cantilever."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la

from fmu_mbs.errors import ModelError
from fmu_mbs.fe import BeamSection, FEBody, Interface, craig_bampton, natural_modes, static_solve, straight_beam
from fmu_mbs.fe.recovery import normal_stress, section_force_modes, section_forces
from fmu_mbs.fe.stiffening import element_geometric_stiffness, geometric_stiffness, modal_geometric_stiffness

UNIT = BeamSection(E=1.0e7, G=4.0e6, A=1e-3, Iy=1e-7, Iz=1e-7, J=2e-7, rho=1000.0)   # EI = 1, rho A = 1, L = 1


def test_element_geometric_stiffness_is_the_classical_matrix():
    L, N = 0.4, 250.0
    kg = element_geometric_stiffness(L, N, N)[np.ix_([1, 5, 7, 11], [1, 5, 7, 11])]
    ref = N / (30 * L) * np.array([[36, 3 * L, -36, 3 * L], [3 * L, 4 * L * L, -3 * L, -L * L],
                                   [-36, -3 * L, 36, -3 * L], [3 * L, -L * L, -3 * L, 4 * L * L]])
    assert np.allclose(kg, ref, rtol=1e-12, atol=1e-12 * N)


def test_euler_buckling_load_of_a_cantilever():
    """P_cr = pi^2 EI / (4 L^2) (Euler 1744; Timoshenko & Gere, Theory of Elastic Stability, §2.1)."""
    b = straight_beam(1.0, 20, UNIT, theory="euler-bernoulli")
    fixed = b.dofs({0: "all"})
    f = np.zeros(b.n_dofs)
    f[b.dof(20, "ux")] = -1.0                              # unit compression
    KG = geometric_stiffness(b, static_solve(b.K, f, fixed))
    free = np.setdiff1d(np.arange(b.n_dofs), fixed)
    lam = la.eigvals(b.K.toarray()[np.ix_(free, free)], -KG.toarray()[np.ix_(free, free)])
    lam = np.real(lam[np.isfinite(lam)])
    p_cr = np.min(lam[lam > 0])
    assert p_cr == pytest.approx(np.pi**2 * 1.0 / 4.0, rel=1e-5)


# first flapwise frequency of a rotating cantilever, omega sqrt(rho A L^4 / EI) against gamma = Omega sqrt(...):
# the classic table (Hodges & Rutkowski, AIAA J. 19 (1981); Wright et al. 1982), anchors-flex-crash.md §2.5
ROTATING = {0: 3.5160, 3: 4.7973, 6: 7.3604, 10: 11.2023}


def test_rotating_cantilever_flapwise_frequencies_with_centrifugal_stiffening():
    b = straight_beam(1.0, 40, UNIT, theory="euler-bernoulli")
    ms = craig_bampton(b, [Interface("hub", (0,), "nodes")], 30)          # frame attached at the hub (tangent)
    kg = modal_geometric_stiffness(ms)
    for gamma, ref in ROTATING.items():
        w = np.sqrt(la.eigvalsh(ms.stiffness + kg.at([0.0, 0.0, gamma]), ms.mass)[0])
        assert w == pytest.approx(ref, rel=6e-5)
    # a spin about the beam's own axis produces no axial prestress, a frame acceleration along it does
    assert np.abs(kg.at([1.0, 0.0, 0.0])).max() < 1e-9 * np.abs(kg.at([0.0, 0.0, 1.0])).max()
    assert np.abs(kg.at([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])).max() > 0


def test_cantilever_section_forces_and_stress():
    s = BeamSection.rectangle(0.03, 0.05, 2.1e11, 0.3, 7850.0)
    L, P, n = 1.2, 500.0, 6
    b = straight_beam(L, n, s, theory="timoshenko")
    fixed = b.dofs({0: "all"})
    loads = {"uy": (1, 5, lambda x: P * (L - x)), "uz": (2, 4, lambda x: -P * (L - x))}
    x_ends = np.array([[k * L / n, (k + 1) * L / n] for k in range(n)])
    for comp, (qi, mi, moment) in loads.items():
        f = np.zeros(b.n_dofs)
        f[b.dof(n, comp)] = P
        S = section_forces(b, static_solve(b.K, f, fixed))
        assert np.allclose(S[:, :, qi], P, rtol=1e-9)                       # shear = tip force
        assert np.allclose(S[:, :, mi], moment(x_ends), rtol=1e-9, atol=1e-9 * P * L)
    f = np.zeros(b.n_dofs)
    f[b.dof(n, "ux")], f[b.dof(n, "rx")], f[b.dof(n, "uy")] = 2 * P, 30.0, P
    S = section_forces(b, static_solve(b.K, f, fixed))
    assert np.allclose(S[:, :, 0], 2 * P) and np.allclose(S[:, :, 3], 30.0)
    sigma = normal_stress(b, S, 0, y=0.015, z=0.0)[0]                 # root, outer fibre on +y
    assert sigma == pytest.approx(2 * P / s.A - P * L * 0.015 / s.Iz, rel=1e-9)


def test_stress_modes_superpose():
    b = straight_beam(1.0, 8, BeamSection.rectangle(0.02, 0.02, 7e10, 0.33, 2700.0))
    ms = craig_bampton(b, [Interface("root", (0,), "nodes"), Interface("tip", (8,), "nodes")], 4)
    eta = np.array([1e-3, -2e-3, 5e-4, 1e-4, 0.0, 2e-4, 3e-3, -1e-3, 0.5e-3, 0.0])
    assert np.allclose(section_force_modes(ms) @ eta, section_forces(b, ms.basis @ eta), rtol=1e-12, atol=1e-9)
    plain = FEBody(nodes=b.nodes, M=b.M, K=b.K)
    with pytest.raises(ModelError, match="beam elements"):
        section_forces(plain, np.zeros(b.n_dofs))
    assert natural_modes(b.K, b.M, 1, fixed=b.dofs({0: "all"})).omega[0] > 0
