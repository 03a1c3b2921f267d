"""The library copy of an FMU as one archive, unpacked once per machine into the user's cache.

An FMU carries this library (and its bytecode) as ``resources/<package>.zip``, deflated, ~1.6 MB, instead of its
~370 loose files: every FMI host extracts the whole FMU to a new folder at every start, and writing those files was
most of the extraction time (0.05 s on a quiet disk, 0.3 s with the disk busy). The FMU's entry script imports this
module, copied beside it as ``resources/<package>_library.py`` (so: the standard library only, no relative
imports), and puts :func:`library_folder` on ``sys.path`` while it imports the copy.

The first instance on a machine checks the archive's sha256 (recorded in the entry script at build time) and its
member names, unpacks it into a new folder and renames that to ``<cache root>/library/<package>``; later starts,
of this FMU or any other of the same library copy, find the folder and unpack nothing. The folder is named by the
copy (whose name is the hash of its sources), not by the archive: the bytecode in archives of the same sources
differs from one building process to the next (marshal's output depends on reference counts), and such archives
are equivalent. Where the cache cannot be written, the folder is ``resources/<package>.unpacked`` of the FMU's
extraction folder. The cache root is the
kernels' (kernels/__init__.py): ``$FMU_MBS_CACHE_DIR`` or ``$XDG_CACHE_HOME/fmu-mbs`` (default ``~/.cache/fmu-mbs``).

:func:`unpack_once` is the same stage-and-rename for the shipped kernels' blob (adapters/shipped_kernels.py).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Sequence

FOLDER = "library"                  # under the cache root


def cache_root() -> str:
    """``$FMU_MBS_CACHE_DIR`` or ``$XDG_CACHE_HOME/fmu-mbs`` (the rule of kernels.kernel_cache_dir)."""
    return os.environ.get("FMU_MBS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fmu-mbs")


def unpack_once(blob: str, digest: str, files: int, targets: Sequence[str], bad_name: Callable[[str], bool]) -> str:
    """The first folder of ``targets`` that exists, else the first one that ``blob`` (a zip file of ``files``
    members, sha256 ``digest``) can be unpacked into. Unpacked into a new folder beside the target, renamed into
    place, so that a target that exists is complete (processes that race keep the first). ValueError for a
    damaged or foreign blob (its sha256, member count or a member named so that ``bad_name`` refuses it), OSError
    when no target can be written."""
    if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        raise ValueError(f"malformed sha256 {digest!r}")
    for target in targets:
        if os.path.isdir(target):
            return target
    with open(blob, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != digest:
        raise ValueError(f"{os.path.basename(blob)} does not match the sha256 recorded for it (damaged)")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
        bad = [n for n in names if bad_name(n)]
        if bad or len(names) != files:
            raise ValueError(f"{os.path.basename(blob)} holds {len(names)} files, {files} expected; unexpected: "
                             f"{bad[:3]}")
        error: OSError | None = None
        for target in targets:
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                stage = tempfile.mkdtemp(prefix=".unpacking-", dir=os.path.dirname(target))
            except OSError as exc:
                error = exc
                continue
            try:
                z.extractall(stage)
                os.rename(stage, target)
            except OSError as exc:
                shutil.rmtree(stage, ignore_errors=True)
                if os.path.isdir(target):      # another process was first
                    return target
                error = exc
                continue
            return target
    raise error or OSError("nowhere to unpack")


def outside(package: str) -> Callable[[str], bool]:
    """Refuses a member name that is not a plain relative path below ``package/``."""
    def bad(name: str) -> bool:
        parts = name.split("/")
        return (parts[0] != package or len(parts) < 2 or "\\" in name or ":" in name
                or any(p in ("", ".", "..") for p in parts[1:]))
    return bad


def library_folder(resources: str, package: str, digest: str, files: int) -> str:
    """The folder that holds the library copy ``package`` of the FMU whose resources are ``resources``: the
    resources themselves where the copy lies there unpacked (the build's staging folder), else the unpacked
    ``<package>.zip`` (see the module docstring). ImportError with the reason when it cannot be unpacked."""
    if os.path.isfile(os.path.join(resources, package, "__init__.py")):
        return resources
    targets = [os.path.join(cache_root(), FOLDER, package), os.path.join(resources, f"{package}.unpacked")]
    try:
        return unpack_once(os.path.join(resources, f"{package}.zip"), digest, files, targets, outside(package))
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise ImportError(f"the FMU's library copy {package}.zip could not be unpacked "
                          f"({exc.__class__.__name__}: {exc})") from None
