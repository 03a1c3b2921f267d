"""The elements a user describes: frozen dataclasses, SI units, one class per element kind.

Conventions (as in Adams): a model is planar (``dimension`` 2, vectors have 2 components, angles are
scalars about z) or spatial (``dimension`` 3, vectors have 3 components, orientations are unit
quaternions [w, x, y, z]). Every body's frame sits at its centre of mass. Joints and force elements
connect two markers, ``marker_i`` (base) and ``marker_j`` (follower); a joint's coordinate measures the
motion of ``marker_j`` relative to ``marker_i``: rotation about, or translation along, the z axis of
``marker_i`` (spatial) or its x axis for a planar prismatic joint. Each field's unit is in its metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .fields import GROUND, Curve, Vec, param
from .force_elements import (
    CONTACT_LAWS,
    FORCE_KINDS,
    FRICTION_JOINT_TYPES,
    FRICTION_MODELS,
    FRICTION_RAMPS,
    JOINT_FRICTION_MODELS,
    SHAPE_KINDS,
    Actuator,
    Belt,
    Bushing,
    Contact,
    CrushSpring,
    ForceElement,
    HydraulicCylinder,
    JointFriction,
    PassiveCylinder,
    PointLoad,
    RotationalSpringDamper,
    Shape,
    SpringDamper,
)
from .functions import Constant, TimeFunction

# --- bodies -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RigidBody:
    """Spatial rigid body in the r-p formulation (reference point at the CM, Euler parameters)."""

    name: str
    mass: float = param("kg", "mass")
    inertia: tuple[Vec, Vec, Vec] = param("kg*m^2", "inertia tensor about the CM, body axes (3x3)")
    position: Vec = param("m", "initial CM position, world", (0.0, 0.0, 0.0))
    orientation: Vec = param("1", "initial orientation, unit quaternion [w, x, y, z]", (1.0, 0.0, 0.0, 0.0))
    velocity: Vec = param("m/s", "initial CM velocity, world", (0.0, 0.0, 0.0))
    angular_velocity: Vec = param("rad/s", "initial angular velocity, world", (0.0, 0.0, 0.0))


@dataclass(frozen=True)
class PlanarBody:
    """Planar rigid body with coordinates (x, y, theta) of its CM frame."""

    name: str
    mass: float = param("kg", "mass")
    inertia: float = param("kg*m^2", "moment of inertia about the CM, z axis (0 allowed for a point mass "
                                      "whose rotation the joints determine)")
    position: Vec = param("m", "initial CM position [x, y]", (0.0, 0.0))
    angle: float = param("rad", "initial angle of the body frame", 0.0)
    velocity: Vec = param("m/s", "initial CM velocity [vx, vy]", (0.0, 0.0))
    angular_velocity: float = param("rad/s", "initial angular velocity", 0.0)


@dataclass(frozen=True)
class PointMass:
    """Point mass (particle): translation only, 2 or 3 coordinates by the model's dimension."""

    name: str
    mass: float = param("kg", "mass")
    position: Vec = param("m", "initial position, world", (0.0, 0.0, 0.0))
    velocity: Vec = param("m/s", "initial velocity, world", (0.0, 0.0, 0.0))


