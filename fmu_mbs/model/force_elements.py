"""Force elements (two-marker elements, loads, hydraulics, contact, joint friction): frozen dataclasses with SI
units in field metadata and their declared output and input signals (model/interface.py). ``FORCE_KINDS`` maps
the model file's ``type`` tag to the class: a new element family adds its class and its tag here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .fields import Curve, Vec, param
from .functions import Constant, TimeFunction
from .gebeam import BeamElement
from .interface import Interface, Signal
from .joint_stop import JointStop

# --- force elements -----------------------------------------------------------------------------

@dataclass(frozen=True)
class SpringDamper(Interface):
    """TSDA (seed 004 / Haug p. 445): f = k (l - l0) + c ldot + h(t), positive in tension, acting along
    the line between the marker origins. ``spring_curve`` (deflection l - l0 -> force) replaces k and
    ``damper_curve`` (ldot -> force) replaces c; curves are piecewise linear, extrapolated linearly."""

    OUTPUTS = (Signal("length", "m"), Signal("speed", "m/s"), Signal("f", "N"))

    name: str
    marker_i: str
    marker_j: str
    stiffness: float = param("N/m", "k", 0.0)
    free_length: float = param("m", "l0, zero-force length", 0.0)
    damping: float = param("N*s/m", "c", 0.0)
    force: TimeFunction = param("N", "actuator term h(t), positive in tension", Constant(0.0))
    spring_curve: Curve | None = field(default=None, metadata={"unit": "m, N", "doc": "[[l - l0, f], ...]"})
    damper_curve: Curve | None = field(default=None, metadata={"unit": "m/s, N", "doc": "[[ldot, f], ...]"})


@dataclass(frozen=True)
class RotationalSpringDamper(Interface):
    """RSDA (seed 004 / Haug p. 448): torque n = k (theta - theta0) + c thetadot + h(t) about z_i, with
    theta the angle from x_i to x_j about z_i (turns counted); it acts to reduce theta on marker_j's
    body and oppositely on marker_i's body. Curves as in SpringDamper (angle and rate in rad, rad/s)."""

    OUTPUTS = (Signal("angle", "rad"), Signal("speed", "rad/s"), Signal("T", "N.m"))

    name: str
    marker_i: str
    marker_j: str
    stiffness: float = param("N*m/rad", "k", 0.0)
    free_angle: float = param("rad", "theta0", 0.0)
    damping: float = param("N*m*s/rad", "c", 0.0)
    torque: TimeFunction = param("N*m", "actuator term h(t)", Constant(0.0))
    spring_curve: Curve | None = field(default=None, metadata={"unit": "rad, N*m", "doc": "[[theta - theta0, n], ...]"})
    damper_curve: Curve | None = field(default=None, metadata={"unit": "rad/s, N*m", "doc": "[[thetadot, n], ...]"})


@dataclass(frozen=True)
class Bushing(Interface):
    """6-DOF bushing: force -K d - C d' and torque -Kr phi - Cr w on marker_j, with d the displacement of
    origin_j from origin_i and phi the small-angle rotation of marker_j relative to marker_i, both in
    marker_i axes (planar: x, y and the rotation about z). The reaction acts on marker_i."""

    OUTPUTS = (Signal("F", "N", 3), Signal("T", "N.m", 3))      # on marker_j, world axes

    name: str
    marker_i: str
    marker_j: str
    stiffness: Vec = param("N/m", "translational stiffness per marker_i axis", (0.0, 0.0, 0.0))
    damping: Vec = param("N*s/m", "translational damping per marker_i axis", (0.0, 0.0, 0.0))
    rotational_stiffness: Vec = param("N*m/rad", "rotational stiffness per axis", (0.0, 0.0, 0.0))
    rotational_damping: Vec = param("N*m*s/rad", "rotational damping per axis", (0.0, 0.0, 0.0))


@dataclass(frozen=True)
class PointLoad(Interface):
    """Force at the origin of ``marker`` and torque on its body (world axes, or marker axes if
    ``frame`` is "marker"). Components are numbers or time functions. Planar: force [Fx, Fy], torque [Tz]."""

    name: str
    marker: str
    force: tuple[TimeFunction, ...] = param("N", "force components", ())
    torque: tuple[TimeFunction, ...] = param("N*m", "torque components", ())
    frame: str = param("", "'world' or 'marker'", "world")


