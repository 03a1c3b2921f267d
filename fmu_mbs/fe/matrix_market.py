"""Import full sparse FE mass and stiffness matrices in Matrix Market form, with a DOF map and node coordinates.

This is what Ansys writes with ``*SMAT`` + ``*EXPORT,...,MMF`` (plus its ``.mapping`` file) and what scipy, Octave,
Julia and most FE codes can write. Three text files:

- mass and stiffness: Matrix Market coordinate or array files (general or symmetric), read by scipy.io.mmread;
- DOF map: one line per matrix row, in matrix order: ``[equation] node dof``; dof is UX UY UZ ROTX ROTY ROTZ
  (Ansys), UX..RZ, or 1..6 (Abaqus numbering); lines whose first field is not a number are headers;
- nodes: one line per node ``node x y z`` (m), separated by blanks or commas; '#', '!', '*' start comments.

DOFs of a node that are not in the map (held by supports in the FE tool, or rotations of solid nodes) are reported
as ``absent`` and must be held fixed in the analyses (fe.eigen fixed=...).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError
from .body import FEBody

_LABELS = {"UX": 0, "UY": 1, "UZ": 2, "ROTX": 3, "ROTY": 4, "ROTZ": 5, "RX": 3, "RY": 4, "RZ": 5,
           "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5}


@dataclass(frozen=True)
class ImportedBody:
    """An imported FE body and its absent DOFs (to hold fixed)."""

    body: FEBody
    absent: np.ndarray


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def read_dof_map(path: str | Path) -> list[tuple[int, int]]:
    """(node label, component 0..5) per matrix row."""
    out = []
    for k, line in enumerate(Path(path).read_text(errors="replace").splitlines(), 1):
        tok = line.replace(",", " ").split()
        if not tok or not _is_number(tok[0]):
            continue
        if len(tok) not in (2, 3):
            raise ModelError(f"{Path(path).name} line {k}: expected '[equation] node dof', got '{line.strip()}'")
        node, label = tok[-2], tok[-1].upper()
        if label not in _LABELS or not _is_number(node):
            raise ModelError(f"{Path(path).name} line {k}: unknown DOF '{tok[-1]}' (use UX UY UZ ROTX ROTY ROTZ "
                             "or 1..6)")
        out.append((int(float(node)), _LABELS[label]))
    return out


def read_nodes(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(labels, (n, 3) coordinates). In a file with Abaqus keywords (an .inp) only the ``*Node`` blocks are read."""
    ids, xyz = [], []
    lines = Path(path).read_text(errors="replace").splitlines()
    keyworded = any(line.lstrip().upper().startswith("*NODE") for line in lines)
    in_nodes = not keyworded
    for k, line in enumerate(lines, 1):
        s = line.strip()
        if keyworded and s.startswith("*") and not s.startswith("**"):
            in_nodes = s.upper().startswith("*NODE") and not s.upper().startswith("*NODE OUTPUT")
            continue
        tok = line.replace(",", " ").split()
        if not in_nodes or not tok or tok[0][0] in "#!*" or not _is_number(tok[0]):
            continue
        if len(tok) < 4 or not all(_is_number(t) for t in tok[:4]):
            raise ModelError(f"{Path(path).name} line {k}: expected 'node x y z', got '{line.strip()}'")
        ids.append(int(float(tok[0])))
        xyz.append([float(t) for t in tok[1:4]])
    return np.array(ids, int), np.array(xyz, float).reshape(-1, 3)


def read_matrix_market(mass: str | Path, stiffness: str | Path, dof_map: str | Path, nodes: str | Path,
                       name: str = "imported") -> ImportedBody:
    """An FE body from Matrix Market M and K, a DOF map and node coordinates (see module docstring)."""
    import scipy.io  # here: ~10 ms of import that only this reader needs (every modal body imports fe)

    Mi = sp.csr_matrix(scipy.io.mmread(str(mass)))
    Ki = sp.csr_matrix(scipy.io.mmread(str(stiffness)))
    return assemble_imported(Mi, Ki, read_dof_map(dof_map), nodes, name)


def assemble_imported(Mi: sp.spmatrix, Ki: sp.spmatrix, rows: list[tuple[int, int]], nodes: str | Path,
                      name: str) -> ImportedBody:
    """An FE body from matrices whose rows are the (node label, component) ``rows``, and a node file."""
    Mi, Ki = sp.csr_matrix(Mi), sp.csr_matrix(Ki)
    ids, xyz = read_nodes(nodes)
    if Mi.shape != Ki.shape or Mi.shape[0] != Mi.shape[1]:
        raise ModelError(f"{name}: mass {Mi.shape} and stiffness {Ki.shape} must be the same square size")
    if len(rows) != Mi.shape[0]:
        raise ModelError(f"{name}: the DOF map has {len(rows)} rows, the matrices {Mi.shape[0]}")
    if len(set(rows)) != len(rows):
        raise ModelError(f"{name}: the DOF map lists a (node, dof) twice")
    row_of = {int(i): r for r, i in enumerate(ids)}
    missing = sorted({nd for nd, _ in rows if nd not in row_of})
    if missing:
        raise ModelError(f"{name}: nodes {missing[:10]} are in the DOF map but not in the node file")
    d = 6 if any(c >= 3 for _, c in rows) else 3
    target = np.array([row_of[nd] * d + c for nd, c in rows])
    n = len(ids) * d
    P = sp.csr_matrix((np.ones(len(target)), (target, np.arange(len(target)))), shape=(n, len(target)))
    body = FEBody(nodes=xyz, M=P @ Mi @ P.T, K=P @ Ki @ P.T, dofs_per_node=d, node_ids=ids, name=name)
    return ImportedBody(body=body, absent=np.setdiff1d(np.arange(n), target))
