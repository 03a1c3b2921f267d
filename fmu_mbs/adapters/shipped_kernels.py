"""Kernels compiled when an FMU was built, shipped in its resources and used where the user's kernel cache lacks them.

At build time (adapters/kernel_precompile.py) the FMU's copy of the library runs in a process with
``NUMBA_CPU_NAME=generic``: numba then compiles for the baseline CPU of the architecture (x86-64: no AVX, no FMA),
code that runs on every machine of that architecture. The cache entries the FMU's run loads are put in
``resources/numba-kernels/`` with a ``manifest.json`` (numba and Python versions, LLVM target triple, library copy).

numba keys each cache entry by (signature, (triple, CPU name, CPU features), bytecode hashes) and each index file
by a sha256 of the kernel's source file (numba/core/caching.py: ``Cache._index_key``, ``IndexDataCacheFile``;
numba 0.68). The source hash matches wherever the FMU is extracted (same file contents); the CPU part does not on a
machine whose numba targets its own CPU (``rocketlake``, ``znver3``, ...). So :func:`use` adds a second lookup to
numba's cache: when an entry of this copy's kernels is missing from the user's cache, it is looked up in the
shipped folder under the key with CPU ``generic`` and no extra features, the key it was compiled under. Nothing
is copied or rewritten; entries compiled later on this machine go to the user's cache as before.

The cache files travel as one deflated zip, ``kernels.zip`` (~7.6 MB for ~27 MB of machine code), stored as it is in
the FMU: every host extracts the whole FMU at every start, and the loose files were most of its bytes. The first
instance on a machine unpacks it (its sha256 checked, plain file names only) into ``<cache root>/shipped/<sha256>``
of the user's cache, or where that cannot be written into the FMU's extraction folder; later starts find it there.

When neither has an entry, numba compiles; the first such kernel is reported through :func:`set_reporter` (the
FMU's log) as "compiling kernels (first run only)".
"""

from __future__ import annotations

import json
import os
import sys
import zipfile
from collections.abc import Callable

from .library_archive import unpack_once

FOLDER = "numba-kernels"           # under the FMU's resources
MANIFEST = "manifest.json"
BLOB = "kernels.zip"               # the cache files, deflated (manifest["blob"]: its sha256 and file count)
PORTABLE_CPU = ("generic", "")      # (CPU name, CPU features) the shipped kernels were compiled for
NOTICE = "compiling kernels (first run only: minutes of CPU; later runs load them from the user's cache)"


def _state(package: str) -> tuple[dict, list, list, list]:
    """The state of one library copy, kept on numba's caching module so that it outlives a re-import of the copy.
    A process that runs FMUs imports the copy again from each FMU's extraction folder once it was dropped from
    sys.modules (fmu_build does that after a build): with module-level state each import wrapped numba's cache
    lookup once more, and the older wrappers reported compiles to the instances of their own import, whose FMI
    logger may be gone (a segmentation fault in fmpy's logger, seen in the tests)."""
    from numba.core import caching

    states = caching.__dict__.setdefault("_fmu_mbs_shipped_kernels", {})
    return states.setdefault(package, ({}, [None], [False], [False]))


# this copy's user cache folder -> shipped folder (None: none usable); weak reference to the reporter, a
# callable(message), or None; whether the current reporter was told; whether numba's lookup is wrapped
_shipped, _reporter, _reported, _hooked = _state(__name__.split(".")[0])


def package_name() -> str:
    """Import name of this copy of the library (``fmu_mbs`` or ``fmu_mbs_<hash>`` inside an FMU)."""
    return __name__.split(".")[0]


def target_description() -> dict:
    """What a shipped cache must match here: numba and Python versions, target triple, library copy and kernels."""
    import llvmlite.binding as ll
    import numba

    from ..kernels import kernel_cache_dir

    return {"numba": numba.__version__, "python": f"py{sys.version_info[0]}{sys.version_info[1]}",
            "triple": ll.get_process_triple(), "cpu": PORTABLE_CPU[0], "package": package_name(),
            "kernels": os.path.basename(kernel_cache_dir())}


