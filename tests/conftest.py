"""Test-session setup. Our dense systems are small (tens to hundreds of unknowns): multi-threaded BLAS only adds
thread hand-off cost there (measured 3-6x slower on the 2-core CI machine), so the tests use one BLAS thread.
This must happen before numpy is first imported."""

import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
