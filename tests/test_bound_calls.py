"""The bound-call table (kernels/bound_calls.py): the element families' force kernels are compiled only for models
that have such elements and called through a run-time address; a call whose slot is unbound, or bound to other
argument types, raises a RuntimeError naming the slot instead of jumping; an exception raised in the callee reaches
the caller. The families' physics is tested through them everywhere else (every family's own test file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit, types

from fmu_mbs.kernels.bound_calls import N_SLOTS, bind, bound_call, declare, fingerprint

ROOT = Path(__file__).resolve().parents[1]
BOUND = declare(N_SLOTS - 1, "tests.scaled_sum")
UNBOUND = declare(N_SLOTS - 2, "tests.never_bound")


@njit
def scaled_sum(a, s):
    if s < 0.0:
        raise ValueError("scaled_sum: negative scale")
    total = 0.0
    for x in a:
        total += x
    return s * total


@njit
def through_bound(a, s):
    return bound_call(BOUND, a, s) + 1.0


@njit
def through_unbound(a, s):
    return bound_call(UNBOUND, a, s)


@pytest.fixture(scope="module", autouse=True)
def _bound():
    bind(BOUND, scaled_sum, (types.float64[::1], types.float64))


def test_a_bound_call_returns_the_kernel_result():
    a = np.array([1.0, 2.0, 3.5])
    assert through_bound(a, 2.0) == 2.0 * 6.5 + 1.0


def test_read_only_arrays_reach_the_same_binding():
    """Model arrays are read-only in Python and writable views in the packed FMU step: one binding serves both."""
    a = np.array([1.0, 2.0, 3.5])
    a.flags.writeable = False
    assert through_bound(a, 0.5) == 0.5 * 6.5 + 1.0


def test_an_exception_of_the_callee_reaches_the_caller():
    with pytest.raises(ValueError, match="negative scale"):
        through_bound(np.ones(2), -1.0)


def test_an_unbound_slot_raises_a_named_error():
    with pytest.raises(RuntimeError, match="tests.never_bound: no kernel bound"):
        through_unbound(np.ones(2), 1.0)


def test_other_argument_types_raise_instead_of_jumping():
    """The same slot called with int64 data: the fingerprint differs, the call raises before any jump."""
    with pytest.raises(RuntimeError, match="tests.scaled_sum: no kernel bound for these argument types"):
        through_bound(np.ones(2, dtype=np.int64), 1.0)
    assert fingerprint((types.float64[::1],)) != fingerprint((types.int64[::1],))
    assert fingerprint((types.float64[::1],)) == fingerprint((types.Array(types.float64, 1, "C", readonly=True),))


WHICH_BOUND = textwrap.dedent("""
    import json, sys
    from fmu_mbs.analyses.evaluate import Evaluator
    from fmu_mbs.compiler import compile_model
    from fmu_mbs.kernels.bound_calls import bound_slots
    from fmu_mbs.model import load_model
    seen = {}
    for path in sys.argv[1:]:
        Evaluator(compile_model(load_model(path)))
        seen[path] = sorted(name for name, bound in bound_slots().items() if bound)
    print(json.dumps(seen))
""")


def test_only_the_families_a_model_has_are_bound():
    """In a fresh process: the pendulum binds no family kernel, then the crane its actuators only, then the
    bouncing ball its contact too (the table accumulates over the models of a process)."""
    models = [str(ROOT / "models" / f"{name}.json") for name in ("pendulum", "crane", "bouncing_ball")]
    out = subprocess.run([sys.executable, "-c", WHICH_BOUND, *models], capture_output=True, text=True,
                         env=dict(os.environ), timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen[models[0]] == []
    assert seen[models[1]] == ["actuator.add_forces"]
    assert seen[models[2]] == ["actuator.add_forces", "contact.add_forces"]



REBIND = textwrap.dedent("""
    import sys
    from numba import njit, types
    from fmu_mbs.analyses.simulate import simulate
    from fmu_mbs.compiler import compile_model
    from fmu_mbs.kernels import bound_calls, forces
    from fmu_mbs.model import load_model
    typed = []
    argument_types = forces.argument_types
    forces.argument_types = lambda m: typed.append(1) or argument_types(m)
    cm = compile_model(load_model(sys.argv[1]))
    first = simulate(cm, 0.05, 1e-3).q[-1]
    (m, ((slot, kernel, argtys, fp),)), = forces._BOUND     # the crane's one family: its actuators
    assert slot == forces.ACTUATOR and bound_calls.is_bound(slot, fp)

    @njit
    def other(a):
        return a[0]
    bound_calls.bind(slot, other, (types.float64[::1],))    # as a model whose kernel has other types would
    assert not bound_calls.is_bound(slot, fp)
    second = simulate(cm, 0.05, 1e-3).q[-1]
    assert bound_calls.is_bound(slot, fp)
    assert (first == second).all()
    print(len(typed))
""")


def test_a_model_types_its_bindings_once_and_rebinds_a_slot_taken_since():
    """bind_families works out a model's argument types once (numba's typeof over ~700 arrays, ~10 ms, was paid by
    each of the three workspaces of every ``simulate``); a slot that another model bound to other types in between
    is bound again, and the run is the same to the bit."""
    out = subprocess.run([sys.executable, "-c", REBIND, str(ROOT / "models" / "crane.json")], capture_output=True,
                         text=True, env=dict(os.environ), timeout=1800)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "1"     # typed once over two simulate calls (six workspaces)
