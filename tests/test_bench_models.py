"""The models and references of bench/exudyn_compare.py, checked without Exudyn: each mechanism has the mobility
of its definition (Gruebler count with the known redundancy), the minimal-coordinate chain reference conserves
energy, and the bench's energy of body states matches the library's own energy report."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import exudyn_compare as bench  # noqa: E402


@pytest.mark.parametrize("build, dof, redundant", [
    (lambda: bench.nfourbar_model(2), 1, 0),          # 5 bars x 3 - 7 revolutes x 2
    (bench.bricard_model, 1, 1),                       # 5 x 6 - 6 x 5 = 0, but one row is redundant
    (bench.e72_model, 2, 0),                           # two point masses on two links
    (bench.slider_crank_model, 1, 0),                  # 2 x 3 - 2 x 2 - 1
    (lambda: bench.chain_model(10), 10, 0),            # one revolute per link
])
def test_bench_models_have_the_mobility_of_their_definition(build, dof, redundant):
    a = assemble(compile_model(build()))
    assert (a.dof, len(a.redundant)) == (dof, redundant)


def test_chain_reference_conserves_energy():
    """The joint-angle ODE of the chain is derived by hand; a wrong term would show as energy drift."""
    n, L, m, g = 4, 0.5, 1.0, bench.G
    sol, a = bench.chain_reference(n, 1.0)
    C, inertia = a.T @ a, m * L * L / 12.0

    def energy(y):
        th, om = y[:n], y[n:]
        M = m * C * np.cos(th[:, None] - th[None, :]) + inertia * np.eye(n)
        return 0.5 * om @ M @ om + m * g * a.sum(axis=0) @ np.sin(th)
    E = [energy(sol(t)) for t in np.linspace(0.0, 1.0, 11)]
    assert np.min(np.abs(sol(1.0)[:n])) > 2.0 and np.ptp(sol(1.0)[:n]) > 0.2   # fell past vertical, folded
    assert max(abs(e - E[0]) for e in E) < 1e-8


def test_bench_energy_of_body_states_matches_the_library_report():
    model = bench.chain_model(3)
    cm = compile_model(model)
    tr = simulate(cm, 0.2, 1e-3, output_step=0.05)
    st = bench.states_from_q(cm, tr.t, tr.q, tr.qd)
    ours = tr.info["energy_kinetic"] + tr.info["energy_potential"]
    np.testing.assert_allclose(bench.energy(model, st), ours, rtol=0.0, atol=1e-9)
    assert np.ptp(tr.info["energy_kinetic"]) > 1.0       # it moves: the comparison is not trivial
