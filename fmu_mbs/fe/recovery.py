"""Section forces and stresses of beam bodies, per displacement field or per mode (stress modes).

Element end forces f = K_e T u_e in local axes (K_e, T from fe.beam). The section force at a cut is the force the
part beyond the cut (larger local x) exerts on the part before it: at the element's first node S = -f_1, at its
second S = +f_2. Components [N, Qy, Qz, T, My, Mz] (N, N m, local axes). Normal stress at a section point (y, z):
sigma_xx = N/A + My z/Iy - Mz y/Iz (Euler-Bernoulli bending of a principal-axis section).
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from .beam import element_rotation, local_matrices
from .body import FEBody
from .modeset import ModeSet

COMPONENTS = ("N", "Qy", "Qz", "T", "My", "Mz")


def _mesh(body: FEBody):
    if body.beam is None:
        raise ModelError(f"{body.name}: section forces need a body assembled from beam elements")
    return body.beam


def section_forces(body: FEBody, u: np.ndarray) -> np.ndarray:
    """(e, 2, 6, ...) section forces at both ends of every element for displacements u (n_dofs, ...)."""
    mesh = _mesh(body)
    u = np.asarray(u, float)
    out = np.zeros((len(mesh.elements), 2, 6) + u.shape[1:])
    for k, (a, b) in enumerate(mesh.elements):
        R = element_rotation(body.nodes[a], body.nodes[b], mesh.ups[k])
        T = np.kron(np.eye(4), R)
        L = float(np.linalg.norm(body.nodes[b] - body.nodes[a]))
        K, _ = local_matrices(L, mesh.sections[k], mesh.theory, mesh.rotary_inertia)
        ue = np.concatenate([u[6 * a:6 * a + 6], u[6 * b:6 * b + 6]])
        f = K @ np.tensordot(T, ue, axes=1)
        out[k, 0] = -f[:6]
        out[k, 1] = f[6:]
    return out


def section_force_modes(ms: ModeSet) -> np.ndarray:
    """(e, 2, 6, m): section forces per unit modal coordinate, S = sum_k eta_k S[..., k]."""
    return section_forces(ms.body, ms.basis)


def normal_stress(body: FEBody, forces: np.ndarray, element: int, y: float, z: float) -> np.ndarray:
    """sigma_xx (Pa) at section point (y, z) (m, local axes) at both ends of ``element`` from section forces
    (the output of section_forces or section_force_modes)."""
    s = _mesh(body).sections[element]
    f = forces[element]
    return f[:, 0] / s.A + f[:, 4] * z / s.Iy - f[:, 5] * y / s.Iz
