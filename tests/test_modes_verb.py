"""``fmu-mbs modes MODEL`` (adapters/modes_report.py on analyses/modes.py): the catalogue pendulum (1 kg on a 1 m
massless link) has one mode about its hanging equilibrium, omega = sqrt(g / L) (small-oscillation pendulum);
``--set g[2]=...`` changes g as on the other verbs; the CSV and the plot are written. The flexible slider-crank's
rod gives the beam frequencies (last test)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.adapters.cli import main

MODEL = str(Path(__file__).resolve().parents[1] / "models" / "pendulum.json")


@pytest.mark.parametrize("g", [9.81, 1.62])
def test_modes_verb_gives_the_pendulum_frequency(g, tmp_path, capsys):
    out = tmp_path / "modes.csv"
    assert main(["modes", MODEL, "--set", f"g[2]={-g}", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    omega = math.sqrt(g / 1.0)
    assert f"{omega / (2.0 * math.pi):.6g}" in text and "bob 1.00" in text
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 1
    assert float(rows[0]["omega"]) == pytest.approx(omega, rel=1e-9)
    assert float(rows[0]["share.bob"]) == pytest.approx(1.0, rel=1e-12)


def test_modes_verb_plots_and_refuses_unknown_values(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "modes.png"
    assert main(["modes", MODEL, "--plot", str(png)]) == 0
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"
    assert main(["modes", MODEL, "--set", "nosuch.mass=2"]) == 1
    assert "nosuch" in capsys.readouterr().err


def test_modes_verb_gives_the_flexible_rods_beam_frequencies(capsys):
    """models/flexible_slider_crank.json held by its driver at t = 0: the rod (6 mm steel, L = 0.3 m) is pinned at
    the crank pin and at the slider (which slides along it only axially), so in the crank's plane it bends as a
    pinned-pinned beam, f_n = n^2 pi / (2 L^2) sqrt(EI / rho A), and out of the plane (the revolute pins hold its
    end slopes) as a clamped-clamped one, f_1 = 4.730041^2 / (2 pi L^2) sqrt(EI / rho A); 12 elements."""
    assert main(["modes", str(Path(MODEL).with_name("flexible_slider_crank.json")), "--count", "6"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:8]]
    f = np.array([float(r[1]) for r in rows])
    L, D, E, RHO = 0.30, 0.006, 2.0e11, 7870.0
    c = math.sqrt(E * math.pi * D ** 4 / 64.0 / (RHO * math.pi * D * D / 4.0))
    pinned = np.array([n * n * math.pi / (2.0 * L * L) * c for n in (1, 2, 3)])
    clamped = 4.730041 ** 2 / (2.0 * math.pi * L * L) * c
    assert np.allclose(f[[0, 2, 4]], pinned, rtol=3e-3)
    assert f[1] == pytest.approx(clamped, rel=1e-3)
