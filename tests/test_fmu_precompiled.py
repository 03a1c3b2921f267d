"""Precompiled kernels (adapters/kernel_precompile.py, adapters/shipped_kernels.py).

An FMU built here, copied to a fresh folder and run in a fresh process with empty user kernel caches, runs its
first doStep without compiling a kernel: numba's own counters report cache hits and no misses, nothing but the
unpacked blob of shipped kernels and the unpacked library copy (adapters/library_archive.py) is written to the
user's cache, and the FMU does not log the compile notice. The controls: the same FMU without its shipped kernels,
with a damaged blob, or with a manifest from another numba version, logs "compiling kernels (first run only)" (the
run is ended at that message instead of compiling for minutes); a damaged library zip fails fmi2Instantiate with
its reason. A flexible FMU starts from the mode data stored at build time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from fmu_mbs.adapters.shipped_kernels import BLOB, FOLDER, MANIFEST, NOTICE

ROOT = Path(__file__).resolve().parents[1]
NOTICE_EXIT = 3
INSTANTIATE_EXIT = 4

RUN = textwrap.dedent("""
    import ctypes, json, os, shutil, sys, time
    from fmpy import calloc, extract, free, read_model_description
    from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                           fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)
    log = []
    def logger(component, instance, status, category, message):
        log.append(message.decode())
        if "compiling kernels" in log[-1]:   # the notice: stop here instead of compiling for minutes
            print(json.dumps({"log": log}), flush=True)
            os._exit(NOTICE_EXIT)
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(logger)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    for path in sys.argv[1:]:
        t0 = time.perf_counter()
        unzipped = extract(path)
        md = read_model_description(unzipped)
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=md.coSimulation.modelIdentifier,
                        instanceName="fresh")
        try:
            fmu.instantiate(callbacks=callbacks, loggingOn=True)
        except Exception as exc:   # the reason is in the log
            print(json.dumps({"log": log, "instantiate": str(exc)}), flush=True)
            os._exit(INSTANTIATE_EXIT)
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.doStep(0.0, 1e-3)
        first = time.perf_counter() - t0
        outputs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
        values = fmu.getReal(outputs)
        with open(os.path.join(unzipped, "resources", FOLDER, MANIFEST)) as f:
            package = json.load(f)["package"]
        hits = misses = 0
        for name, module in list(sys.modules.items()):
            if name.startswith(package + ".kernels"):
                for obj in vars(module).values():
                    stats = getattr(obj, "stats", None)
                    if stats is not None and hasattr(stats, "cache_misses"):
                        hits += sum(stats.cache_hits.values())
                        misses += sum(stats.cache_misses.values())
        fe_imported = sorted(n for n in (package + ".fe", "scipy.linalg") if n in sys.modules)
        fmu.terminate()
        fmu.freeInstance()
        print(json.dumps({"log": log, "hits": hits, "misses": misses, "first_step_s": first, "values": values,
                          "fe_imported": fe_imported}), flush=True)
        shutil.rmtree(unzipped)   # as fmpy's simulate_fmu: the next FMU runs after this folder is gone
