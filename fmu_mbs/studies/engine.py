"""Run a study on a dask.distributed cluster: a LocalCluster of single-threaded worker processes by default (one
FMU per process: pythonfmu FMUs and numba release nothing to share a GIL with), or an existing cluster by its
scheduler address (or a ``Client`` you made, e.g. of a dask-jobqueue cluster).

Each worker first runs the study once for two steps (``runners.warm``): the numba kernels (and an FMU's library
copy) load once per worker process, not once per run; the first worker warms alone, so a cold kernel cache is
compiled once and the others load it. Runs are submitted in run order; each comes back as a record
(runners.execute), is written to the results folder at once (store.py) and counted on the progress line. A run that
fails (an error, a diverging step, fmi2Discard/Error, a worker process that died under it) is submitted once more;
a second failure is recorded with its reason and log, and the study goes on. A study run again resumes: runs in the
journal are not run again. Ctrl-C cancels the runs under way and leaves the journal and the table consistent.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .runners import check, execute, warm
from .store import ResultStore, history_bytes
from .study import Study

if TYPE_CHECKING:
    from distributed import LocalCluster

#: seconds between rewrites of results.parquet while runs come back (it is always rewritten at the end)
TABLE_INTERVAL = 2.0


@dataclass
class StudySummary:
    """What a call of ``run_study`` did: runs in the design (``total``), recorded ok/failed in the folder, run in
    this call (``ran``), already recorded before it (``skipped``), resubmitted after a first failure (``retried``),
    wall times (s) of the whole call, of the warm-up per worker and of the runs (first submission to last result:
    ``run_time``) and spent by this process storing results (``store_time``: histories, journal, table), the
    workers used, the table's path."""

    total: int
    ok: int = 0
    failed: int = 0
    ran: int = 0
    skipped: int = 0
    retried: int = 0
    interrupted: bool = False
    wall_time: float = 0.0
    run_time: float = 0.0
    store_time: float = 0.0
    warm_times: list[float] = field(default_factory=list)
    workers: int = 0
    table: Path | None = None


def local_cluster(workers: int | None = None) -> LocalCluster:
    """A LocalCluster of ``workers`` single-threaded processes (default: one per CPU), its dashboard on a free port,
    quiet logs;
    a task whose worker dies fails at once (allowed-failures 0) so that the study's own retry-once applies."""
    import dask
    from distributed import LocalCluster

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        return LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                            dashboard_address=":0", silence_logs=logging.ERROR)


