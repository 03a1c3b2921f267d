"""Assembly of a beam body (a line of 3D beam elements) from node positions and section properties."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import ModelError
from .beam import THEORIES, BeamSection, global_matrices
from .body import FEBody


@dataclass(frozen=True)
class BeamMesh:
    """The elements of a beam body: node rows (e, 2), one section and one resolved 'up' vector (e, 3) per element,
    the theory and the rotary-inertia choice."""

    elements: np.ndarray
    sections: tuple[BeamSection, ...]
    ups: np.ndarray
    theory: str
    rotary_inertia: bool | None


def beam_body(nodes: np.ndarray, section: BeamSection | Sequence[BeamSection], elements: np.ndarray | None = None,
              up: Sequence[float] | np.ndarray = (0.0, 1.0, 0.0), theory: str = "timoshenko",
              rotary_inertia: bool | None = None, name: str = "beam") -> FEBody:
    """FE body of 2-node beam elements (6 DOF per node, body-frame coordinates in m).

    nodes: (n, 3); elements: (e, 2) node rows, default a chain 0-1-2-...; section: one for all elements or one per
    element; up: the vector that fixes each element's local y axis (one, or (e, 3)); for an element along it the
    first of global y, z, x that is not (so by default a beam along x has local axes = global axes);
    theory: 'timoshenko' or 'euler-bernoulli'. Consistent mass (see fe.beam)."""
    nodes = np.asarray(nodes, float)
    if nodes.ndim != 2 or nodes.shape[1] != 3 or len(nodes) < 2:
        raise ModelError(f"{name}: nodes must be an (n >= 2, 3) array, got shape {nodes.shape}")
    if theory not in THEORIES:
        raise ModelError(f"{name}: theory '{theory}' is unknown; use one of {THEORIES}")
    el = np.column_stack([np.arange(len(nodes) - 1), np.arange(1, len(nodes))]) if elements is None \
        else np.asarray(elements, int)
    if el.ndim != 2 or el.shape[1] != 2 or el.min() < 0 or el.max() >= len(nodes):
        raise ModelError(f"{name}: elements must be (e, 2) node rows in 0..{len(nodes) - 1}")
    sections = [section] * len(el) if isinstance(section, BeamSection) else list(section)
    if len(sections) != len(el):
        raise ModelError(f"{name}: {len(sections)} sections for {len(el)} elements")
    for k, s in enumerate(sections):
        s.check(f"{name} element {k} section")
    ups = np.broadcast_to(np.asarray(up, float), (len(el), 3))
    rows, cols, kv, mv, used = [], [], [], [], []
    for k, (a, b) in enumerate(el):
        axis = nodes[b] - nodes[a]
        u = ups[k]
        for cand in (u, np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])):
            if np.linalg.norm(np.cross(axis, cand)) > 1e-6 * np.linalg.norm(axis) * np.linalg.norm(cand):
                u = cand
                break
        used.append(u)
        ke, me = global_matrices(nodes[a], nodes[b], u, sections[k], theory, rotary_inertia)
        d = np.r_[np.arange(6 * a, 6 * a + 6), np.arange(6 * b, 6 * b + 6)]
        rows.append(np.repeat(d, 12))
        cols.append(np.tile(d, 12))
        kv.append(ke.ravel())
        mv.append(me.ravel())
    n = 6 * len(nodes)
    r, c = np.concatenate(rows), np.concatenate(cols)
    K = sp.csr_matrix((np.concatenate(kv), (r, c)), shape=(n, n))
    M = sp.csr_matrix((np.concatenate(mv), (r, c)), shape=(n, n))
    mesh = BeamMesh(elements=el, sections=tuple(sections), ups=np.array(used), theory=theory,
                    rotary_inertia=rotary_inertia)
    return FEBody(nodes=nodes, M=M, K=K, dofs_per_node=6, name=name, beam=mesh)


def straight_beam(length: float, n_elements: int, section: BeamSection, theory: str = "timoshenko",
                  start: Sequence[float] = (0.0, 0.0, 0.0), direction: Sequence[float] = (1.0, 0.0, 0.0),
                  up: Sequence[float] = (0.0, 1.0, 0.0), rotary_inertia: bool | None = None,
                  name: str = "beam") -> FEBody:
    """A straight beam of ``length`` (m) from ``start`` along ``direction``, ``n_elements`` equal elements."""
    if n_elements < 1:
        raise ModelError(f"{name}: n_elements must be >= 1, got {n_elements}")
    e = np.asarray(direction, float)
    e = e / np.linalg.norm(e)
    nodes = np.asarray(start, float) + np.outer(np.linspace(0.0, length, n_elements + 1), e)
    return beam_body(nodes, section, up=up, theory=theory, rotary_inertia=rotary_inertia, name=name)
