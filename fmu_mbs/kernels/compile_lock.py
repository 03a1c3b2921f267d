"""One compile of a kernel across processes: a file lock per kernel around numba's compile.

numba's cache is safe to share between processes (files are written atomically) but not coordinated: processes that
start on an empty cache at once (the workers of a parameter study on a fresh machine, test workers) each compile
every kernel, minutes of CPU each. Here a process that is about to compile a kernel of this library takes an
exclusive ``flock`` on ``<kernel cache>/<kernel's cache file base>.lock`` first; a second process that needs the same
kernel meanwhile waits on that lock and then finds the kernel in the cache (numba looks there again inside its own
compile). Locks are released by the kernel's compile returning or raising, or by the process ending.

No deadlock: a compile waits only for the kernels its kernel calls (typing a call compiles the callee), and the
call graph is acyclic (numba compiles no mutual recursion), so no two processes can wait for each other. Within a
process the lock is taken under numba's global compiler lock (one compiling thread) and once per kernel, so a
kernel typed again during its own compile does not wait for itself.
"""

from __future__ import annotations

import os

from .cache_loading import our_locators


def lock_path(kernel: object) -> str | None:
    """The lock file of a kernel's dispatcher whose cache one of our locators serves (None: not one of ours)."""
    cache = getattr(kernel, "_cache", None)
    impl = getattr(cache, "_impl", None)
    if impl is None or not isinstance(getattr(impl, "_locator", None), tuple(our_locators())):
        return None
    return os.path.join(cache._cache_path, impl.filename_base + ".lock")


def install(locator_class: type) -> None:
    """Lock the compiles of the kernels that ``locator_class`` caches (once per process and class)."""
    try:
        import fcntl

        from numba.core import dispatcher, sigutils
        from numba.core.compiler_lock import global_compiler_lock
    except ImportError:  # pragma: no cover - no flock (Windows) or another numba: compile unlocked
        return
    if locator_class not in our_locators():
        our_locators().append(locator_class)
    original = dispatcher.Dispatcher.compile
    if getattr(original, "_fmu_mbs", False):
        return
    held: set[str] = set()     # lock files this process holds (one patch per process, shared by every copy)

    def compile(self, sig):
        path = lock_path(self)
        if path is None or self.overloads.get(tuple(sigutils.normalize_signature(sig)[0])) is not None:
            return original(self, sig)
        with global_compiler_lock:
            if path in held:
                return original(self, sig)
            try:
                handle = open(path, "a")
            except OSError:          # a cache folder we cannot write to: numba does not cache there either
                return original(self, sig)
            with handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                held.add(path)
                try:
                    return original(self, sig)
                finally:
                    held.discard(path)
                    fcntl.flock(handle, fcntl.LOCK_UN)

    compile._fmu_mbs = True
    compile.__doc__ = original.__doc__
    dispatcher.Dispatcher.compile = compile
