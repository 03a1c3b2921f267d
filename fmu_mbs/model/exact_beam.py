"""A geometrically exact beam as one description (``GeometricallyExactBeam``) and its expansion into what the solver
runs: node bodies (spatial rigid bodies, or planar bodies in a planar model, with the lumped mass and rotary inertia
of their half elements), one marker per node (at the node, axes = the section frame: x along the beam) and a
``BeamElement`` between each two consecutive nodes (model/gebeam.py; kernels/families/gebeam.py has the equations).
Joints, forces, contacts, loads and FMU ports attach to the node markers exactly as to any marker on a rigid body.

Names: node bodies ``<beam>_node<k>``, node markers ``<beam>_n<k>`` (k = 0 .. n_elements), elements ``<beam>_e<k>``
(k = 1 .. n_elements)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from .elements import Marker, PlanarBody, RigidBody
from .fields import Vec, param
from .gebeam import BeamElement

POINT = {2: "[x, y]", 3: "[x, y, z]"}


@dataclass(frozen=True)
class GeometricallyExactBeam:
    """A beam through ``nodes`` (world, m; at least 2), or a straight one from ``start`` to ``end`` in
    ``n_elements`` equal elements, with a uniform section: E, G, rho, area, Iy, Iz (second moments about the
    section's y and z axes), J (torsion constant), shear factor k (GA_y = GA_z = k G A), Ip (polar moment for the
    rotary inertia, default Iy + Iz). The section's y axis is the part of ``up`` normal to the beam (default global
    y; global z where the beam runs along y). The initial shape is stress free. In a planar model the points are
    [x, y], the nodes are planar bodies, the section's y axis lies in the plane and z is the plane's normal (in-plane
    bending: EI_z, GA_y; rotary inertia rho Iz per length), and ``up`` is not used."""

    name: str
    E: float = param("Pa", "Young's modulus")
    G: float = param("Pa", "shear modulus")
    rho: float = param("kg/m^3", "density")
    area: float = param("m^2", "section area")
    Iy: float = param("m^4", "second moment of area about the section's y axis")
    Iz: float = param("m^4", "second moment of area about the section's z axis")
    J: float = param("m^4", "torsion constant")
    nodes: tuple[Vec, ...] = param("m", "node positions, world (or start, end and n_elements)", ())
    start: Vec = param("m", "start of a straight beam, world", ())
    end: Vec = param("m", "end of a straight beam, world", ())
    n_elements: int = param("", "elements of a straight beam", 0)
    shear_factor: float = param("1", "shear correction factor k", 5.0 / 6.0)
    Ip: float = param("m^4", "polar moment of area for the rotary inertia; 0 = Iy + Iz", 0.0)
    up: Vec = param("1", "direction of the section's y axis (its part normal to the beam)", (0.0, 1.0, 0.0))
    damping: float = param("s", "stiffness-proportional damping beta", 0.0)

    def node_positions(self) -> np.ndarray:
        """(n + 1, 3) node positions (m), world (z = 0 for planar points)."""
        if self.nodes:
            x = np.array(self.nodes, dtype=float)
        else:
            a, b = np.array(self.start, dtype=float), np.array(self.end, dtype=float)
            x = a + np.linspace(0.0, 1.0, self.n_elements + 1)[:, None] * (b - a)
        return np.hstack([x, np.zeros((len(x), 1))]) if x.shape[1] == 2 else x

    def problems(self, dimension: int = 3) -> list[str]:
        """Everything wrong with the description in a model of ``dimension``, each naming the beam."""
        w = f"beam '{self.name}'"
        p = []
        for f in ("E", "G", "rho", "area", "Iy", "Iz", "J", "shear_factor"):
            v = getattr(self, f)
            if not (math.isfinite(v) and v > 0.0):
                p.append(f"{w}: '{f}' must be finite and > 0, got {v}")
        for f in ("Ip", "damping"):
            v = getattr(self, f)
            if not (math.isfinite(v) and v >= 0.0):
                p.append(f"{w}: '{f}' must be finite and >= 0, got {v}")
        if self.nodes and (self.start or self.end or self.n_elements):
            p.append(f"{w}: give either 'nodes' or 'start', 'end' and 'n_elements', not both")
        elif self.nodes:
            if len(self.nodes) < 2 or any(len(x) != dimension for x in self.nodes):
                p.append(f"{w}: 'nodes' needs at least 2 points {POINT[dimension]}")
        elif len(self.start) != dimension or len(self.end) != dimension or self.n_elements < 1:
            p.append(f"{w}: a straight beam needs 'start' and 'end' {POINT[dimension]} and 'n_elements' >= 1")
        if p:
            return p
        x = self.node_positions()
        seg = np.linalg.norm(np.diff(x, axis=0), axis=1)
        if not np.all(np.isfinite(x)) or np.min(seg) <= 0.0:
            p.append(f"{w}: consecutive nodes must be distinct (element {int(np.argmin(seg)) + 1} has length 0)")
        elif len(self.up) != 3 or not np.linalg.norm(self.up) > 0.0:
            p.append(f"{w}: 'up' must be a non-zero vector [x, y, z]")
        return p


def _frame(t: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Axes (columns) with x along t and y the part of ``up`` normal to t (global z, then x if parallel)."""
    x = t / np.linalg.norm(t)
    for u in (up, np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])):
        y = u - x * (x @ u)
        if np.linalg.norm(y) > 1e-6 * np.linalg.norm(u):
            y /= np.linalg.norm(y)
            return np.column_stack([x, y, np.cross(x, y)])
    raise AssertionError("unreachable")