@dataclass(frozen=True)
class FlexibleBody:
    """Linear flexible body (spatial models): a small-displacement finite-element substructure fixed in the world
    frame. Its n coordinates u are nodal displacements (m) and rotations (rad); ``mass_matrix`` M,
    ``stiffness_matrix`` K and ``damping_matrix`` C (n x n, symmetric) act on them: M u'' + C u' + K u = loads.
    Node j sits at ``node_positions[j]`` (world) and ``node_dofs[j]`` lists the coordinate index (0-based) of its
    x, y, z translation and x, y, z rotation, -1 where fixed. A marker on the body sits at a node (its position is
    the node's, world) and moves with that node's DOFs; gravity acts as M T g (T: the rigid translation of every
    node) or as ``gravity_load`` g when given."""

    name: str
    mass_matrix: tuple[Vec, ...] = param("kg, kg*m, kg*m^2", "M (n x n), consistent mass matrix of the coordinates")
    stiffness_matrix: tuple[Vec, ...] = param("N/m, N, N*m", "K (n x n), stiffness matrix of the coordinates")
    node_positions: tuple[Vec, ...] = param("m", "node positions, world")
    node_dofs: tuple[tuple[int, ...], ...] = param("", "per node: coordinate index of x, y, z, rx, ry, rz, -1 = "
                                                       "fixed")
    damping_matrix: tuple[Vec, ...] = param("N*s/m, N*s, N*m*s", "C (n x n); empty = no damping", ())
    displacement: Vec = param("m, rad", "initial coordinates u (n); empty = 0", ())
    velocity: Vec = param("m/s, rad/s", "initial rates u' (n); empty = 0", ())
    gravity_load: tuple[Vec, ...] = param("kg, kg*m", "weight of the coordinates per unit gravity (n x 3): gravity "
                                                      "acts as gravity_load g. Empty = M T, exact without fixed "
                                                      "DOFs; with them, give M_full T_full restricted to the "
                                                      "coordinates (the mass coupling a support takes)", ())


@dataclass(frozen=True)
class ModalBody:
    """Floating modal body (spatial models): a reference frame moving like a rigid body (origin ``position``,
    ``orientation``) plus modal coordinates eta of a small elastic deformation in that frame
    (floating frame of reference, docs/flexible-bodies.md). Mode data from the built-in 3D beam FE (``nodes``,
    ``elements`` and the section: ``E``, ``G``, ``rho``, ``area``, ``Iy``, ``Iz``, ``J``, ``theory``) or from an
    imported file ``fe_file`` (an MBDyn ``.fem`` modal file, or Matrix Market mass ``.mtx`` with ``fe_stiffness``,
    ``fe_dof_map`` and ``fe_nodes``), a path relative to the model file. Reduced by ``mode_set``: 'craig-bampton'
    (the interfaces' constraint modes plus ``n_modes`` fixed-interface normal modes) or 'free-interface' (``n_modes``
    free modes, mean axes). Interfaces: node lists (0-based rows of the FE nodes) with kind 'rigid' (RBE2),
    'averaged' (RBE3) or 'nodes'. A marker on the body sits at an FE node: its position is the node's position in
    the body frame (undeformed). Coordinates (r, p, eta): frame origin (world), Euler parameters, modal
    coordinates. Output channels (model/modal_outputs.py): eta and its rate, the chosen ``output_nodes`` and
    ``stress_points``."""

    name: str
    nodes: tuple[Vec, ...] = param("m", "FE node positions in the body frame (built-in beam; empty with fe_file)", ())
    elements: tuple[tuple[int, ...], ...] = param("", "beam elements as pairs of node rows; empty = a chain", ())
    E: float = param("Pa", "Young's modulus (built-in beam)", 0.0)
    G: float = param("Pa", "shear modulus (built-in beam)", 0.0)
    rho: float = param("kg/m^3", "density (built-in beam)", 0.0)
    area: float = param("m^2", "section area (built-in beam)", 0.0)
    Iy: float = param("m^4", "second moment of area about the local y axis (built-in beam)", 0.0)
    Iz: float = param("m^4", "second moment of area about the local z axis (built-in beam)", 0.0)
    J: float = param("m^4", "torsion constant (built-in beam)", 0.0)
    theory: str = param("", "beam theory: 'euler-bernoulli' or 'timoshenko'", "euler-bernoulli")
    fe_file: str = param("", "imported FE data, relative to the model file: .fem (MBDyn modal) or .mtx (Matrix "
                             "Market mass matrix); empty = the built-in beam", "")
    fe_stiffness: str = param("", "Matrix Market stiffness matrix (with a .mtx fe_file)", "")
    fe_dof_map: str = param("", "DOF map of the matrices' rows: 'node component' per line (with a .mtx fe_file)", "")
    fe_nodes: str = param("", "node file: 'node x y z' per line (with a .mtx fe_file)", "")
    mode_set: str = param("", "'craig-bampton' or 'free-interface' (ignored for a .fem file: its modes are used)",
                          "craig-bampton")
    n_modes: int = param("", "number of normal (fixed-interface or free) modes", 4)
    interfaces: tuple[tuple[int, ...], ...] = param("", "interfaces: one list of node rows each (Craig-Bampton)",
                                                    ((0,),))
    interface_kinds: tuple[str, ...] = param("", "per interface 'rigid' (RBE2), 'averaged' (RBE3) or 'nodes'; "
                                                 "empty = all 'rigid'", ())
    reference: str = param("", "frame of the deformation: 'tangent' (attached to the first interface) or "
                               "'mean-axis'", "tangent")
    damping: float = param("1", "modal damping ratio of every mode", 0.0)
    stiffening: bool = param("", "geometric stiffening by the inertia loads of the frame's rotation and gravity "
                                 "(on: a spinning linear modal body otherwise softens and can go unstable)", True)
    position: Vec = param("m", "initial frame origin, world", (0.0, 0.0, 0.0))
    orientation: Vec = param("1", "initial frame orientation, unit quaternion [w, x, y, z]", (1.0, 0.0, 0.0, 0.0))
    velocity: Vec = param("m/s", "initial frame-origin velocity, world", (0.0, 0.0, 0.0))
    angular_velocity: Vec = param("rad/s", "initial angular velocity, world", (0.0, 0.0, 0.0))
    modal_coordinates: Vec = param("", "initial modal coordinates eta; empty = 0", ())
    modal_velocities: Vec = param("1/s", "initial modal rates eta'; empty = 0", ())
    output_nodes: tuple[int, ...] = param("", "FE node rows whose elastic displacement (frame axes) and world "
                                              "position are output channels <body>.node<row>.u[k], .r[k]", ())
    stress_points: tuple[Vec, ...] = param("", "stress points [element row, end (0: first node, 1: second), y, z "
                                               "(m, section axes)] of a built-in beam: channels <body>.stress[k] "
                                               "(Pa) and <body>.strain[k] (1), from the modes' section forces", ())
    source_dir: str = param("", "folder that fe_file and its companions are relative to (set by load_model; not "
                                "written)", "")


