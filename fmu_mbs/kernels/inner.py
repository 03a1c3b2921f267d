"""Kernels called only from other kernels, compiled without entry wrappers.

numba gives every compiled function a CPython wrapper (unboxing each argument: a ModelArrays is ~120 arrays) and a
C wrapper, and compiles them to machine code, though only the few kernels that Python calls ever use them. For
the pendulum's first ``simulate`` (190 kernels, 207 signatures) the wrappers were a third of the cold compile:
700 s -> 454 s without the wrappers of the kernels compiled as callees (docs/performance.md, "Where a cold
compile goes"). ``@inner_kernel`` is ``@njit(cache=True)`` with both wrappers off.

Such a function has no entry that Python could call: calling it from Python would jump to a missing wrapper, so
its dispatcher raises a TypeError that names it instead. tests/test_inner_kernels.py checks that no Python code
of the project calls one; a kernel that Python calls (an analysis, an adapter, a test) keeps ``@njit``.

Nor is an inner kernel's own machine code ever run: numba links its LLVM module into every caller, which optimises
and emits it again. So an inner kernel's code library (``InnerLibrary``) stops after numba's per-function
optimisation: no module-level optimisation, no machine code, and its cache entry holds the LLVM bitcode a later
caller links (kernels/cache_loading.py loads it without emitting code either). Only the kernels Python calls, and
those called through the bound-call table (kernels/bound_calls.py, compiled with ``emit=True``), emit machine code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core import codegen, compiler, config
from numba.core.registry import CPUDispatcher

_BASE_LIBRARY = codegen.JITCodeLibrary


class InnerLibrary(_BASE_LIBRARY):
    """numba's code library without module optimisation and machine code: only ever linked into callers."""

    def _optimize_final_module(self) -> None:
        """Left to the callers, which optimise the linked module as a whole."""

    def _finalize_final_module(self) -> None:
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name: str) -> int:
        return 0

    def serialize_using_object_code(self):
        return self.serialize_using_bitcode()


def inner_library_from_bitcode(codegen_: Any, name: str, bitcode: bytes) -> InnerLibrary:
    """An inner kernel's library rebuilt from its cached bitcode (kernels/cache_loading.py), ready for linking."""
    from llvmlite import binding as ll

    library = InnerLibrary(codegen_, name)
    library._final_module = ll.parse_bitcode(bitcode)
    library._finalize_final_module()
    return library


class InnerCompiler(compiler.Compiler):
    """numba's pipeline with an InnerLibrary for the compiled function."""

    def compile_extra(self, func: Callable) -> Any:
        if self.state.library is None:
            self.state.library = InnerLibrary(self.state.targetctx.codegen(), func.__qualname__)
            self.state.library.enable_object_caching()
        return super().compile_extra(func)


def _skip_unset_environments() -> None:
    """numba stores a compiled function's environment pointer in its module's global once compiled (``set_env``):
    an inner library is never added to the execution engine, so that global has no address (0) and is left alone.
    Callers are unaffected: they set the environments of the modules they link."""
    cls = codegen.JITCPUCodegen
    set_env = cls.set_env
    if getattr(set_env, "_fmu_mbs", False):
        return

    def guarded(self, env_name, env):
        if self._engine.get_global_value_address(env_name):
            set_env(self, env_name, env)

    guarded._fmu_mbs = True
    cls.set_env = guarded


_skip_unset_environments()


class InnerKernel(CPUDispatcher):
    """Dispatcher of an ``@inner_kernel``: typed and compiled like any njit function when a kernel calls it."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is an inner kernel (compiled "
                        "without a Python entry, kernels/inner.py): call it from a numba kernel, or make it @njit")


def inner_kernel(func: Callable | None = None, *, emit: bool = False, **options: Any) -> Any:
    """``@inner_kernel`` or ``@inner_kernel(_nrt=False, ...)``: a cached njit kernel without the CPython and C
    wrappers, and (unless ``emit``: a kernel called through the bound-call table) without machine code of its own.
    ``options`` are njit's (``inline`` is not one: an inlined kernel has no compiled body of its own)."""
    if "inline" in options or "cache" in options:
        raise TypeError("inner_kernel: cache is implied, and an inlined kernel is compiled into its callers")

    def wrap(f: Callable) -> Any:
        if config.DISABLE_JIT:
            return f
        target_options = dict(options, nopython=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
        dispatcher = InnerKernel(py_func=f, locals={}, targetoptions=target_options,
                                 pipeline_class=compiler.Compiler if emit else InnerCompiler)
        dispatcher.enable_caching()
        return dispatcher

    return wrap(func) if func is not None else wrap
