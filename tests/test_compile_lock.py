"""Processes that need the same uncompiled kernel at once compile it once (fmu_mbs/kernels/compile_lock.py).

Three fresh processes share an empty kernel cache and call the same kernel (one with a callee, so the lock is
taken again inside a compile) at the same moment: one compiles it, the other two wait and load it from the cache.
Without the lock all three compile (numba's cache only avoids compiles that start after a save)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="flock: POSIX")

CHILD = textwrap.dedent("""
    import json, os, sys, time
    import numpy as np
    from fmu_mbs.kernels import functions
    from fmu_mbs.kernels.compile_lock import lock_path
    ready, go = sys.argv[1], sys.argv[2]
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.002)
    par = np.array([0.0, 1.0, 2.0, 0.0, 1.0, 4.0])     # curve through (0, 0), (1, 1), (2, 4)
    y = functions.eval_curve(par, 0, 3, 1.5)
    stats = functions.eval_curve.stats
    print(json.dumps({"y": [float(v) for v in y], "misses": sum(stats.cache_misses.values()),
                      "hits": sum(stats.cache_hits.values()), "lock": lock_path(functions.eval_curve)}))
""")


def test_processes_starting_together_compile_a_kernel_once(tmp_path):
    env = dict(os.environ, FMU_MBS_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    go = tmp_path / "go"
    ready = [tmp_path / f"ready{k}" for k in range(3)]
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(r), str(go)], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for r in ready]
    deadline = time.monotonic() + 300
    while not all(r.exists() for r in ready):
        assert time.monotonic() < deadline, "children did not start"
        assert all(c.poll() is None for c in children), [c.communicate() for c in children]
        time.sleep(0.01)
    go.touch()
    results = []
    for child in children:
        out, err = child.communicate(timeout=600)
        assert child.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    # y, dy/dx and the integral from 0 of the piecewise-linear curve at x = 1.5
    for r in results:
        assert r["y"] == pytest.approx([2.5, 3.0, 0.5 + 0.5 * (1.0 + 2.5) / 2.0], rel=1e-12)
    assert sum(r["misses"] for r in results) == 1, results
    assert sum(r["hits"] for r in results) == 2, results
    lock = results[0]["lock"]
    assert lock.startswith(str(tmp_path / "cache")) and os.path.exists(lock)
