"""Cached kernels load with their LLVM bitcode parsed on demand (fmu_mbs/kernels/cache_loading.py).

The symbols a loaded kernel defines are read from its machine code's ELF symbol table instead of its bitcode: the
two sets are compared here on the library's cached kernels. A kernel loaded lazily computes what it computed
before, and a function compiled later that calls it (numba then links the kernel's bitcode into it) works too.
Kernels load without numba's typing and lowering registries, which a later compile still finds."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF objects: Linux")


def _cached_libraries(dispatchers):
    """(kernel name, object code, bitcode) of every cached overload of ``dispatchers`` (numba's own cache files)."""
    for disp in dispatchers:
        cache = getattr(disp, "_cache", None)
        if cache is None or not hasattr(cache, "_cache_file"):
            continue
        index = cache._cache_file._load_index()
        for data_name in index.values():
            payload = cache._cache_file._load_data(data_name)
            name, kind, data = payload[0]
            if kind == "object":
                yield f"{disp.py_func.__qualname__}", data[0], data[1]


def test_elf_symbols_equal_the_bitcode_definitions():
    from llvmlite import binding as ll

    from fmu_mbs.kernels import channel_values, comm_step, constraints, rotation
    from fmu_mbs.kernels.cache_loading import elf_defined_symbols

    q = np.array([1.0, 0.0, 0.0, 0.0])
    rotation.quat_to_matrix(q, np.zeros((3, 3)))       # at least one entry in the cache
    dispatchers = [v for mod in (rotation, constraints, comm_step, channel_values) for v in vars(mod).values()
                   if hasattr(v, "py_func") and getattr(v, "_cache", None) is not None]
    compared = 0
    for name, obj, bitcode in _cached_libraries(dispatchers):
        module = ll.parse_bitcode(bitcode)
        # private symbols (LLVM's switch lookup tables, for one) get no name in the object; nothing outside their
        # module can refer to them, so the engine does not need them among the defined names
        expected = ({f.name for f in module.functions if not f.is_declaration and f.linkage != ll.Linkage.private}
                    | {g.name for g in module.global_variables
                       if not g.is_declaration and g.linkage != ll.Linkage.private})
        assert elf_defined_symbols(obj) == expected, name
        compared += 1
    assert compared >= 1
    assert elf_defined_symbols(b"not an object file") is None


LAZY_RUN = textwrap.dedent("""
    import json, numba, numpy as np
    from numba.core import codegen
    from fmu_mbs.kernels import rotation
    p = np.array([0.9, 0.1, -0.3, 0.2]); p /= np.linalg.norm(p)
    out = np.zeros((3, 3))
    rotation.quat_to_matrix(p, out)
    library = next(iter(rotation.quat_to_matrix.overloads.values())).library
    lazy = type(library).__name__.startswith("Lazy") and "_fmu_mbs_bitcode" in library.__dict__

    @numba.njit
    def caller(p, out):      # compiled now: numba links quat_to_matrix's (still unparsed) bitcode into it
        rotation.quat_to_matrix(p, out)
        return out[0, 0] + out[1, 1] + out[2, 2]

    trace = caller(p, np.zeros((3, 3)))
    print(json.dumps({"lazy": lazy, "parsed": "_fmu_mbs_bitcode" not in library.__dict__,
                      "R": out.tolist(), "trace": trace}))
""")


def test_a_lazily_loaded_kernel_computes_and_links():
    run = [sys.executable, "-c", LAZY_RUN]
    subprocess.run(run, check=True, capture_output=True)          # compiles into the cache if it was empty
    out = subprocess.run(run, check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["lazy"], "the kernel was not loaded through the lazy path"
    assert result["parsed"], "linking into a new compile did not parse the bitcode"
    e0, e1, e2, e3 = np.array([0.9, 0.1, -0.3, 0.2]) / np.linalg.norm([0.9, 0.1, -0.3, 0.2])
    # Euler-parameter rotation matrix (Nikravesh 1988, eq. 6.19): trace = 4 e0^2 - 1
    R = np.array(result["R"])
    assert np.allclose(R @ R.T, np.eye(3), atol=1e-14)
    assert result["trace"] == pytest.approx(4.0 * e0**2 - 1.0, abs=1e-14)
    assert R[0, 1] == pytest.approx(2.0 * (e1 * e2 - e0 * e3), abs=1e-14)


FALLBACK_RUN = textwrap.dedent("""
    import json, numpy as np
    from numba.core.registry import cpu_target
    from fmu_mbs.kernels import rotation
    engine = cpu_target.target_context.codegen()._engine
    names = engine._defined_symbols
    engine._defined_symbols = frozenset(names)      # not a set (numba's own code still works with it)
    p = np.array([0.9, 0.1, -0.3, 0.2]); p /= np.linalg.norm(p)
    out = np.zeros((3, 3))
    rotation.quat_to_matrix(p, out)
    library = next(iter(rotation.quat_to_matrix.overloads.values())).library
    print(json.dumps({"lazy": type(library).__name__.startswith("Lazy"), "R": out.tolist()}))
""")


def test_numba_internals_that_differ_load_as_numba_does():
    """Where numba's engine does not keep its defined symbols as a set, kernels load through numba's own code."""
    run = [sys.executable, "-c", LAZY_RUN]
    subprocess.run(run, check=True, capture_output=True)          # the kernel is in the cache
    out = subprocess.run([sys.executable, "-c", FALLBACK_RUN], check=True, capture_output=True, text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert not result["lazy"]
    R = np.array(result["R"])
    assert np.allclose(R @ R.T, np.eye(3), atol=1e-14)


REFRESH_RUN = textwrap.dedent("""
    import json, sys
    import numpy as np
    if sys.argv[1] == "numba's own":      # marked as installed: the library keeps numba's load_overload
        from numba.core import caching
        caching.Cache.load_overload._fmu_mbs = True
    import numba
    from fmu_mbs.kernels import rotation
    p = np.array([0.9, 0.1, -0.3, 0.2]); p /= np.linalg.norm(p)
    out = np.zeros((3, 3))
    rotation.quat_to_matrix(p, out)
    registries = sorted(m for m in ("numba.typed.typedlist", "numba.np.random.generator_methods",
                                    "numba.np.polynomial.polynomial_core") if m in sys.modules)
    hits = sum(rotation.quat_to_matrix.stats.cache_hits.values())

    @numba.njit
    def caller(p):           # compiled after the load: needs the registries the load skipped
        items = numba.typed.List()
        R = np.zeros((3, 3))
        rotation.quat_to_matrix(p, R)
        for k in range(3):
            items.append(R[k, k])
        return np.linalg.det(R), sum(items)

    det, trace = caller(p)
    print(json.dumps({"registries": registries, "hits": hits, "R": out.tolist(), "det": det, "trace": trace}))
""")


def test_a_kernel_loads_without_numbas_registries_and_a_later_compile_still_has_them():
    """Loading a cached kernel imports none of numba's typing/lowering registries (cache_loading's
    _load_without_refresh: 0.15-0.3 s of an FMU's start-up); a function compiled afterwards uses typed lists and
    np.linalg (numba refreshes before compiling), and the loaded kernel computes what numba's own loading gives."""
    subprocess.run([sys.executable, "-c", LAZY_RUN], check=True, capture_output=True)   # the kernel is in the cache
    results = {}
    for how in ("ours", "numba's own"):
        out = subprocess.run([sys.executable, "-c", REFRESH_RUN, how], check=True, capture_output=True, text=True)
        results[how] = json.loads(out.stdout.strip().splitlines()[-1])
    ours, own = results["ours"], results["numba's own"]
    assert ours["hits"] == own["hits"] == 1
    assert ours["registries"] == [] and len(own["registries"]) == 3
    assert ours["R"] == own["R"]
    e0 = 0.9 / np.linalg.norm([0.9, 0.1, -0.3, 0.2])
    for r in (ours, own):      # a rotation: det 1, trace 4 e0^2 - 1 (Nikravesh 1988, eq. 6.19)
        assert r["det"] == pytest.approx(1.0, abs=1e-14) and r["trace"] == pytest.approx(4 * e0**2 - 1, abs=1e-14)
