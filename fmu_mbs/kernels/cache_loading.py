"""Faster loading of cached kernels: numba's "shared bitcode" of a cached kernel is parsed only when needed.

A kernel loaded from numba's cache (numba 0.68: ``CPUCodeLibrary._unserialize``, kind ``"object"``) carries its
machine code and an LLVM bitcode copy of the same functions (the "shared module"). numba parses that bitcode at
once, for two uses: to link the kernel into a *later compile* of a caller (``_get_module_for_linking``), and to
collect the names of the symbols the kernel defines (``_load_defined_symbols``). The parse is about 45 % of the
time an FMU spends loading its kernels at start-up (0.5 of 1.9 s for the pendulum, cProfile), while a run that finds
every kernel in the cache never links anything.

So for this library's kernels (those under :class:`KernelCacheLocator`), the bitcode is kept as bytes and parsed
on first use of ``_shared_module``, and the defined symbols are read from the machine code's ELF symbol table (the
same names but LLVM's private ones, such as switch lookup tables, which the object does not name and no other module
can refer to: checked on the library's cached kernels, see tests/test_kernel_cache.py). Anything else (another
object format, another numba, another package's kernels) loads exactly as numba does.

Inner kernels (kernels/inner.py) are cached as bitcode alone (they have no machine code); theirs load as an
``InnerLibrary``, ready to be linked into a caller, without being added to the execution engine.

numba also "refreshes" its target context before each cache load (``Cache.load_overload``); the first refresh
imports and installs every typing and lowering registry (numba.typed, np.random, np.linalg, jitclass, ...):
0.15-0.3 s of an FMU's start-up, for code that only types and lowers new functions. Loading a compiled kernel needs
none of it but the runtime (NRT, whose functions the machine code calls), so this library's kernels load after
``rtsys.initialize`` alone; a compile, when one comes, refreshes as before (numba's ``CompilerBase``).
"""

from __future__ import annotations

import threading

import numpy as np

_ELF_SECTION = np.dtype([("name", "<u4"), ("type", "<u4"), ("flags", "<u8"), ("addr", "<u8"), ("offset", "<u8"),
                         ("size", "<u8"), ("link", "<u4"), ("info", "<u4"), ("addralign", "<u8"),
                         ("entsize", "<u8")])
_ELF_SYMBOL = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"), ("value", "<u8"),
                        ("size", "<u8")])
_SHT_SYMTAB = 2
_STT_SECTION = 3          # symbol types below this one (NOTYPE, OBJECT, FUNC) name code or data

_lazy = threading.local()


def elf_defined_symbols(obj: bytes) -> set[str] | None:
    """Names of the functions and data an ELF64 little-endian relocatable object defines (None: not such an
    object). LLVM names its symbols as the module's globals, so this is the set numba reads from the bitcode."""
    if len(obj) < 64 or obj[:6] != b"\x7fELF\x02\x01":
        return None
    shoff = int.from_bytes(obj[0x28:0x30], "little")
    shnum = int.from_bytes(obj[0x3C:0x3E], "little")
    sections = np.frombuffer(obj, _ELF_SECTION, count=shnum, offset=shoff)
    names: set[str] = set()
    for table in sections[sections["type"] == _SHT_SYMTAB]:
        strings = sections[table["link"]]
        start, end = int(strings["offset"]), int(strings["offset"] + strings["size"])
        symbols = np.frombuffer(obj, _ELF_SYMBOL, count=int(table["size"]) // _ELF_SYMBOL.itemsize,
                                offset=int(table["offset"]))
        keep = (symbols["shndx"] != 0) & ((symbols["info"] & 15) < _STT_SECTION) & (symbols["name"] != 0)
        for at in symbols["name"][keep]:
            at = start + int(at)
            names.add(obj[at:obj.index(b"\0", at, end)].decode())
    return names


