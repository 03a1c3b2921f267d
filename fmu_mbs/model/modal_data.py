"""Mode data of a floating modal body (model/elements.ModalBody) from its model fields, through fmu_mbs.fe: the FE
body (built-in beam or imported file), the mode set (Craig-Bampton or free-interface), modal damping, the inertia
invariants, the modal geometric stiffness and the basis rows of every node. Problems raise ModelError naming the
body. Results are kept for the last few bodies (keyed by the body's fields and its files' modification times), as
the compiler and the channel list (model/modal_outputs.py) both need them; treat them as read-only."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.linalg as la

from ..errors import ModelError
from ..fe import (
    BeamSection,
    Interface,
    Invariants,
    beam_body,
    craig_bampton,
    free_interface_modes,
    invariants,
    modal_damping,
    modal_geometric_stiffness,
    read_fem,
    read_matrix_market,
)
from .elements import ModalBody
from .validate_modal import fe_path


@dataclass(frozen=True)
class ModalData:
    """What the solver needs of a modal body: node positions (n, 3; body frame, m), basis rows (6n, m; per node
    ux uy uz rx ry rz, rotation rows 0 for 3-DOF nodes), invariants, the nine modal geometric stiffness matrices
    (9, m, m; zeros when off), the coordinate names and the mode set (None for a .fem file)."""

    nodes: np.ndarray
    rows: np.ndarray
    inv: Invariants
    k_geo: np.ndarray
    names: tuple[str, ...]
    modes: object = None


def _damping(M: np.ndarray, K: np.ndarray, zeta: float) -> np.ndarray:
    """D = M V diag(2 zeta omega) V^T M, V the M-normalised eigenvectors of (K, M) (fe.damping.modal_damping)."""
    lam, V = la.eigh(K, M)
    MV = M @ V
    return MV @ np.diag(2.0 * zeta * np.sqrt(np.clip(lam, 0.0, None))) @ MV.T


def _six_rows(basis: np.ndarray, d: int) -> np.ndarray:
    if d == 6:
        return basis
    n = basis.shape[0] // d
    out = np.zeros((6 * n, basis.shape[1]))
    for c in range(3):
        out[c::6] = basis[c::d]
    return out


def _from_fem(b: ModalBody) -> ModalData:
    fem = read_fem(fe_path(b, "fe_file"))
    inv = fem.invariants()
    if b.damping > 0.0:
        inv = Invariants(**{**inv.__dict__, "D_ff": _damping(inv.M_ff, inv.K_ff, b.damping)})
    m = inv.n_modes
    return ModalData(fem.nodes, fem.modes, inv, np.zeros((9, m, m)), tuple(f"mode {k + 1}" for k in range(m)))


_CACHE: dict[tuple, ModalData] = {}


def modal_data(b: ModalBody) -> ModalData:
    """The mode data of ``b`` (see ModalData); ModelError naming the body for anything the FE code refuses."""
    files = [fe_path(b, f) for f in ("fe_file", "fe_stiffness", "fe_dof_map", "fe_nodes") if getattr(b, f)]
    key = (repr(b), tuple(p.stat().st_mtime_ns if p.is_file() else -1 for p in files))
    if key not in _CACHE:
        if len(_CACHE) >= 8:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _modal_data(b)
    return _CACHE[key]


def _modal_data(b: ModalBody) -> ModalData:
    try:
        if b.fe_file and Path(b.fe_file).suffix.lower() == ".fem":
            return _from_fem(b)
        if b.fe_file:
            imp = read_matrix_market(fe_path(b, "fe_file"), fe_path(b, "fe_stiffness"), fe_path(b, "fe_dof_map"),
                                     fe_path(b, "fe_nodes"), name=b.name)
            if len(imp.absent):
                raise ModelError(f"body '{b.name}': the matrices leave out {len(imp.absent)} DOFs (supports?); a "
                                 "floating modal body needs every DOF of its nodes")
            body = imp.body
        else:
            section = BeamSection(E=b.E, G=b.G, A=b.area, Iy=b.Iy, Iz=b.Iz, J=b.J, rho=b.rho)
            section.check(f"body '{b.name}'")
            body = beam_body(np.array(b.nodes, float), section,
                             np.array(b.elements, dtype=np.int64) if b.elements else None, theory=b.theory,
                             name=b.name)
        if b.mode_set == "craig-bampton":
            kinds = b.interface_kinds or ("rigid",) * len(b.interfaces)
            itfs = [Interface(f"I{k + 1}", tuple(int(n) for n in nodes), kind)
                    for k, (nodes, kind) in enumerate(zip(b.interfaces, kinds, strict=True))]
            ms = craig_bampton(body, itfs, b.n_modes, reference=b.reference)
        else:
            ms = free_interface_modes(body, b.n_modes)
        if b.damping > 0.0:
            ms = modal_damping(ms, b.damping)
        m = ms.n_modes
        k_geo = np.zeros((9, m, m))
        if b.stiffening and not b.fe_file:
            g = modal_geometric_stiffness(ms)
            k_geo = np.concatenate([g.omega_pairs, g.accel])
        return ModalData(body.nodes, _six_rows(ms.basis, body.dofs_per_node), invariants(ms), k_geo, ms.names, ms)
    except ModelError as exc:
        msg = str(exc)
        raise ModelError(msg if f"'{b.name}'" in msg else f"body '{b.name}': {msg}") from None
