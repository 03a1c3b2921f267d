"""The solver's named data come from one block per integrator (analyses/workspace.in_one_block): every float array
of a Work and a State is a view into one buffer, on a 64-byte line, with the shapes and values the one-by-one
allocation gave. (Allocated one by one in a fragmented heap, the beam slider-crank's 1,500 steps took 54.7 ms
against 33.7 ms; in one block 33.2 ms: docs/performance.md.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.workspace import in_one_block, new_state, new_work
from fmu_mbs.compiler import compile_model
from fmu_mbs.kernels.integrate_alf import SC_T
from fmu_mbs.model import load_model

MODELS = Path(__file__).resolve().parents[1] / "models"


def _arrays(x):
    """The numpy arrays of a named tuple of arrays and named tuples of arrays."""
    for value in x:
        if isinstance(value, np.ndarray):
            yield value
        elif isinstance(value, tuple):
            yield from _arrays(value)


def _owner(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def test_in_one_block_carves_aligned_zeroed_views_of_one_buffer():
    shapes = [3, (2, 5), 0, (4, 3, 3), (0, 12), 1]
    arrays = in_one_block(lambda zeros: [zeros(s) for s in shapes])
    owner = _owner(arrays[0])
    for a, s in zip(arrays, shapes):
        assert a.shape == (s if isinstance(s, tuple) else (s,))
        assert a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable
        assert _owner(a) is owner
        assert a.size == 0 or a.ctypes.data % 64 == 0     # (an empty view has no memory of its own)
        assert not a.any()
    arrays[1][:] = 7.0        # no overlap: writing one leaves the others zero
    assert all(not a.any() for k, a in enumerate(arrays) if k != 1)


def test_work_and_state_of_a_model_come_from_one_block_each():
    cm = compile_model(load_model(MODELS / "crane.json"))
    ws = new_work(cm, envelope=11, fd_blocks=2)
    floats = [a for a in _arrays(ws._replace(cw=())) if a.dtype == np.float64]
    assert len({id(_owner(a)) for a in floats}) == 1
    assert np.array_equal(ws.zn, cm.arrays.z0) and ws.val.shape == (11,) and ws.Wx.shape[0] == 2
    start = assemble(cm)
    st = new_state(cm, 0.25, start.q, start.qd, start.qdd, start.lam)
    assert len({id(_owner(a)) for a in _arrays(st)}) == 1
    assert st.sc[SC_T] == 0.25
    assert np.array_equal(st.q, start.q) and np.array_equal(st.qd, start.qd)
    assert np.array_equal(st.lam_star, start.lam) and np.array_equal(st.acc, start.qdd)
    assert np.array_equal(st.zs, cm.arrays.z0) and not st.u.any()
    st.q[0] += 1.0                      # the State owns its values: the assembly result is untouched
    assert st.q[0] != start.q[0]
