"""Field helpers shared by the element modules: SI-unit metadata, vector and curve types, the ground name."""

from __future__ import annotations

from dataclasses import field

GROUND = "ground"

Vec = tuple[float, ...]


def param(unit: str, doc: str, default=None, **kw):
    """A dataclass field with its SI unit and documentation (read by the docs and the JSON writer)."""
    meta = {"unit": unit, "doc": doc}
    if default is None:
        return field(metadata=meta, **kw)
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: default, metadata=meta, **kw)
    return field(default=default, metadata=meta, **kw)


Curve = tuple[tuple[float, float], ...]
