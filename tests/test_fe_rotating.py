"""A spinning modal beam through the FFRF invariants (fe.ffrf.rotating_linearization) and the geometric stiffening
(fe.stiffening): the rotating-cantilever frequency table, spin softening in the plane of rotation, and the
instability of the unstiffened linear modal body above Omega = 3.516 / sqrt(rho A L^4 / EI) (Kane, Ryan & Banerjee,
J. Guidance 10 (1987); anchors-flex-crash.md §2.5)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la

from fmu_mbs.fe import BeamSection, Interface, craig_bampton, invariants, straight_beam
from fmu_mbs.fe.ffrf import rotating_linearization
from fmu_mbs.fe.stiffening import modal_geometric_stiffness

# first flapwise frequency omega sqrt(rho A L^4/EI) of a rotating cantilever at gamma = Omega sqrt(rho A L^4/EI)
# (Hodges & Rutkowski 1981; Wright et al. 1982); in the plane of rotation spin softening gives sqrt(w^2 - gamma^2)
FLAP = {3: 4.7973, 6: 7.3604, 10: 11.2023}


def _spinning(section, L, n_el=40, n_modes=30):
    b = straight_beam(L, n_el, section, theory="euler-bernoulli")
    ms = craig_bampton(b, [Interface("hub", (0,), "nodes")], n_modes)      # frame attached at the hub, spin about z
    return invariants(ms), modal_geometric_stiffness(ms)


def test_rotating_cantilever_flapwise_and_in_plane_frequencies():
    # EI = rho A = L = 1 and EA = 1e6 (nearly inextensible, as the classical table assumes)
    unit = BeamSection(E=1.0e9, G=4.0e8, A=1e-3, Iy=1e-9, Iz=1e-9, J=2e-9, rho=1000.0)
    inv, kg = _spinning(unit, 1.0)
    for gamma, flap in FLAP.items():
        w = [0.0, 0.0, gamma]
        M, G, K, _ = rotating_linearization(inv, w, kg.at(w))
        lam = np.sqrt(la.eigvalsh(K, M)[:2])
        assert lam[0] == pytest.approx(np.sqrt(flap**2 - gamma**2), rel=1e-4)    # in plane (y), softened
        assert lam[1] == pytest.approx(flap, rel=1e-4)                           # flapwise (z)
        assert np.allclose(G, -G.T)
        # with the Coriolis (gyroscopic) coupling the motion stays a pure oscillation, and with a nearly
        # inextensible beam the coupling to the axial modes barely moves the frequency
        n = M.shape[0]
        A = np.block([[np.zeros((n, n)), np.eye(n)], [-la.solve(M, K), -la.solve(M, G)]])
        ev = la.eigvals(A)
        assert np.max(ev.real) < 1e-6 * np.max(np.abs(ev))
        low = np.sort(np.abs(ev.imag[ev.imag > 0]))[0]
        assert low == pytest.approx(np.sqrt(flap**2 - gamma**2), rel=2e-4)


def test_kane_beam_without_stiffening_goes_unstable_above_3_516_over_T():
    """Kane-type beam: L = 10 m, EI = 1.4e4 N m^2, rho A = 1.2 kg/m, EA = 2.8e7 N: T = sqrt(rho A L^4 / EI)."""
    L, EI, rhoA, EA = 10.0, 1.4e4, 1.2, 2.8e7
    A = 4e-4
    sec = BeamSection(E=EA / A, G=EA / A / 2.6, A=A, Iy=EI / (EA / A), Iz=EI / (EA / A), J=2 * EI / (EA / A),
                      rho=rhoA / A)
    inv, kg = _spinning(sec, L, n_el=20, n_modes=16)
    T = np.sqrt(rhoA * L**4 / EI)
    crit = 3.5160 / T
    assert crit == pytest.approx(3.80, abs=5e-3)
    lowest = {}
    for label, omega in (("below", 0.98 * crit), ("above", 1.02 * crit)):
        _, _, K, _ = rotating_linearization(inv, [0.0, 0.0, omega])
        lowest[label] = la.eigvalsh(K, inv.M_ff)[0]
    assert lowest["below"] > 0 > lowest["above"]
    w = [0.0, 0.0, 6.0]                                           # the spin-up's final speed, stiffened
    _, _, K, _ = rotating_linearization(inv, w, kg.at(w))
    assert la.eigvalsh(K, inv.M_ff)[0] > 0
    _, _, K, _ = rotating_linearization(inv, w)
    assert la.eigvalsh(K, inv.M_ff)[0] < 0
