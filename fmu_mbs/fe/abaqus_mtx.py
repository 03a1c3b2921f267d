"""Import the mass and stiffness matrices that Abaqus writes with ``*MATRIX GENERATE`` / ``*MATRIX OUTPUT,
FORMAT=MATRIX INPUT`` (files ``<job>_MASS1.mtx``, ``<job>_STIF1.mtx``; CalculiX writes the same layout).

Each data line is ``node, dof, node, dof, value`` (dof 1-6: ux uy uz rx ry rz); lines starting with ``*`` are
keywords or comments. Abaqus stores one triangle of the symmetric matrices; the missing mirror entries are added
(an entry given in both triangles is kept once). Node coordinates come from a node file or the ``*Node`` block of the
input file (fe.matrix_market.read_nodes). Parsed as numbers only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError
from .matrix_market import ImportedBody, assemble_imported


def read_mtx_triplets(path: str | Path) -> dict[tuple[int, int, int, int], float]:
    """{(node_i, dof_i, node_j, dof_j): value} of one file, dofs 0-5; both triangles filled."""
    out: dict[tuple[int, int, int, int], float] = {}
    for k, line in enumerate(Path(path).read_text(errors="replace").splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("*"):
            continue
        tok = s.replace(",", " ").split()
        try:
            ni, di, nj, dj = (int(t) for t in tok[:4])
            v = float(tok[4].replace("D", "E").replace("d", "e"))
        except (ValueError, IndexError):
            raise ModelError(f"{Path(path).name} line {k}: expected 'node, dof, node, dof, value', "
                             f"got '{s[:60]}'") from None
        if len(tok) != 5 or not (1 <= di <= 6 and 1 <= dj <= 6):
            raise ModelError(f"{Path(path).name} line {k}: expected 'node, dof, node, dof, value' with dof 1..6")
        out[(ni, di - 1, nj, dj - 1)] = v
    for (ni, di, nj, dj), v in list(out.items()):
        out.setdefault((nj, dj, ni, di), v)
    return out


def read_abaqus_matrices(mass: str | Path, stiffness: str | Path, nodes: str | Path,
                         name: str = "imported") -> ImportedBody:
    """An FE body from Abaqus matrix-input files (module docstring); rows ordered by node label, then dof."""
    tm, tk = read_mtx_triplets(mass), read_mtx_triplets(stiffness)
    rows = sorted({(n, d) for key in (*tm, *tk) for n, d in ((key[0], key[1]), (key[2], key[3]))})
    index = {r: i for i, r in enumerate(rows)}

    def matrix(t: dict) -> sp.csr_matrix:
        if not t:
            return sp.csr_matrix((len(rows), len(rows)))
        i = np.array([index[(a, b)] for a, b, _, _ in t])
        j = np.array([index[(c, d)] for _, _, c, d in t])
        return sp.csr_matrix((np.array(list(t.values())), (i, j)), shape=(len(rows), len(rows)))

    return assemble_imported(matrix(tm), matrix(tk), rows, nodes, name)
