"""Start-up without scipy.linalg (fmu_mbs/startup.py, analyses/linear.py): numba's BLAS check is satisfied by
scipy's BLAS extension module loaded alone, and the redundant-row selection takes scipy's pivoted QR only for a
rank-deficient constraint Jacobian, with the same answer as that QR."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import scipy.linalg as sla

from fmu_mbs.analyses.linear import RANK_TOL, independent_rows

PROBE = """
import sys
import numpy as np
import fmu_mbs
from fmu_mbs.analyses.linear import independent_rows
from numba import njit
njit(lambda x: x + 1)(1)                      # numba's first kernel: its array-math module checks BLAS here
import numba.np.arraymath as am
J = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])
full = independent_rows(J)
before = "scipy.linalg" in sys.modules
red = independent_rows(np.vstack([J, J[:1]]))
import json
print(json.dumps([am._HAVE_BLAS, before, "scipy.linalg" in sys.modules, full[0].tolist(), red[1].tolist()]))
"""


def test_no_scipy_linalg_until_a_redundant_row():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, check=True)
    blas, before, after, full, redundant = json.loads(out.stdout.strip().splitlines()[-1])
    assert blas                                  # numba found BLAS (the preloaded module)
    assert not before                            # a full-rank Jacobian: numpy only
    assert after and full == [0, 1] and redundant == [2]


def _qr_rows(J: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference: pivoted QR of J^T, rank by the diagonal of R against RANK_TOL."""
    _, R, piv = sla.qr(J.T, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > RANK_TOL * d[0]))
    return np.sort(piv[:rank]), np.sort(piv[rank:])


def test_independent_rows_agree_with_pivoted_qr():
    rng = np.random.default_rng(7)
    cases = []
    for m, n in ((3, 6), (8, 44), (12, 12), (5, 7)):
        J = rng.standard_normal((m, n))
        cases += [J, np.vstack([J, J[1] + J[2]]), np.vstack([J, 2.0 * J[:2]])]
        near = J.copy()
        near[-1] = near[0] + 1e-12 * rng.standard_normal(n)   # dependent within the rank tolerance
        cases.append(near)
    cases.append(np.diag([1.0, 1e-3, 1e-6]))                   # graded but full rank
    for J in cases:
        got, want = independent_rows(J), _qr_rows(J)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), J.shape
