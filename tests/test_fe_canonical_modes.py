"""Mode bases that do not depend on round-off (fmu_mbs.fe.eigen.canonical_modes): a square beam section bends at
one frequency in both planes, so the eigensolver may return any rotation of each pair, and any sign of every mode.
A model that stores modal coordinates (models/flexible_boom.json's static start) needs the same basis on every
machine: the canonical basis must not depend on what the solver returned."""

from __future__ import annotations

import numpy as np

from fmu_mbs.fe import BeamSection, Interface, canonical_modes, craig_bampton, natural_modes, straight_beam

SQUARE = BeamSection.rectangle(0.02, 0.02, 2.1e11, 0.3, 7850.0)


def _scrambled(lam, X, rng):
    """X with each repeated-eigenvalue cluster rotated at random and every column's sign flipped at random."""
    Y = X * rng.choice([-1.0, 1.0], X.shape[1])
    k = 0
    while k < len(lam):
        j = k + 1
        while j < len(lam) and abs(lam[j] - lam[k]) <= 1e-7 * abs(lam[k]):
            j += 1
        Q, _ = np.linalg.qr(rng.standard_normal((j - k, j - k)))
        Y[:, k:j] = Y[:, k:j] @ Q
        k = j
    return Y


def test_square_cantilever_pairs_come_out_the_same_whatever_the_solver_returned():
    b = straight_beam(1.0, 20, SQUARE, theory="euler-bernoulli")
    modes = natural_modes(b.K, b.M, 8, fixed=b.dofs({0: "all"}))
    lam, X = modes.omega ** 2, modes.shapes
    pairs = np.isclose(lam[0::2], lam[1::2], rtol=1e-7)
    assert pairs.all()                                            # the square section: four bending pairs
    rng = np.random.default_rng(7)
    for _ in range(5):
        again = canonical_modes(lam, _scrambled(lam, X, rng))
        assert np.allclose(again, X, rtol=0.0, atol=1e-10 * np.abs(X).max())
    M = b.M.toarray()
    assert np.allclose(X.T @ M @ X, np.eye(8), atol=1e-10)
    # each mode bends in one plane (canonical: the first DOF that moves, here ry of node 1, picks the vector with
    # the largest component there): a pair is one mode without uz and one without uy
    uy, uz = X[1::6], X[2::6]
    no_uz = np.abs(uz).max(axis=0) < 1e-6 * np.abs(uy).max(axis=0)
    no_uy = np.abs(uy).max(axis=0) < 1e-6 * np.abs(uz).max(axis=0)
    assert np.all(no_uz ^ no_uy) and np.all(no_uz[0::2] != no_uz[1::2])

def test_craig_bampton_normal_modes_of_a_square_beam_split_by_plane():
    """The flexible boom's reduction (rigid interfaces at both ends and mid-span, tangent frame at the first):
    in-plane and out-of-plane normal modes must not mix, or a stored in-plane static deflection depends on
    LAPACK's round-off."""
    b = straight_beam(1.0, 10, SQUARE, theory="euler-bernoulli")
    itf = [Interface(n, (k,), "rigid") for n, k in (("hinge", 0), ("mount", 5), ("tip", 10))]
    ms = craig_bampton(b, itf, 4)
    normal = ms.basis[:, [k for k, n in enumerate(ms.names) if n.startswith("normal")]]
    uy, uz = normal[1::6], normal[2::6]
    in_plane = np.abs(uz).max(axis=0) < 1e-6 * np.abs(normal).max(axis=0)
    out_of_plane = np.abs(uy).max(axis=0) < 1e-6 * np.abs(normal).max(axis=0)
    assert np.all(in_plane ^ out_of_plane) and in_plane.sum() == 2
