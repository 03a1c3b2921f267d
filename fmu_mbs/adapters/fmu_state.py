"""Serialized FMU states (fmi2SerializeFMUstate): a versioned binary layout, validated before anything is used.

A state is a tree of dicts (str keys), tuples (named tuples too) and leaves: numpy arrays (float64, int64, int32,
uint8, bool), Python floats, ints, bools and None. The bytes are

- a header: magic ``FMUMBSST``, layout version, CRC-32 of everything after the header, the model id (16 bytes: the
  FMU's GUID and library version, so a state of another model or build is refused), the total size, the length of
  the layout signature and the number of leaves;
- the layout signature: ASCII text naming the tree's structure and every leaf's kind, dtype and shape (the
  instance that loads a state compares it with its own);
- one descriptor per leaf (kind, dtype, ndim, dims), then the raw little-endian data of every leaf.

``parse`` checks the header, CRC, sizes and descriptors (StateError with the reason on any mismatch); ``rebuild``
puts the leaves into the structure of a template state after comparing the signatures. Nothing is unpickled,
evaluated or imported.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np

from ..errors import FmuMbsError

MAGIC = b"FMUMBSST"
VERSION = 1
_HEAD = struct.Struct("<8sII16sQII")      # magic, version, crc32, model id, total size, signature length, leaves
_LEAF = struct.Struct("<BBB")             # kind, dtype code, ndim (then ndim uint64 dims)
_DIM = struct.Struct("<Q")
MAX_LEAVES = 100_000
MAX_NDIM = 4
NONE, ARRAY, FLOAT, INT, BOOL = range(5)
DTYPES = {1: np.dtype("<f8"), 2: np.dtype("<i8"), 3: np.dtype("<i4"), 4: np.dtype("u1"), 5: np.dtype("?")}
_CODES = {dt: code for code, dt in DTYPES.items()}


class StateError(FmuMbsError):
    """Bytes that are not a valid FMU state of this model."""


@dataclass(frozen=True)
class ParsedState:
    """A state read from bytes and checked for consistency, not yet against an instance."""

    model_id: bytes
    signature: str
    leaves: tuple


def _flatten(tree, leaves: list, sig: list, path: str) -> None:
    if isinstance(tree, dict):
        sig.append("{")
        for key in sorted(tree):
            if not isinstance(key, str):
                raise StateError(f"FMU state: key {key!r} at '{path}' is not a string")
            sig.append(f"{key}:")
            _flatten(tree[key], leaves, sig, f"{path}.{key}")
        sig.append("}")
    elif isinstance(tree, tuple | list):
        sig.append(f"({len(tree)}")
        for k, item in enumerate(tree):
            _flatten(item, leaves, sig, f"{path}[{k}]")
        sig.append(")")
    elif tree is None:
        sig.append("n,")
        leaves.append(None)
    elif isinstance(tree, np.ndarray):
        dt = tree.dtype.newbyteorder("<") if tree.dtype.byteorder == ">" else tree.dtype
        if dt not in _CODES or tree.ndim > MAX_NDIM:
            raise StateError(f"FMU state: array at '{path}' has dtype {tree.dtype} / {tree.ndim} dims, not storable")
        sig.append(f"a{dt.str}{'x'.join(map(str, tree.shape))},")
        leaves.append(np.ascontiguousarray(tree, dtype=dt))
    elif isinstance(tree, bool | np.bool_):
        sig.append("b,")
        leaves.append(bool(tree))
    elif isinstance(tree, int | np.integer):
        sig.append("i,")
        leaves.append(int(tree))
    elif isinstance(tree, float | np.floating):
        sig.append("f,")
        leaves.append(float(tree))
    else:
        raise StateError(f"FMU state: value of type {type(tree).__name__} at '{path}' is not storable")


def signature(tree) -> str:
    """The layout signature of a state tree."""
    sig: list[str] = []
    _flatten(tree, [], sig, "state")
    return "".join(sig)


def to_bytes(tree, model_id: bytes) -> bytes:
    """Serialize a state tree (see the module docstring)."""
    leaves: list = []
    sig: list[str] = []
    _flatten(tree, leaves, sig, "state")
    sig_b = "".join(sig).encode("ascii")
    desc, data = [], []
    for leaf in leaves:
        if leaf is None:
            desc.append(_LEAF.pack(NONE, 0, 0))
        elif isinstance(leaf, np.ndarray):
            desc.append(_LEAF.pack(ARRAY, _CODES[leaf.dtype], leaf.ndim) + b"".join(_DIM.pack(n) for n in leaf.shape))
            data.append(leaf.tobytes())
        elif isinstance(leaf, bool):
            desc.append(_LEAF.pack(BOOL, 0, 0))
            data.append(struct.pack("<?", leaf))
        elif isinstance(leaf, int):
            desc.append(_LEAF.pack(INT, 0, 0))
            data.append(struct.pack("<q", leaf))
        else:
            desc.append(_LEAF.pack(FLOAT, 0, 0))
            data.append(struct.pack("<d", leaf))
    body = sig_b + b"".join(desc) + b"".join(data)
    if len(model_id) != 16:
        raise StateError("FMU state: the model id must have 16 bytes")
    head = _HEAD.pack(MAGIC, VERSION, zlib.crc32(body), model_id, _HEAD.size + len(body), len(sig_b), len(leaves))
    return head + body


def parse(data: bytes | bytearray | memoryview) -> ParsedState:
    """Read and check serialized state bytes (StateError says what is wrong)."""
    data = bytes(data)
    if len(data) < _HEAD.size:
        raise StateError(f"FMU state: {len(data)} bytes, shorter than the {_HEAD.size}-byte header")
    magic, version, crc, model_id, total, sig_len, n_leaves = _HEAD.unpack_from(data, 0)
    if magic != MAGIC:
        raise StateError("FMU state: not an fmu-mbs FMU state (wrong magic bytes)")
    if version != VERSION:
        raise StateError(f"FMU state: layout version {version}, this FMU reads version {VERSION}")
    if total != len(data):
        raise StateError(f"FMU state: the header announces {total} bytes, {len(data)} were given (truncated?)")
    if zlib.crc32(data[_HEAD.size:]) != crc:
        raise StateError("FMU state: checksum mismatch (the bytes were altered or damaged)")
    if n_leaves > MAX_LEAVES:
        raise StateError(f"FMU state: {n_leaves} values announced, more than {MAX_LEAVES}")
    pos = _HEAD.size + sig_len
    if pos > total:
        raise StateError("FMU state: the layout signature runs past the end")
    try:
        sig = data[_HEAD.size:pos].decode("ascii")
    except UnicodeDecodeError:
        raise StateError("FMU state: the layout signature is not ASCII text") from None
    specs = []
    for k in range(n_leaves):
        if pos + _LEAF.size > total:
            raise StateError(f"FMU state: descriptor {k} runs past the end")
        kind, code, ndim = _LEAF.unpack_from(data, pos)
        pos += _LEAF.size
        if kind > BOOL or (kind == ARRAY and (code not in DTYPES or ndim > MAX_NDIM)):
            raise StateError(f"FMU state: descriptor {k} is invalid (kind {kind}, dtype {code}, {ndim} dims)")
        if pos + ndim * _DIM.size > total:
            raise StateError(f"FMU state: descriptor {k} runs past the end")
        shape = tuple(_DIM.unpack_from(data, pos + i * _DIM.size)[0] for i in range(ndim))
        pos += ndim * _DIM.size
        specs.append((kind, code, shape))
    leaves = []
    for k, (kind, code, shape) in enumerate(specs):
        size = {NONE: 0, FLOAT: 8, INT: 8, BOOL: 1}.get(kind)
        if kind == ARRAY:
            count = 1
            for n in shape:
                count *= n
            size = count * DTYPES[code].itemsize
        if pos + size > total:
            raise StateError(f"FMU state: the data of value {k} runs past the end")
        if kind == ARRAY:
            leaves.append(np.frombuffer(data, dtype=DTYPES[code], count=size // DTYPES[code].itemsize,
                                        offset=pos).reshape(shape).copy())
        elif kind == FLOAT:
            leaves.append(struct.unpack_from("<d", data, pos)[0])
        elif kind == INT:
            leaves.append(struct.unpack_from("<q", data, pos)[0])
        elif kind == BOOL:
            leaves.append(struct.unpack_from("<?", data, pos)[0])
        else:
            leaves.append(None)
        pos += size
    if pos != total:
        raise StateError(f"FMU state: {total - pos} bytes left over after the last value")
    return ParsedState(model_id, sig, tuple(leaves))


def _rebuild(template, leaves, pos: list):
    if isinstance(template, dict):
        return {key: _rebuild(template[key], leaves, pos) for key in sorted(template)}
    if isinstance(template, tuple | list):
        items = [_rebuild(item, leaves, pos) for item in template]
        if isinstance(template, list):
            return items
        return type(template)._make(items) if hasattr(template, "_make") else tuple(items)
    leaf = leaves[pos[0]]
    pos[0] += 1
    return leaf


def rebuild(parsed: ParsedState, template, model_id: bytes):
    """The state tree of ``parsed`` in the structure of ``template`` (a state of the instance that loads it);
    StateError if it belongs to another model or build or its layout differs."""
    if parsed.model_id != model_id:
        raise StateError(f"FMU state of another model or FMU build (model id {parsed.model_id.hex()}, this FMU "
                         f"{model_id.hex()})")
    expected = signature(template)
    if parsed.signature != expected:
        raise StateError(f"FMU state layout differs from this instance's (other parameters, integrator or "
                         f"initialization mode): saved {parsed.signature[:200]!r}, expected {expected[:200]!r}")
    expected_count = len(_leaves_of(template))
    if len(parsed.leaves) != expected_count:
        raise StateError(f"FMU state: {len(parsed.leaves)} values, this instance's state has {expected_count}")
    tree = _rebuild(template, parsed.leaves, [0])
    if signature(tree) != expected:   # the descriptors agree with the signature, value by value
        raise StateError("FMU state: the values' kinds or shapes differ from the layout signature")
    return tree


def _leaves_of(tree) -> list:
    leaves: list = []
    _flatten(tree, leaves, [], "state")
    return leaves
