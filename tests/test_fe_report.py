"""Effective modal masses of a cantilever against the closed form, and the fe command line."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from fmu_mbs.fe import BeamSection, Interface, craig_bampton, natural_modes, straight_beam, write_fem
from fmu_mbs.fe.__main__ import main
from fmu_mbs.fe.report import effective_masses, mode_table

BETA_L = np.array([1.875104068712, 4.694091132974, 7.854757438238, 10.995540734875, 14.137168391046])


def test_cantilever_effective_masses_match_the_closed_form_and_sum_to_the_mass():
    """Euler-Bernoulli cantilever modes phi = cosh bx - cos bx - s (sinh bx - sin bx), s = (cosh bL + cos bL) /
    (sinh bL + sin bL): int phi^2 = L and int phi = 2 s / b, so m_eff / m = 4 s^2 / (bL)^2 (0.6131, 0.1883, ...)."""
    sig = (np.cosh(BETA_L) + np.cos(BETA_L)) / (np.sinh(BETA_L) + np.sin(BETA_L))
    closed = 4 * sig**2 / BETA_L**2
    assert closed[0] == pytest.approx(0.6131, abs=1e-4) and closed[1] == pytest.approx(0.1883, abs=1e-4)
    s = BeamSection.rectangle(0.01, 0.02, 2.1e11, 0.3, 7850.0)
    b = straight_beam(1.0, 80, s, theory="euler-bernoulli")
    fixed = b.dofs({0: "all", **{i: ["ux", "uz", "rx", "ry"] for i in range(1, 81)}})
    h = 1.0 / 80     # with the root held, the consistent mass loses its root terms (156 + 2 * 54) rho A h / 420
    m_free = s.rho * s.A * (1.0 - 264.0 / 420.0 * h)
    modes = natural_modes(b.K, b.M, 5, fixed=fixed)
    eff = effective_masses(b, modes, fixed)
    assert np.allclose(eff[:, 1] / (s.rho * s.A), closed, rtol=5e-4)   # converges O(h^3)
    every = natural_modes(b.K, b.M, b.n_dofs - len(fixed), fixed=fixed)
    assert effective_masses(b, every, fixed)[:, 1].sum() == pytest.approx(m_free, rel=1e-9)
    row = mode_table(b, modes, fixed).splitlines()[2].split()      # percent of the movable mass
    assert float(row[3]) == pytest.approx(100 * closed[0] * s.rho * s.A / m_free, abs=2e-3)


def test_command_line_prints_the_frequencies(tmp_path, capsys):
    b = straight_beam(1.0, 10, BeamSection.rectangle(0.01, 0.02, 2.1e11, 0.3, 7850.0))
    ms = craig_bampton(b, [Interface("root", (0,), "nodes"), Interface("tip", (10,), "nodes")], 4)
    write_fem(tmp_path / "b.fem", ms)
    assert main([str(tmp_path / "b.fem")]) == 0
    out = capsys.readouterr().out
    assert f"{ms.frequencies()[0]:>14.6g}" in out
    for name, A in (("m.mtx", b.M), ("k.mtx", b.K)):
        scipy.io.mmwrite(str(tmp_path / name), sp.coo_matrix(A))
    (tmp_path / "map").write_text("\n".join(f"{i // 6} {i % 6 + 1}" for i in range(b.n_dofs)))
    (tmp_path / "nodes").write_text("\n".join(f"{i} {x} {y} {z}" for i, (x, y, z) in enumerate(b.nodes)))
    files = [str(tmp_path / n) for n in ("m.mtx", "k.mtx", "map", "nodes")]
    assert main(files + ["-n", "8"]) == 0          # free-free: six rigid modes first
    assert "sum" in capsys.readouterr().out
    assert main([str(tmp_path / "missing.fem")]) == 1
    assert "error" in capsys.readouterr().err