Body = RigidBody | PlanarBody | PointMass | FlexibleBody | ModalBody


# --- markers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Marker:
    """A point and a frame on a body (or on ground), where joints, forces and FMU ports attach.

    Spatial models use ``orientation`` (quaternion of the marker frame in the body frame);
    planar models use ``angle`` (rotation of the marker frame about z)."""

    name: str
    body: str = param("", "body name, or 'ground'", GROUND)
    position: Vec = param("m", "origin in the body frame", (0.0, 0.0, 0.0))
    orientation: Vec = param("1", "frame in the body frame, unit quaternion [w, x, y, z] (spatial)",
                             (1.0, 0.0, 0.0, 0.0))
    angle: float = param("rad", "frame angle in the body frame (planar)", 0.0)
    port: bool = param("", "FMU input port: FMUs get the inputs F[1..3] (N) and T[1..3] (N.m), a force and a "
                       "torque on the body at the marker origin, world axes", False)


# --- graphics (the viewer's; no effect on the dynamics) ---------------------------------------------

#: graphic kinds and the number of ``dimensions`` each takes (see Graphic)
GRAPHIC_KINDS = {"box": 3, "cylinder": 2, "sphere": 1, "ellipsoid": 3, "capsule": 2, "plane": 1, "link": 1, "mesh": 0}