@dataclass(frozen=True)
class Actuator(Interface):
    """Translational actuator between two marker origins: force f(t) > 0 pushes them apart.
    The natural FMU port for a hydraulic cylinder (input f, outputs length and speed)."""

    OUTPUTS = (Signal("length", "m"), Signal("speed", "m/s"), Signal("force", "N"))
    INPUTS = (Signal("f", "N"),)

    name: str
    marker_i: str
    marker_j: str
    force: TimeFunction = param("N", "actuator force, positive extending", Constant(0.0))


@dataclass(frozen=True)
class HydraulicCylinder(Interface):
    """Double-acting hydraulic cylinder between two marker origins, fed by a 4/3 proportional valve, with the
    chamber pressures and the spool as solver states (equations in kernels/hydraulics.py). The valve reference
    is ``valve(t)`` plus the input ``<name>.Uref``, clipped to [-1, 1]; positive extends. Defaults: the crane
    data of Rahikainen et al. (Multibody Syst. Dyn. 50:143-167, 2020)."""

    OUTPUTS = (Signal("length", "m"), Signal("speed", "m/s"), Signal("force", "N"), Signal("p1", "Pa"),
               Signal("p2", "Pa"), Signal("U", "1"), Signal("Q1", "m3/s"), Signal("Q2", "m3/s"))
    INPUTS = (Signal("Uref", "1"),)

    name: str
    marker_i: str
    marker_j: str
    length_retracted: float = param("m", "marker distance with the piston fully retracted")
    stroke: float = param("m", "stroke: chamber 1 length at full extension", 0.442)
    piston_diameter: float = param("m", "piston (bore) diameter", 0.08)
    rod_diameter: float = param("m", "rod diameter", 0.035)
    hose_volume_1: float = param("m^3", "hose volume, valve to chamber 1 (piston side)", 3.14e-5)
    hose_volume_2: float = param("m^3", "hose volume, valve to chamber 2 (rod side)", 7.85e-5)
    pump_pressure: float = param("Pa", "supply pressure", 7.6e6)
    tank_pressure: float = param("Pa", "return pressure", 0.1e6)
    bulk_modulus_oil: float = param("Pa", "bulk modulus of the oil", 1.5e9)
    bulk_modulus_hose: float = param("Pa", "bulk modulus of the hoses", 1.5e8)
    bulk_modulus_cylinder: float = param("Pa", "bulk modulus of the cylinder", 3.15e10)
    nominal_flow: float = param("m^3/s", "valve flow at full opening and the nominal pressure drop", 2e-5)
    nominal_pressure_drop: float = param("Pa", "pressure drop of the nominal flow, one valve edge", 3.5e6)
    laminar_pressure_drop: float = param("Pa", "laminar limit of the orifice law", 2e5)
    spool_bandwidth: float = param("Hz", "-45 deg frequency of the first-order spool", 35.0)
    damping: float = param("N*s/m", "viscous friction of the piston", 1e5)
    end_stop_stiffness: float = param("N/m", "end-stop stiffness", 1e7)
    end_stop_damping: float = param("N*s/m", "end-stop damping", 5e3)
    end_stop_length: float = param("m", "end-stop length at either end", 0.008)
    p1_start: float = param("Pa", "initial pressure of chamber 1", 0.1e6)
    p2_start: float = param("Pa", "initial pressure of chamber 2", 0.1e6)
    spool_start: float = param("1", "initial spool position", 0.0)
    valve: TimeFunction = param("1", "valve reference (added to the input <name>.Uref)", Constant(0.0))


