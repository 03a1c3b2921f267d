"""Kernels called only from other kernels, compiled without entry wrappers.

numba gives every compiled function a CPython wrapper (unboxing each argument: a ModelArrays is ~120 arrays) and a
C wrapper, and compiles them to machine code, though only the few kernels that Python calls ever use them. For
the pendulum's first ``simulate`` (190 kernels, 207 signatures) the wrappers were a third of the cold compile:
700 s -> 454 s without the wrappers of the kernels compiled as callees (docs/performance.md, "Where a cold
compile goes"). ``@inner_kernel`` is ``@njit(cache=True)`` with both wrappers off.

Such a function has no entry that Python could call: calling it from Python would jump to a missing wrapper, so
its dispatcher raises a TypeError that names it instead. tests/test_inner_kernels.py checks that no Python code
of the project calls one; a kernel that Python calls (an analysis, an adapter, a test) keeps ``@njit``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core import config
from numba.core.registry import CPUDispatcher


class InnerKernel(CPUDispatcher):
    """Dispatcher of an ``@inner_kernel``: typed and compiled like any njit function when a kernel calls it."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is an inner kernel (compiled "
                        "without a Python entry, kernels/inner.py): call it from a numba kernel, or make it @njit")


def inner_kernel(func: Callable | None = None, **options: Any) -> Any:
    """``@inner_kernel`` or ``@inner_kernel(_nrt=False, ...)``: a cached njit kernel without the CPython and C
    wrappers. ``options`` are njit's (``inline`` is not one: an inlined kernel has no compiled body of its own)."""
    if "inline" in options or "cache" in options:
        raise TypeError("inner_kernel: cache is implied, and an inlined kernel is compiled into its callers")

    def wrap(f: Callable) -> Any:
        if config.DISABLE_JIT:
            return f
        target_options = dict(options, nopython=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
        dispatcher = InnerKernel(py_func=f, locals={}, targetoptions=target_options)
        dispatcher.enable_caching()
        return dispatcher

    return wrap(func) if func is not None else wrap