@dataclass(frozen=True)
class Graphic:
    """What the viewer draws (no effect on the dynamics), attached to ``marker`` (its frame is the marker frame).
    Kinds and ``dimensions``: box [half extents x, y, z]; cylinder and capsule [radius, half length along z]; sphere
    [radius]; ellipsoid [semi-axes x, y, z]; plane [half size] (a square in the marker's x-y plane); link [radius]
    (a rod from the origin of ``marker`` to the origin of ``to_marker``, on any body); mesh [] with ``file`` (STL,
    ASCII or binary, or OBJ; a path relative to the model file, scaled by ``scale``) or ``vertices`` and
    ``triangles``. A model without graphics is drawn from its contact shapes and links between its markers."""

    name: str
    marker: str
    kind: str
    dimensions: Vec = param("m", "size parameters of the kind (see above)", ())
    to_marker: str | None = field(default=None, metadata={"unit": "", "doc": "far end of a link"})
    file: str | None = field(default=None, metadata={"unit": "", "doc": "mesh file (.stl or .obj), relative to "
                                                                        "the model file"})
    scale: float = param("1", "factor from the mesh file's length unit to m (0.001 for mm)", 1.0)
    vertices: tuple[Vec, ...] | None = field(default=None, metadata={"unit": "m", "doc": "mesh vertices [[x, y, "
                                                                                         "z], ...]"})
    triangles: tuple[tuple[int, ...], ...] | None = field(default=None, metadata={
        "unit": "", "doc": "mesh triangles [[i, j, k], ...] (0-based vertex indices)"})
    color: str = param("", "colour '#rrggbb' (default: one colour per body)", "")
    opacity: float = param("1", "opacity in (0, 1]", 1.0)


# --- joints and drivers -------------------------------------------------------------------------

#: joint types per dimension, with the basic constraints they are built from (see compiler/joints.py)
JOINT_TYPES_3D = ("revolute", "spherical", "prismatic", "cylindrical", "universal", "fixed", "planar",
                  "distance", "point_on_line")
JOINT_TYPES_2D = ("revolute", "prismatic", "fixed", "distance", "point_on_line")
#: the coordinates a joint type measures, in order (a driver's ``coordinate`` indexes this, 1-based)
JOINT_COORDINATES = {"revolute": ("rotation",), "prismatic": ("translation",),
                     "cylindrical": ("translation", "rotation")}
#: joint types whose constraints involve the marker frames' axes (not allowed on point masses)
ORIENTING_JOINTS = ("revolute", "prismatic", "cylindrical", "universal", "fixed", "planar")


@dataclass(frozen=True)
class Joint:
    """A kinematic joint between ``marker_i`` and ``marker_j`` (types: JOINT_TYPES_3D / _2D).

    Axes (spatial): revolute/cylindrical/prismatic about or along z_i (z_j kept parallel);
    universal: cross axes z_i and z_j (perpendicular); planar: origin_j in the x-y plane of marker_i,
    z_j parallel to z_i; point_on_line: origin_j on the z axis of marker_i; distance: |origin_j -
    origin_i| = length. Planar models: revolute (pin), prismatic (slides along x_i), fixed, distance,
    point_on_line (origin_j on the x axis of marker_i)."""

    name: str
    type: str
    marker_i: str
    marker_j: str
    length: float | None = field(default=None, metadata={"unit": "m", "doc": "rod length (distance joint only)"})
    s_start: float | None = field(default=None, metadata={
        "unit": "m|rad", "doc": "initial joint coordinate, kept exactly by assembly (revolute, prismatic)"})
    sd_start: float | None = field(default=None, metadata={
        "unit": "m/s|rad/s", "doc": "initial joint rate, kept exactly by assembly (revolute, prismatic)"})


@dataclass(frozen=True)
class Driver:
    """Prescribes coordinate ``coordinate`` (1-based) of ``joint`` as a function of time (m or rad)."""

    name: str
    joint: str
    function: TimeFunction = param("m|rad", "prescribed coordinate s(t)", Constant(0.0))
    coordinate: int = param("", "which joint coordinate (1-based)", 1)


BODY_KINDS: dict[str, type] = {"rigid": RigidBody, "planar": PlanarBody, "point_mass": PointMass,
                               "flexible": FlexibleBody, "modal": ModalBody}


# --- exposed parameters ---------------------------------------------------------------------------