@dataclass(frozen=True)
class PassiveCylinder(Interface):
    """Passive hydraulic-cylinder element (seed 003, Omar): a cylinder part hinged at the origin of ``marker_i``
    by a universal joint and a rod part hinged at the origin of ``marker_j`` by a spherical joint, sliding on
    each other along the line between the two origins. It adds no coordinates: its inertia (from the marker
    accelerations of the previous step) and its drive act on the two bodies as external forces.

    U-joint (spatial): the cross axis fixed in marker_i is its z axis; the element does not spin about its
    line relative to that cross; the line must never be parallel to z_i. Planar models: both ends are pins.
    Drive: ``force`` f(t) plus the input ``<name>.f`` (N, positive extends), or ``stroke`` d(t) (m; a
    distance constraint between the origins, whose multiplier is the drive force; a constant gives a rigid
    link). Part centres of mass lie on the line, at ``cylinder_cm`` from marker_i and ``rod_cm`` from
    marker_j; inertias are about the part's CM: transverse (any axis normal to the line) and axial. The parts'
    energy is not in the system's: the element's work on the bodies counts as energy input (as an actuator's).
    The first step uses the end accelerations of the initial solve."""

    OUTPUTS = (Signal("length", "m"), Signal("speed", "m/s"), Signal("force", "N"), Signal("fi", "N", 3),
               Signal("fj", "N", 3), Signal("ti", "N.m", 3))

    name: str
    marker_i: str
    marker_j: str
    cylinder_mass: float = param("kg", "mass of the cylinder part (primary end)", 0.0)
    cylinder_cm: float = param("m", "distance of the cylinder part's CM from the origin of marker_i", 0.0)
    cylinder_inertia: Vec = param("kg*m^2", "cylinder part inertia about its CM [transverse, axial]", (0.0, 0.0))
    rod_mass: float = param("kg", "mass of the rod part (secondary end)", 0.0)
    rod_cm: float = param("m", "distance of the rod part's CM from the origin of marker_j", 0.0)
    rod_inertia: Vec = param("kg*m^2", "rod part inertia about its CM [transverse, axial]", (0.0, 0.0))
    force: TimeFunction = param("N", "drive force f(t), positive extending (added to the input <name>.f)",
                                Constant(0.0))
    stroke: TimeFunction | None = field(default=None, metadata={
        "unit": "m", "doc": "prescribed marker distance d(t) instead of a force: constant, linear or polynomial"})

    def inputs(self) -> tuple[Signal, ...]:
        """The drive force input ``<name>.f`` (N), unless the stroke is prescribed."""
        return (Signal("f", "N"),) if self.stroke is None else ()


# --- contact: shapes and contact elements -------------------------------------------------------

#: shape kinds and the number of ``dimensions`` each takes (see Shape)
SHAPE_KINDS = {"sphere": 1, "plane": 0, "box": 3, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "mesh": 0,
               "circle": 1, "line": 0, "polygon": 0}
#: the shape kinds of planar models (in the marker's x-y plane); the others are spatial, except capsule (both)
PLANAR_SHAPE_KINDS = ("circle", "line", "capsule", "polygon")
CONTACT_LAWS = ("linear", "hertz", "hunt_crossley", "lankarani_nikravesh", "flores", "table")
FRICTION_MODELS = ("none", "coulomb", "stribeck", "bristle")
FRICTION_RAMPS = ("linear", "smooth")


@dataclass(frozen=True)
class Shape:
    """A contact shape attached to ``marker`` (its frame is the marker frame). Kinds and ``dimensions``:
    sphere [radius]; plane [] (half-space z < 0 of the marker frame, normal +z); box [half extents x, y, z];
    capsule and cylinder [radius, half length along z]; ellipsoid [semi-axes x, y, z]; mesh [] with
    ``vertices`` (marker frame) and ``triangles`` (counter-clockwise seen from outside). Planar models take
    planar kinds in the marker's x-y plane: circle [radius]; line [] (half-plane y < 0 of the marker frame,
    normal +y: the line is the marker's x axis); capsule [radius, half length along x]; polygon [] with
    ``vertices`` [[x, y], ...] of a convex polygon. ``young`` and ``poisson`` give contact stiffness from
    material data (Hertz)."""

    name: str
    marker: str
    kind: str
    dimensions: Vec = param("m", "size parameters of the kind (see above)", ())
    young: float | None = field(default=None, metadata={"unit": "Pa", "doc": "Young's modulus (optional)"})
    poisson: float | None = field(default=None, metadata={"unit": "1", "doc": "Poisson ratio (optional)"})
    vertices: tuple[Vec, ...] | None = field(default=None, metadata={
        "unit": "m", "doc": "mesh vertices [[x, y, z], ...] (polygon: [[x, y], ...])"})
    triangles: tuple[tuple[int, ...], ...] | None = field(default=None, metadata={
        "unit": "", "doc": "mesh triangles [[i, j, k], ...] (0-based vertex indices)"})


