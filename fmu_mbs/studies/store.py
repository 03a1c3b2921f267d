"""The results folder of a study, written as runs finish:

- ``study.json``: the study as run (kind, target, times, outputs, every run's parameters) and its fingerprint;
- ``runs.jsonl``: the journal, one JSON line per finished run, appended and flushed to disk (fsync) when the run
  comes back; it is what a resumed study reads, so a run in it is never run again;
- ``results.parquet``: the table, one row per finished run (run, status, attempts, the parameters, the scalars,
  reason, log, worker, history, wall_time, sim_time, cpu_time), rewritten from the journal (to a temporary file, then
  renamed: a reader or an interruption never sees half a table);
- ``histories/run_NNNNNN.parquet``: the time histories of run NNNNNN (written before its journal line).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .study import Study, StudyError

TABLE = "results.parquet"
JOURNAL = "runs.jsonl"


def _atomic_parquet(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def _column(values: list) -> pa.Array:
    """float64 when every value is a number (None/NaN: missing), else strings."""
    numeric = all(v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in values)
    if numeric:
        return pa.array([math.nan if v is None else float(v) for v in values], type=pa.float64())
    return pa.array(["" if v is None else str(v) for v in values], type=pa.string())


class ResultStore:
    """The results folder ``out`` of ``study``; ``records`` maps run id -> its journal record."""

    def __init__(self, out: str | Path, study: Study, restart: bool = False):
        self.out = Path(out)
        self.study = study
        (self.out / "histories").mkdir(parents=True, exist_ok=True)
        spec = self.out / "study.json"
        fp = study.fingerprint()
        if spec.exists() and not restart:
            old = json.loads(spec.read_text(encoding="utf-8")).get("fingerprint")
            if old != fp:
                raise StudyError(f"results folder '{self.out}' holds another study (its design, model or settings "
                                 "differ); choose another output folder or restart the study")
        if restart:
            for path in [self.out / JOURNAL, self.out / TABLE, *(self.out / "histories").glob("*.parquet")]:
                path.unlink(missing_ok=True)
        spec.write_text(json.dumps({"fingerprint": fp, **study.to_dict()}, indent=1, default=str) + "\n",
                        encoding="utf-8")
        self.records: dict[int, dict] = self._read_journal()
        self._journal = (self.out / JOURNAL).open("a", encoding="utf-8")

    def _read_journal(self) -> dict[int, dict]:
        path = self.out / JOURNAL
        if not path.exists():
            return {}
        records = {}
        lines = path.read_text(encoding="utf-8").split("\n")
        for k, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                if k >= len(lines) - 2:   # the last line, cut short by a hard kill: that run is simply not done
                    continue
                raise StudyError(f"journal '{path}' line {k + 1} is damaged") from None
            records[int(rec["run"])] = rec
        if lines and lines[-1]:   # a cut-short last line: end it so the next record starts on its own line
            with path.open("a", encoding="utf-8") as f:
                f.write("\n")
        return records

    def history_path(self, run: int) -> Path:
        return self.out / "histories" / f"run_{run:06d}.parquet"

    def add(self, record: dict, params: dict[str, Any], attempts: int, sync: bool = True) -> dict:
        """Store a finished run: its histories (``history_parquet``, the file's bytes as the worker encoded them,
        or ``history`` arrays), then its journal line, flushed to disk now (``sync``) or at the next ``sync()``."""
        hist = record.get("history") or {}
        data = record.get("history_parquet") or (history_bytes(hist) if hist else b"")
        rel = ""
        if data:
            path = self.history_path(record["run"])
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
            rel = str(path.relative_to(self.out))
        entry = {"run": record["run"], "status": record["status"], "attempts": attempts, "params": params,
                 "scalars": record.get("scalars", {}), "reason": record.get("reason", ""),
                 "log": record.get("log", ""), "wall_time": record.get("wall_time", math.nan),
                 "sim_time": record.get("sim_time", math.nan), "cpu_time": record.get("cpu_time", math.nan),
                 "worker": record.get("worker", ""), "history": rel}
        self._journal.write(json.dumps(entry) + "\n")
        if sync:
            self.sync()
        self.records[entry["run"]] = entry
        return entry

    def sync(self) -> None:
        """Flush the journal to disk (one fsync for the runs stored since the last one)."""
        self._journal.flush()
        os.fsync(self._journal.fileno())

    def write_table(self) -> Path:
        """Rewrite results.parquet from the records (sorted by run id)."""
        recs = [self.records[k] for k in sorted(self.records)]
        params = self.study.parameters
        scalars = [s.name for s in self.study.scalars]
        cols: dict[str, pa.Array] = {
            "run": pa.array([r["run"] for r in recs], type=pa.int64()),
            "status": pa.array([r["status"] for r in recs], type=pa.string()),
            "attempts": pa.array([r["attempts"] for r in recs], type=pa.int64()),
        }
        for p in params:
            cols[p] = _column([r["params"].get(p) for r in recs])
        for s in scalars:
            cols[s] = _column([r["scalars"].get(s) for r in recs])
        for key in ("reason", "log", "worker", "history"):
            cols[key] = pa.array([str(r.get(key, "")) for r in recs], type=pa.string())
        for key in ("wall_time", "sim_time", "cpu_time"):
            cols[key] = pa.array([float(r.get(key, math.nan)) for r in recs], type=pa.float64())
        path = self.out / TABLE
        _atomic_parquet(pa.table(cols), path)
        return path

    def close(self) -> None:
        self.sync()
        self._journal.close()


def history_bytes(history: dict[str, Any]) -> bytes:
    """A run's histories {name: array} as the bytes of a Parquet file (float64 columns)."""
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({k: pa.array(v, type=pa.float64()) for k, v in history.items()}), sink)
    return sink.getvalue().to_pybytes()


def read_table(out: str | Path) -> dict[str, list]:
    """The results table of a study folder as {column: list of values}."""
    path = Path(out) / TABLE
    if not path.exists():
        raise StudyError(f"'{out}' holds no results table ({TABLE}); run the study first")
    return pq.read_table(path).to_pydict()


def read_history(out: str | Path, run: int) -> dict[str, list]:
    """The time histories of one run as {column: list of values}."""
    path = Path(out) / "histories" / f"run_{run:06d}.parquet"
    if not path.exists():
        raise StudyError(f"run {run} has no history in '{out}'")
    return pq.read_table(path).to_pydict()
