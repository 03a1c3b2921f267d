"""The shipped kernels' blob (adapters/shipped_kernels.unpacked): unpacked once into the user's cache under its
sha256, found there by later starts, into the FMU's own folder where the cache cannot be written, and refused with
the reason when damaged, foreign or holding anything but flat cache-file names."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from fmu_mbs.adapters.shipped_kernels import BLOB, unpacked

FILES = {"k.f-1.nbi": b"index", "k.f-1.py311.1.nbc": bytes(range(256)) * 40}


def _blob(folder: Path, files: dict[str, bytes] = FILES) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    (folder / BLOB).write_bytes(buf.getvalue())
    return {"sha256": hashlib.sha256(buf.getvalue()).hexdigest(), "files": len(files)}


def test_unpacked_once_into_the_cache_and_found_there_later(tmp_path):
    entry = _blob(tmp_path / "fmu")
    target = Path(unpacked(str(tmp_path / "fmu"), entry, str(tmp_path / "cache")))
    assert target == tmp_path / "cache" / "shipped" / entry["sha256"]
    assert {p.name: p.read_bytes() for p in target.iterdir()} == FILES
    assert [p.name for p in (tmp_path / "cache" / "shipped").iterdir()] == [entry["sha256"]]   # no stage left
    (tmp_path / "fmu" / BLOB).unlink()             # a later start does not read the blob
    assert Path(unpacked(str(tmp_path / "fmu"), entry, str(tmp_path / "cache"))) == target


def test_an_unwritable_cache_unpacks_into_the_fmus_folder(tmp_path):
    entry = _blob(tmp_path / "fmu")
    (tmp_path / "not_a_folder").write_text("a file where the cache root should be")
    target = Path(unpacked(str(tmp_path / "fmu"), entry, str(tmp_path / "not_a_folder" / "cache")))
    assert target == tmp_path / "fmu" / "unpacked"
    assert {p.name: p.read_bytes() for p in target.iterdir()} == FILES


@pytest.mark.parametrize("files, change, message", [
    (FILES, lambda e: {**e, "sha256": "0" * 64}, "does not match the sha256 recorded for it"),
    (FILES, lambda e: {**e, "sha256": "../../etc"}, "malformed sha256"),
    (FILES, lambda e: {**e, "files": 3}, "3 expected"),
    ({"../escape.nbi": b"x"}, lambda e: e, "unexpected"),
    ({"run.py": b"print('no')"}, lambda e: e, "unexpected"),
])
def test_a_damaged_or_foreign_blob_is_refused_by_name(tmp_path, files, change, message):
    entry = change(_blob(tmp_path / "fmu", files))
    with pytest.raises(ValueError, match=message):
        unpacked(str(tmp_path / "fmu"), entry, str(tmp_path / "cache"))
    assert not (tmp_path / "cache" / "shipped").exists() or not list((tmp_path / "cache" / "shipped").iterdir())
    assert not (tmp_path / "escape.nbi").exists()
