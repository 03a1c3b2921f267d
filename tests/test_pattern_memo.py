"""The iteration-matrix pattern is computed once per model (analyses/integrators/pattern.pattern_for): a second
integrator gets an equal pattern without recomputing it, as its own copy (the kernels write the colours), and a model
whose arrays object was replaced gets a fresh one."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fmu_mbs.analyses.integrators import pattern as P
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model

MODELS = Path(__file__).resolve().parents[1] / "models"


def _same(a: P.Pattern, b: P.Pattern) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("pos", "first", "ptr", "colors", "adj_ptr",
                                                                      "adj_idx", "jp_ptr", "jp", "midx", "adj_rev"))


def test_pattern_once_per_model_and_copied(monkeypatch):
    cm = compile_model(load_model(MODELS / "flexible_slider_crank.json"))
    calls = []
    real = P.build_pattern
    monkeypatch.setattr(P, "build_pattern", lambda cm_, f: calls.append(f) or real(cm_, f))
    first = P.pattern_for(cm, True)
    first.colors[:] = 99                             # what a kernel's dynamic colouring does to its copy
    second = P.pattern_for(cm, True)
    assert calls == [True]
    assert _same(second, real(cm, True))             # the memo is the pattern, untouched by the first copy's colours
    assert not np.shares_memory(first.colors, second.colors)
    P.pattern_for(cm, False)
    assert calls == [True, False]                    # each tangent setting has its own pattern
    cm.arrays = cm.arrays._replace()                 # a new arrays object (e.g. parameters set): computed again
    P.pattern_for(cm, True)
    assert calls == [True, False, True]
