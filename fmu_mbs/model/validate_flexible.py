"""Validation of flexible bodies (model/elements.FlexibleBody) and of the markers on them; every message names
the body (or marker)."""

from __future__ import annotations

import numpy as np

#: a marker on a flexible body sits at the node within this distance of its position (m, relative to the body's
#: size, at least 1e-9 m)
NODE_TOLERANCE = 1e-9


def _matrix(p: list[str], w: str, name: str, value, n: int, required: bool) -> np.ndarray | None:
    if not required and len(value) == 0:
        return None
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        p.append(f"{w}: '{name}' must be a matrix of numbers")
        return None
    if a.shape != (n, n):
        p.append(f"{w}: '{name}' must be {n} x {n} (the body's coordinate count), got shape {a.shape}")
        return None
    if not np.all(np.isfinite(a)):
        p.append(f"{w}: '{name}' must be finite")
        return None
    if not np.allclose(a, a.T, rtol=1e-9, atol=1e-12 * max(1.0, float(np.abs(a).max(initial=0.0)))):
        p.append(f"{w}: '{name}' must be symmetric")
        return None
    return a


def flexible_body_problems(w: str, b, dim: int) -> list[str]:
    """Problems of flexible body ``b`` (``w``: "body 'name'") in a model of dimension ``dim``."""
    p: list[str] = []
    if dim != 3:
        return [f"{w}: a flexible body is only allowed in a spatial model"]
    try:
        dofs = np.array(b.node_dofs, dtype=np.int64).reshape(len(b.node_dofs), -1)
        pos = np.array(b.node_positions, dtype=float).reshape(len(b.node_positions), -1)
    except (TypeError, ValueError):
        return [f"{w}: 'node_dofs' must be integer 6-tuples and 'node_positions' 3-vectors"]
    if len(pos) == 0 or pos.shape[1] != 3 or not np.all(np.isfinite(pos)):
        p.append(f"{w}: 'node_positions' must be a non-empty list of finite 3-vectors")
    if dofs.shape != (len(pos), 6):
        return p + [f"{w}: 'node_dofs' must give 6 coordinate indices (x, y, z, rx, ry, rz; -1 = fixed) for each "
                    f"of the {len(pos)} nodes, got shape {dofs.shape}"]
    used = dofs[dofs >= 0]
    n = len(b.mass_matrix)
    if n == 0:
        p.append(f"{w}: 'mass_matrix' must not be empty (a flexible body needs at least one coordinate)")
    if len(used) and (used.max() >= n or len(set(used.tolist())) != len(used)):
        p.append(f"{w}: 'node_dofs' must name distinct coordinates 0..{n - 1} (or -1), got {sorted(used.tolist())}")
    if np.any(dofs < -1):
        p.append(f"{w}: 'node_dofs' entries must be >= -1")
    M = _matrix(p, w, "mass_matrix", b.mass_matrix, n, True)
    K = _matrix(p, w, "stiffness_matrix", b.stiffness_matrix, n, True)
    _matrix(p, w, "damping_matrix", b.damping_matrix, n, False)
    if M is not None and np.linalg.eigvalsh(M).min() <= 0.0:
        p.append(f"{w}: 'mass_matrix' must be positive definite (every coordinate needs mass)")
    if K is not None and np.linalg.eigvalsh(K).min() < -1e-9 * max(1.0, float(np.abs(K).max())):
        p.append(f"{w}: 'stiffness_matrix' must be positive semi-definite")
    if len(b.gravity_load):
        try:
            gl = np.array(b.gravity_load, dtype=float)
        except (TypeError, ValueError):
            gl = np.zeros(0)
        if gl.shape != (n, 3) or not np.all(np.isfinite(gl)):
            p.append(f"{w}: 'gravity_load' must be empty or {n} x 3 finite numbers")
    for name in ("displacement", "velocity"):
        v = getattr(b, name)
        if len(v) not in (0, n) or not all(np.isfinite(np.asarray(v, dtype=float))):
            p.append(f"{w}: '{name}' must be empty or {n} finite numbers, got {len(v)}")
    return p


def node_row(nodes: np.ndarray, position) -> int | None:
    """Row of the node of ``nodes`` (N x 3, m) within NODE_TOLERANCE (relative to the node cloud's size) of
    ``position``, or None."""
    if len(nodes) == 0:
        return None
    size = float(np.ptp(nodes, axis=0).max()) if len(nodes) > 1 else 0.0
    d = np.linalg.norm(nodes - np.asarray(position, dtype=float), axis=1)
    j = int(np.argmin(d))
    return j if d[j] <= NODE_TOLERANCE * max(1.0, size) else None


def marker_node(b, position) -> int | None:
    """Index of the node of flexible body ``b`` at ``position`` (world), or None."""
    return node_row(np.array(b.node_positions, dtype=float).reshape(-1, 3), position)


def flexible_marker_problems(w: str, marker, body) -> list[str]:
    """Problems of ``marker`` (``w``: "marker 'name'") on flexible body ``body``."""
    try:
        j = marker_node(body, marker.position)
    except (TypeError, ValueError):
        return []       # the body's own problems say why
    if j is None:
        return [f"{w}: on flexible body '{body.name}' a marker must sit at a node (its position is the node's, "
                f"world); no node at {tuple(marker.position)}"]
    return []