@dataclass(frozen=True)
class Contact(Interface):
    """Compliant contact between every shape of ``shapes_a`` and every shape of ``shapes_b`` (shapes on one body,
    or on bodies joined by a joint when ``include_joined`` is false, are skipped). Depth d > 0, rate d' (> 0 closing).
    Normal force fn >= 0 (never attracting) by ``law``: linear f = k d + c s(d) d'; hertz f = k d^n + c s(d) d'
    (s(d) ramps the damping smoothly from 0 at first touch to 1 at ``damping_depth``, so the force does not jump);
    hunt_crossley, lankarani_nikravesh and flores f = k d^n (1 + chi d'/d'-) with d'- the closing speed at first
    touch and chi = 3(1-e)/2, 3(1-e^2)/4 (seed 001 P3 eq. 20) and 8(1-e)/(5e) (Flores et al. 2011); table:
    ``loading_curve`` on loading, the ``unloading_curve`` shifted to pass through the largest depth reached on
    unloading (hysteresis; its zero is the permanent set). ``stiffness`` k, or, if omitted, Hertz
    k = 4/3 E* sqrt(R*) from the shapes' material and radii. Friction (``friction``): coulomb (mu fn, ramped over
    ``velocity_threshold``), stribeck (mu_k + (mu_s - mu_k) exp(-(v/v_s)^2), ramped, plus ``viscous`` v) and
    bristle (an elasto-plastic tangential spring-damper to an anchor that slides when its force exceeds the
    Stribeck limit: it truly sticks; its elastic displacement is a solver state)."""

    OUTPUTS = (Signal("fn", "N"), Signal("ft", "N", 3), Signal("depth", "m"))

    name: str
    shapes_a: tuple[str, ...]
    shapes_b: tuple[str, ...]
    law: str = param("", "normal force law: " + ", ".join(CONTACT_LAWS), "hertz")
    stiffness: float | None = field(default=None, metadata={"unit": "N/m^n", "doc": "k (default: Hertz from "
                                                                                        "material data)"})
    exponent: float | None = field(default=None, metadata={"unit": "1", "doc": "n (default 1 for linear, 1.5 "
                                                                                "otherwise)"})
    restitution: float = param("1", "coefficient of restitution e in (0, 1] (hysteresis laws)", 1.0)
    damping: float = param("N*s/m", "c (linear and hertz laws)", 0.0)
    damping_depth: float = param("m", "depth over which the damping ramps in (linear and hertz laws)", 1e-4)
    min_impact_speed: float = param("m/s", "floor of d'- (hysteresis laws; for contacts that start at rest)", 1e-3)
    loading_curve: Curve | None = field(default=None, metadata={"unit": "m, N", "doc": "table law: [[d, f], ...]"})
    unloading_curve: Curve | None = field(default=None, metadata={"unit": "m, N",
                                                                  "doc": "table law: [[d, f], ...], increasing"})
    friction: str = param("", "friction model: " + ", ".join(FRICTION_MODELS), "none")
    mu: float = param("1", "kinetic (Coulomb) friction coefficient mu_k", 0.0)
    mu_static: float | None = field(default=None, metadata={"unit": "1", "doc": "static coefficient mu_s "
                                                                                "(default mu)"})
    stribeck_speed: float = param("m/s", "Stribeck speed v_s", 0.01)
    viscous: float = param("N*s/m", "viscous friction coefficient", 0.0)
    velocity_threshold: float = param("m/s", "regularisation speed of coulomb/stribeck friction", 1e-3)
    ramp: str = param("", "regularisation ramp: linear or smooth", "linear")
    tangential_stiffness: float = param("N/m", "bristle stiffness per contact point", 0.0)
    tangential_damping: float = param("N*s/m", "bristle damping per contact point", 0.0)
    include_joined: bool = param("", "collide shapes of bodies joined by a joint too (false: skip them)", True)


JOINT_FRICTION_MODELS = ("coulomb", "stribeck", "bristle")
#: joint types that take a JointFriction
FRICTION_JOINT_TYPES = ("revolute", "prismatic")