""").replace("NOTICE_EXIT", str(NOTICE_EXIT)).replace("INSTANTIATE_EXIT", str(INSTANTIATE_EXIT))
RUN = RUN.replace("FOLDER", repr(FOLDER)).replace("MANIFEST", repr(MANIFEST))


@pytest.fixture(scope="module")
def pendulum_fmu(catalogue_fmu) -> Path:
    return catalogue_fmu("pendulum")


def _fresh_run(fmu: Path | list[Path], tmp: Path) -> tuple[int, dict, Path]:
    """Run ``fmu`` (or each of a list, one after the other) copied into a new folder, in a new process whose user
    kernel caches are new empty folders; the result is that of the last one run."""
    folder = tmp / "elsewhere"
    folder.mkdir()
    copies = [str(shutil.copy(f, folder / f.name)) for f in (fmu if isinstance(fmu, list) else [fmu])]
    caches = {var: tmp / var.lower() for var in ("FMU_MBS_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    for path in caches.values():
        path.mkdir()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", **{k: str(v) for k, v in caches.items()})
    for var in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"):
        env.pop(var, None)   # the host's own CPU target, as in any user's process
    done = subprocess.run([sys.executable, "-c", RUN, *copies], env=env, capture_output=True, text=True,
                          timeout=600, cwd=tmp)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    assert lines, f"exit {done.returncode}: {done.stderr[-3000:]}"
    return done.returncode, json.loads(lines[-1]), caches["FMU_MBS_CACHE_DIR"]


def _rewrite(fmu: Path, dest: Path, change) -> Path:
    """A copy of ``fmu`` whose entries pass through ``change(name, data) -> data or None (left out)``."""
    out = dest / fmu.name
    with zipfile.ZipFile(fmu) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            data = change(info.filename, src.read(info.filename))
            if data is not None:
                z.writestr(info, data)
    return out


def _compiled(user_cache: Path) -> list[Path]:
    """Cache files in the user's cache other than the unpacked shipped kernels: kernels compiled here."""
    return [p for p in user_cache.rglob("*") if p.suffix in (".nbi", ".nbc")
            and p.relative_to(user_cache).parts[0] != "shipped"]


def test_first_step_in_a_fresh_process_loads_shipped_kernels(pendulum_fmu, tmp_path):
    code, result, user_cache = _fresh_run(pendulum_fmu, tmp_path)
    assert code == 0, result
    assert result["misses"] == 0, result
    assert result["hits"] > 0, result            # the kernels did come from a cache: the shipped one
    assert not _compiled(user_cache)             # nothing compiled, saved
    assert not [m for m in result["log"] if "compiling kernels" in m], result["log"]
    assert all(v == v for v in result["values"])
    with zipfile.ZipFile(pendulum_fmu) as z:     # the blob went to the user's cache, whole, named by its hash
        blob = json.loads(z.read(f"resources/{FOLDER}/{MANIFEST}"))["blob"]
        assert not [n for n in z.namelist() if n.endswith((".nbi", ".nbc"))]     # only the blob in the FMU
    unpacked = user_cache / "shipped" / blob["sha256"]
    assert len(list(unpacked.iterdir())) == blob["files"]
    # the library copy, one zip in the FMU, was unpacked into the user's cache under the copy's name
    with zipfile.ZipFile(pendulum_fmu) as z:
        package = json.loads(z.read(f"resources/{FOLDER}/{MANIFEST}"))["package"]
        assert f"resources/{package}.zip" in z.namelist()
        assert not [n for n in z.namelist() if n.startswith(f"resources/{package}/")]
    assert [p.name for p in (user_cache / "library").iterdir()] == [package]
    assert (user_cache / "library" / package / package / "kernels" / "alf_loop.py").is_file()


def test_a_flexible_fmu_starts_from_its_stored_mode_data(catalogue_fmu, tmp_path):
    """The boom's modes were computed at build time (resources/modal-data.npz): its start-up computes none and
    imports neither the FE layer nor scipy.linalg (0.2-0.3 s); the values equal the library's (tests/test_fmu.py)."""
    code, result, user_cache = _fresh_run(catalogue_fmu("flexible_boom"), tmp_path)
    assert code == 0, result
    assert result["misses"] == 0 and result["fe_imported"] == [], result
    assert not [m for m in result["log"] if "mode data" in m], result["log"]


def test_a_damaged_mode_data_file_is_logged_and_the_modes_are_computed(catalogue_fmu, tmp_path):
    dest = tmp_path / "damaged"
    dest.mkdir()
    fmu = _rewrite(catalogue_fmu("flexible_boom"), dest,
                   lambda name, data: b"PK\x03\x04 damaged" if name == "resources/modal-data.npz" else data)
    code, result, _ = _fresh_run(fmu, tmp_path)
    assert code == 0, result
    assert any("the stored mode data is not used (BadZipFile" in m for m in result["log"]), result["log"]
    assert result["fe_imported"], result         # computed: the FE layer was imported


