"""Arguments of a kernel passed as one int64 table: numba unboxes each array argument at every call (about 0.5 us
each, and a tuple of named tuples is typed in Python at every call), so a kernel that takes ~200 arrays spent
~150 us per call before doing any work (issue 13: the FMU's one-call doStep).

``pack(tree)`` walks a tree of (named) tuples whose leaves are numpy arrays, floats, ints and bools, depth first in
field order, and writes one int64 table: per array its data address, its shape and its strides (bytes); per scalar
its value (a float's IEEE bits). ``Packed.layout`` stands for the tree's numba type: numba takes it from its
``_numba_type_`` attribute (no typing of the leaves at each call). Inside a kernel, ``unpack(table, layout)``
rebuilds the same tree with arrays that are views of the same memory (no copies, no reference counts), so the
kernel reads and writes the caller's arrays as if they had been passed one by one.

The addresses are valid only while the arrays live and are not reallocated: ``Packed`` holds the tree (so its
arrays live as long as the table), and whoever replaces an array of the tree must pack it again.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import typeof, types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


def _leaf_words(ty) -> int:
    if isinstance(ty, types.BaseTuple):
        return sum(_leaf_words(t) for t in ty.types)
    return 1 + 2 * ty.ndim if isinstance(ty, types.Array) else 1


class Packed:
    """The table of a tree of arrays and scalars, its layout token and the tree itself (which keeps the arrays
    alive while the table is in use)."""

    __slots__ = ("tree", "table", "layout")

    def __init__(self, tree):
        words: list[int] = []
        kinds: list = []
        try:
            _walk(tree, words, kinds)
        except _Unpackable as exc:
            raise TypeError(f"packed arguments: '{_path_to(tree, exc.leaf, 'args')}' is a "
                            f"{type(exc.leaf).__name__}; only tuples, numpy arrays, floats, ints and bools can be "
                            f"packed") from None
        self.tree = tree
        self.table = np.array(words, dtype=np.int64)
        self.layout = _layout(tree, tuple(kinds))
        if len(words) != _leaf_words(self.layout._numba_type_.instance_type):
            raise TypeError("packed arguments: the table and the numba type of the tree disagree")


class Layout:
    """Stands for the numba type of a tree (``numba.typeof``) as a kernel argument: numba reads the type from
    ``_numba_type_``, a reference to the type (no data is passed)."""

    __slots__ = ("_numba_type_",)

    def __init__(self, tree):
        self._numba_type_ = types.TypeRef(typeof(tree))


#: layouts by the kinds of a tree's nodes and leaves (tuple classes, dtypes, dimensions, memory order, flags):
#: typing ~200 arrays costs milliseconds, a tree of the same kinds has the same numba type
_LAYOUTS: dict[tuple, Layout] = {}


def _layout(tree, kinds: tuple) -> Layout:
    layout = _LAYOUTS.get(kinds)
    if layout is None:
        if len(_LAYOUTS) >= 64:
            _LAYOUTS.clear()
        layout = _LAYOUTS[kinds] = Layout(tree)
    return layout


def _walk(x, words: list[int], kinds: list) -> None:
    if isinstance(x, tuple):
        kinds.append((type(x), len(x)))
        for item in x:
            _walk(item, words, kinds)
        return
    kinds.append(type(x))
    if isinstance(x, np.ndarray):
        flags = x.flags
        kinds.append((x.dtype.str, x.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable, flags.aligned))
        words.append(x.ctypes.data)
        words.extend(x.shape)
        words.extend(x.strides)
    elif isinstance(x, bool | np.bool_ | int | np.integer):
        words.append(int(x))
    elif isinstance(x, float | np.floating):
        words.append(int(np.array(x, dtype=np.float64).view(np.int64)))
    else:
        raise _Unpackable(x)


class _Unpackable(TypeError):
    def __init__(self, leaf):
        super().__init__(leaf)
        self.leaf = leaf


def _path_to(x, leaf, path: str) -> str | None:
    """The path of ``leaf`` in the tree ``x`` (field names of named tuples, indices of tuples)."""
    if x is leaf:
        return path
    if isinstance(x, tuple):
        for k, item in enumerate(x):
            found = _path_to(item, leaf, f"{path}.{x._fields[k]}" if hasattr(x, "_fields") else f"{path}[{k}]")
            if found:
                return found
    return None


def pack(tree) -> Packed:
    """The table and layout of ``tree`` (see the module docstring; TypeError names a leaf that cannot be packed)."""
    return Packed(tree)


@intrinsic
def unpack(typingctx, table_t, layout_t):
    """The tree packed into ``table`` (int64, 1d) as the numba type ``layout`` stands for (module docstring)."""
    if not (isinstance(table_t, types.Array) and table_t.dtype == types.int64 and table_t.ndim == 1
            and isinstance(layout_t, types.TypeRef)):
        return None
    target = layout_t.instance_type

    def codegen(context, builder, signature, args):
        table = context.make_array(signature.args[0])(context, builder, args[0])
        i64 = ir.IntType(64)
        pos = [0]

        def word():
            value = builder.load(builder.gep(table.data, [ir.Constant(i64, pos[0])]))
            pos[0] += 1
            return value

        def build(ty):
            if isinstance(ty, types.BaseTuple):
                return context.make_tuple(builder, ty, [build(t) for t in ty.types])
            if isinstance(ty, types.Array):
                data_type = context.get_data_type(ty.dtype)
                ary = context.make_array(ty)(context, builder)
                data = builder.inttoptr(word(), data_type.as_pointer())
                shape = [word() for _ in range(ty.ndim)]
                strides = [word() for _ in range(ty.ndim)]
                populate_array(ary, data=data, shape=shape, strides=strides,
                               itemsize=context.get_constant(types.intp, context.get_abi_sizeof(data_type)),
                               meminfo=None)
                return ary._getvalue()
            raw = word()
            if isinstance(ty, types.Boolean):
                return builder.icmp_signed("!=", raw, ir.Constant(i64, 0))
            if isinstance(ty, types.Float):
                return context.cast(builder, builder.bitcast(raw, ir.DoubleType()), types.float64, ty)
            if isinstance(ty, types.Integer):
                return context.cast(builder, raw, types.int64, ty)
            raise TypeError(f"unpack: cannot rebuild a {ty}")

        return build(target)

    return target(table_t, layout_t), codegen