#: scalar fields an FMU may expose as parameters, per element class ("s_start", "sd_start": a joint's initial
#: coordinate and rate)
EXPOSABLE: dict[type, tuple[str, ...]] = {
    RigidBody: ("mass",),
    PlanarBody: ("mass", "inertia"),
    PointMass: ("mass",),
    SpringDamper: ("stiffness", "damping", "free_length"),
    RotationalSpringDamper: ("stiffness", "damping", "free_angle"),
    Joint: ("length", "s_start", "sd_start"),
    HydraulicCylinder: ("p1_start", "p2_start", "pump_pressure", "tank_pressure", "damping", "length_retracted"),
    Contact: ("restitution", "mu", "mu_static", "stiffness", "damping", "tangential_stiffness"),
    JointFriction: ("mu", "mu_static", "preload"),
    CrushSpring: ("free_length", "unloading_stiffness", "rate_constant"),
    Belt: ("stiffness", "mu", "slack", "load_limit", "fire_time"),
}
#: SI unit of each exposable field, as FMI unit strings
EXPOSED_UNITS = {"p1_start": "Pa", "p2_start": "Pa", "pump_pressure": "Pa", "tank_pressure": "Pa",
                 "length_retracted": "m", ("damping", HydraulicCylinder): "N.s/m",
                 "mass": "kg", "inertia": "kg.m2", "length": "m", "free_length": "m", "free_angle": "rad",
                 ("stiffness", SpringDamper): "N/m", ("damping", SpringDamper): "N.s/m",
                 ("stiffness", RotationalSpringDamper): "N.m/rad", ("damping", RotationalSpringDamper): "N.m.s/rad",
                 ("damping", Contact): "N.s/m", ("tangential_stiffness", Contact): "N/m", "restitution": "1",
                 "mu": "1", "mu_static": "1", "preload": "N", ("unloading_stiffness", CrushSpring): "N/m",
                 ("rate_constant", CrushSpring): "m/s", ("stiffness", Belt): "N", "slack": "m", "load_limit": "N",
                 "fire_time": "s"}


# --- the model ----------------------------------------------------------------------------------

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Model:
    """A complete, validated model description (build it with ModelBuilder or load_model)."""

    name: str
    dimension: int
    gravity: Vec
    bodies: tuple[Body, ...] = ()
    markers: tuple[Marker, ...] = ()
    joints: tuple[Joint, ...] = ()
    drivers: tuple[Driver, ...] = ()
    forces: tuple[ForceElement, ...] = ()
    description: str = ""
    exposed: tuple[str, ...] = ()   # parameters an FMU exposes, "<element>.<field>" (see EXPOSABLE)
    shapes: tuple[Shape, ...] = ()  # contact shapes (Contact force elements refer to them)
    graphics: tuple[Graphic, ...] = ()  # what the viewer draws (fmu-mbs animate)
    fmu_outputs: tuple[str, ...] = ()   # FMU outputs: channels, "<element>.<quantity>", elements, "default" (names.py)

    @property
    def planar(self) -> bool:
        return self.dimension == 2

    def element(self, name: str):
        """The element called ``name`` (any kind); KeyError if there is none."""
        for group in (self.bodies, self.markers, self.joints, self.drivers, self.forces, self.shapes,
                      self.graphics):
            for el in group:
                if el.name == name:
                    return el
        raise KeyError(f"model '{self.name}' has no element '{name}'")


#: every element class and constant (force elements live in force_elements.py and are re-exported here)
__all__ = ["GROUND", "Curve", "Vec", "param", "CONTACT_LAWS", "FORCE_KINDS", "FRICTION_JOINT_TYPES",
           "FRICTION_MODELS", "FRICTION_RAMPS", "JOINT_FRICTION_MODELS", "SHAPE_KINDS", "Actuator", "Belt", "Bushing",
           "Contact", "CrushSpring", "ForceElement", "HydraulicCylinder", "JointFriction", "PassiveCylinder",
           "PointLoad", "RotationalSpringDamper", "Shape", "SpringDamper", "RigidBody", "PlanarBody", "PointMass",
           "FlexibleBody", "ModalBody", "Body", "Marker", "Joint", "Driver", "JOINT_TYPES_3D", "JOINT_TYPES_2D",
           "JOINT_COORDINATES",
           "ORIENTING_JOINTS", "GRAPHIC_KINDS", "Graphic", "BODY_KINDS", "EXPOSABLE", "EXPOSED_UNITS", "FORMAT_VERSION",
           "Model"]
