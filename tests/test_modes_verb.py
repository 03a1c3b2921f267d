"""``fmu-mbs modes MODEL`` (adapters/modes_report.py on analyses/modes.py): the catalogue pendulum (1 kg on a 1 m
massless link) has one mode about its hanging equilibrium, omega = sqrt(g / L) (small-oscillation pendulum);
``--set g[2]=...`` changes g as on the other verbs; the CSV and the plot are written."""

from __future__ import annotations

import csv
import math
from pathlib import Path

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