@dataclass(frozen=True)
class JointFriction(Interface):
    """Friction in a ``revolute`` or ``prismatic`` joint, driven by the joint's reaction (Adams-style). The
    reaction (force F and torque T on marker_j's body about marker_j's origin, from the multipliers of the joint's
    rows) is split along the joint axis a into the normal load N (N) that presses the sliding surfaces:
    revolute (pin) N = preload + |F - (F.a)a| + |T - (T.a)a| / bending_arm + |F.a| friction_arm / pin_radius;
    prismatic N = preload + |F - (F.a)a| + |T - (T.a)a| / bending_arm + |T.a| / friction_arm (a term with a zero
    arm is left out). The slip v is the sliding speed at the surface: pin_radius times the relative rotation rate
    (revolute), the translation rate (prismatic). The friction force f(N, v) follows the contact friction laws
    (elements.Contact; kernels.contact.friction_law): coulomb mu_k N r(v / velocity_threshold), stribeck
    (mu_k + (mu_s - mu_k) exp(-(v/v_s)^2)) N r(v / velocity_threshold) + viscous v, bristle: an elasto-plastic
    spring-damper (``bristle_stiffness``, ``bristle_damping``) whose deflection is a solver state and which slides
    when its force exceeds the Stribeck limit, so a joint below the breakaway load truly sticks (it deflects by
    f / bristle_stiffness, at most mu_s N / bristle_stiffness, and does not creep). The friction opposes the slip:
    a torque pin_radius f about the axis (revolute) or a force f along it (prismatic) on marker_j's body, and the
    opposite on marker_i's body."""

    name: str
    joint: str
    friction: str = param("", "friction law: " + ", ".join(JOINT_FRICTION_MODELS), "coulomb")
    mu: float = param("1", "kinetic (Coulomb) friction coefficient mu_k", 0.0)
    mu_static: float | None = field(default=None, metadata={"unit": "1", "doc": "static coefficient mu_s "
                                                                                "(default mu)"})
    stribeck_speed: float = param("m/s", "Stribeck speed v_s (stribeck and bristle laws)", 0.01)
    viscous: float = param("N*s/m", "viscous friction coefficient at the sliding surface", 0.0)
    velocity_threshold: float = param("m/s", "regularisation speed of coulomb/stribeck friction", 1e-3)
    ramp: str = param("", "regularisation ramp: linear or smooth", "linear")
    bristle_stiffness: float = param("N/m", "bristle stiffness at the sliding surface (bristle law)", 0.0)
    bristle_damping: float = param("N*s/m", "bristle damping at the sliding surface (bristle law)", 0.0)
    pin_radius: float | None = field(default=None, metadata={"unit": "m", "doc": "pin (journal) radius r: friction "
                                                                                "torque r f (revolute only)"})
    friction_arm: float = param("m", "revolute: arm of the axial force; prismatic: arm that turns the torsional "
                                     "moment into a normal force (0: term off)", 0.0)
    bending_arm: float = param("m", "arm (revolute) or sliding overlap (prismatic) that turns the bending moment "
                                    "into a normal force (0: term off)", 0.0)
    preload: float = param("N", "normal load present without reactions (seal squeeze, assembly interference)", 0.0)

    def outputs(self, model) -> tuple[Signal, ...]:
        """The friction ``torque`` (revolute, N.m) or ``force`` (prismatic, N) on marker_j's body along the axis,
        the ``slip`` (m/s) and the normal ``load`` (N)."""
        joint = next((j for j in model.joints if j.name == self.joint), None)
        first = Signal("torque", "N.m") if joint is not None and joint.type == "revolute" else Signal("force", "N")
        return (first, Signal("slip", "m/s"), Signal("load", "N"))


