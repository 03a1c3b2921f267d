"""The checks shared by what sits on a marker with a kind and dimensions: contact shapes and body graphics."""

from __future__ import annotations

import math


def placement_problems(w: str, marker: str, kind: str, dimensions, kinds: dict, markers: set[str]) -> list[str]:
    """Problems of the marker, the kind (one of ``kinds``: kind -> number of dimensions) and the dimensions
    (positive and finite, m) of the element ``w``; the dimensions are checked only when the kind is known."""
    p = []
    if marker not in markers:
        p.append(f"{w}: 'marker' refers to marker '{marker}', which is not defined")
    if kind not in kinds:
        p.append(f"{w}: 'kind' must be one of {', '.join(kinds)}, got {kind!r}")
        return p
    n = kinds[kind]
    if len(dimensions) != n:
        p.append(f"{w}: a {kind} takes {n} dimension(s), got {len(dimensions)}")
    elif not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0.0
                 for x in dimensions):
        p.append(f"{w}: 'dimensions' must be positive and finite, got {list(dimensions)}")
    return p