def _lazy_library_class(base: type) -> type:
    """Subclass of numba's code library whose ``_shared_module`` is parsed from stored bitcode on first use."""
    from llvmlite import binding as ll

    def get(self):
        state = self.__dict__
        pending = state.pop("_fmu_mbs_bitcode", None)
        if pending is not None:
            state["_fmu_mbs_shared"] = ll.parse_bitcode(pending)
        return state.get("_fmu_mbs_shared")

    def set_(self, module):
        self.__dict__.pop("_fmu_mbs_bitcode", None)
        self.__dict__["_fmu_mbs_shared"] = module

    return type(f"Lazy{base.__name__}", (base,), {"_shared_module": property(get, set_), "__module__": __name__})


def our_locators() -> list[type]:
    """The cache locator classes of every copy of this library in the process (the installed one, FMUs' copies),
    kept on numba's caching module so that the list outlives a copy's re-import. Shared with compile_lock.py."""
    from numba.core import caching

    return caching.__dict__.setdefault("_fmu_mbs_locators", [])


def install(locator_class: type) -> None:
    """Load the kernels that ``locator_class`` finds with their bitcode parsed on demand (once per process and
    locator class; a numba whose internals differ keeps its own loading)."""
    try:
        from numba.core import caching, codegen
    except ImportError:  # pragma: no cover
        return
    library = getattr(codegen, "CPUCodeLibrary", None)
    impl = getattr(caching, "CompileResultCacheImpl", None)
    needed = ("_unserialize", "enable_object_caching", "_set_compiled_object", "_finalize_final_module")
    if library is None or impl is None or not all(hasattr(library, n) for n in needed) or not hasattr(impl, "rebuild"):
        return
    ours = our_locators()
    if locator_class not in ours:
        ours.append(locator_class)
    if getattr(library._unserialize, "_fmu_mbs", False):
        return
    unserialize, rebuild, classes = library._unserialize.__func__, impl.rebuild, {}

    def lazy_unserialize(cls, codegen_, state):
        name, kind, data = state
        if kind == "bitcode" and getattr(_lazy, "on", False):
            from .inner import inner_library_from_bitcode

            return inner_library_from_bitcode(codegen_, name, data)
        symbols = elf_defined_symbols(data[0]) if kind == "object" and getattr(_lazy, "on", False) else None
        engine = getattr(codegen_, "_engine", None)
        if symbols is None or not isinstance(getattr(engine, "_defined_symbols", None), set):
            return unserialize(cls, codegen_, state)
        self = codegen_.create_library(name)
        self.__class__ = classes.setdefault(type(self), _lazy_library_class(type(self)))
        self.__dict__.pop("_shared_module", None)
        self.__dict__["_fmu_mbs_bitcode"] = data[1]
        self.enable_object_caching()
        self._set_compiled_object(data[0])
        self._finalize_final_module()
        engine._defined_symbols |= symbols
        return self

    def lazy_rebuild(self, target_context, payload):
        if not isinstance(getattr(self, "_locator", None), tuple(ours)):
            return rebuild(self, target_context, payload)
        _lazy.on = True
        try:
            return rebuild(self, target_context, payload)
        finally:
            _lazy.on = False

    lazy_unserialize._fmu_mbs = True
    library._unserialize = classmethod(lazy_unserialize)
    impl.rebuild = lazy_rebuild
    _load_without_refresh(caching, ours)


def _load_without_refresh(caching, ours: list[type]) -> None:
    """Cache loads of this library's kernels initialise numba's runtime only (module docstring)."""
    cache = getattr(caching, "Cache", None)
    load = getattr(cache, "load_overload", None)
    if load is None or getattr(load, "_fmu_mbs", False) or not all(
            hasattr(cache, n) for n in ("_load_overload", "_guard_against_spurious_io_errors")):
        return
    try:
        from numba.core.runtime import rtsys
    except ImportError:  # pragma: no cover
        return

    def load_overload(self, sig, target_context):
        if not isinstance(getattr(getattr(self, "_impl", None), "_locator", None), tuple(ours)):
            return load(self, sig, target_context)
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    load_overload._fmu_mbs = True
    cache.load_overload = load_overload
