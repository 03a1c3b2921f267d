"""Importers of FE data (fmu_mbs.fe): the MBDyn .fem modal file and full Matrix Market M, K with a DOF map give the
same frequencies, modes and inertia as the built-in beam FE they were written from."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from fmu_mbs.errors import ModelError
from fmu_mbs.fe import (
    BeamSection,
    Interface,
    craig_bampton,
    natural_modes,
    read_fem,
    read_matrix_market,
    straight_beam,
    write_fem,
)

SEC = BeamSection.rectangle(0.02, 0.01, 2.1e11, 0.3, 7850.0)
N_EL = 20


def _beam():
    return straight_beam(1.0, N_EL, SEC, theory="timoshenko")


def _cb(body):
    tip = body.n_nodes - 1
    return craig_bampton(body, [Interface("root", (0,), "nodes"), Interface("tip", (tip,), "nodes")], 8,
                         diagonalize=True)


def _octave_style_fem(path, ms, fmt="%e", exponent="e"):
    """A .fem file laid out as mboct-fem-pkg's mbdyn_pre_write_fem_data writes it ('%e': 7 significant digits),
    written here independently of fmu_mbs.fe.write_fem."""
    b = ms.body

    def num(v):
        return (fmt % v).replace("e", exponent)

    lines = ["** MBDyn MODAL DATA FILE", '** NODE SET "ALL"', "", "** RECORD GROUP 1, HEADER",
             "**   REVISION,  NODE,  NORMAL, ATTACHMENT, CONSTRAINT, REJECTED MODES.",
             f"      REV0             {b.n_nodes}       {ms.n_modes}          0                 0                 0",
             "**", "", "** RECORD GROUP 2, FINITE ELEMENT NODE LIST", " ".join(str(100 + i) for i in range(b.n_nodes)),
             "**"]
    for g, axis in ((5, "X"), (6, "Y"), (7, "Z")):
        lines += ["", f"** RECORD GROUP {g}, NODAL {axis} COORDINATES"] + [num(v) for v in b.nodes[:, g - 5]] + ["**"]
    lines.append("** RECORD GROUP 8, MODE SHAPES")
    for k in range(ms.n_modes):
        lines.append(f"**    NORMAL MODE SHAPE #  {k + 1}")
        lines += [" ".join(num(v) for v in ms.basis[6 * i:6 * i + 6, k]) for i in range(b.n_nodes)]
    lines.append("**")
    for g, title, A in ((9, "MODAL MASS MATRIX", ms.mass), (10, "MODAL STIFFNESS MATRIX", ms.stiffness)):
        lines += [f"** RECORD GROUP {g}, {title}"] + [" ".join(num(v) for v in row) + " " for row in A] + ["**"]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("exponent", ["e", "D"])
def test_fem_file_gives_the_frequencies_and_modes_of_the_built_in_fe(tmp_path, exponent):
    ms = _cb(_beam())
    _octave_style_fem(tmp_path / "beam.fem", ms, exponent=exponent)
    fem = read_fem(tmp_path / "beam.fem")
    assert fem.node_ids[0] == 100 and fem.n_modes == ms.n_modes and fem.lumped is None
    assert np.allclose(fem.frequencies(), ms.frequencies(), rtol=1e-6)
    assert np.allclose(fem.modes, ms.basis, atol=1e-6 * np.abs(ms.basis).max())
    b = ms.body
    full = natural_modes(b.K, b.M, 4, fixed=b.dofs({0: "all"})).frequencies
    assert np.allclose(fem.frequencies()[:4], full, rtol=1e-3)       # and they are the beam's (CB accuracy)
    with pytest.raises(ModelError, match="no record group 11"):
        fem.invariants()


def test_fem_round_trip_and_lumped_invariants(tmp_path):
    ms = _cb(_beam())
    write_fem(tmp_path / "beam.fem", ms)
    fem = read_fem(tmp_path / "beam.fem")
    assert np.allclose(fem.mass, ms.mass, rtol=1e-15, atol=1e-15) and np.array_equal(fem.modes, ms.basis)
    assert np.allclose(fem.frequencies(), ms.frequencies(), rtol=1e-12)
    inv = fem.invariants()
    L = 1.0
    m = SEC.rho * SEC.A * L
    assert inv.mass == pytest.approx(m, rel=1e-12)                     # row-sum lumping keeps the mass
    assert np.allclose(inv.center_of_mass, [L / 2, 0, 0], atol=1e-12)
    h = L / N_EL       # lumped masses integrate x^2 by the trapezoidal rule: m (L^2/12 + h^2/6)
    assert inv.inertia_at_com[2, 2] == pytest.approx(m * (L**2 / 12 + h**2 / 6), rel=1e-3)


def test_fem_rigid_inertia_record_is_reproduced_by_the_invariants(tmp_path):
    """Four lumped masses with rotary inertias; record 12 (mass, centre, inertia at the centre) computed here from
    the rigid-body definition; the invariants from record 11 must reproduce it."""
    x = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.5, 0.5, 1.0]])
    mass = np.array([1.0, 2.0, 0.5, 1.5])
    rot = np.array([[0.1, 0.2, 0.3], [0.0, 0.0, 0.0], [0.05, 0.05, 0.05], [0.2, 0.1, 0.0]])
    m = mass.sum()
    c = (mass[:, None] * x).sum(0) / m
    J = sum(mi * ((xi - c) @ (xi - c) * np.eye(3) - np.outer(xi - c, xi - c)) for mi, xi in zip(mass, x))
    J = J + np.diag(rot.sum(0))
    f = "{:.16e}".format
    shape = np.arange(24, dtype=float) / 24.0
    text = ["** RECORD GROUP 1, HEADER", "REV0 4 1 0 0 0", "** RECORD GROUP 2, FINITE ELEMENT NODE LIST", "1 2 3 4"]
    for g in (5, 6, 7):
        text += [f"** RECORD GROUP {g}, NODAL COORDINATES"] + [f(v) for v in x[:, g - 5]]
    text += ["** RECORD GROUP 8, MODE SHAPES", "** NORMAL MODE SHAPE # 1"] + \
        [" ".join(f(v) for v in shape[6 * i:6 * i + 6]) for i in range(4)]
    text += ["** RECORD GROUP 9, MODAL MASS MATRIX", "1.0", "** RECORD GROUP 10, MODAL STIFFNESS MATRIX", "400.0",
             "** RECORD GROUP 11, DIAGONAL OF LUMPED MASS MATRIX"]
    text += [" ".join(f(v) for v in [mi, mi, mi, *ri]) for mi, ri in zip(mass, rot)]
    text += ["** RECORD GROUP 12, RIGID BODY INERTIA MATRIX", f(m), " ".join(f(v) for v in c)]
    text += [" ".join(f(v) for v in row) for row in J] + ["** END OF FILE"]
    (tmp_path / "cloud.fem").write_text("\n".join(text) + "\n")
    fem = read_fem(tmp_path / "cloud.fem")
    inv = fem.invariants()
    m12, c12, J12 = fem.rigid
    assert inv.mass == pytest.approx(m12, rel=1e-14)
    assert np.allclose(inv.center_of_mass, c12, atol=1e-14)
    assert np.allclose(inv.inertia_at_com, J12, atol=1e-13)
    assert fem.frequencies()[0] == pytest.approx(20.0 / (2 * np.pi), rel=1e-14)


def test_fem_errors_name_the_record(tmp_path):
    ms = _cb(straight_beam(1.0, 2, SEC))
    write_fem(tmp_path / "a.fem", ms)
    text = (tmp_path / "a.fem").read_text()
    (tmp_path / "b.fem").write_text(text.split("** RECORD GROUP 9")[0])
    with pytest.raises(ModelError, match="record group 9 is missing"):
        read_fem(tmp_path / "b.fem")
    lines = text.splitlines()
    k = lines.index("**    NORMAL MODE SHAPE #  1")
    (tmp_path / "c.fem").write_text("\n".join(lines[:k + 1] + lines[k + 2:]))
    with pytest.raises(ModelError, match="mode shape 1 has 12 values, expected 6 x 3"):
        read_fem(tmp_path / "c.fem")
    (tmp_path / "d.fem").write_text(text.replace("REV0 3", "REV0 x"))
    with pytest.raises(ModelError, match="record group 1"):
        read_fem(tmp_path / "d.fem")


def _export_ansys_style(tmp_path, body, labels, numeric=False):
    """What an FE tool exports: the root's DOFs removed (held by its supports), rows in a shuffled order,
    symmetric Matrix Market files, a mapping file with a header, a node file with comments."""
    keep = np.setdiff1d(np.arange(body.n_dofs), body.dofs({0: "all"}))
    order = np.random.default_rng(3).permutation(keep)
    for name, A in (("mass.mtx", body.M), ("stiff.mtx", body.K)):
        scipy.io.mmwrite(str(tmp_path / name), sp.coo_matrix(A[order][:, order]), symmetry="symmetric", precision=17)
    names = ["UX", "UY", "UZ", "ROTX", "ROTY", "ROTZ"]
    rows = ["Matrix Eqn   Node   DOF"] if not numeric else ["** node, dof"]
    for k, dof in enumerate(order, 1):
        node, comp = labels[dof // 6], dof % 6
        rows.append(f"{node}, {comp + 1}" if numeric else f"{k:8d} {node:8d}     {names[comp]}")
    (tmp_path / "map.txt").write_text("\n".join(rows) + "\n")
    nodes = ["# node, x, y, z (m)"] + [f"{lab}, {x:.17g}, {y:.17g}, {z:.17g}" for lab, (x, y, z) in
                                        zip(labels, body.nodes)]
    (tmp_path / "nodes.csv").write_text("\n".join(nodes) + "\n")
    return [tmp_path / n for n in ("mass.mtx", "stiff.mtx", "map.txt", "nodes.csv")]


@pytest.mark.parametrize("numeric", [False, True])
def test_matrix_market_import_gives_the_same_frequencies_and_reduction(tmp_path, numeric):
    body = _beam()
    labels = [1001 + 3 * i for i in range(body.n_nodes)]
    imp = read_matrix_market(*_export_ansys_style(tmp_path, body, labels, numeric), name="beam_mtx")
    assert np.array_equal(imp.absent, body.dofs({0: "all"}))
    assert np.array_equal(imp.body.node_ids, labels)
    full = natural_modes(body.K, body.M, 6, fixed=body.dofs({0: "all"})).frequencies
    got = natural_modes(imp.body.K, imp.body.M, 6, fixed=imp.absent).frequencies
    assert np.allclose(got, full, rtol=1e-6)
    a = craig_bampton(body, [Interface("tip", (N_EL,), "nodes")], 8, fixed=body.dofs({0: "all"}))
    b = craig_bampton(imp.body, [Interface("tip", (imp.body.index(labels[-1]),), "nodes")], 8, fixed=imp.absent)
    assert np.allclose(b.frequencies(), a.frequencies(), rtol=1e-6)


def test_matrix_market_errors(tmp_path):
    body = _beam()
    files = _export_ansys_style(tmp_path, body, list(range(body.n_nodes)))
    text = files[2].read_text().splitlines()
    files[2].write_text("\n".join(text[:-1]) + "\n")
    with pytest.raises(ModelError, match="DOF map has .* rows, the matrices"):
        read_matrix_market(*files)
    files[2].write_text("\n".join(text[:-1] + [text[-1].rsplit(maxsplit=1)[0] + " TEMP"]) + "\n")
    with pytest.raises(ModelError, match="unknown DOF 'TEMP'"):
        read_matrix_market(*files)


def test_abaqus_matrix_input_files_give_the_same_frequencies(tmp_path):
    """Abaqus *MATRIX OUTPUT, FORMAT=MATRIX INPUT: 'node, dof, node, dof, value', one triangle, 1-based dofs; the
    root's DOFs absent (held in Abaqus); coordinates from the *Node block of an input file with elements after it."""
    from fmu_mbs.fe import read_abaqus_matrices

    body = _beam()
    labels = [10 * (i + 1) for i in range(body.n_nodes)]
    keep = np.setdiff1d(np.arange(body.n_dofs), body.dofs({0: "all"}))
    for fname, A in (("job_MASS1.mtx", body.M), ("job_STIF1.mtx", body.K)):
        C = sp.triu(A.tocsr()[keep][:, keep]).tocoo()           # upper triangle only, as Abaqus writes one
        lines = ["** ASSEMBLED " + fname] + [
            f"{labels[keep[i] // 6]}, {keep[i] % 6 + 1}, {labels[keep[j] // 6]}, {keep[j] % 6 + 1}, {v:.17e}"
            for i, j, v in zip(C.row, C.col, C.data)]
        (tmp_path / fname).write_text("\n".join(lines) + "\n")
    inp = ["*Heading", "** beam", "*Node"] + [f"{lab}, {x:.17g}, {y:.17g}, {z:.17g}" for lab, (x, y, z) in
                                              zip(labels, body.nodes)]
    inp += ["*Element, type=B31", "1, 10, 20", "2, 20, 30", "*End Part"]
    (tmp_path / "job.inp").write_text("\n".join(inp) + "\n")
    imp = read_abaqus_matrices(tmp_path / "job_MASS1.mtx", tmp_path / "job_STIF1.mtx", tmp_path / "job.inp")
    assert np.array_equal(imp.body.node_ids, labels) and np.array_equal(imp.absent, body.dofs({0: "all"}))
    full = natural_modes(body.K, body.M, 6, fixed=body.dofs({0: "all"})).frequencies
    assert np.allclose(natural_modes(imp.body.K, imp.body.M, 6, fixed=imp.absent).frequencies, full, rtol=1e-6)
    (tmp_path / "bad.mtx").write_text("10, 7, 10, 1, 1.0\n")
    with pytest.raises(ModelError, match="bad.mtx line 1"):
        read_abaqus_matrices(tmp_path / "bad.mtx", tmp_path / "job_STIF1.mtx", tmp_path / "job.inp")


def test_fem_damping_record_round_trip(tmp_path):
    from fmu_mbs.fe import modal_damping

    ms = modal_damping(_cb(_beam()), 0.03)
    write_fem(tmp_path / "d.fem", ms)
    fem = read_fem(tmp_path / "d.fem")
    assert fem.damping is not None and np.allclose(fem.damping, ms.damping, rtol=1e-15, atol=1e-15)
    assert np.array_equal(fem.q0, np.zeros(ms.n_modes)) and fem.invariants().D_ff is not None
