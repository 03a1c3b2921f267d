"""The FMU's communication step and start-up (issue 13): the one-call step's arguments packed into one table of
addresses (kernels/packed_args.py) rebuild the very arrays inside numba; the energy sums energy.dissipated and
energy.input of an FMU equal the library's on a damped model, close the energy balance with an FMU input, and roll
back with the FMU state; a built FMU leaves no module of its deleted staging folder behind; starting an FMU's slave
does not import the FE layer (fmu_mbs.fe, scipy.linalg through it)."""

from __future__ import annotations

import math
import subprocess
import sys
import zipfile
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from fmu_mbs.adapters.fmu_build import build_fmu, vendored_package_name
from fmu_mbs.adapters.fmu_fast_step import FastStep
from fmu_mbs.adapters.fmu_slave import MbsSlave
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.kernels.packed_args import pack, unpack
from fmu_mbs.model import load_model

from fmu_harness import Slave, sprung_pendulum_folder

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"

Pair = namedtuple("Pair", "a b")


@njit
def _touch(table, layout):
    tree = unpack(table, layout)
    pair, flag, scale = tree[0], tree[1], tree[2]
    pair.a[1, 2] = scale * pair.b[3]           # writes through to the caller's arrays
    pair.b[0] = 7
    return (pair.a.sum(), pair.b.shape[0], 1.0 if flag else -1.0, tree[3][0, 1])


def test_packed_arguments_are_views_of_the_callers_arrays():
    """A tree of a named tuple (a Fortran-ordered 2-d float array, an int array), a bool, a float and a strided,
    read-only view: the kernel reads the values, shapes and strides of the caller's arrays and its writes land
    in them."""
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    b = np.arange(5, dtype=np.int64)
    base = np.arange(20.0).reshape(4, 5)
    view = base[::2, 1::2]
    view.flags.writeable = False
    tree = (Pair(a, b), True, 2.5, view)
    packed = pack(tree)
    total, n_b, flag, corner = _touch(packed.table, packed.layout)
    assert a[1, 2] == 2.5 * 3 and b[0] == 7
    assert total == a.sum() and n_b == 5 and flag == 1.0 and corner == base[0, 3]
    assert packed.tree is tree          # the table's arrays live as long as the Packed


def test_packing_refuses_what_it_cannot_rebuild():
    with pytest.raises(TypeError, match=r"args\.b.*list"):
        pack(Pair(np.zeros(2), [1.0, 2.0]))


def _damped_pendulum(folder: Path) -> Path:
    """The catalogue pendulum with a spring-damper (2 N/m, 0.8 N s/m, a constant 1.5 N pull) from a ground anchor
    to the bob: the damper dissipates and the constant force does work (energy.input)."""
    return sprung_pendulum_folder(folder, "damped_pendulum", 2.0)


def _slave(folder: Path, one_call: bool, monkeypatch) -> MbsSlave:
    if not one_call:                       # the general path only: the one-call step never applies
        monkeypatch.setattr(FastStep, "build", classmethod(lambda cls, slave, substeps=0: None))
    s = MbsSlave(instance_name="damped", resources=str(folder))
    s.setup_experiment(0.0)
    s.exit_initialization_mode()
    return s


ENERGY = ["energy.kinetic", "energy.potential", "energy.dissipated", "energy.input"]


@pytest.mark.parametrize("one_call", [True, False])
def test_fmu_energy_sums_equal_the_library_run_on_a_damped_model(tmp_path, monkeypatch, one_call):
    """1 s in 10 ms communication steps (solver.h = 1 ms) against simulate() at h = 1 ms: energy.dissipated and
    energy.input at every communication point agree to round-off, on both paths of the FMU's step; the damper
    takes a good part of the swing's energy (they read 0 before the FMU passed its sums)."""
    s = _slave(_damped_pendulum(tmp_path / "m"), one_call, monkeypatch)
    col = [s._outputs.index(next(c for c in s._outputs if c.name == n)) for n in ENERGY]
    got, t = [], 0.0
    for _ in range(100):
        assert s.do_step(t, 0.01)
        t += 0.01
        got.append(s.y[col])
    assert isinstance(s._fast, FastStep) == one_call
    got = np.array(got)
    lib = simulate(compile_model(load_model(tmp_path / "m" / "model.json")), 1.0, 1e-3, output_step=0.01)
    ref = np.column_stack([lib.info["energy_dissipated"], lib.info["energy_input"]])[1:]
    assert np.max(np.abs(got[:, 2:] - ref)) < 1e-9 * np.max(np.abs(ref))
    assert got[-1, 2] > 0.5 and abs(got[-1, 3]) > 0.1


