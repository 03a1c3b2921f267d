"""Validation of floating modal bodies (model/elements.ModalBody) and of the markers on them; every message names
the body (or marker). The mode data themselves are built (and their problems reported by name) when the model is
compiled (model/modal_data.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .validate_flexible import node_row  # a marker on a modal body sits on an FE node, as on a flexible body

MODE_SETS = ("craig-bampton", "free-interface")
REFERENCES = ("tangent", "mean-axis")
INTERFACE_KINDS = ("rigid", "averaged", "nodes")
THEORIES = ("euler-bernoulli", "timoshenko")
SECTION = ("E", "G", "rho", "area", "Iy", "Iz", "J")


#: the file fields of a modal body: the FE file and, with a Matrix Market one, its companions
FE_FIELDS = ("fe_file", "fe_stiffness", "fe_dof_map", "fe_nodes")


def fe_path(b, name: str) -> Path:
    """The path of file field ``name`` of body ``b``, relative to the model file's folder when it was loaded."""
    p = Path(getattr(b, name))
    return p if p.is_absolute() or not b.source_dir else Path(b.source_dir) / p


def modal_body_problems(w: str, b, dim: int) -> list[str]:
    """Problems of modal body ``b`` (``w``: "body 'name'") in a model of dimension ``dim``."""
    if dim != 3:
        return [f"{w}: a modal body is only allowed in a spatial model"]
    p: list[str] = []
    if b.fe_file:
        suffix = Path(b.fe_file).suffix.lower()
        files = FE_FIELDS[:1] if suffix == ".fem" else FE_FIELDS
        if suffix not in (".fem", ".mtx"):
            p.append(f"{w}: 'fe_file' must be an MBDyn .fem file or a Matrix Market .mtx mass matrix, got "
                     f"'{b.fe_file}'")
        for f in files if suffix in (".fem", ".mtx") else ():
            if not getattr(b, f):
                p.append(f"{w}: '{f}' is needed with a Matrix Market fe_file")
            elif not fe_path(b, f).is_file():
                p.append(f"{w}: {f} '{getattr(b, f)}' does not exist (paths are relative to the model file)")
        if b.nodes:
            p.append(f"{w}: give either 'nodes' (the built-in beam) or 'fe_file', not both")
    else:
        try:
            nodes = np.array(b.nodes, dtype=float).reshape(len(b.nodes), -1)
        except (TypeError, ValueError):
            return p + [f"{w}: 'nodes' must be a list of 3-vectors"]
        if len(nodes) < 2 or nodes.shape[1] != 3 or not np.all(np.isfinite(nodes)):
            p.append(f"{w}: 'nodes' must list at least two finite 3-vectors (the beam's nodes, body frame), or give "
                     "an 'fe_file'")
        bad = [k for k in SECTION if not (math.isfinite(getattr(b, k)) and getattr(b, k) > 0.0)]
        if bad:
            p.append(f"{w}: the beam section needs positive {', '.join(bad)}")
        if b.theory not in THEORIES:
            p.append(f"{w}: 'theory' must be one of {THEORIES}, got '{b.theory}'")
        for e in b.elements:
            if len(e) != 2 or not all(0 <= i < len(nodes) for i in e) or e[0] == e[1]:
                p.append(f"{w}: element {list(e)} must be two different node rows 0..{len(nodes) - 1}")
                break
        n_nodes = len(nodes)
        for itf in b.interfaces:
            if not itf or not all(0 <= i < n_nodes for i in itf):
                p.append(f"{w}: interface {list(itf)} must list node rows 0..{n_nodes - 1}")
        for i in b.output_nodes:
            if not 0 <= i < n_nodes:
                p.append(f"{w}: output node {i} must be a node row 0..{n_nodes - 1}")
        n_el = len(b.elements) or n_nodes - 1
        for k, sp in enumerate(b.stress_points, 1):
            if len(sp) != 4 or not all(math.isfinite(x) for x in sp) or sp[0] != int(sp[0]) \
                    or not 0 <= sp[0] < n_el or sp[1] not in (0, 1):
                p.append(f"{w}: stress point {k} {list(sp)} must be [element row 0..{n_el - 1}, end 0 or 1, y, z]")
    if b.fe_file and b.stress_points:
        p.append(f"{w}: stress points need the built-in beam (section forces of imported FE data are unknown)")
    if b.fe_file and any(i < 0 for i in b.output_nodes):
        p.append(f"{w}: output nodes must be node rows >= 0")
    if b.mode_set not in MODE_SETS:
        p.append(f"{w}: 'mode_set' must be one of {MODE_SETS}, got '{b.mode_set}'")
    if b.reference not in REFERENCES:
        p.append(f"{w}: 'reference' must be one of {REFERENCES}, got '{b.reference}'")
    if b.mode_set == "free-interface" and b.reference != "mean-axis" and not b.fe_file:
        p.append(f"{w}: free-interface modes satisfy the mean-axis conditions: set 'reference' to 'mean-axis'")
    if b.n_modes < 0 or (b.mode_set == "free-interface" and b.n_modes < 1):
        p.append(f"{w}: 'n_modes' must be >= 0 (>= 1 for free-interface modes), got {b.n_modes}")
    if b.mode_set == "craig-bampton" and not b.fe_file and not b.interfaces:
        p.append(f"{w}: a Craig-Bampton mode set needs at least one interface")
    if b.interface_kinds and len(b.interface_kinds) != len(b.interfaces):
        p.append(f"{w}: 'interface_kinds' must give one kind per interface ({len(b.interfaces)}) or be empty")
    for k in b.interface_kinds:
        if k not in INTERFACE_KINDS:
            p.append(f"{w}: interface kind '{k}' is unknown; use one of {INTERFACE_KINDS}")
    if not (math.isfinite(b.damping) and b.damping >= 0.0):
        p.append(f"{w}: 'damping' (a modal damping ratio) must be finite and >= 0, got {b.damping}")
    for name, n in (("position", 3), ("velocity", 3), ("angular_velocity", 3), ("orientation", 4)):
        v = getattr(b, name)
        if len(v) != n or not all(math.isfinite(x) for x in v):
            p.append(f"{w}: '{name}' must be {n} finite numbers")
    if len(b.orientation) == 4 and sum(x * x for x in b.orientation) == 0.0:
        p.append(f"{w}: 'orientation' must be a non-zero quaternion")
    for name in ("modal_coordinates", "modal_velocities"):
        if not all(math.isfinite(x) for x in getattr(b, name)):
            p.append(f"{w}: '{name}' must be finite")
    return p


def modal_marker_problems(w: str, marker, body) -> list[str]:
    """Problems of ``marker`` (``w``: "marker 'name'") on modal body ``body`` (built-in beam nodes only; the nodes
    of an imported file are checked when the model is compiled)."""
    if body.fe_file:
        return []
    try:
        nodes = np.array(body.nodes, dtype=float).reshape(-1, 3)
    except (TypeError, ValueError):
        return []       # the body's own problems say why
    if node_row(nodes, marker.position) is None:
        return [f"{w}: on modal body '{body.name}' a marker must sit at an FE node (its position is the node's, "
                f"body frame); no node at {tuple(marker.position)}"]
    return []