class Progress:
    """``label [#####.....] 12/40 done, 1 failed, 2 running, 0:31 left`` on standard error: redrawn in place on a
    terminal, otherwise a line at most every ``every`` seconds."""

    def __init__(self, label: str, total: int, done: int, stream: TextIO | None = None, enabled: bool = True,
                 every: float = 10.0):
        self.label, self.total, self.done0 = label, total, done
        self.stream = stream or sys.stderr
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.enabled, self.every = enabled, every
        self.start = time.monotonic()
        self.last = -math.inf

    def line(self, done: int, failed: int, running: int) -> str:
        width = 24
        fill = int(width * done / max(self.total, 1))
        new = done - self.done0
        left = (time.monotonic() - self.start) / new * (self.total - done) if new > 0 else math.nan
        eta = "?" if math.isnan(left) else f"{int(left // 60)}:{int(left % 60):02d}"
        return (f"{self.label} [{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} done, {failed} failed, "
                f"{running} running, {eta} left")

    def draw(self, done: int, failed: int, running, final: bool = False) -> None:
        """``running``: a count, or a callable giving it (asked only when the line is drawn)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if not final and now - self.last < (0.2 if self.tty else self.every):
            return
        self.last = now
        text = self.line(done, failed, running() if callable(running) else running)
        if self.tty:
            self.stream.write("\r" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _client(workers: int | None, scheduler: str | None, client):
    """(client, things to close)."""
    from distributed import Client

    if client is not None:
        return client, []
    if scheduler:
        c = Client(scheduler)
        return c, [c]
    cluster = local_cluster(workers)
    c = Client(cluster)
    return c, [c, cluster]


def _warm(client, slim: Study) -> list[float]:
    """Warm every worker: the first alone (a cold cache compiles once), then the others together; wall time (s) of
    each (NaN where the worker went away meanwhile: harmless, its runs load the kernels themselves)."""
    addrs = sorted(client.scheduler_info(n_workers=-1)["workers"])

    def on(addrs_):
        futs = [client.submit(warm, slim, workers=[a], allow_other_workers=False, pure=False) for a in addrs_]
        out = []
        for f in futs:
            try:
                out.append(f.result())
            except Exception:
                out.append(math.nan)
        return out
    return on(addrs[:1]) + on(addrs[1:]) if addrs else []


def run_study(study: Study, out: str | Path, workers: int | None = None, scheduler: str | None = None,
              client=None, restart: bool = False, retry_failed: bool = False, progress: bool = True,
              on_result=None, stream: TextIO | None = None) -> StudySummary:
    """Run the runs of ``study`` not yet recorded in the folder ``out`` (all of them with ``restart``; failed ones
    again with ``retry_failed``) on ``client``, or a new client of the cluster at ``scheduler``
    ("tcp://host:8786"), or a new LocalCluster of ``workers`` processes; returns a StudySummary.
    ``on_result(entry, summary)`` is called in this process after each run is stored."""
    from distributed import as_completed

    t0 = time.perf_counter()
    check(study)
    store = ResultStore(out, study, restart=restart)
    summary = StudySummary(total=len(study.runs))
    todo = [k for k in range(len(study.runs))
            if k not in store.records or (retry_failed and store.records[k]["status"] != "ok")]
    summary.skipped = len(study.runs) - len(todo)
    for k in todo:
        store.records.pop(k, None)   # a failed run run again: its new record replaces the old one in the journal
    _count(store, summary)
    bar = Progress(f"sweep {study.name}", summary.total, summary.ok + summary.failed, stream, progress)
    if not todo:
        summary.table = store.write_table()
        store.close()
        summary.wall_time = time.perf_counter() - t0
        return summary
    slim = replace(study, runs=[study.runs[0]])
    c, owned = _client(workers, scheduler, client)
    token = uuid.uuid4().hex[:8]
    pending: dict[Any, tuple[int, int]] = {}

    def submit(run: int, attempt: int):
        f = c.submit(_task, slim, run, study.runs[run], key=f"{study.name}-r{run}-a{attempt}-{token}",
                     priority=-run)
        pending[f] = (run, attempt)
        return f

    try:
        summary.workers = len(c.scheduler_info(n_workers=-1)["workers"])
        summary.warm_times = _warm(c, slim)
        t_runs = time.perf_counter()
        queue = as_completed([submit(k, 1) for k in todo])
        last_table = time.monotonic()
        while pending:
            batch = queue.next_batch(block=False) if queue.has_ready() else []
            for f in batch:
                run, attempt = pending.pop(f)
                record = _outcome(f, run)
                if record["status"] != "ok" and attempt == 1:
                    summary.retried += 1
                    queue.add(submit(run, 2))
                    continue
                t_store = time.perf_counter()
                entry = store.add(record, study.runs[run], attempt, sync=False)
                summary.store_time += time.perf_counter() - t_store
                summary.ran += 1
                summary.ok += entry["status"] == "ok"
                summary.failed += entry["status"] != "ok"
                summary.run_time = time.perf_counter() - t_runs
                if on_result is not None:
                    on_result(entry, summary)
            if batch:
                t_store = time.perf_counter()
                store.sync()   # one fsync per batch of results: the driver keeps up with many workers
                summary.store_time += time.perf_counter() - t_store
            if time.monotonic() - last_table > TABLE_INTERVAL:
                t_store = time.perf_counter()
                store.write_table()
                summary.store_time += time.perf_counter() - t_store
                last_table = time.monotonic()
            bar.draw(summary.ok + summary.failed, summary.failed, lambda: _running(c, pending, summary.workers))
            if not batch:
                time.sleep(0.05)
    except KeyboardInterrupt:
        summary.interrupted = True
        c.cancel(list(pending))
        raise
    finally:
        summary.table = store.write_table()
        store.close()
        bar.draw(summary.ok + summary.failed, summary.failed, 0, final=True)
        for thing in owned:
            thing.close()
        summary.wall_time = time.perf_counter() - t0
    return summary


def _task(study: Study, run: int, values: dict) -> dict:
    """runners.execute on a worker, with the histories encoded there as Parquet bytes (the driver only writes
    them: encoding ~3 ms a run would otherwise be serial in the driver)."""
    record = execute(study, run, values)
    hist = record.pop("history", None)
    if hist:
        record["history_parquet"] = history_bytes(hist)
    return record


def _count(store: ResultStore, summary: StudySummary) -> None:
    statuses = [r["status"] for r in store.records.values()]
    summary.ok, summary.failed = statuses.count("ok"), statuses.count("failed")


def _running(client, pending: dict, workers: int) -> int:
    try:
        busy = sum(len(v) for v in client.processing().values())
    except Exception:
        busy = len(pending)
    return min(busy, len(pending), max(workers, 1))


def _outcome(future, run: int) -> dict:
    """The run's record, or a failed record when the task itself failed (its worker process died, it was lost)."""
    if future.status == "finished":
        return future.result()
    try:
        exc = future.exception()
        what = f"{type(exc).__name__}: {exc}"
    except Exception as err:   # cancelled by the scheduler
        what = f"{type(err).__name__}: {err}"
    return {"run": run, "status": "failed", "reason": f"the worker process died or lost the run ({what})"[:500],
            "log": "(no FMU log: it went with the worker process)", "scalars": {}, "history": {},
            "wall_time": math.nan, "worker": ""}
