"""Kernels called through a run-time address table instead of being linked into their callers (issue 13: compile
only what a model uses).

numba links the code of every kernel a kernel calls into the caller's own module, and optimises and emits it there
once more, so each element family's code was compiled again inside every entry that evaluates forces, whether or
not the model had an element of that family (docs/performance.md, "Where a cold compile goes"). A call
``bound_call(SLOT, args...)`` instead loads the callee's address from a process-wide table and calls it in numba's
own calling convention (return value, exception status: an exception raised in the callee propagates as from a
direct call). The caller's compiled code holds no callee code and no address, so it caches like any kernel; the
table is filled per process by ``bind`` with the kernels a model uses, each compiled (or loaded from the cache) once.

The table is a C array registered with LLVM under a symbol named after this copy of the library (the installed
package and each FMU's vendored copy have their own); slot k holds (address, fingerprint of the argument types).
The call compares the fingerprint of the types it was compiled for with the bound one and raises a RuntimeError
naming the slot if they differ or the slot is unbound: an unbound or mistyped call never jumps. Array types are
compared up to their writeable and alignment flags (the same machine layout): the same data reach a kernel as
read-only model arrays from Python and as writable views from the packed FMU step.
"""

from __future__ import annotations

import ctypes
import zlib
from collections.abc import Sequence

import llvmlite.binding as ll
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.typing import signature
from numba.extending import intrinsic

N_SLOTS = 32
SYMBOL = f"{__name__.split('.')[0]}_bound_calls"

#: slot -> name (for messages); filled by ``declare``
SLOT_NAMES: dict[int, str] = {}


def _table():
    """The process's table of this library copy, kept on llvmlite's binding module so that a re-import of the
    copy (an FMU build drops its staged copy from sys.modules) finds the table its loaded kernels already point at."""
    tables = ll.__dict__.setdefault("_fmu_mbs_bound_tables", {})
    if SYMBOL not in tables:
        tables[SYMBOL] = (ctypes.c_int64 * (2 * N_SLOTS))()
        ll.add_symbol(SYMBOL, ctypes.addressof(tables[SYMBOL]))
    return tables[SYMBOL]


_TABLE = _table()


def declare(slot: int, name: str) -> int:
    """Reserve ``slot`` for the kernel ``name``; returns the slot (a module constant of the calling stage)."""
    if not 0 <= slot < N_SLOTS or SLOT_NAMES.get(slot, name) != name:
        raise ValueError(f"bound_calls: slot {slot} for {name} is out of range or taken by {SLOT_NAMES.get(slot)}")
    SLOT_NAMES[slot] = name
    return slot


def canonical(ty: types.Type) -> types.Type:
    """``ty`` with every array's writeable and alignment flags erased (the same machine layout)."""
    if isinstance(ty, types.Array):
        return types.Array(ty.dtype, ty.ndim, ty.layout)
    if isinstance(ty, types.BaseNamedTuple):
        return types.BaseTuple.from_types([canonical(t) for t in ty], ty.instance_class)
    if isinstance(ty, types.BaseTuple):
        return types.BaseTuple.from_types([canonical(t) for t in ty])
    return ty


def fingerprint(argtys: Sequence[types.Type]) -> int:
    """Process-independent fingerprint (31 bits, never 0) of canonical argument types."""
    return (zlib.crc32(repr(tuple(canonical(t) for t in argtys)).encode()) & 0x7FFFFFFF) | 1


@intrinsic
def bound_call(typingctx, slot, *args):
    """float64 result of the kernel bound to constant ``slot`` called with ``args`` (see the module docstring)."""
    if not isinstance(slot, types.IntegerLiteral):
        return None
    argtys = tuple(args)
    want = fingerprint(argtys)
    k = int(slot.literal_value)
    message = (f"bound call {SLOT_NAMES.get(k, k)}: no kernel bound for these argument types (the model's kernels "
               "are bound by kernels.forces.bind_families when its solver workspace is built)",)
    callee_types = tuple(canonical(t) for t in argtys)

    def codegen(context, builder, sig, llargs):
        i64 = ir.IntType(64)
        table = builder.module.globals.get(SYMBOL)
        if table is None:
            table = ir.GlobalVariable(builder.module, ir.ArrayType(i64, 2 * N_SLOTS), SYMBOL)
            table.linkage = "external"
        base = builder.bitcast(table, i64.as_pointer())
        address = builder.load(builder.gep(base, [ir.Constant(i64, 2 * k)]))
        bound = builder.load(builder.gep(base, [ir.Constant(i64, 2 * k + 1)]))
        with cgutils.if_unlikely(builder, builder.icmp_signed("!=", bound, ir.Constant(i64, want))):
            context.call_conv.return_user_exc(builder, RuntimeError, message)
        values = cgutils.unpack_tuple(builder, llargs[1], len(argtys))
        fnty = context.call_conv.get_function_type(types.float64, callee_types)
        callee = builder.inttoptr(address, fnty.as_pointer())
        status, result = context.call_conv.call_function(builder, callee, types.float64, callee_types, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result

    return signature(types.float64, slot, types.StarArgTuple.from_types(argtys)), codegen


def bind(slot: int, dispatcher, argtys: Sequence[types.Type]) -> None:
    """Compile (or load from the cache) ``dispatcher`` for the canonical ``argtys`` and bind it to ``slot``; a slot
    already bound to the same types is left as it is."""
    argtys = tuple(canonical(t) for t in argtys)
    fp = fingerprint(argtys)
    if is_bound(slot, fp):
        return
    dispatcher.compile(argtys)
    cres = dispatcher.overloads[argtys]
    if cres.signature.return_type != types.float64:
        raise TypeError(f"bound call {SLOT_NAMES.get(slot, slot)}: {dispatcher.py_func.__qualname__} returns "
                        f"{cres.signature.return_type}, a bound kernel must return float64")
    address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    if not address:
        raise RuntimeError(f"bound call {SLOT_NAMES.get(slot, slot)}: no native entry for {argtys}")
    _TABLE[2 * slot] = address
    _TABLE[2 * slot + 1] = fp


def is_bound(slot: int, fp: int) -> bool:
    """True if ``slot`` holds a kernel for the argument types of fingerprint ``fp``."""
    return _TABLE[2 * slot + 1] == fp and _TABLE[2 * slot] != 0


def bound_slots() -> dict[str, bool]:
    """Which declared slots are bound in this process (name -> bound), for tests and diagnostics."""
    return {name: bool(_TABLE[2 * slot]) for slot, name in SLOT_NAMES.items()}