def test_fmu_energy_balance_closes_with_an_input_force_and_the_sums_roll_back(tmp_path, monkeypatch):
    """With a force input at the bob (P1.F[1] = 3 sin 2 pi t N, held over each 10 ms step) kinetic + potential +
    dissipated - input stays at its initial value to 2e-5 of the energy moved (the integrator's balance, visible in
    the FMU). Each step's trapezoid starts from the powers of the previous input, as its start accelerations do
    (kernels/alf_loop.start_powers): booked at the new input, the drift was first order in h, 9.6e-4 of the energy
    moved at solver.h = 1 ms (2.4e-4 at 0.25 ms); kept, 2.4e-6 (1.5e-7). A state serialized at 0.5 s and restored
    after 0.8 s brings the sums back and replays them bit for bit."""
    s = _slave(_damped_pendulum(tmp_path / "m"), True, monkeypatch)
    col = [next(k for k, c in enumerate(s._outputs) if c.name == n) for n in ENERGY]
    k_in = next(k for k, c in enumerate(s._inputs) if c.name == "P1.F[1]")
    t, rows, saved = 0.0, [s.y[col].copy()], None

    def step(t):
        s.u_set[k_in] = 3.0 * math.sin(2.0 * math.pi * t)
        assert s.do_step(t, 0.01)
        rows.append(s.y[col].copy())
        return t + 0.01

    for k in range(80):
        if k == 50:
            saved, t_saved = s._fmu_state_to_bytes(s._get_fmu_state()), t
        t = step(t)
    rows = np.array(rows)
    balance = rows[:, 0] + rows[:, 1] + rows[:, 2] - rows[:, 3]
    moved = np.ptp(rows[:, 0]) + np.ptp(rows[:, 3])
    assert np.max(np.abs(balance - balance[0])) < 2e-5 * moved
    assert np.ptp(rows[:, 3]) > 0.1                              # the input force did work
    first = rows[51:].copy()
    s._set_fmu_state(s._fmu_state_from_bytes(saved))
    assert np.array_equal(s.y[col], rows[50])                # the sums are back at 0.5 s
    t, rows = t_saved, [s.y[col].copy()]
    for _ in range(30):
        t = step(t)
    assert np.array_equal(np.array(rows[1:]), first)


def test_a_build_into_a_relative_folder(tmp_path, monkeypatch):
    """``python build_fmu.py -o dist`` (the README's main job): a relative destination is the working folder's, also
    for the child process that writes the model description (it runs in the staging folder, where the FMU once
    landed and was deleted with it)."""
    monkeypatch.chdir(tmp_path)
    path = build_fmu(MODELS / "pendulum.json", "dist", validate=False, precompile=False)
    assert path.resolve() == tmp_path / "dist" / "pendulum.fmu"
    assert zipfile.is_zipfile(path)


def test_a_built_fmu_leaves_no_module_of_its_deleted_staging_folder(tmp_path):
    """pythonfmu imports the entry script and the library copy from a staging folder that build_fmu deletes; a
    module kept from there (the copy was kept before) breaks the first lazy import of an FMU run in the same
    process."""
    build_fmu(MODELS / "pendulum.json", tmp_path, validate=False, precompile=False)
    package = vendored_package_name()
    staged = [name for name, mod in list(sys.modules.items())
              if name.split(".")[0] == package and "fmu_mbs_build_" in (getattr(mod, "__file__", None) or "")]
    assert staged == []


def test_a_build_keeps_the_library_copy_that_fmus_of_this_process_loaded(catalogue_fmu, tmp_path):
    """An FMU instance alive in this process while another FMU is built: its library copy stays in sys.modules as
    it was (the same module objects), and it steps on. The build used to drop the copy too; the instances then
    imported parts of it again beside the old ones, and classes of two imports met (test_fmu's crash and flexible
    FMUs failed with "KeyError: <class '...Bushing'>" after the session had built FMUs between their runs)."""
    s = Slave(catalogue_fmu("pendulum"), "alive").start()
    s.step(0.01)
    package = vendored_package_name()
    before = {name: mod for name, mod in sys.modules.items() if name.split(".")[0] == package}
    assert before
    build_fmu(MODELS / "fourbar.json", tmp_path, validate=False, precompile=False)
    after = {name: mod for name, mod in sys.modules.items() if name.split(".")[0] == package}
    assert after.keys() == before.keys() and all(after[name] is before[name] for name in before)
    s.step(0.01)
    assert np.isfinite(s.get("P1.r[1]")).all()
    s.close()


def test_starting_an_fmu_slave_does_not_import_the_fe_layer():
    """The modules an FMU's instantiation imports (its slave module): no fmu_mbs.fe (it and scipy.linalg cost
    ~1 s at start-up) unless a model has modal bodies."""
    code = ("import sys, fmu_mbs.adapters.fmu_slave, fmu_mbs.adapters.fmi_bridge; "
            "print(sorted(m for m in ('fmu_mbs.fe', 'fmu_mbs.model.modal_data') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
