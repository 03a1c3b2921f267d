"""ModelBuilder: the one way to make a Model (the JSON loader calls it too).

Example::

    b = ModelBuilder("pendulum", dimension=2, gravity=(0.0, -9.81))
    b.add_point_mass("bob", mass=1.0, position=(1.0, 0.0))
    b.add_marker("pivot", "ground")
    b.add_marker("P1", "bob")
    b.add_joint("rod", "distance", "pivot", "P1", length=1.0)
    model = b.build()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace

from ..errors import ModelError
from .elements import (
    FORCE_KINDS,
    GROUND,
    Actuator,
    Bushing,
    Contact,
    Driver,
    FlexibleBody,
    Graphic,
    HydraulicCylinder,
    Joint,
    JointFriction,
    Marker,
    ModalBody,
    Model,
    PassiveCylinder,
    PlanarBody,
    PointLoad,
    PointMass,
    RigidBody,
    RotationalSpringDamper,
    Shape,
    SpringDamper,
)
from .functions import Constant, TimeFunction
from .validate import model_problems


def _vec(v: Sequence[float]) -> tuple[float, ...]:
    return tuple(float(x) for x in v)


def _fn(f: TimeFunction | float) -> TimeFunction:
    return Constant(float(f)) if isinstance(f, (int, float)) else f


def _curve(c) -> tuple[tuple[float, float], ...] | None:
    return None if c is None else tuple((float(a), float(b)) for a, b in c)


def normalized(element):
    """``element`` with its fields in canonical form, by their declared types: floats, tuples, curves of pairs."""
    changes = {}
    for f in fields(element):
        value = getattr(element, f.name)
        hint = str(f.type)
        if value is None or isinstance(value, (str, bool, TimeFunction)):
            continue
        if "Curve" in hint:
            changes[f.name] = _curve(value)
        elif hint.startswith("float") and isinstance(value, (int, float)):
            changes[f.name] = float(value)
        elif hint.startswith(("Vec", "tuple[float")):
            changes[f.name] = _vec(value)
    return replace(element, **changes)


def _inertia(inertia) -> tuple[tuple[float, ...], ...]:
    """3 principal moments, 6 values [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], or a 3x3 matrix -> 3x3 tuple."""
    rows = list(inertia)
    if len(rows) == 3 and all(isinstance(r, (int, float)) for r in rows):
        a, b, c = (float(x) for x in rows)
        return ((a, 0.0, 0.0), (0.0, b, 0.0), (0.0, 0.0, c))
    if len(rows) == 6 and all(isinstance(r, (int, float)) for r in rows):
        ixx, iyy, izz, ixy, ixz, iyz = (float(x) for x in rows)
        return ((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz))
    return tuple(tuple(float(x) for x in r) for r in rows)


class ModelBuilder:
    """Collects elements and produces a validated, immutable Model (SI units throughout)."""

    def __init__(self, name: str, dimension: int = 3, gravity: Sequence[float] | None = None,
                 description: str = ""):
        self.name = name
        self.dimension = int(dimension)
        if gravity is None:
            gravity = (0.0, -9.81) if self.dimension == 2 else (0.0, 0.0, -9.81)
        self.gravity = _vec(gravity)
        self.description = description
        self.bodies: list = []
        self.markers: list[Marker] = []
        self.joints: list[Joint] = []
        self.drivers: list[Driver] = []
        self.forces: list = []
        self.exposed: list[str] = []
        self.fmu_outputs: list[str] = []
        self.shapes: list[Shape] = []
        self.graphics: list[Graphic] = []

    @classmethod
    def from_model(cls, model: Model, name: str | None = None) -> ModelBuilder:
        """A builder holding every element of ``model``, to extend or modify (e.g. add a driver)."""
        b = cls(name or model.name, model.dimension, model.gravity, model.description)
        b.bodies, b.markers, b.joints = list(model.bodies), list(model.markers), list(model.joints)
        b.drivers, b.forces = list(model.drivers), list(model.forces)
        b.exposed = list(model.exposed)
        b.shapes = list(model.shapes)
        b.graphics = list(model.graphics)
        b.fmu_outputs = list(model.fmu_outputs)
        return b

    def set_value(self, name: str, field: str, value) -> None:
        """Replace one field of the element called ``name`` (any kind); KeyError if there is none."""
        for group in (self.bodies, self.markers, self.joints, self.drivers, self.forces, self.shapes,
                      self.graphics):
            for k, el in enumerate(group):
                if el.name == name:
                    group[k] = replace(el, **{field: value})
                    return
        raise KeyError(f"builder '{self.name}' has no element '{name}'")

    def remove(self, name: str) -> None:
        """Remove the element called ``name`` (any kind); KeyError if there is none."""
        for group in (self.bodies, self.markers, self.joints, self.drivers, self.forces, self.shapes,
                      self.graphics):
            for el in group:
                if el.name == name:
                    group.remove(el)
                    return
        raise KeyError(f"builder '{self.name}' has no element '{name}'")

    # bodies ------------------------------------------------------------------------------------
    def add_rigid_body(self, name: str, mass: float, inertia, position=(0.0, 0.0, 0.0),
                       orientation=(1.0, 0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0),
                       angular_velocity=(0.0, 0.0, 0.0)) -> str:
        """Spatial rigid body; ``inertia`` about the CM in body axes (3 moments, 6 values or 3x3)."""
        self.bodies.append(RigidBody(name, float(mass), _inertia(inertia), _vec(position), _vec(orientation),
                                     _vec(velocity), _vec(angular_velocity)))
        return name

    def add_planar_body(self, name: str, mass: float, inertia: float, position=(0.0, 0.0), angle: float = 0.0,
                        velocity=(0.0, 0.0), angular_velocity: float = 0.0) -> str:
        """Planar rigid body (x, y, theta); ``inertia`` about the CM (kg m^2)."""
        self.bodies.append(PlanarBody(name, float(mass), float(inertia), _vec(position), float(angle),
                                      _vec(velocity), float(angular_velocity)))
        return name

    def add_point_mass(self, name: str, mass: float, position=None, velocity=None) -> str:
        """Point mass; vectors have the model's dimension."""
        zero = (0.0,) * self.dimension
        self.bodies.append(PointMass(name, float(mass), _vec(position if position is not None else zero),
                                     _vec(velocity if velocity is not None else zero)))
        return name

    def add_flexible_body(self, name: str, mass_matrix, stiffness_matrix, node_positions, node_dofs,
                          damping_matrix=(), displacement=(), velocity=(), gravity_load=()) -> str:
        """Linear flexible body (spatial models; model/elements.FlexibleBody): M, K (and C) of its n coordinates
        (n x n), node positions (world, m) and per node the coordinate index of its x, y, z translation and
        rotation (-1 = fixed). Markers on it sit at its nodes."""
        mat = lambda a: tuple(_vec(row) for row in a)  # noqa: E731
        self.bodies.append(FlexibleBody(name, mat(mass_matrix), mat(stiffness_matrix), mat(node_positions),
                                        tuple(tuple(int(d) for d in row) for row in node_dofs),
                                        mat(damping_matrix), _vec(displacement), _vec(velocity),
                                        mat(gravity_load)))
        return name

    def add_modal_body(self, name: str, **fields_) -> str:
        """Floating modal body (spatial models; model/elements.ModalBody, whose fields are the keywords): a beam by
        ``nodes`` (body frame, m) and its section (``E``, ``G``, ``rho``, ``area``, ``Iy``, ``Iz``, ``J``), or
        ``fe_file``; ``mode_set``, ``n_modes``, ``interfaces`` (node rows), ``damping``, ``stiffening``."""
        nested = lambda a: tuple(_vec(row) for row in a)  # noqa: E731
        ints = lambda a: tuple(tuple(int(d) for d in row) for row in a)  # noqa: E731
        conv = {"nodes": nested, "elements": ints, "interfaces": ints,
                "interface_kinds": lambda a: tuple(str(x) for x in a), "n_modes": int, "stiffening": bool,
                "output_nodes": lambda a: tuple(int(x) for x in a), "stress_points": nested}
        for key, f in conv.items():
            if key in fields_:
                fields_[key] = f(fields_[key])
        self.bodies.append(normalized(ModalBody(name, **fields_)))
        return name

    # markers -----------------------------------------------------------------------------------
    def add_marker(self, name: str, body: str = GROUND, position=None, orientation=(1.0, 0.0, 0.0, 0.0),
                   angle: float = 0.0, port: bool = False) -> str:
        """Marker at ``position`` in the body frame (planar: ``angle``; spatial: ``orientation``); ``port``: FMUs
        take a force and a torque at it as inputs."""
        zero = (0.0,) * self.dimension
        if not isinstance(port, bool):
            raise ValueError(f"'port' must be true or false, got {port!r}")
        self.markers.append(Marker(name, body, _vec(position if position is not None else zero),
                                   _vec(orientation), float(angle), port))
        return name

    # joints and drivers ------------------------------------------------------------------------
    def add_joint(self, name: str, type: str, marker_i: str, marker_j: str, length: float | None = None,
                  s_start: float | None = None, sd_start: float | None = None) -> str:
        """A joint (types: elements.Joint); ``s_start`` / ``sd_start``: the initial coordinate (m or rad) and rate
        (m/s or rad/s) of a revolute or prismatic joint, kept exactly by assembly (the other coordinates follow)."""
        opt = lambda x: None if x is None else float(x)  # noqa: E731
        self.joints.append(Joint(name, type, marker_i, marker_j, opt(length), opt(s_start), opt(sd_start)))
        return name

    def add_driver(self, name: str, joint: str, function: TimeFunction | float, coordinate: int = 1) -> str:
        self.drivers.append(Driver(name, joint, _fn(function), int(coordinate)))
        return name

    # force elements ----------------------------------------------------------------------------
    def add_spring_damper(self, name: str, marker_i: str, marker_j: str, stiffness: float = 0.0,
                          free_length: float = 0.0, damping: float = 0.0, force: TimeFunction | float = 0.0,
                          spring_curve=None, damper_curve=None) -> str:
        self.forces.append(SpringDamper(name, marker_i, marker_j, float(stiffness), float(free_length),
                                        float(damping), _fn(force), _curve(spring_curve), _curve(damper_curve)))
        return name

    def add_rotational_spring_damper(self, name: str, marker_i: str, marker_j: str, stiffness: float = 0.0,
                                     free_angle: float = 0.0, damping: float = 0.0,
                                     torque: TimeFunction | float = 0.0, spring_curve=None,
                                     damper_curve=None) -> str:
        self.forces.append(RotationalSpringDamper(name, marker_i, marker_j, float(stiffness), float(free_angle),
                                                  float(damping), _fn(torque), _curve(spring_curve),
                                                  _curve(damper_curve)))
        return name

    def add_bushing(self, name: str, marker_i: str, marker_j: str, stiffness=(0.0, 0.0, 0.0),
                    damping=(0.0, 0.0, 0.0), rotational_stiffness=(0.0, 0.0, 0.0),
                    rotational_damping=(0.0, 0.0, 0.0)) -> str:
        self.forces.append(Bushing(name, marker_i, marker_j, _vec(stiffness), _vec(damping),
                                   _vec(rotational_stiffness), _vec(rotational_damping)))
        return name

    def add_point_load(self, name: str, marker: str, force=None, torque=None, frame: str = "world") -> str:
        """Force (len = dimension) and torque (planar: 1 value, spatial: 3) on a marker."""
        nf, nt = (2, 1) if self.dimension == 2 else (3, 3)
        force = force if force is not None else (0.0,) * nf
        torque = torque if torque is not None else (0.0,) * nt
        if isinstance(torque, (int, float)):
            torque = (torque,)
        self.forces.append(PointLoad(name, marker, tuple(_fn(f) for f in force), tuple(_fn(t) for t in torque),
                                     frame))
        return name

    def add_actuator(self, name: str, marker_i: str, marker_j: str, force: TimeFunction | float = 0.0) -> str:
        self.forces.append(Actuator(name, marker_i, marker_j, _fn(force)))
        return name

    def add_hydraulic_cylinder(self, name: str, marker_i: str, marker_j: str, length_retracted: float,
                               valve: TimeFunction | float = 0.0, **parameters: float) -> str:
        """A hydraulic cylinder with its valve (see HydraulicCylinder for the parameters and their defaults)."""
        self.forces.append(HydraulicCylinder(name, marker_i, marker_j, float(length_retracted), valve=_fn(valve),
                                             **{k: float(v) for k, v in parameters.items()}))
        return name

    def add_passive_cylinder(self, name: str, marker_i: str, marker_j: str, cylinder_mass: float = 0.0,
                             cylinder_cm: float = 0.0, cylinder_inertia=(0.0, 0.0), rod_mass: float = 0.0,
                             rod_cm: float = 0.0, rod_inertia=(0.0, 0.0), force: TimeFunction | float = 0.0,
                             stroke: TimeFunction | float | None = None) -> str:
        """A seed-003 passive cylinder (elements.PassiveCylinder): U-joint at marker_i, spherical joint at
        marker_j, driven by ``force`` (N, plus the input <name>.f) or by ``stroke`` d(t) (m)."""
        self.forces.append(PassiveCylinder(name, marker_i, marker_j, float(cylinder_mass), float(cylinder_cm),
                                           _vec(cylinder_inertia), float(rod_mass), float(rod_cm), _vec(rod_inertia),
                                           _fn(force), None if stroke is None else _fn(stroke)))
        return name

    # contact -------------------------------------------------------------------------------------
    def add_shape(self, name: str, marker: str, kind: str, dimensions=(), young: float | None = None,
                  poisson: float | None = None, vertices=None, triangles=None) -> str:
        """Contact shape on ``marker`` (kinds and dimensions: elements.Shape; SI units)."""
        self.shapes.append(Shape(name, marker, kind, _vec(dimensions), None if young is None else float(young),
                                 None if poisson is None else float(poisson),
                                 None if vertices is None else tuple(_vec(v) for v in vertices),
                                 None if triangles is None else tuple(tuple(int(i) for i in t) for t in triangles)))
        return name

    def add_contact(self, name: str, shapes_a, shapes_b, law: str = "hertz", stiffness: float | None = None,
                    exponent: float | None = None, restitution: float = 1.0, damping: float = 0.0,
                    damping_depth: float = 1e-4, min_impact_speed: float = 1e-3, loading_curve=None,
                    unloading_curve=None, friction: str = "none", mu: float = 0.0, mu_static: float | None = None,
                    stribeck_speed: float = 0.01, viscous: float = 0.0, velocity_threshold: float = 1e-3,
                    ramp: str = "linear", tangential_stiffness: float = 0.0, tangential_damping: float = 0.0,
                    include_joined: bool = True) -> str:
        """Contact between the shapes ``shapes_a`` and ``shapes_b`` (a name or a list of names each); the
        normal law and friction are documented in elements.Contact."""
        names = lambda s: (s,) if isinstance(s, str) else tuple(str(x) for x in s)  # noqa: E731
        opt = lambda x: None if x is None else float(x)  # noqa: E731
        self.forces.append(Contact(name, names(shapes_a), names(shapes_b), str(law), opt(stiffness), opt(exponent),
                                   float(restitution), float(damping), float(damping_depth),
                                   float(min_impact_speed), _curve(loading_curve), _curve(unloading_curve),
                                   str(friction), float(mu), opt(mu_static), float(stribeck_speed), float(viscous),
                                   float(velocity_threshold), str(ramp), float(tangential_stiffness),
                                   float(tangential_damping), bool(include_joined)))
        return name

    def add_joint_friction(self, name: str, joint: str, friction: str = "coulomb", mu: float = 0.0,
                           mu_static: float | None = None, stribeck_speed: float = 0.01, viscous: float = 0.0,
                           velocity_threshold: float = 1e-3, ramp: str = "linear", bristle_stiffness: float = 0.0,
                           bristle_damping: float = 0.0, pin_radius: float | None = None, friction_arm: float = 0.0,
                           bending_arm: float = 0.0, preload: float = 0.0) -> str:
        """Friction in revolute or prismatic ``joint`` from its reaction (laws and geometry: elements.JointFriction;
        SI units)."""
        opt = lambda x: None if x is None else float(x)  # noqa: E731
        self.forces.append(JointFriction(name, str(joint), str(friction), float(mu), opt(mu_static),
                                         float(stribeck_speed), float(viscous), float(velocity_threshold), str(ramp),
                                         float(bristle_stiffness), float(bristle_damping), opt(pin_radius),
                                         float(friction_arm), float(bending_arm), float(preload)))
        return name

    def add_graphic(self, name: str, marker: str, kind: str, dimensions=(), to_marker: str | None = None,
                    file: str | None = None, scale: float = 1.0, vertices=None, triangles=None, color: str = "",
                    opacity: float = 1.0) -> str:
        """A graphic for the viewer (kinds and dimensions in m: elements.Graphic); no effect on the dynamics."""
        self.graphics.append(Graphic(name, marker, str(kind), _vec(dimensions), to_marker, file, float(scale),
                                     None if vertices is None else tuple(_vec(v) for v in vertices),
                                     None if triangles is None else tuple(tuple(int(i) for i in t) for t in triangles),
                                     str(color), float(opacity)))
        return name

    def add_force(self, element) -> str:
        """Add any force element (an instance of a FORCE_KINDS class, e.g. one with no ``add_*`` method of its own);
        numbers become floats, sequences tuples and curves tuples of (x, y) pairs, as the other adders do."""
        if type(element) not in FORCE_KINDS.values():
            raise TypeError(f"{element!r} is not a force element (classes: {sorted(FORCE_KINDS)})")
        self.forces.append(normalized(element))
        return element.name

    def expose(self, *parameters: str) -> None:
        """Mark parameters "<element>.<field>" to be exposed by FMUs (masses, stiffnesses, dampings, free
        lengths/angles, distance-joint lengths, and "<joint>.s_start", a joint's initial coordinate)."""
        self.exposed.extend(parameters)

    def fmu_output(self, *entries: str) -> None:
        """Declare the FMU outputs (default: the default set of every element, model/names.py): channel names
        (``P1.r[1]``), ``<element>.<quantity>`` (``pin.F``), element names (every channel of it), ``"default"``."""
        self.fmu_outputs.extend(entries)

    # result ------------------------------------------------------------------------------------
    def draft(self) -> Model:
        """The Model as collected so far, not validated (``validate.model_problems`` lists its problems)."""
        return Model(self.name, self.dimension, self.gravity, tuple(self.bodies), tuple(self.markers),
                     tuple(self.joints), tuple(self.drivers), tuple(self.forces), self.description,
                     tuple(self.exposed), tuple(self.shapes), tuple(self.graphics), tuple(self.fmu_outputs))

    def build(self) -> Model:
        """The validated Model; raises ModelError listing every problem found."""
        model = self.draft()
        problems = model_problems(model)
        if problems:
            raise ModelError(problems, self.name)
        return model