def mismatch(manifest: dict) -> str | None:
    """Why a shipped cache described by ``manifest`` cannot be used here (None: it can)."""
    here = target_description()
    for key, what in (("triple", "target"), ("numba", "numba"), ("python", "Python"), ("package", "library copy"),
                      ("kernels", "kernel sources"), ("cpu", "CPU")):
        if manifest.get(key) != here[key]:
            return f"the FMU's kernels were compiled for {what} {manifest.get(key)!r}, this process has {here[key]!r}"
    return None


def use(resources: str | os.PathLike | None) -> str | None:
    """Use the kernels shipped in ``resources/numba-kernels`` where the user's cache misses; returns None, or the
    reason they cannot be used (then numba compiles, and the first compile is reported)."""
    from ..kernels import kernel_cache_dir

    _install_hook()
    cache_dir = kernel_cache_dir()
    folder = os.path.join(os.fspath(resources), FOLDER) if resources else ""
    try:
        with open(os.path.join(folder, MANIFEST), encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as exc:
        _shipped.setdefault(cache_dir, None)
        return f"no precompiled kernels in the FMU ({exc.__class__.__name__}: {exc})"
    reason = mismatch(manifest) if isinstance(manifest, dict) else "malformed manifest"
    if reason is None and "blob" in manifest:
        try:
            folder = unpacked(folder, manifest["blob"], os.path.dirname(cache_dir))
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
            reason = f"the FMU's {BLOB} could not be unpacked ({exc.__class__.__name__}: {exc})"
    if reason is None:
        _shipped[cache_dir] = folder
    else:
        _shipped.setdefault(cache_dir, None)
    return reason


def unpacked(folder: str, blob: dict, cache_root: str) -> str:
    """The folder holding the cache files of ``folder``/BLOB (``blob``: its manifest entry, sha256 and file count):
    ``<cache_root>/shipped/<sha256>`` once unpacked there (by this or an earlier process), else the FMU's own
    ``folder/unpacked`` (adapters/library_archive.unpack_once). ValueError for a damaged or foreign blob (anything
    but flat cache-file names)."""
    digest = blob["sha256"]
    targets = [os.path.join(cache_root, "shipped", str(digest)), os.path.join(folder, "unpacked")]
    return unpack_once(os.path.join(folder, BLOB), digest, blob["files"], targets, _not_a_cache_file)


def _not_a_cache_file(name: str) -> bool:
    return os.path.basename(name) != name or name.startswith(".") or not name.endswith((".nbi", ".nbc"))


def set_reporter(report: Callable[[str], None] | None) -> None:
    """Where to report the next compile of this copy's kernels (once per reporter; a bound method is held
    weakly)."""
    from ..kernels.compile_notice import hold

    _reported[0] = False
    _reporter[0] = hold(report)


def _report(kernel: str) -> None:
    if _reported[0]:
        return
    _reported[0] = True
    ref = _reporter[0]
    report = ref() if ref is not None else None
    if report is not None:
        report(f"fmu-mbs: {NOTICE} (first: {kernel})")


def _install_hook() -> None:
    """Wrap numba's cache lookup once per copy of the library (each copy checks only its own kernels)."""
    if _hooked[0]:
        return
    from numba.core import caching

    original = getattr(caching.Cache, "_load_overload", None)
    if original is None:        # a numba whose cache internals differ: compile as usual (the notice says so)
        _hooked[0] = True
        return

    def _load_overload(self, sig, target_context):
        data = original(self, sig, target_context)
        if data is not None or not self._enabled or self._cache_path not in _shipped:
            return data
        folder = _shipped[self._cache_path]
        if folder is not None:
            try:
                sig_key, magic, code = self._index_key(sig, target_context.codegen())
                shipped = caching.IndexDataCacheFile(folder, self._impl.filename_base,
                                                     self._cache_file._source_stamp)
                data = shipped.load((sig_key, (magic[0], *PORTABLE_CPU), code))
                if data is not None:
                    return self._impl.rebuild(target_context, data)
            except Exception:       # private numba API of another version, or a damaged file: compile instead
                pass
        _report(getattr(getattr(self, "_py_func", None), "__qualname__", None) or self._name)
        return None

    caching.Cache._load_overload = _load_overload
    _hooked[0] = True
