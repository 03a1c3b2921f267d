"""A child process of an FMU build: pythonfmu's description step (adapters/fmu_build.py) and the kernel precompile
workload (adapters/kernel_precompile.py) run the staged library copy in a process of their own, never in the
building one. Both pass the child's compile notices on as they come, named with the FMU, so that a first build
says how far it got, and both give up after a timeout instead of hanging the build."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

NOTICE = "fmu-mbs: "    # the prefix of the library's compile notices (kernels/compile_notice.py)


@dataclass(frozen=True)
class ChildRun:
    """What a build child printed (standard error merged into standard output) and how it ended."""

    returncode: int
    lines: list[str]
    timed_out: bool

    def failure(self, what: str, fmu_name: str, timeout: float) -> str:
        """The error message of a failed child: what it did, how it ended, the tail of its output."""
        how = f"killed after {timeout:.0f} s" if self.timed_out else f"exit {self.returncode}"
        return f"{what} of '{fmu_name}' failed ({how}):\n" + "".join(self.lines)[-3000:]


def run_build_child(code: str, args: list[str], fmu_path: Path, env: dict[str, str], timeout: float,
                    echo_all: bool = False, cwd: Path | None = None) -> ChildRun:
    """Run ``python -c code *args`` with the environment ``env`` added to this one's (NUMBA_CACHE_DIR dropped: the
    child's kernels go where ``env`` says, FMU_MBS_CACHE_DIR). Every line that carries a compile notice is echoed on
    standard error as ``fmu-mbs: <fmu>: ...`` while the child runs; with ``echo_all`` every other line too
    (warnings of pythonfmu's build). The child is killed after ``timeout`` seconds."""
    full = dict(os.environ, PYTHONUNBUFFERED="1", **env)
    full.setdefault("OPENBLAS_NUM_THREADS", "1")
    full.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line)
            text = line.rstrip()
            if NOTICE in text and "compiling" in text:
                print(f"{NOTICE}{fmu_path.name}: {text.split(NOTICE, 1)[1]}", file=sys.stderr, flush=True)
            elif echo_all:
                print(text, file=sys.stderr, flush=True)
        proc.wait()
    finally:
        timed_out = not timer.is_alive() and proc.returncode == -9
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return ChildRun(proc.returncode, lines, timed_out)
