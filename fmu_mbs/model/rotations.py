"""Rotation matrices of the unit quaternions [w, x, y, z] (Euler parameters e0..e3) that model files and results
carry, in numpy: the twin of kernels.rotation.quat_to_matrix for code that must not compile a kernel (lowering a
model, output channels, the viewer)."""

from __future__ import annotations

import numpy as np


def quat_matrix(q) -> np.ndarray:
    """A = (2 e0^2 - 1) I + 2 (e e^T + e0 skew(e)) of q / |q| (Nikravesh 1988, §6), 3 x 3."""
    e0, e1, e2, e3 = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[2 * (e0 * e0 + e1 * e1) - 1, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                     [2 * (e1 * e2 + e0 * e3), 2 * (e0 * e0 + e2 * e2) - 1, 2 * (e2 * e3 - e0 * e1)],
                     [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 2 * (e0 * e0 + e3 * e3) - 1]])
