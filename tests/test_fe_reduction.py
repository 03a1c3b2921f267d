"""Modal reduction of FE bodies (fmu_mbs.fe): Craig-Bampton with rigid, averaged and nodal interfaces, free-interface
modes, mean-axis and tangent reference conditions, static correction modes, modal damping."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la

from fmu_mbs.errors import ModelError
from fmu_mbs.fe import (
    BeamSection,
    Interface,
    beam_body,
    craig_bampton,
    free_interface_modes,
    modal_damping,
    natural_modes,
    rayleigh,
    rayleigh_coefficients,
    static_solve,
    straight_beam,
    with_static_correction,
)
from fmu_mbs.fe.craig_bampton import _held

SEC = BeamSection.rectangle(0.01, 0.01, 2.1e11, 0.3, 7850.0)
# roots of cos(bL) cosh(bL) = 1, free-free Euler-Bernoulli beam (Blevins, Table 8-1)
FREE_FREE = np.array([4.730040745, 7.853204624, 10.995607838])


def _cantilever(n_el=40):
    return straight_beam(1.0, n_el, SEC, theory="euler-bernoulli")


def test_craig_bampton_frequencies_converge_to_the_full_model_from_above():
    b = _cantilever()
    full = natural_modes(b.K, b.M, 10, fixed=b.dofs({0: "all"})).frequencies
    itf = [Interface("root", (0,), "nodes"), Interface("tip", (40,), "nodes")]
    errors = []
    for n in (5, 10, 20, 40):
        ms = craig_bampton(b, itf, n)                        # tangent frame at the root: a cantilever
        assert ms.reference == "tangent:root" and ms.n_modes == 6 + n
        f = ms.frequencies()[:10]
        assert np.all(f >= full * (1 - 1e-10))              # Rayleigh-Ritz: reduced frequencies bound from above
        errors.append(np.max(f / full - 1))
    assert all(e2 < e1 for e1, e2 in zip(errors, errors[1:]))
    assert errors[-1] < 3e-5


def test_free_interface_modes_match_the_free_free_beam_and_the_mean_axis_conditions():
    b = _cantilever()
    ms = free_interface_modes(b, 6)
    exact = FREE_FREE**2 / (2 * np.pi) * np.sqrt(SEC.E * SEC.Iz / (SEC.rho * SEC.A))
    f = ms.frequencies()
    assert np.allclose(f[0::2], exact, rtol=1e-5) and np.allclose(f[1::2], exact, rtol=1e-5)   # y and z pairs
    assert ms.reference == "mean-axis"
    R = b.rigid_modes()
    assert np.abs(ms.basis.T @ (b.M @ R)).max() < 1e-8         # basis mass-normalised: O(1) if violated


def test_craig_bampton_mean_axis_removes_rigid_motion_and_converges():
    b = _cantilever()
    itf = [Interface("root", (0,), "nodes"), Interface("tip", (40,), "nodes")]
    ms = craig_bampton(b, itf, 20, reference="mean-axis")
    assert ms.n_modes == 12 + 20 - 6
    R = b.rigid_modes()
    assert np.abs(ms.basis.T @ (b.M @ R)).max() < 1e-8
    exact = FREE_FREE**2 / (2 * np.pi) * np.sqrt(SEC.E * SEC.Iz / (SEC.rho * SEC.A))
    f = ms.frequencies()[:6:2]
    assert np.all(f >= exact * (1 - 1e-6)) and np.allclose(f, exact, rtol=3e-4)
    none = craig_bampton(b, itf, 20, reference="none")
    assert np.allclose(none.frequencies()[:6], 0.0, atol=1e-3)   # six rigid modes remain without a reference


def _ladder():
    """Two rails along x (y = 0 and y = 0.2) joined by rungs: a planar frame of beams, nodes not on one line."""
    xs = np.linspace(0.0, 1.0, 11)
    nodes = np.vstack([np.column_stack([xs, 0 * xs, 0 * xs]), np.column_stack([xs, 0 * xs + 0.2, 0 * xs])])
    rails = [(i, i + 1) for i in range(10)] + [(11 + i, 12 + i) for i in range(10)]
    rungs = [(i, 11 + i) for i in range(11)]
    return beam_body(nodes, SEC, elements=np.array(rails + rungs), up=(0, 0, 1), name="ladder")


def test_averaged_interface_is_softer_than_rigid_and_reproduces_rigid_motion():
    b = _ladder()
    root, tip = (0, 1, 11, 12), (9, 10, 20, 21)
    freqs = {}
    for kind in ("rigid", "averaged"):
        itf = [Interface("root", root, kind), Interface("tip", tip, kind)]
        ms = craig_bampton(b, itf, 15)
        freqs[kind] = ms.frequencies()[:4]
        C, E, _ = _held(b, itf, None)
        psi_c = craig_bampton(b, itf, 0, reference="none").basis
        assert np.allclose(C @ psi_c, E, atol=1e-9)            # constraint modes meet their interface constraints
        Ci, Ei, _ = itf[0].constraint(b)
        assert np.allclose(Ci @ b.rigid_modes(itf[0].reference_point(b)), Ei, atol=1e-12)  # q = the rigid motion
    assert np.all(freqs["averaged"] < freqs["rigid"])


def test_static_correction_mode_makes_the_interior_load_response_exact():
    b = _cantilever(20)
    root = b.dofs({0: "all"})
    load = [b.dof(10, "uy")]
    f = np.zeros(b.n_dofs)
    f[load[0]] = 100.0
    exact = static_solve(b.K, f, root)
    plain = free_interface_modes(b, 3, fixed=root)
    corrected = with_static_correction(plain, load, fixed=root)
    assert corrected.n_modes == 4 and corrected.names[-1] == "static 1"
    for ms, tol in ((corrected, 1e-10), (plain, None)):
        eta = np.linalg.solve(ms.stiffness, ms.basis.T @ f)
        err = np.abs(ms.basis @ eta - exact).max() / np.abs(exact).max()
        if tol is None:
            assert err > 1e-3
        else:
            assert err < tol
    with pytest.raises(ModelError, match="give its supports"):
        with_static_correction(plain, load)
    free = with_static_correction(free_interface_modes(b, 3), load)      # inertia relief keeps the mean axes
    assert np.abs(free.basis.T @ (b.M @ b.rigid_modes())).max() < 1e-8


def test_modal_damping_gives_the_requested_ratios():
    b = _cantilever(20)
    ms = craig_bampton(b, [Interface("root", (0,), "nodes"), Interface("tip", (20,), "nodes")], 6, diagonalize=True)
    zeta = np.linspace(0.01, 0.08, ms.n_modes)
    D = modal_damping(ms, zeta).damping
    n = ms.n_modes
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-la.solve(ms.mass, ms.stiffness), -la.solve(ms.mass, D)]])
    lam = la.eigvals(A)
    lam = lam[lam.imag > 0]
    lam = lam[np.argsort(np.abs(lam))]
    ratios = -lam.real / np.abs(lam)
    # the square section bends at one frequency in both planes: within such a pair |lam| ties and the requested
    # ratios (ascending with the mode number) are matched in ascending order
    k = 0
    while k < n:
        j = k + 1
        while j < n and abs(abs(lam[j]) - abs(lam[k])) <= 1e-6 * abs(lam[k]):
            j += 1
        ratios[k:j] = np.sort(ratios[k:j])
        k = j
    assert np.allclose(ratios, zeta, rtol=1e-8)
    f = ms.frequencies()
    a, c = rayleigh_coefficients(f[0], 0.02, f[4], 0.05)
    D = rayleigh(ms, a, c).damping
    w = 2 * np.pi * f
    assert np.allclose(np.diag(D)[[0, 4]] / (2 * w[[0, 4]]), [0.02, 0.05], rtol=1e-10)   # M_r = I after diagonalize


def test_bad_interfaces_are_named():
    b = _cantilever(4)
    with pytest.raises(ModelError, match="'tip'.*needs 3 nodes not on one line"):
        craig_bampton(b, [Interface("tip", (3, 4), "averaged")], 2)
    with pytest.raises(ModelError, match="share node 2"):
        craig_bampton(b, [Interface("a", (1, 2), "rigid"), Interface("b", (2, 3), "rigid")], 2)
    with pytest.raises(ModelError, match="nodes \\[9\\] do not exist"):
        craig_bampton(b, [Interface("a", (9,), "rigid")], 2)
    with pytest.raises(ModelError, match="reference 'floating'"):
        craig_bampton(b, [Interface("a", (0,), "rigid")], 2, reference="floating")


def test_sparse_eigen_path_matches_the_dense_one(monkeypatch):
    """Bodies above DENSE_LIMIT free DOFs go through ARPACK shift-invert (also with a singular, free-free K)."""
    import fmu_mbs.fe.eigen as eigen

    b = _cantilever(30)
    dense_clamped = natural_modes(b.K, b.M, 6, fixed=b.dofs({0: "all"})).frequencies
    dense_free = free_interface_modes(b, 4).frequencies()
    monkeypatch.setattr(eigen, "DENSE_LIMIT", 10)
    assert np.allclose(natural_modes(b.K, b.M, 6, fixed=b.dofs({0: "all"})).frequencies, dense_clamped, rtol=1e-9)
    assert np.allclose(free_interface_modes(b, 4).frequencies(), dense_free, rtol=1e-8)
    itf = [Interface("root", (0,), "nodes"), Interface("tip", (30,), "nodes")]
    sparse_cb = craig_bampton(b, itf, 6).frequencies()
    monkeypatch.setattr(eigen, "DENSE_LIMIT", 10**6)
    assert np.allclose(sparse_cb, craig_bampton(b, itf, 6).frequencies(), rtol=1e-9)


def test_interface_basis_moves_the_reference_point_with_its_nodes():
    b = _ladder()
    root, tip = (0, 1, 11, 12), (9, 10, 20, 21)
    for kind in ("rigid", "averaged"):
        ms = craig_bampton(b, [Interface("root", root, kind), Interface("tip", tip, kind)], 6, reference="mean-axis")
        point, rows = ms.interface_basis("tip")
        assert np.allclose(point, b.nodes[list(tip)].mean(axis=0))
        eta = np.linspace(-1.0, 1.0, ms.n_modes) * 1e-3
        u = ms.basis @ eta
        Rt = b.rigid_modes(point)
        tip_dofs = np.array([6 * n + c for n in tip for c in range(6)])
        if kind == "rigid":        # the nodes follow the point's rigid motion exactly
            assert np.allclose(Rt[tip_dofs] @ (rows @ eta), u[tip_dofs], atol=1e-12)
        else:                      # the point follows the least-squares rigid fit of the nodes' translations
            t = np.array([6 * n + c for n in tip for c in range(3)])
            fit = np.linalg.lstsq(Rt[t], u[t], rcond=None)[0]
            assert np.allclose(rows @ eta, fit, atol=1e-12)
    with pytest.raises(ModelError, match="no interface 'hub'"):
        ms.interface_basis("hub")
