"""Layer 3: numba kernels. Arrays in, arrays out, SI units, no Python objects.

Caching: every kernel module uses ``@njit(cache=True)``. Importing this package registers a numba cache locator
for the files of this folder and its subfolders (one per element family or body kind, say): their cache lives in
``<cache root>/numba-<package>-<hash>``, where the hash covers every kernel source file of the tree (by its path
relative to this folder) and the numba version, and <package> is the import name of this copy of the
library (numba's cached environments record module names). So

- a change in one kernel module can never leave another module's cached code stale (numba itself only checks
  the calling function's own file; see the shared numba spike), and
- the cache does not depend on where the package sits: an FMU that ships this package in its resources (under a
  name derived from the same content hash) and is extracted to a new temporary folder on every run still finds
  the code compiled by an earlier run.

Kernels this locator finds load with their LLVM bitcode parsed on demand (kernels/cache_loading.py): a third off
an FMU's start-up. Processes that need the same uncompiled kernel at once compile it once: the others wait for it
(kernels/compile_lock.py). While numba compiles, the compiling copy's reporter (standard error, or an FMU's log) is
told so (kernels/compile_notice.py).

The cache root is ``$FMU_MBS_CACHE_DIR`` or ``$XDG_CACHE_HOME/fmu-mbs`` (default ``~/.cache/fmu-mbs``).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import numba

_KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))


def _hash_sources(folder: str) -> str:
    """Hash of the numba version and every kernel source file under ``folder`` (path and bytes)."""
    h = hashlib.sha1(numba.__version__.encode())
    for path in sorted(Path(folder).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(folder).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


@functools.cache
def _kernel_source_hash() -> str:
    """Of the kernel sources as imported, read once: an FMU's copy may be imported from an extraction folder that
    its host deletes later (fmpy does), and a hash of the files still there named another cache, so a second FMU
    in that process found neither its user cache nor its shipped kernels and compiled for minutes."""
    return _hash_sources(_KERNEL_DIR)


def kernel_cache_dir(package: str | None = None) -> str:
    """Folder that holds the compiled kernels of this exact kernel source, imported as ``package`` (default: this
    copy's import name; an FMU's copy of the library has another)."""
    base = os.environ.get("FMU_MBS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fmu-mbs")
    # numba's cached environments record the importing module's name, so the package name is part of the key
    return os.path.join(base, f"numba-{package or __name__.split('.')[0]}-{_kernel_source_hash()}")


def _in_kernel_tree(py_file: str) -> bool:
    """True for a source file of this folder or one of its subfolders."""
    folder = os.path.dirname(os.path.abspath(py_file))
    return folder == _KERNEL_DIR or folder.startswith(_KERNEL_DIR + os.sep)


def _register_cache_locator() -> None:
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba without the caching module: default behaviour
        return
    cache_dir = kernel_cache_dir()
    _writable: list[str] = []

    class KernelCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """Cache path keyed by the kernel sources' content, independent of the package location."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno

        def get_cache_path(self):
            return cache_dir

        def ensure_cache_path(self):
            """numba checks that the folder can be written by creating a file in it, per kernel at import (~330
            files at an FMU's start): once per process is enough, the folder is the same for every kernel."""
            if not _writable:
                super().ensure_cache_path()
                _writable.append(cache_dir)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _in_kernel_tree(py_file):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None  # read-only location: numba falls back to its other locators
            return self

    caching.CacheImpl._locator_classes.insert(0, KernelCacheLocator)
    from . import cache_loading, compile_lock, compile_notice

    cache_loading.install(KernelCacheLocator)
    compile_lock.install(KernelCacheLocator)
    compile_notice.install()


_register_cache_locator()
