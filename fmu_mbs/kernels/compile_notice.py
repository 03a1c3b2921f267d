"""Say so while numba compiles this library's kernels: a first run on a machine compiles for minutes, and a user
who sees nothing for minutes thinks the tool hung.

numba broadcasts a ``"numba:compile"`` event around every compile its cache could not serve (numba.core.event; a
kernel loaded from the cache is no compile). One listener per process follows the events of our kernels (those a
locator of ours caches: compile_lock.lock_path), per library copy (the installed ``fmu_mbs`` and each FMU's
``fmu_mbs_<hash>``), and tells that copy's reporter, a callable(message):

- at the first compile: "compiling kernels (first run only: ...; later runs load them from <folder>)";
- at the next compile event once ``interval`` s have passed since the last line: "still compiling kernels: N
  compiled, T s" (N: kernels whose compile has started, T: wall time since the first);
- when the process ends after compiles (default reporter only): "compiled N kernels in T s".

Messages are sent from the compiling thread (an FMU's FMI logger is not called from a thread the host does not
know). The default reporter writes to standard error (the CLI, the Python API, a build's precompile run);
``FMU_MBS_COMPILE_NOTICE=0`` silences it and ``FMU_MBS_COMPILE_NOTICE_INTERVAL`` sets the interval (s, default
20). An FMU sets its own (the FMI log) with :func:`set_reporter`.
"""

from __future__ import annotations

import atexit
import os
import sys
import time
import weakref
from collections.abc import Callable

from .compile_lock import lock_path

NOTICE = "compiling kernels (first run only: minutes of CPU; later runs load them from {folder})"
DEFAULT_INTERVAL = 20.0     # s between two "still compiling" lines


def _shared() -> dict:
    """Process-wide state, kept on numba's event module so that a copy of the library imported again (an FMU's, from
    another extraction folder) finds the listener already registered and its copy's reporter."""
    from numba.core import event

    return event.__dict__.setdefault("_fmu_mbs_compile_notice", {"registered": False, "copies": {}})


def _seconds_between_lines() -> float:
    try:
        return max(float(os.environ.get("FMU_MBS_COMPILE_NOTICE_INTERVAL", DEFAULT_INTERVAL)), 0.0)
    except ValueError:
        return DEFAULT_INTERVAL


def _stderr(message: str) -> None:
    print(f"fmu-mbs: {message}", file=sys.stderr, flush=True)


class _Copy:
    """What one library copy has compiled in this process, and where its messages go."""

    def __init__(self) -> None:
        self.reporter: Callable[[], Callable[[str], None] | None] | None = None    # None: the default
        self.first_line = True
        self.count = 0
        self.t_first = 0.0
        self.t_last_line = 0.0

    def report(self) -> Callable[[str], None] | None:
        if self.reporter is None:
            return None if os.environ.get("FMU_MBS_COMPILE_NOTICE", "1") == "0" else _stderr
        return self.reporter()


def _copy(package: str) -> _Copy:
    copies = _shared()["copies"]
    if package not in copies:
        copies[package] = _Copy()
    return copies[package]


def hold(report: Callable[[str], None] | None) -> Callable[[], Callable[[str], None] | None] | None:
    """A getter of ``report`` that does not keep its object alive (a bound method, e.g. an FMU instance's logger, is
    held weakly: the getter returns None once the instance is gone); None for None."""
    if report is None:
        return None
    if hasattr(report, "__self__"):
        return weakref.WeakMethod(report)
    return lambda: report


def set_reporter(report: Callable[[str], None] | None, package: str | None = None, first_line: bool = True) -> None:
    """Send the compile messages of library copy ``package`` (default: this one) to ``report`` (a bound method is
    held weakly; None: back to the default, standard error). ``first_line=False``: no first notice (the reporter
    gets it elsewhere), only the progress lines. Starts a new count."""
    c = _copy(package or __name__.split(".")[0])
    c.reporter = hold(report)
    c.first_line = first_line
    c.count = 0


def compiled(package: str | None = None) -> tuple[int, float]:
    """(kernels whose compile started, wall seconds since the first) for library copy ``package`` in this process."""
    c = _copy(package or __name__.split(".")[0])
    return c.count, (time.monotonic() - c.t_first) if c.count else 0.0


def _on_compile(dispatcher) -> None:
    path = lock_path(dispatcher)
    if path is None:            # not one of our kernels
        return
    c = _copy(dispatcher.py_func.__module__.split(".")[0])
    now = time.monotonic()
    c.count += 1
    report = c.report()
    if c.count == 1:
        c.t_first = c.t_last_line = now
        if report is not None and c.first_line:
            report(NOTICE.format(folder=os.path.dirname(path)))
    elif report is not None and now - c.t_last_line >= _seconds_between_lines():
        c.t_last_line = now
        report(f"still compiling kernels: {c.count} compiled, {now - c.t_first:.0f} s")


def _at_exit() -> None:
    for c in list(_shared()["copies"].values()):
        if c.count and c.reporter is None:
            report = c.report()
            if report is not None:
                report(f"compiled {c.count} kernel{'s' if c.count != 1 else ''} in "
                       f"{time.monotonic() - c.t_first:.0f} s (once: later runs load them from the cache)")


def install() -> None:
    """Register the listener (once per process)."""
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - a numba without the event API: compiles stay silent
        return
    state = _shared()
    if state["registered"]:
        return

    class Listener(event.Listener):
        def on_start(self, ev) -> None:
            data = ev.data if isinstance(ev.data, dict) else {}
            try:
                _on_compile(data.get("dispatcher"))
            except Exception:      # noqa: BLE001 - a message must never break a compile
                pass

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", Listener())
    atexit.register(_at_exit)
    state["registered"] = True
