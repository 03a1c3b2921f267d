"""The FMU's library copy as one zip (adapters/library_archive.py, fmu_build.library_zip): every source with its
bytecode; unpacked once into the user's cache under the copy's name and imported from there by a fresh Python
(bytecode included, nothing compiled); found later without reading the zip; unpacked into the FMU's own folder
where the cache cannot be written; refused with the reason when damaged or holding a path outside the copy."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from fmu_mbs.adapters import library_archive
from fmu_mbs.adapters.fmu_build import _copy_package, library_zip
from fmu_mbs.adapters.library_archive import library_folder

PACKAGE = "fmu_mbs_archive_test"


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> tuple[bytes, int]:
    stage = tmp_path_factory.mktemp("stage")
    _copy_package(stage / PACKAGE)
    return library_zip(stage, PACKAGE)


def _resources(tmp_path: Path, data: bytes) -> Path:
    folder = tmp_path / "resources"
    folder.mkdir()
    (folder / f"{PACKAGE}.zip").write_bytes(data)
    return folder


def test_the_zip_holds_each_source_with_its_bytecode(archive):
    data, files = archive
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    sources = [n for n in names if n.endswith(".py")]
    assert len(names) == files == 2 * len(sources)
    tag = sys.implementation.cache_tag
    assert all(f"{n.rpartition('/')[0]}/__pycache__/{n.rpartition('/')[2][:-3]}.{tag}.pyc" in names for n in sources)
    assert f"{PACKAGE}/kernels/alf_loop.py" in names and not [n for n in names if "/studies/" in n]


def test_unpacked_once_into_the_cache_and_imported_from_there(archive, tmp_path, monkeypatch):
    data, files = archive
    digest = hashlib.sha256(data).hexdigest()
    resources = _resources(tmp_path, data)
    monkeypatch.setenv("FMU_MBS_CACHE_DIR", str(tmp_path / "cache"))
    folder = Path(library_folder(str(resources), PACKAGE, digest, files))
    assert folder == tmp_path / "cache" / "library" / PACKAGE
    assert sorted(os.listdir(folder.parent)) == [PACKAGE]         # no stage folder left
    # a fresh Python imports the copy from there, with its bytecode (no source compiled: no compile() call)
    code = ("import sys, builtins; sys.path.insert(0, sys.argv[1]); compiled = []\n"
            "sys.addaudithook(lambda e, a: compiled.append(a) if e == 'compile' and a[1] != '<string>' else None)\n"
            f"import {PACKAGE}.adapters.fmu_state as m; print(m.__file__); print(len(compiled))")
    out = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1")).stdout.split()
    assert out == [str(folder / PACKAGE / "adapters" / "fmu_state.py"), "0"]
    (resources / f"{PACKAGE}.zip").unlink()                       # a later start does not read the zip
    assert Path(library_folder(str(resources), PACKAGE, digest, files)) == folder


def test_an_unwritable_cache_unpacks_into_the_fmus_folder(archive, tmp_path, monkeypatch):
    data, files = archive
    resources = _resources(tmp_path, data)
    (tmp_path / "not_a_folder").write_text("a file where the cache root should be")
    monkeypatch.setenv("FMU_MBS_CACHE_DIR", str(tmp_path / "not_a_folder" / "cache"))
    folder = library_folder(str(resources), PACKAGE, hashlib.sha256(data).hexdigest(), files)
    assert Path(folder) == resources / f"{PACKAGE}.unpacked"
    assert (Path(folder) / PACKAGE / "__init__.py").is_file()


def test_a_copy_beside_the_entry_script_is_used_as_it_is(tmp_path):
    (tmp_path / PACKAGE).mkdir()
    (tmp_path / PACKAGE / "__init__.py").write_text("")
    assert library_folder(str(tmp_path), PACKAGE, "0" * 64, 1) == str(tmp_path)


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize("members, digest, files, message", [
    ({f"{PACKAGE}/__init__.py": b""}, "0" * 64, 1, "does not match the sha256 recorded for it"),
    ({f"{PACKAGE}/__init__.py": b""}, "../../x", 1, "malformed sha256"),
    ({f"{PACKAGE}/__init__.py": b""}, None, 2, "2 expected"),
    ({f"{PACKAGE}/../escape.py": b"x"}, None, 1, "unexpected"),
    ({"other/__init__.py": b"x"}, None, 1, "unexpected"),
    ({f"/{PACKAGE}/abs.py": b"x"}, None, 1, "unexpected"),
])
def test_a_damaged_or_foreign_zip_is_refused_with_the_reason(tmp_path, monkeypatch, members, digest, files,
                                                             message):
    data = _zip(members)
    resources = _resources(tmp_path, data)
    monkeypatch.setenv("FMU_MBS_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(ImportError, match=message):
        library_folder(str(resources), PACKAGE, digest or hashlib.sha256(data).hexdigest(), files)
    assert not (tmp_path / "cache" / "library").exists() or not os.listdir(tmp_path / "cache" / "library")
    assert not (tmp_path / "escape.py").exists() and not (resources / f"{PACKAGE}.unpacked").exists()


def test_the_cache_root_is_the_kernels_one(monkeypatch, tmp_path):
    from fmu_mbs.kernels import kernel_cache_dir

    for env in ({"FMU_MBS_CACHE_DIR": str(tmp_path / "a")}, {"XDG_CACHE_HOME": str(tmp_path / "b")}, {}):
        for var in ("FMU_MBS_CACHE_DIR", "XDG_CACHE_HOME"):
            monkeypatch.delenv(var, raising=False)
        for var, value in env.items():
            monkeypatch.setenv(var, value)
        assert library_archive.cache_root() == os.path.dirname(kernel_cache_dir())


def test_a_process_that_loses_the_race_uses_the_winners_folder(archive, tmp_path, monkeypatch):
    """Two first starts at once: each unpacks into its own stage folder; the second rename finds the target there
    (another process was first), drops its stage and uses the target."""
    data, files = archive
    resources = _resources(tmp_path, data)
    monkeypatch.setenv("FMU_MBS_CACHE_DIR", str(tmp_path / "cache"))
    target = tmp_path / "cache" / "library" / PACKAGE
    rename = os.rename

    def first_the_other_process(src, dst):
        (Path(dst) / "winner").mkdir(parents=True)      # the other process renamed its stage into place
        rename(src, dst)                               # fails: the target exists and is not empty

    monkeypatch.setattr(library_archive.os, "rename", first_the_other_process)
    assert Path(library_folder(str(resources), PACKAGE, hashlib.sha256(data).hexdigest(), files)) == target
    assert sorted(os.listdir(target.parent)) == [PACKAGE] and os.listdir(target) == ["winner"]
