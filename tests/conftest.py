"""Test-session setup. Our dense systems are small (tens to hundreds of unknowns): multi-threaded BLAS only adds
thread hand-off cost there (measured 3-6x slower on the 2-core CI machine), so the tests use one BLAS thread.
This must happen before numpy is first imported."""

import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


# --- process exit -------------------------------------------------------------------------------------------
# About 1 in 100 Python processes that ran a pythonfmu 0.7.0 FMU abort at interpreter exit ("corrupted
# double-linked list", detected in a library destructor during _dl_fini), after every result is out; measured by
# the masters test, consistent with upstream NTNU-IHB/PythonFMU#228. The tests here run FMUs in-process, so once
# pytest has reported, the session ends with os._exit(status): pytest's own status, without the destructors.
_STATUS = {"code": None}


def pytest_sessionfinish(session, exitstatus):
    _STATUS["code"] = int(exitstatus)


def pytest_unconfigure(config):
    if _STATUS["code"] is not None and any(name.startswith("fmu_mbs_") for name in __import__("sys").modules):
        import sys
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_STATUS["code"])
