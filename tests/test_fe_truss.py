"""3-DOF-node bodies (fe.truss): the axial bar against its closed form, and the solid-node code paths of the
reductions (rigid and averaged interfaces on several nodes) and invariants (exactly Exudyn's set)."""

from __future__ import annotations

import numpy as np
import pytest

from fmu_mbs.errors import ModelError
from fmu_mbs.fe import Interface, craig_bampton, invariants, natural_modes, truss_body, write_fem


def test_fixed_free_bar_axial_frequencies():
    """omega_n = (2n - 1) pi/2 sqrt(EA / (rho A L^2)) (e.g. Blevins, Table 8-16)."""
    n_el, L, EA, rhoA = 60, 2.0, 2.1e8, 7.85
    nodes = np.column_stack([np.linspace(0, L, n_el + 1), np.zeros(n_el + 1), np.zeros(n_el + 1)])
    b = truss_body(nodes, np.column_stack([np.arange(n_el), np.arange(1, n_el + 1)]), EA, rhoA)
    fixed = b.dofs({0: "all", **{i: ["uy", "uz"] for i in range(1, n_el + 1)}})
    w = natural_modes(b.K, b.M, 3, fixed=fixed).omega
    exact = (2 * np.arange(1, 4) - 1) * np.pi / 2 * np.sqrt(EA / (rhoA * L * L))
    assert np.all(w >= exact) and np.allclose(w, exact, rtol=1e-3)       # consistent mass: from above, O(h^2)


def _tower(n_bays=8, a=0.2, h=0.25):
    """A square lattice tower along z: four corner posts, horizontal square rings and face diagonals."""
    corners = np.array([[0, 0], [a, 0], [a, a], [0, a]], float)
    nodes = np.array([[x, y, k * h] for k in range(n_bays + 1) for x, y in corners])
    el = []
    for k in range(n_bays + 1):
        base = 4 * k
        el += [(base + i, base + (i + 1) % 4) for i in range(4)] + [(base, base + 2)]
        if k < n_bays:
            el += [(base + i, base + 4 + i) for i in range(4)] + [(base + i, base + 4 + (i + 1) % 4) for i in range(4)]
    return truss_body(nodes, np.array(el), EA=2.1e11 * 1e-4, rhoA=7850 * 1e-4, lumped=True)


def test_tower_interfaces_on_solid_nodes_and_exact_point_mass_invariants():
    b = _tower()
    root, top = (0, 1, 2, 3), (32, 33, 34, 35)
    full = natural_modes(b.K, b.M, 4, fixed=b.dofs({i: "all" for i in root})).frequencies
    for kind in ("rigid", "averaged"):
        ms = craig_bampton(b, [Interface("root", root, kind), Interface("top", top, kind)], 20)
        f = ms.frequencies()[:4]
        if kind == "rigid":            # the rigid root holds exactly what clamping the four nodes holds
            assert np.all(f >= full * (1 - 1e-9)) and np.allclose(f, full, rtol=2e-2)
        else:                          # the averaged root holds only six averages: softer than clamping
            assert np.all(f < full)
    inv = invariants(ms)
    m_node = np.asarray(b.M.diagonal()[0::3])                      # lumped: point masses at the nodes
    m = m_node.sum()
    c = (m_node[:, None] * b.nodes).sum(0) / m
    J = sum(mi * (x @ x * np.eye(3) - np.outer(x, x)) for mi, x in zip(m_node, b.nodes))
    assert inv.mass == pytest.approx(m, rel=1e-13)
    assert np.allclose(inv.center_of_mass, c, atol=1e-13) and np.allclose(inv.inertia, J, rtol=1e-12, atol=1e-14)
    assert inv.mPsiTildePsi.shape == (3 * ms.n_modes, ms.n_modes)


def test_solid_node_interface_errors():
    b = _tower(2)
    with pytest.raises(ModelError, match="'edge'.*needs 3 nodes not on one line"):
        craig_bampton(b, [Interface("edge", (0, 1), "rigid")], 2)
    with pytest.raises(ModelError, match="6 DOFs per node"):
        write_fem("unused.fem", craig_bampton(b, [Interface("root", (0, 1, 2, 3), "rigid")], 2))