def _quaternion(A: np.ndarray) -> tuple[float, float, float, float]:
    """Unit quaternion [w, x, y, z] of the rotation matrix A."""
    w = math.sqrt(max(1.0 + np.trace(A), 0.0)) / 2.0
    if w > 1e-3:
        q = np.array([w, (A[2, 1] - A[1, 2]) / (4 * w), (A[0, 2] - A[2, 0]) / (4 * w), (A[1, 0] - A[0, 1]) / (4 * w)])
    else:
        i = int(np.argmax(np.diag(A)))
        j, k = (i + 1) % 3, (i + 2) % 3
        v = np.zeros(4)
        v[i + 1] = math.sqrt(max(1.0 + A[i, i] - A[j, j] - A[k, k], 0.0)) / 2.0
        v[0] = (A[k, j] - A[j, k]) / (4 * v[i + 1])
        v[j + 1] = (A[j, i] + A[i, j]) / (4 * v[i + 1])
        v[k + 1] = (A[k, i] + A[i, k]) / (4 * v[i + 1])
        q = v if v[0] >= 0 else -v
    q = q / np.linalg.norm(q)
    return tuple(float(c) for c in q)


def expand(beam: GeometricallyExactBeam, dimension: int = 3) \
        -> tuple[list[RigidBody | PlanarBody], list[Marker], list[BeamElement]]:
    """The node bodies, node markers and beam elements of ``beam`` in a model of ``dimension`` (module docstring);
    ModelError listing every problem of the description."""
    p = beam.problems(dimension)
    if p:
        raise ModelError("\n".join(p))
    x = beam.node_positions()
    n = len(x) - 1
    seg = np.diff(x, axis=0)
    lengths = np.linalg.norm(seg, axis=1)
    up = np.array(beam.up, dtype=float)
    ip = beam.Ip or beam.Iy + beam.Iz
    bodies, markers, elements = [], [], []
    for k in range(n + 1):
        t = seg[min(k, n - 1)] / lengths[min(k, n - 1)]
        if 0 < k < n:                        # interior node: the mean of the neighbouring elements' directions
            t = t + seg[k - 1] / lengths[k - 1]
        half = 0.5 * (lengths[k - 1] if k > 0 else 0.0) + 0.5 * (lengths[k] if k < n else 0.0)
        m = beam.rho * beam.area * half
        if dimension == 2:
            bodies.append(PlanarBody(f"{beam.name}_node{k}", mass=m, inertia=beam.rho * beam.Iz * half,
                                     position=(float(x[k, 0]), float(x[k, 1])), angle=math.atan2(t[1], t[0])))
        else:
            inertia = tuple(tuple(float(v) for v in row) for row in np.diag([beam.rho * ip * half,
                                                                             beam.rho * beam.Iy * half,
                                                                             beam.rho * beam.Iz * half]))
            bodies.append(RigidBody(f"{beam.name}_node{k}", mass=m, inertia=inertia,
                                    position=tuple(map(float, x[k])), orientation=_quaternion(_frame(t, up))))
        markers.append(Marker(f"{beam.name}_n{k}", body=f"{beam.name}_node{k}"))
    ga = beam.shear_factor * beam.G * beam.area
    for k in range(1, n + 1):
        elements.append(BeamElement(f"{beam.name}_e{k}", f"{beam.name}_n{k - 1}", f"{beam.name}_n{k}",
                                    EA=beam.E * beam.area, GA_y=ga, GA_z=ga, GJ=beam.G * beam.J,
                                    EI_y=beam.E * beam.Iy, EI_z=beam.E * beam.Iz, damping=beam.damping))
    return bodies, markers, elements


def add_geometrically_exact_beam(builder, beam: GeometricallyExactBeam) -> list[str]:
    """Adds ``beam``'s node bodies, node markers and elements to a ModelBuilder; returns the node marker names."""
    bodies, markers, elements = expand(beam, builder.dimension)
    for b in bodies:
        if isinstance(b, PlanarBody):
            builder.add_planar_body(b.name, b.mass, b.inertia, position=b.position, angle=b.angle)
        else:
            builder.add_rigid_body(b.name, b.mass, b.inertia, position=b.position, orientation=b.orientation)
    for mk in markers:
        builder.add_marker(mk.name, mk.body)
    for e in elements:
        builder.add_force(e)
    return [mk.name for mk in markers]
