"""Mode data of a floating modal body (model/elements.ModalBody) from its model fields, through fmu_mbs.fe: the FE
body (built-in beam or imported file), the mode set (Craig-Bampton or free-interface), modal damping, the inertia
invariants, the modal geometric stiffness, the basis rows of every node and the stress modes of its stress points.
Problems raise ModelError naming the body. Results are kept for the last few bodies (keyed by the body's fields
and its files' modification times), as the compiler and the channel lists (model/modal_outputs.py,
analyses/modal_channels.py) all need them; treat them as read-only.

An FMU carries the mode data of its modal bodies as plain arrays (:func:`to_arrays` at build time,
``resources/modal-data.npz``, read without pickle by :func:`use_stored`): its start-up then neither computes the
modes nor imports fmu_mbs.fe and scipy.linalg (0.2-0.3 s). Stored data is used for a body whose fields (but its
``source_dir``, the FMU's extraction folder) are those it was computed from; another body (an FMU parameter
changed a field) is computed as before."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..errors import ModelError
from .elements import ModalBody
from .validate_modal import FE_FIELDS, fe_path


@dataclass(frozen=True)
class ModalData:
    """What the solver needs of a modal body: node positions (n, 3; body frame, m), basis rows (6n, m; per node
    ux uy uz rx ry rz, rotation rows 0 for 3-DOF nodes), invariants (fe.Invariants, or StoredInvariants), the nine
    modal geometric stiffness matrices (9, m, m; zeros when off), the coordinate names, the mode set (None for a
    .fem file and for stored data) and the stress modes (n_points, m; Pa per unit modal coordinate at each of the
    body's stress points)."""

    nodes: np.ndarray
    rows: np.ndarray
    inv: object
    k_geo: np.ndarray
    names: tuple[str, ...]
    modes: object = None
    stress: np.ndarray | None = None    # (n_points, m); every constructor here sets it


class StoredInvariants(SimpleNamespace):
    """The values of fe.Invariants under the same attribute names (``inertia_at_com`` included), read back from
    stored arrays."""

    @property
    def n_modes(self) -> int:
        return self.M_ff.shape[0]


def _damping(M: np.ndarray, K: np.ndarray, zeta: float) -> np.ndarray:
    """D = M V diag(2 zeta omega) V^T M, V the M-normalised eigenvectors of (K, M) (fe.damping.modal_damping)."""
    import scipy.linalg as la

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
    from ..fe import Invariants, read_fem

    fem = read_fem(fe_path(b, "fe_file"))
    inv = fem.invariants()
    if b.damping > 0.0:
        inv = Invariants(**{**inv.__dict__, "D_ff": _damping(inv.M_ff, inv.K_ff, b.damping)})
    m = inv.n_modes
    return ModalData(fem.nodes, fem.modes, inv, np.zeros((9, m, m)), tuple(f"mode {k + 1}" for k in range(m)),
                     stress=np.zeros((0, m)))


_CACHE: dict[tuple, ModalData] = {}
_STORED: dict[str, ModalData] = {}      # repr(body) -> its stored data (use_stored), the last _STORED_MAX
_STORED_MAX = 64      # a body with FE files has the FMU's extraction folder in its fields: one entry per instance


def stored_key(b: ModalBody) -> str:
    """The key of ``b``'s stored mode data: a hash of its fields but ``source_dir``."""
    return hashlib.sha256(repr(dataclasses.replace(b, source_dir="")).encode()).hexdigest()[:32]


def modal_data(b: ModalBody) -> ModalData:
    """The mode data of ``b`` (see ModalData); ModelError naming the body for anything the FE code refuses."""
    stored = _STORED.get(repr(b))
    if stored is not None:
        return stored
    files = [fe_path(b, f) for f in FE_FIELDS if getattr(b, f)]
    key = (repr(b), tuple(p.stat().st_mtime_ns if p.is_file() else -1 for p in files))
    if key not in _CACHE:
        if len(_CACHE) >= 8:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _modal_data(b)
    return _CACHE[key]


def _modal_data(b: ModalBody) -> ModalData:
    from ..fe import (
        BeamSection,
        Interface,
        beam_body,
        craig_bampton,
        free_interface_modes,
        invariants,
        modal_damping,
        modal_geometric_stiffness,
        read_matrix_market,
    )

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
        return ModalData(body.nodes, _six_rows(ms.basis, body.dofs_per_node), invariants(ms), k_geo, ms.names, ms,
                         _stress_modes(b, ms))
    except ModelError as exc:
        msg = str(exc)
        raise ModelError(msg if f"'{b.name}'" in msg else f"body '{b.name}': {msg}") from None


def _stress_modes(b: ModalBody, ms) -> np.ndarray:
    """(n_points, m): sigma_xx (Pa) per unit modal coordinate at each of ``b.stress_points`` (fe/recovery.py)."""
    from ..fe import normal_stress, section_force_modes

    if not b.stress_points:
        return np.zeros((0, ms.n_modes))
    forces = section_force_modes(ms)
    return np.array([normal_stress(ms.body, forces, int(e), y, z)[int(end)]
                     for e, end, y, z in b.stress_points]).reshape(len(b.stress_points), -1)


_ARRAYS = ("nodes", "rows", "k_geo", "stress")


def to_arrays(bodies: list[ModalBody]) -> dict[str, np.ndarray]:
    """The mode data of ``bodies`` as named arrays (``<stored_key>/<name>``, numbers and strings only) for
    :func:`use_stored`."""
    out: dict[str, np.ndarray] = {}
    for b in bodies:
        data, key = modal_data(b), stored_key(b)
        for name in _ARRAYS:
            out[f"{key}/{name}"] = np.asarray(getattr(data, name), dtype=float)
        out[f"{key}/names"] = np.array(data.names, dtype=str)
        inv = data.inv
        values = dict(vars(inv)) if isinstance(inv, StoredInvariants) else {
            **{f.name: getattr(inv, f.name) for f in dataclasses.fields(inv)}, "inertia_at_com": inv.inertia_at_com}
        for name, value in values.items():
            if value is not None:
                out[f"{key}/inv.{name}"] = np.asarray(value, dtype=float)
    return out


def use_stored(arrays: Mapping[str, np.ndarray], bodies: list[ModalBody]) -> int:
    """Use the mode data of :func:`to_arrays` (an npz file read without pickle) for those of ``bodies`` it was
    computed for (the same fields, ``source_dir`` aside); returns their number. ValueError for arrays of another
    layout."""
    by_key: dict[str, dict[str, np.ndarray]] = {}
    for name in arrays:
        key, _, field = name.partition("/")
        by_key.setdefault(key, {})[field] = name
    used = 0
    for b in bodies:
        names = by_key.get(stored_key(b))
        if names is None:
            continue
        a = {field: np.asarray(arrays[name]) for field, name in names.items()}
        missing = [n for n in (*_ARRAYS, "names", "inv.mass", "inv.M_ff") if n not in a]
        if missing or a["names"].dtype.kind != "U" or any(v.dtype.kind != "f" for n, v in a.items() if n != "names"):
            raise ValueError(f"stored mode data of body '{b.name}': missing or malformed {missing or ['arrays']}")
        inv = {n[4:]: (float(v) if v.ndim == 0 else v) for n, v in a.items() if n.startswith("inv.")}
        inv.setdefault("D_ff", None)
        _STORED.pop(repr(b), None)
        _STORED[repr(b)] = ModalData(a["nodes"], a["rows"], StoredInvariants(**inv), a["k_geo"],
                                     tuple(str(n) for n in a["names"]), None, a["stress"])
        while len(_STORED) > _STORED_MAX:
            _STORED.pop(next(iter(_STORED)))
        used += 1
    return used


#: the FMU resource that holds the stored mode data (adapters/fmu_build.py writes it)
STORED_FILE = "modal-data.npz"


def use_stored_file(path: str | Path, bodies: list[ModalBody]) -> str | None:
    """:func:`use_stored` of an npz file (no pickle); returns None, or why it was not used."""
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as arrays:
            use_stored(arrays, bodies)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        return f"{exc.__class__.__name__}: {exc}"
    return None
