"""Layer 3: numba kernels. Arrays in, arrays out, SI units, no Python objects.

Importing this package points numba's cache at a folder keyed by a hash of every kernel source
file (unless NUMBA_CACHE_DIR is set), so a change in one kernel module can never leave another
module's cached machine code stale (see shared numba-spike: stale caches across modules).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _kernel_source_hash() -> str:
    h = hashlib.sha1(numba.__version__.encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def kernel_cache_dir() -> str:
    """Folder that holds the compiled kernels of this exact kernel source."""
    base = os.environ.get("FMU_MBS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "fmu-mbs")
    return os.path.join(base, "numba-" + _kernel_source_hash())


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = kernel_cache_dir()
