"""Compile the kernels of the library copy that FMUs carry in a background process, while a one-process test session
compiles the installed library's (started by conftest.py when that copy's kernel cache is empty and the tests do
not run on two or more xdist workers: those compile the copy's kernels in their own FMU builds).

An FMU imports its own copy of the library under another name (adapters/fmu_build.py), and numba's cache records
module names, so a fresh machine compiles every kernel twice: once for the library, once for the FMUs' copy, each
several minutes of one core. Building the catalogue's FMUs here compiles the copy's kernels for the generic CPU
(adapters/kernel_precompile.py: every switch setting; a test that builds an FMU meanwhile waits for a kernel this
process is compiling instead of compiling it too, kernels/compile_lock.py), on the core the session leaves idle.
Running the FMUs for a few steps with every integrator then loads them. Nothing is asserted; failures are the
tests' business.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

MODELS = Path(__file__).resolve().parents[1] / "models"
RUNS = {"double_pendulum": ({}, {"solver.integrator": 1}, {"solver.integrator": 2}, {"solver.scheme": 1}),
        "bouncing_ball": ({}, {"solver.integrator": 2})}


def _stop_with_the_session(parent: int, folder: str) -> None:
    """Once the test session that started this process is gone (it kills the warmer in pytest_sessionfinish, which a
    SIGTERM skips), remove the FMU folder and kill the process group (this process and a build's precompile child)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    shutil.rmtree(folder, ignore_errors=True)
    os.killpg(0, signal.SIGKILL)


def main(folder: str) -> None:
    """Build and run the catalogue's FMUs in ``folder`` (the caller's to remove: a kill leaves it behind)."""
    from fmpy import simulate_fmu

    from fmu_mbs.adapters.fmu_build import build_fmu
    # fmpy extracts each FMU it simulates into a temporary folder: inside ours, so that a kill leaves nothing in the
    # system's (a one-process test run left one unpacked FMU there per run)
    tempfile.tempdir = folder
    os.environ["TMPDIR"] = folder
    threading.Thread(target=_stop_with_the_session, args=(os.getppid(), folder), daemon=True).start()
    for path in sorted(MODELS.glob("*.json")):
        try:
            fmu = build_fmu(path, folder, validate=False)
            for start in RUNS.get(path.stem, ({},)):
                simulate_fmu(str(fmu), stop_time=0.02, step_size=0.01, start_values=start)
        except Exception as exc:  # noqa: BLE001 - warming only: the tests report real failures
            print(f"warming {path.stem}: {exc}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory(prefix="fmu_mbs_warm_") as tmp:
            main(tmp)
