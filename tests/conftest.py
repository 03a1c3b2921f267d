"""Test-session setup. Our dense systems are small (tens to hundreds of unknowns): multi-threaded BLAS only adds
thread hand-off cost there (measured 3-6x slower on the 2-core CI machine), so the tests use one BLAS thread.
This must happen before numpy is first imported."""

import os
from pathlib import Path

import pytest

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


# --- the FMUs' kernel cache, on the second core ---------------------------------------------------------------------
# FMUs carry their own copy of the library (another import name, so another numba cache). On a fresh machine its
# kernels would compile after the library's, one core busy and the other idle: several minutes of a one-process
# run. tests/warm_fmu_kernels.py fills that cache in a background process while the session compiles the library's.
_WARMER = {"process": None}


def _fmu_kernel_cache_is_empty() -> bool:
    """True when the generic-CPU kernels that FMUs of this library version ship are not compiled yet."""
    from fmu_mbs.adapters.fmu_build import vendored_package_name
    from fmu_mbs.adapters.kernel_precompile import portable_cache_root
    from fmu_mbs.kernels import kernel_cache_dir
    path = os.path.join(portable_cache_root(), os.path.basename(kernel_cache_dir(vendored_package_name())))
    return not (os.path.isdir(path) and any(name.endswith(".nbi") for name in os.listdir(path)))


def _test_workers(config) -> int:
    """pytest-xdist workers of this run (0: none, the tests run in this process)."""
    n = getattr(config.option, "numprocesses", None)
    return n if isinstance(n, int) else (2 if n else 0)


def pytest_sessionstart(session):
    # Only a single test process leaves a core idle for the warmer. With two or more xdist workers the workers'
    # own FMU builds compile the copy's kernels (kernels/compile_lock.py shares them), and the warmer only added
    # CPU: fresh-clone runs on 2 cores, 2026-11-27, 32.0 min with it (61.5 CPU-min), 31.3 min without (55.9).
    if (os.environ.get("FMU_MBS_NO_WARM") or hasattr(session.config, "workerinput")
            or _test_workers(session.config) >= 2 or not _fmu_kernel_cache_is_empty()):
        return
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "warm_fmu_kernels.py")
    # its own process group: the build's precompile child is killed with it at the end of a short session (it was
    # left compiling, orphaned, for minutes)
    import tempfile
    _WARMER["folder"] = tempfile.mkdtemp(prefix="fmu_mbs_warm_")     # removed in pytest_sessionfinish
    _WARMER["process"] = subprocess.Popen([sys.executable, script, _WARMER["folder"]], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                          start_new_session=True)


# --- process exit -------------------------------------------------------------------------------------------
# fmu-mbs FMUs now carry their own binary (adapters/native/), which leaves nothing to run at exit (bench/fmu_exit.py
# counts clean exits). The partner FMUs of integration/partners/ still carry pythonfmu 0.7.0's binary, and about 1 in
# 100 Python processes that ran one abort at interpreter exit ("corrupted double-linked list", in a library
# destructor during _dl_fini; upstream NTNU-IHB/PythonFMU#228). The session loads them in-process, so once pytest
# has reported, it ends with os._exit(status): pytest's own status, without the destructors.
_STATUS = {"code": None}


def pytest_sessionfinish(session, exitstatus):
    _STATUS["code"] = int(exitstatus)
    warmer = _WARMER["process"]
    if warmer is not None and warmer.poll() is None:
        import signal
        try:
            os.killpg(warmer.pid, signal.SIGKILL)
        except OSError:
            warmer.kill()
        warmer.wait()
    if _WARMER.get("folder"):           # the warmer's FMUs (a killed warmer leaves them)
        import shutil
        shutil.rmtree(_WARMER["folder"], ignore_errors=True)


def pytest_unconfigure(config):
    if _STATUS["code"] is not None and any(name.startswith("fmu_mbs_") for name in __import__("sys").modules):
        import sys
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_STATUS["code"])


# --- temporary files ------------------------------------------------------------------------------------------
# fmpy's extract() and the FMU hosts leave unpacked FMUs (tens of MB each) in the temporary folder: about 50 per run
# were left in the system's. Each test process (and the processes it starts: TMPDIR) puts them in a folder of the
# run's own temporary root instead, removed when the process's session ends.
@pytest.fixture(scope="session", autouse=True)
def _temporary_files_of_the_run(tmp_path_factory):
    import shutil
    import tempfile
    folder = tmp_path_factory.mktemp("tempfiles")
    before = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir = str(folder)
    os.environ["TMPDIR"] = str(folder)
    yield folder
    tempfile.tempdir = before[0]
    if before[1] is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before[1]
    shutil.rmtree(folder, ignore_errors=True)


# --- catalogue FMUs, built once per session ---------------------------------------------------------------------
# Building an FMU (copy the library, pythonfmu, compile the C shim, collect the precompiled kernels, fmpy validate)
# takes seconds; many test files need the same catalogue FMUs, so they share one build per model and session.
_MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.fixture(scope="session")
def catalogue_fmu(tmp_path_factory):
    """``catalogue_fmu(name)``: the FMU of ``models/<name>.json``, built on first use in this session. Shared by
    every test: never modify the file (copy it first)."""
    from fmu_mbs.adapters.fmu_build import build_fmu

    built: dict[str, Path] = {}
    # the run's temporary root: pytest-xdist's workers share each build (a lock per model)
    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root

    def get(name: str) -> Path:
        if name not in built:
            import fcntl
            folder = root / f"catalogue_{name}"
            with open(root / f"catalogue_{name}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                done = folder / "built"
                if not done.exists():
                    folder.mkdir(exist_ok=True)
                    done.write_text(build_fmu(_MODELS / f"{name}.json", folder).name)
                built[name] = folder / done.read_text()
        return built[name]

    return get