def test_a_damaged_library_zip_is_refused_with_its_reason(pendulum_fmu, tmp_path):
    """fmi2Instantiate fails with the reason in the FMI log; nothing is unpacked."""
    def damage(name, data):
        if name.startswith("resources/fmu_mbs_") and name.endswith(".zip"):
            return data[:5000] + bytes([data[5000] ^ 0xFF]) + data[5001:]
        return data

    dest = tmp_path / "damaged"
    dest.mkdir()
    code, result, user_cache = _fresh_run(_rewrite(pendulum_fmu, dest, damage), tmp_path)
    assert code == INSTANTIATE_EXIT, result
    text = "\n".join(result["log"])
    assert "could not be unpacked" in text and "does not match the sha256 recorded for it" in text, text
    assert not (user_cache / "library").exists() or not list((user_cache / "library").iterdir())


def test_a_damaged_kernel_blob_is_refused_with_its_reason(pendulum_fmu, tmp_path):
    """A blob whose bytes differ from the manifest's sha256 is not unpacked: the log says why, numba compiles."""
    def damage(name, data):
        return data[:1000] + bytes([data[1000] ^ 0xFF]) + data[1001:] if name.endswith(f"/{FOLDER}/{BLOB}") else data

    dest = tmp_path / "damaged"
    dest.mkdir()
    code, result, user_cache = _fresh_run(_rewrite(pendulum_fmu, dest, damage), tmp_path)
    assert code == NOTICE_EXIT, result
    assert any("does not match the sha256 recorded for it" in m for m in result["log"]), result["log"]
    assert not (user_cache / "shipped").exists() or not list((user_cache / "shipped").iterdir())


def test_a_second_fmu_whose_first_ones_folder_is_gone_loads_its_shipped_kernels(catalogue_fmu, tmp_path):
    """Two FMUs of one library version in one process, the first one's extraction folder deleted before the second
    is instantiated (fmpy's simulate_fmu does that): the second still finds its shipped kernels. Before, the
    library copy (imported from the first folder) hashed its kernel sources again from the deleted folder, took
    another cache name, refused the second FMU's kernels ("precompiled kernels not used: ... kernel sources") and
    compiled for minutes."""
    code, result, user_cache = _fresh_run([catalogue_fmu("pendulum"), catalogue_fmu("fourbar")], tmp_path)
    assert code == 0, result
    assert not [m for m in result["log"] if "not used" in m or "compiling kernels" in m], result["log"]
    assert result["misses"] == 0, result
    assert not _compiled(user_cache)


def test_without_shipped_kernels_the_fmu_logs_that_it_compiles(pendulum_fmu, tmp_path):
    dest = tmp_path / "stripped"
    dest.mkdir()
    stripped = _rewrite(pendulum_fmu, dest, lambda name, data: None if f"/{FOLDER}/" in name else data)
    code, result, _ = _fresh_run(stripped, tmp_path)
    assert code == NOTICE_EXIT, result
    assert any(NOTICE in m for m in result["log"]), result["log"]


def test_a_cache_for_another_numba_is_not_used(pendulum_fmu, tmp_path):
    def other_numba(name, data):
        if name.endswith(f"/{FOLDER}/{MANIFEST}"):
            return json.dumps(dict(json.loads(data), numba="0.0.0")).encode()
        return data

    dest = tmp_path / "other"
    dest.mkdir()
    code, result, _ = _fresh_run(_rewrite(pendulum_fmu, dest, other_numba), tmp_path)
    assert code == NOTICE_EXIT, result
    assert any("numba '0.0.0'" in m for m in result["log"]), result["log"]
    assert any(NOTICE in m for m in result["log"]), result["log"]