@dataclass(frozen=True)
class CrushSpring(Interface):
    """Hysteretic crush spring between the origins of marker_i and marker_j (crash structures): compression
    d = free_length - (distance of the origins). Loading follows ``loading_curve`` [[d, F], ...] (from [0, 0], d
    strictly increasing, F >= 0; linear past the last point), scaled while loading by the Cowper-Symonds factor
    1 + (d'/D)^(1/p) when ``rate_constant`` D > 0. Below the largest compression reached it unloads and reloads
    along ``unloading_stiffness``, down to zero force at the permanent set; it carries no tension. The force pushes
    the origins apart (kernels/families/crush_spring.py). Outputs: deflection d (m), force (N), absorbed energy (J:
    the work done on the element)."""

    OUTPUTS = (Signal("deflection", "m", doc="compression d"),
               Signal("force", "N", doc="force pushing the origins apart"),
               Signal("absorbed", "J", doc="energy absorbed (work done on the element)"))

    name: str
    marker_i: str
    marker_j: str
    free_length: float = param("m", "origin distance at which compression starts")
    loading_curve: Curve = param("m, N", "[[d, F], ...]: compression and force, from [0, 0]")
    unloading_stiffness: float = param("N/m", "slope of unloading and reloading (>= the steepest loading slope)")
    rate_constant: float = param("m/s", "Cowper-Symonds D of the loading rate factor (0: no rate effect)", 0.0)
    rate_exponent: float = param("1", "Cowper-Symonds p of the loading rate factor", 1.0)

    def problems(self, where: str) -> list[str]:
        """What is wrong with the element's own fields (the model validation calls this)."""
        p = []
        if not (math.isfinite(self.free_length) and self.free_length > 0.0):
            p.append(f"{where}: 'free_length' must be finite and > 0, got {self.free_length}")
        curve = self.loading_curve or ()
        ds = [float(x[0]) for x in curve]
        fs = [float(x[1]) for x in curve]
        if len(curve) < 2 or not all(math.isfinite(v) for v in ds + fs):
            p.append(f"{where}: 'loading_curve' needs at least 2 finite points [d, F]")
        elif ds[0] != 0.0 or fs[0] != 0.0:
            p.append(f"{where}: 'loading_curve' must start at [0, 0], got {list(curve[0])}")
        elif any(b <= a for a, b in zip(ds, ds[1:])) or min(fs) < 0.0:
            p.append(f"{where}: 'loading_curve' needs strictly increasing d and F >= 0")
        else:
            steepest = max((f1 - f0) / (d1 - d0) for d0, d1, f0, f1 in zip(ds, ds[1:], fs, fs[1:]))
            if not (math.isfinite(self.unloading_stiffness) and self.unloading_stiffness >= steepest):
                p.append(f"{where}: 'unloading_stiffness' must be at least the steepest loading slope "
                         f"({steepest:.6g} N/m), got {self.unloading_stiffness}")
        if not (math.isfinite(self.rate_constant) and self.rate_constant >= 0.0):
            p.append(f"{where}: 'rate_constant' must be finite and >= 0, got {self.rate_constant}")
        if not (math.isfinite(self.rate_exponent) and self.rate_exponent > 0.0):
            p.append(f"{where}: 'rate_exponent' must be finite and > 0, got {self.rate_exponent}")
        return p


