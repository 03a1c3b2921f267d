"""Serialized FMU states (adapters/fmu_state.py): bit-exact round trip, and every damaged, truncated, random or
foreign byte string refused with a reason before anything is used (no pickle: nothing in the bytes can run)."""

from __future__ import annotations

import collections
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.adapters import fmu_state
from fmu_mbs.adapters.fmu_state import StateError

MODEL_ID = bytes(range(16))
Saved = collections.namedtuple("Saved", "q qd sc flags")


def _state(rng, n=7, named=False):
    integ = (rng.normal(size=n), rng.normal(size=n), np.array([0.25, -0.0, np.nan, np.inf]),
             np.arange(3, dtype=np.int64))
    return {"mode": 2, "slave": {"solver": (0, 1), "integ": Saved(*integ) if named else integ,
                                 "chan": (rng.normal(size=4), np.zeros(2)), "u_set": rng.normal(size=6),
                                 "u_prev": np.zeros(6), "d_set": np.zeros(0), "y": rng.normal(size=(3, 2)),
                                 "flag": True, "t": 0.125, "note": None}}


def _equal(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return type(a) is type(b) and (a == b or (a != a and b != b))


@pytest.mark.parametrize("named", [False, True])
def test_round_trip_is_bit_exact(named):
    """Every float bit (NaN, -0.0, inf), int, bool, None and the tree shape (a named tuple as the integrator's
    save() may return) come back."""
    state = _state(np.random.default_rng(1), named=named)
    data = fmu_state.to_bytes(state, MODEL_ID)
    back = fmu_state.rebuild(fmu_state.parse(data), _state(np.random.default_rng(2), named=named), MODEL_ID)
    assert _equal(back, state)
    assert data[:8] == b"FMUMBSST"


def test_a_thousand_bad_byte_strings_are_refused():
    """1,000 byte strings: random, random after valid magic, every kind of truncation, single-byte damage, states of
    another model (other id) and of another layout: each raises StateError with a reason; none gets through."""
    rng = np.random.default_rng(7)
    good = fmu_state.to_bytes(_state(rng), MODEL_ID)
    template = _state(rng)
    other_layout = fmu_state.to_bytes(_state(rng, n=9), MODEL_ID)
    other_model = fmu_state.to_bytes(_state(rng), bytes(16))
    pickled = pickle.dumps(_state(rng))
    cases = []
    for k in range(1000):
        kind = k % 8
        if kind == 0:
            cases.append(rng.bytes(int(rng.integers(0, 400))))
        elif kind == 1:
            cases.append(b"FMUMBSST" + rng.bytes(int(rng.integers(0, 400))))
        elif kind == 2:
            cases.append(good[:int(rng.integers(0, len(good)))])
        elif kind == 3:
            damaged = bytearray(good)
            damaged[int(rng.integers(0, len(good)))] ^= 1 << int(rng.integers(0, 8))
            cases.append(bytes(damaged))
        elif kind == 4:
            cases.append(good + rng.bytes(int(rng.integers(1, 16))))
        elif kind == 5:
            cases.append(other_model)
        elif kind == 6:
            cases.append(other_layout)
        else:
            cases.append(pickled[:int(rng.integers(1, len(pickled) + 1))])
    reasons = collections.Counter()
    for data in cases:
        with pytest.raises(StateError) as err:
            fmu_state.rebuild(fmu_state.parse(data), template, MODEL_ID)
        reasons[re.sub(r"\d+", "N", str(err.value))[:60]] += 1
    assert sum(reasons.values()) == 1000
    assert any("another model" in r for r in reasons) and any("layout differs" in r for r in reasons)
    assert any("checksum" in r for r in reasons) and any("magic" in r for r in reasons)


def test_a_pickle_payload_is_never_executed(tmp_path):
    """Bytes that would run code if unpickled are refused, and the code does not run."""
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (Path.touch, (marker,))

    data = pickle.dumps(Payload())
    with pytest.raises(StateError, match="not an fmu-mbs FMU state"):
        fmu_state.parse(data)
    assert not marker.exists()


def test_the_state_code_has_no_deserializer_that_runs_code():
    root = Path(fmu_state.__file__).parent
    for name in ("fmu_state.py", "fmu_slave.py", "fmi_bridge.py"):
        text = (root / name).read_text()
        assert not re.search(r"\bimport (pickle|marshal|shelve|dill)\b|\beval\(|\bexec\(", text), name
