"""Start-up cost cut that has to act before numba loads its first kernel.

numba's array-math module, imported with numba's first compiled or cached kernel, checks that BLAS is available by
``import scipy.linalg.cython_blas`` (numba/np/linalg.ensure_blas). Importing a submodule by name runs its packages'
``__init__`` first, and scipy.linalg's imports all of scipy.linalg and scipy's array-API layer: 0.15-0.3 s on the
2-core test machine, a fifth of an FMU's warm start, only to reach one extension module. ``preload_cython_blas``
loads that extension module of the installed scipy by itself (~20 ms) and registers it under its name, so the
check finds it in ``sys.modules`` and scipy.linalg is imported only by code that uses it (the flexible bodies'
mode computation, the redundant-constraint path of analyses/linear.py). Nothing changes for numba's kernels: ours
call no BLAS or LAPACK; one that did would get its function pointers from the same module object.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

CYTHON_BLAS = "scipy.linalg.cython_blas"


def preload_cython_blas() -> bool:
    """Load scipy's BLAS extension module without scipy.linalg if numba has not checked BLAS yet. Returns whether
    it is now loaded; on any surprise (no scipy, another layout) it does nothing and numba imports it as usual."""
    if CYTHON_BLAS in sys.modules:
        return True
    if "numba.np.arraymath" in sys.modules:      # numba's check already ran
        return False
    try:
        import scipy
        folder = Path(scipy.__file__).parent / "linalg"
        path = next((folder / f"cython_blas{s}" for s in importlib.machinery.EXTENSION_SUFFIXES
                     if (folder / f"cython_blas{s}").is_file()), None)
        if path is None:
            return False
        loader = importlib.machinery.ExtensionFileLoader(CYTHON_BLAS, str(path))
        spec = importlib.util.spec_from_file_location(CYTHON_BLAS, path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except Exception:                                # noqa: BLE001 - an optimisation only: numba's import stays
        return False
    sys.modules[CYTHON_BLAS] = module
    return True
