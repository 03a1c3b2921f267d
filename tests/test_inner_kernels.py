"""Inner kernels (kernels/inner.py) have no Python entry: no Python code of the project may call one.

The check reads every Python file of the project and collects the names referenced outside the bodies of numba
functions; no ``@inner_kernel`` function may be among them (names are compared without their module, so a
Python function of the same name elsewhere also counts: the check errs on the side of keeping a wrapper)."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
JIT_DECORATORS = {"njit", "jit", "inner_kernel", "vectorize", "guvectorize", "cfunc"}


def _decorator_name(node: ast.expr) -> str | None:
    target = node.func if isinstance(node, ast.Call) else node
    return getattr(target, "id", None) or getattr(target, "attr", None)


def _inner_kernels() -> dict[str, str]:
    """name -> module file of every @inner_kernel function."""
    found = {}
    for path in sorted((ROOT / "fmu_mbs" / "kernels").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and any(
                    _decorator_name(d) == "inner_kernel" for d in node.decorator_list):
                found[node.name] = str(path.relative_to(ROOT))
    return found


def _python_references(path: Path) -> set[str]:
    """Names and attribute names used in ``path`` outside numba-compiled function bodies (an import is not a use:
    a bench may import a kernel for its own compiled loop), and in the Python code its string constants hold (the
    scripts that benches and tests run in child processes: ``str.format`` fields taken as constants)."""
    return _references(ast.parse(path.read_text()))


def _references(tree: ast.AST) -> set[str]:
    compiled = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
                _decorator_name(d) in JIT_DECORATORS for d in node.decorator_list):
            compiled.update(id(sub) for sub in ast.walk(node))
        # kernels given a slot of the bound-call table (kernels/forces.py bound_family): bind compiles them for the
        # addresses it stores, Python never calls them
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "bound_family":
            compiled.update(id(sub) for sub in ast.walk(node))
    names = set()
    for node in ast.walk(tree):
        if id(node) in compiled:
            continue
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "import " in node.value:
            code = re.sub(r"(?<!\{)\{[A-Za-z_][A-Za-z_0-9]*(![rsa])?\}(?!\})", "0", textwrap.dedent(node.value))
            try:
                names |= _references(ast.parse(code.replace("{{", "{").replace("}}", "}")))
            except SyntaxError:     # prose that mentions an import, or a template of another kind
                pass
    return names


def test_no_python_code_calls_an_inner_kernel():
    inner = _inner_kernels()
    assert len(inner) > 100, "the kernel tree lost its inner kernels: did the decorator change?"
    files = [p for folder in ("fmu_mbs", "tests", "bench", "examples", "integration")
             for p in (ROOT / folder).rglob("*.py")] + [ROOT / "build_fmu.py"]
    offenders = []
    for path in files:
        if path.name == "test_inner_kernels.py":
            continue
        for name in sorted(_python_references(path) & set(inner)):
            offenders.append(f"{path.relative_to(ROOT)} references {name} ({inner[name]})")
    assert not offenders, "Python code refers to inner kernels (make them @njit):\n" + "\n".join(offenders)


def test_calling_an_inner_kernel_from_python_raises_a_named_error():
    from fmu_mbs.kernels.forces import add_element_forces
    from fmu_mbs.kernels.inner import InnerKernel
    assert isinstance(add_element_forces, InnerKernel)
    with pytest.raises(TypeError, match="add_element_forces is an inner kernel"):
        add_element_forces(None, None, 0.0, np.zeros(1), np.zeros(0), 0.0, None, None, 0, np.zeros(1), None)


def test_an_inner_kernel_computes_what_its_python_function_does():
    """Compiled without wrappers and called from a kernel, it returns what the plain Python function returns."""
    from numba import njit

    from fmu_mbs.kernels.contact_geometry import vec

    @njit
    def through_kernel(a, b):
        return vec._cross(a, b)

    a, b = (0.3, -1.2, 2.0), (1.5, 0.25, -0.7)
    assert through_kernel(a, b) == pytest.approx(tuple(np.cross(a, b)), rel=1e-15)


INNER_CACHE_RUN = textwrap.dedent("""
    import json, numba
    from fmu_mbs.kernels.contact_geometry import vec

    @numba.njit
    def through_kernel(a, b):      # compiled in each process: links vec._cross, compiled or loaded from the cache
        return vec._cross(a, b)

    c = through_kernel((0.3, -1.2, 2.0), (1.5, 0.25, -0.7))
    (sig, cres), = vec._cross.overloads.items()
    kinds = [vec._cross._cache._cache_file._load_data(name)[0][1]
             for name in vec._cross._cache._cache_file._load_index().values()]
    print(json.dumps({"c": list(c), "library": type(cres.library).__name__,
                      "address": cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name),
                      "cached": vec._cross.stats.cache_hits[sig], "kinds": kinds}))
""")


def test_an_inner_kernel_emits_no_machine_code_and_caches_its_bitcode():
    """Its callers carry its code: the kernel itself is compiled to LLVM bitcode only, cached as such, and a caller
    compiled in a later process links the cached bitcode (kernels/inner.py, InnerLibrary)."""
    import json
    import subprocess
    import sys

    runs = [json.loads(subprocess.run([sys.executable, "-c", INNER_CACHE_RUN], check=True, capture_output=True,
                                      text=True).stdout.strip().splitlines()[-1]) for _ in range(2)]
    expected = np.cross((0.3, -1.2, 2.0), (1.5, 0.25, -0.7))
    for run in runs:
        assert run["c"] == pytest.approx(expected.tolist(), rel=1e-15)
        assert run["library"] == "InnerLibrary" and run["address"] == 0
        assert run["kinds"] and set(run["kinds"]) == {"bitcode"}
    assert runs[1]["cached"] == 1
