"""Read and write the MBDyn modal ``.fem`` file (the data of MBDyn's modal joint).

Layout (MBDyn input manual, "modal" joint; reader ``mbdyn/struct/modal.cc``; writers: ``femgen`` for NASTRAN
OUTPUT4, the Octave package mboct-fem-pkg, Code_Aster scripts). Lines starting with ``**`` are comments or record
headers ``** RECORD GROUP k, ...``; numbers are free-format (Fortran ``D`` exponents accepted):

 1 header: REVISION, NODE (n), NORMAL, ATTACHMENT, CONSTRAINT, REJECTED MODES (m = NORMAL+ATTACHMENT+CONSTRAINT)
 2 FE node labels (n integers)            3 initial modal displacements (m)     4 initial modal velocities (m)
 5, 6, 7 nodal X, Y, Z coordinates (n each, m)
 8 mode shapes: for each mode ``** NORMAL MODE SHAPE # k`` then n lines t1 t2 t3 r1 r2 r3 (m, rad)
 9 modal mass matrix (m x m)      10 modal stiffness matrix (m x m)
11 diagonal of the lumped mass matrix, n lines m m m Jx Jy Jz (optional)
12 rigid-body inertia: mass, centre of mass (3), inertia about the centre of mass (3 x 3) (optional)
13 modal damping matrix (m x m, optional); 14+ further invariants (ignored: fmu-mbs computes its own).

The text is parsed as numbers only (never evaluated).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.linalg as la

from ..errors import ModelError
from .invariants import Invariants, compute_invariants
from .modeset import ModeSet

_GROUP = re.compile(r"^\*\*\s*RECORD\s+GROUP\s+(\d+)", re.IGNORECASE)
_MODE = re.compile(r"^\*\*\s*NORMAL\s+MODE\s+SHAPE\s*#\s*(\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class FemData:
    """Contents of a .fem file (SI units as written by the tool)."""

    node_ids: np.ndarray          # (n,)
    nodes: np.ndarray             # (n, 3)
    modes: np.ndarray             # (6 n, m): rows t1 t2 t3 r1 r2 r3 per node
    mass: np.ndarray              # (m, m)
    stiffness: np.ndarray         # (m, m)
    damping: np.ndarray | None = None
    lumped: np.ndarray | None = None         # (n, 6)
    rigid: tuple[float, np.ndarray, np.ndarray] | None = None   # (mass, centre of mass, inertia about it)
    q0: np.ndarray | None = None
    qd0: np.ndarray | None = None

    @property
    def n_modes(self) -> int:
        return self.mass.shape[0]

    def frequencies(self) -> np.ndarray:
        """Natural frequencies of the reduced data (Hz)."""
        lam = la.eigvalsh(self.stiffness, self.mass)
        return np.sqrt(np.clip(lam, 0.0, None)) / (2.0 * np.pi)

    def invariants(self) -> Invariants:
        """FFRF invariants from the lumped masses (record 11), the mode shapes and the modal matrices."""
        if self.lumped is None:
            raise ModelError("the .fem file has no record group 11 (lumped masses); the inertia invariants need it")
        return compute_invariants(np.diag(self.lumped.ravel()), self.modes, self.nodes, 6, self.stiffness,
                                  self.mass, self.damping)


def _numbers(lines: list[str], where: str) -> np.ndarray:
    out = []
    for line in lines:
        for tok in line.replace(",", " ").split():
            try:
                out.append(float(tok.replace("D", "E").replace("d", "e")))
            except ValueError:
                raise ModelError(f"{where}: '{tok}' is not a number") from None
    return np.array(out)


def read_fem(path: str | Path) -> FemData:
    """Parse an MBDyn .fem file; every inconsistency is reported with the record group it is in."""
    path = Path(path)
    groups: dict[int, list[str]] = {}
    shapes: dict[int, list[str]] = {}
    current: list[str] | None = None
    group = 0
    for line in path.read_text(errors="replace").splitlines():
        s = line.strip()
        if s.startswith("**"):
            g, mo = _GROUP.match(s), _MODE.match(s)
            if g:
                group = int(g.group(1))
                current = groups.setdefault(group, [])
            elif mo and group == 8:
                current = shapes.setdefault(int(mo.group(1)), [])
            continue
        if s and current is not None:
            current.append(s)
    name = path.name
    for g in (1, 2, 5, 6, 7, 8, 9, 10):
        if g not in groups:
            raise ModelError(f"{name}: record group {g} is missing")
    head = groups[1][0].split() if groups[1] else []
    try:
        n, normal, att, con, rej = (int(float(x)) for x in head[1:6])
    except ValueError:
        raise ModelError(f"{name}: record group 1 must read 'REVISION NODE NORMAL ATTACHMENT CONSTRAINT "
                         f"REJECTED', got {groups[1][:1]}") from None
    m = normal + att + con
    if rej:
        raise ModelError(f"{name}: {rej} rejected modes in the header; fmu-mbs reads files without rejected modes")
    ids = _numbers(groups[2], f"{name} record group 2").astype(int)
    xyz = [_numbers(groups[g], f"{name} record group {g}") for g in (5, 6, 7)]
    if len(ids) != n or any(len(c) != n for c in xyz):
        raise ModelError(f"{name}: the header says {n} nodes, records 2/5/6/7 give "
                         f"{[len(ids)] + [len(c) for c in xyz]}")
    if sorted(shapes) != list(range(1, m + 1)):
        raise ModelError(f"{name}: record group 8 has mode shapes {sorted(shapes)}, the header says {m} modes")
    modes = np.zeros((6 * n, m))
    for k in range(m):
        v = _numbers(shapes[k + 1], f"{name} mode shape {k + 1}")
        if len(v) != 6 * n:
            raise ModelError(f"{name}: mode shape {k + 1} has {len(v)} values, expected 6 x {n}")
        modes[:, k] = v

    def square(g: int) -> np.ndarray:
        v = _numbers(groups[g], f"{name} record group {g}")
        if len(v) != m * m:
            raise ModelError(f"{name}: record group {g} has {len(v)} values, expected {m} x {m}")
        return v.reshape(m, m)

    def vector(g: int, size: int) -> np.ndarray | None:
        if g not in groups:
            return None
        v = _numbers(groups[g], f"{name} record group {g}")
        if len(v) != size:
            raise ModelError(f"{name}: record group {g} has {len(v)} values, expected {size}")
        return v

    lumped = vector(11, 6 * n)
    r12 = vector(12, 13)
    rigid = None if r12 is None else (float(r12[0]), r12[1:4], r12[4:13].reshape(3, 3))
    return FemData(node_ids=ids, nodes=np.column_stack(xyz), modes=modes, mass=square(9), stiffness=square(10),
                   damping=square(13) if 13 in groups else None,
                   lumped=None if lumped is None else lumped.reshape(n, 6), rigid=rigid,
                   q0=vector(3, m), qd0=vector(4, m))


def lumped_masses(ms: ModeSet) -> np.ndarray:
    """(n, 6) lumped masses and rotary inertias of a 6-DOF FE body by row sums of each component's block of the
    consistent mass (exact total mass; the rotary values are an approximation, as in any lumped .fem)."""
    body = ms.body
    if body.dofs_per_node != 6:
        raise ModelError(f"{body.name}: the .fem format needs 6 DOFs per node")
    M = body.M.tocsr()
    out = np.zeros((body.n_nodes, 6))
    for c in range(6):
        idx = np.arange(c, body.n_dofs, 6)
        out[:, c] = np.asarray(M[idx][:, idx].sum(axis=1)).ravel()
    return out


def write_fem(path: str | Path, ms: ModeSet, title: str = "fmu-mbs") -> None:
    """Write a mode set as an MBDyn .fem file (records 1-13; mass, stiffness and damping of the mode set)."""
    body = ms.body
    lumped = lumped_masses(ms)
    n, m = body.n_nodes, ms.n_modes
    f = "{:.16e}".format
    out = [f"** MBDyn MODAL DATA FILE written by {title}", "**", "** RECORD GROUP 1, HEADER",
           "**   REVISION,  NODE,  NORMAL, ATTACHMENT, CONSTRAINT, REJECTED MODES.",
           f"      REV0 {n} {m} 0 0 0", "**", "** RECORD GROUP 2, FINITE ELEMENT NODE LIST",
           " ".join(str(i) for i in body.node_ids), "**", "** RECORD GROUP 3, INITIAL MODAL DISPLACEMENTS",
           " ".join(f(0.0) for _ in range(m)), "**", "** RECORD GROUP 4, INITIAL MODAL VELOCITIES",
           " ".join(f(0.0) for _ in range(m)), "**"]
    for g, axis in ((5, "X"), (6, "Y"), (7, "Z")):
        out += [f"** RECORD GROUP {g}, NODAL {axis} COORDINATES"] + [f(v) for v in body.nodes[:, g - 5]] + ["**"]
    out.append("** RECORD GROUP 8, MODE SHAPES")
    for k in range(m):
        out.append(f"**    NORMAL MODE SHAPE #  {k + 1}")
        out += [" ".join(f(v) for v in ms.basis[6 * i:6 * i + 6, k]) for i in range(n)]
    out.append("**")
    for g, title_g, A in ((9, "MODAL MASS MATRIX", ms.mass), (10, "MODAL STIFFNESS MATRIX", ms.stiffness)):
        out += [f"** RECORD GROUP {g}, {title_g}"] + [" ".join(f(v) for v in row) for row in A] + ["**"]
    out += ["** RECORD GROUP 11, DIAGONAL OF LUMPED MASS MATRIX"] + \
        [" ".join(f(v) for v in row) for row in lumped] + ["**"]
    if ms.damping is not None:
        out += ["** RECORD GROUP 13, MODAL DAMPING MATRIX"] + \
            [" ".join(f(v) for v in row) for row in ms.damping] + ["**"]
    Path(path).write_text("\n".join(out) + "\n")