@dataclass(frozen=True)
class Belt(Interface):
    """Seat belt webbing from a retractor at ``marker_i`` through the slip-ring markers ``rings`` to the anchor
    ``marker_j`` (kernels/families/belt.py): each segment pulls its end markers together with
    F = EA (l - s)/s for l > s (no compression), s the segment's unstretched webbing length (a state); webbing
    slides through a ring only when the capstan law F_high <= F_low e^(mu alpha) would be broken (alpha: the wrap
    angle, the angle between the two segments' directions), so a slipping ring holds F_high = F_low e^(mu alpha).
    The retractor is locked from the start; its load limiter pays webbing out at ``load_limit`` (N, 0: none). Its
    pretensioner pulls in ``pull_in``(t) (m, prescribed) plus, once fired, the ``pretensioner_stroke`` table
    [[time since firing s, pull-in m], ...]; it fires at ``fire_time`` (s; negative: never by time) or when the
    input ``<belt>.fire`` first reaches 0.5 (a crash-sensing controller over FMI). Unstretched lengths: the
    marker distances in the model's initial positions, ``slack`` added to
    the retractor segment. Outputs: segment forces (N), webbing slipped through each ring towards the retractor
    (m), pay-out of the retractor (m: load limiter minus pull-in), total length (m)."""

    INPUTS = (Signal("fire", "1", doc="pretensioner trigger: fires when it first reaches 0.5"),)

    name: str
    marker_i: str
    marker_j: str
    stiffness: float = param("N", "EA: webbing force per unit strain")
    rings: tuple[str, ...] = param("", "slip-ring markers, in order from marker_i to marker_j", ())
    mu: float = param("1", "friction coefficient of the webbing on the slip rings", 0.0)
    slack: float = param("m", "initial slack of the retractor segment (negative: pre-stretched)", 0.0)
    load_limit: float = param("N", "force at which the retractor's load limiter pays out (0: no limiter)", 0.0)
    pull_in: TimeFunction = param("m", "prescribed pull-in of webbing into the retractor at time t", Constant(0.0))
    pretensioner_stroke: Curve | None = field(default=None, metadata={
        "unit": "s, m", "doc": "pretensioner pull-in against time since firing [[0, 0], ..., [t, p], [t2, p]] "
                               "(ends flat)"})
    fire_time: float = param("s", "time at which the pretensioner fires (negative: only by the input fire)", -1.0)

    def outputs(self, model) -> tuple[Signal, ...]:
        """Forces of the len(rings) + 1 segments, slips of the rings, pay-out, length."""
        n = len(self.rings) + 1
        slip = (Signal("slip", "m", n - 1, doc="webbing slipped through each ring towards marker_i"),) if n > 1 \
            else ()
        return (Signal("force", "N", n, doc="webbing force of each segment, from marker_i"), *slip,
                Signal("payout", "m", doc="webbing paid out by the retractor (load limiter minus pull-in)"),
                Signal("length", "m", doc="total webbing path length"))

    def problems(self, where: str) -> list[str]:
        """What is wrong with the element's own fields (the model validation calls this)."""
        p = []
        if not (math.isfinite(self.stiffness) and self.stiffness > 0.0):
            p.append(f"{where}: 'stiffness' (EA) must be finite and > 0, got {self.stiffness}")
        if not (math.isfinite(self.mu) and self.mu >= 0.0):
            p.append(f"{where}: 'mu' must be finite and >= 0, got {self.mu}")
        if not (math.isfinite(self.load_limit) and self.load_limit >= 0.0):
            p.append(f"{where}: 'load_limit' must be finite and >= 0, got {self.load_limit}")
        if not math.isfinite(self.slack):
            p.append(f"{where}: 'slack' must be finite, got {self.slack}")
        if not math.isfinite(self.fire_time):
            p.append(f"{where}: 'fire_time' must be finite, got {self.fire_time}")
        stroke = self.pretensioner_stroke
        if stroke is not None:
            ts = [float(x[0]) for x in stroke]
            ps = [float(x[1]) for x in stroke]
            if len(stroke) < 2 or not all(math.isfinite(v) for v in ts + ps):
                p.append(f"{where}: 'pretensioner_stroke' needs at least 2 finite points [t, pull-in]")
            elif ts[0] != 0.0 or ps[0] != 0.0 or any(b <= a for a, b in zip(ts, ts[1:])):
                p.append(f"{where}: 'pretensioner_stroke' must start at [0, 0] with increasing times")
            elif ps[-1] != ps[-2]:
                p.append(f"{where}: 'pretensioner_stroke' must end flat (its last two pull-ins equal), so the "
                         f"pull-in holds after the table")
        elif self.fire_time >= 0.0:
            p.append(f"{where}: 'fire_time' is set but there is no 'pretensioner_stroke'")
        path = (self.marker_i, *self.rings, self.marker_j)
        if len(set(path)) != len(path):
            p.append(f"{where}: the belt path {list(path)} passes a marker twice")
        return p


ForceElement = (SpringDamper | RotationalSpringDamper | Bushing | PointLoad | Actuator | HydraulicCylinder | Contact
                | PassiveCylinder | JointFriction | CrushSpring | Belt | JointStop | BeamElement)

FORCE_KINDS: dict[str, type] = {
    "spring_damper": SpringDamper,
    "rotational_spring_damper": RotationalSpringDamper,
    "bushing": Bushing,
    "point_load": PointLoad,
    "actuator": Actuator,
    "hydraulic_cylinder": HydraulicCylinder,
    "contact": Contact,
    "passive_cylinder": PassiveCylinder,
    "joint_friction": JointFriction,
    "crush_spring": CrushSpring,
    "belt": Belt,
    "joint_stop": JointStop,
    "beam_element": BeamElement,
}
