"""``crash``: a lumped-mass (Kamal-type) vehicle front structure against a barrier, as a Model.

Kamal (SAE 700414, 1970) models a car in a frontal crash as a few lumped masses (body/passenger cell, engine,
cross-member/suspension) joined by nonlinear springs whose force-crush curves come from static crush tests;
later models (Mostafa 2011: engine, rails, cradle, firewall/body, occupant) add masses. Here the user gives the
masses with their distance from the vehicle front, and the links between two masses or between a mass and the
barrier:

- a crush link (``curve``): a hysteretic crush spring (model/force_elements.py ``CrushSpring``: loading table,
  unloading stiffness, Cowper-Symonds rate factor) that engages after ``gap`` metres of closing;
- a Kelvin link (``stiffness``, ``damping``, no curve): a linear spring and damper (``SpringDamper``, tension
  and compression: engine mounts, the body's own stiffness), no gap;
- ``damping`` on a crush link adds a damper in parallel (it acts in tension too, so not with a gap).

The vehicle moves along +x at ``speed`` (m/s) and is placed ``speed x pre_time`` behind its contact position, so
a result starts with ``pre_time`` (default 10 ms, J211's advice for filtering) of free flight. Barriers:

- ``RigidWall()``: barrier links attach to the ground at x = 0;
- ``Pole(engaged)``: a rigid pole; only the barrier links named in ``engaged`` meet it (the others are left out);
- ``DeformableBarrier(elements, face_mass, depth, engaged)``: an offset deformable barrier face (a point mass at
  x = 0) backed by a field of crush elements to the ground ``depth`` metres behind it; the engaged barrier links
  hit the face.

``occupant=Occupant(...)`` adds a belted occupant: a point mass (marker ``occupant``) riding on the cell's seat
(vertical support only) and a ``Belt`` named ``belt`` from a retractor through the D-ring and over the chest (a
slip ring) to the buckle, all anchored on the cell, with load limiter and pretensioner (input ``belt.fire``).

``occupant=SeatedOccupant(...)`` makes the model spatial (dimension 3, gravity -z) with the ellipsoid-segment
occupant of model/occupant.py (shoulder and lap belts, seat, floor and toe-board contacts) seated on the passenger
cell: the cell is then a rigid body ``<cell>_body`` on a prismatic rail along x (``<cell>_rail``; it neither
pitches nor drops), and every other mass hangs from the cell on a bushing ``<mass>_support`` that is stiff in y
and z only (``support_stiffness``), placed at its static sag so the run starts in equilibrium; the deformable
barrier's face hangs from the ground the same way.

Mass ``<mass>`` is the point body ``<mass>_body`` (its ``--set`` name) with the marker ``<mass>`` (channels
``<mass>.r[1]``, ``.v[1]``, ``.a[1]``), the barrier is marker
``barrier``, every crush link outputs ``<link>.deflection``, ``.force``, ``.absorbed``. The model is planar
(dimension 2, no gravity) unless the occupant is a ``SeatedOccupant``; motion along x.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ModelError
from .builder import ModelBuilder
from .elements import Model
from .force_elements import Belt, CrushSpring
from .occupant import Occupant3D, add_ellipsoid_occupant

BARRIER = "barrier"
AHEAD = 10.0     # m: a link's front end is a marker this far ahead of its body, so the crush never flips the line
G0 = 9.80665     # m/s^2: gravity of the spatial variant


@dataclass(frozen=True)
class Mass:
    """A lumped mass (kg) ``x`` metres behind the vehicle front (x >= 0)."""
    name: str
    mass: float
    x: float


@dataclass(frozen=True)
class Link:
    """A crush link (``curve``: [(crush m, force N), ...] from (0, 0)) or a Kelvin link (``stiffness`` N/m,
    ``damping`` N s/m) between masses ``i`` and ``j`` (either may be ``"barrier"``)."""
    name: str
    i: str
    j: str
    curve: tuple[tuple[float, float], ...] | None = None
    unloading_stiffness: float | None = None
    gap: float = 0.0
    stiffness: float = 0.0
    damping: float = 0.0
    rate_constant: float = 0.0
    rate_exponent: float = 1.0


@dataclass(frozen=True)
class RigidWall:
    """A rigid wall at x = 0, square to the vehicle."""


@dataclass(frozen=True)
class Pole:
    """A rigid pole at x = 0 that only the barrier links named in ``engaged`` meet."""
    engaged: tuple[str, ...]


@dataclass(frozen=True)
class DeformableBarrier:
    """A barrier face (point mass ``face_mass`` kg at x = 0) on a field of crush ``elements`` (Links between
    ``"face"`` and ``"ground"``) of depth ``depth`` m; ``engaged``: the barrier links that hit the face (the
    struck side of an offset test), all when empty."""
    elements: tuple[Link, ...]
    face_mass: float = 20.0
    depth: float = 0.6
    engaged: tuple[str, ...] = ()


@dataclass(frozen=True)
class Occupant:
    """A belted occupant: a point mass ``x`` metres behind the vehicle front riding on the mass ``cell`` (a seat
    that holds it vertically, ``seat_stiffness``/``seat_damping``), held by a belt (model/force_elements.py
    ``Belt``) from a retractor below the D-ring, through the D-ring (``anchor_offset`` behind and
    ``anchor_height`` above the chest) and over the chest (a slip ring) to the buckle (as far below the chest)."""
    mass: float = 75.0
    x: float = 1.6
    cell: str = "cell"
    belt_stiffness: float = 1e5
    mu: float = 0.2
    slack: float = 0.0
    load_limit: float = 0.0
    pretensioner_stroke: tuple[tuple[float, float], ...] | None = None
    fire_time: float = -1.0
    anchor_offset: float = 0.3
    anchor_height: float = 0.3
    seat_stiffness: float = 1e5
    seat_damping: float = 2e3


@dataclass(frozen=True)
class SeatedOccupant:
    """The ellipsoid-segment occupant (model/occupant.py ``Occupant3D``, belts included) seated on the rigid
    passenger cell ``cell`` of a spatial crash model, its hip joint centre ``hip_x`` m behind the vehicle front and
    ``hip_z`` m above the masses' line (z = 0); ``support_stiffness`` (N/m) and ``support_damping`` (N s/m): the
    y-z bushings that carry the other masses on the cell."""
    occupant: Occupant3D = Occupant3D()
    cell: str = "cell"
    hip_x: float = 1.9
    hip_z: float = 0.45
    support_stiffness: float = 1e7
    support_damping: float = 1e4


def _steepest(curve) -> float:
    return max((y1 - y0) / (x1 - x0) for (x0, y0), (x1, y1) in zip(curve[:-1], curve[1:]))


def crash(name: str, masses: Sequence[Mass], links: Sequence[Link], speed: float = 56.0 / 3.6,
          barrier: RigidWall | Pole | DeformableBarrier | None = None, pre_time: float = 0.010,
          description: str = "", occupant: Occupant | SeatedOccupant | None = None) -> Model:
    """The lumped-mass crash Model (module docstring); raises ModelError naming every bad mass or link."""
    barrier = RigidWall() if barrier is None else barrier
    problems: list[str] = []
    pos: dict[str, float] = {}
    for m in masses:
        if m.name in pos or m.name in (BARRIER, "ground", "face", "barrier_back", "occupant", "seat", "retractor",
                                       "d_ring", "buckle"):
            problems.append(f"mass '{m.name}': the name is used twice or reserved")
        if not m.mass > 0.0:
            problems.append(f"mass '{m.name}': mass must be positive, got {m.mass}")
        if not m.x >= 0.0:
            problems.append(f"mass '{m.name}': x (distance behind the front) must be >= 0, got {m.x}")
        pos[m.name] = float(m.x)
    if not speed > 0.0:
        problems.append(f"crash '{name}': the impact speed must be positive, got {speed}")
    if not pre_time >= 0.0:
        problems.append(f"crash '{name}': pre_time must be >= 0, got {pre_time}")
    engaged = getattr(barrier, "engaged", ())
    names = {lk.name for lk in links}
    for e in engaged:
        if e not in names:
            problems.append(f"barrier: engaged link '{e}' is not a link")
    if problems:
        raise ModelError(problems, name)
    seated = occupant if isinstance(occupant, SeatedOccupant) else None
    if seated is not None and seated.cell not in pos:
        raise ModelError([f"occupant: the cell '{seated.cell}' is not a mass (masses: {', '.join(pos)})"], name)
    standoff = speed * pre_time
    b = (ModelBuilder(name, dimension=3, gravity=(0.0, 0.0, -G0)) if seated is not None
         else ModelBuilder(name, dimension=2, gravity=(0.0, 0.0)))
    b.description = description or f"lumped-mass vehicle at {3.6 * speed:.1f} km/h into a {type(barrier).__name__}"
    b.add_marker(BARRIER, "ground", position=_at(b, 0.0))
    b.add_marker(f"{BARRIER}_ahead", "ground", position=_at(b, AHEAD))
    for m in masses:
        if seated is not None:
            _add_spatial_mass(b, seated, m, pos, standoff, speed)
        else:
            b.add_point_mass(f"{m.name}_body", m.mass, position=(-standoff - m.x, 0.0), velocity=(speed, 0.0))
            b.add_marker(m.name, f"{m.name}_body")
    front = BARRIER
    ahead: set[str] = set()
    if isinstance(barrier, DeformableBarrier):
        sag = 0.0 if seated is None else barrier.face_mass * G0 / seated.support_stiffness
        b.add_point_mass("face_body", barrier.face_mass, position=_at(b, 0.0, -sag))
        b.add_marker("face", "face_body")
        b.add_marker("face_ahead", "face_body", position=_at(b, AHEAD))
        b.add_marker("barrier_back", "ground", position=_at(b, barrier.depth + AHEAD))
        if seated is not None:
            b.add_marker("face_mount", "ground", position=_at(b, 0.0))
            k, c = seated.support_stiffness, seated.support_damping
            b.add_bushing("face_support", "face_mount", "face", stiffness=(0.0, k, k), damping=(0.0, c, c))
        front = "face"
        for el in barrier.elements:
            _add_link(b, problems, el, "barrier_back", "face", barrier.depth - el.gap)
    for lk in links:
        ends = []
        for end in (lk.i, lk.j):
            if end == BARRIER:
                ends.append((front, 0.0))
            elif end in pos:
                ends.append((end, pos[end]))
            else:
                problems.append(f"link '{lk.name}': unknown mass '{end}' (masses: {', '.join(pos)}, or 'barrier')")
        if len(ends) != 2:
            continue
        if BARRIER in (lk.i, lk.j) and engaged and lk.name not in engaged:
            continue                                    # a pole or an offset barrier: not struck
        (mi, xi), (mj, xj) = sorted(ends, key=lambda e: (e[1], e[0] != front))   # mi: the end nearer the front
        if mi == mj:
            problems.append(f"link '{lk.name}': both ends on '{mi}'")
            continue
        if mi != front and f"{mi}_ahead" not in ahead:
            b.add_marker(f"{mi}_ahead", f"{mi}_body", position=_at(b, AHEAD))
            ahead.add(f"{mi}_ahead")
        _add_link(b, problems, lk, f"{mi}_ahead", mj, xj - xi - lk.gap)
    if seated is not None:
        x_cell = -standoff - pos[seated.cell]
        add_ellipsoid_occupant(b, f"{seated.cell}_body", hip=(-standoff - seated.hip_x, 0.0, seated.hip_z),
                               occ=seated.occupant, velocity=(speed, 0.0, 0.0), seat_origin=(x_cell, 0.0, 0.0))
    elif occupant is not None:
        _add_occupant(b, problems, occupant, pos, standoff, speed)
    # an FMU of the model also reports the pulses (each mass's acceleration) that crash-report and a restraint
    # controller read; the default set has positions and velocities only
    occ_out = () if occupant is None else ("occupant.a", "head_cg.a") if seated is not None else ("occupant.a",)
    b.fmu_output("default", *(f"{m.name}.a" for m in masses), *occ_out)
    if problems:
        raise ModelError(problems, name)
    return b.build()


def _at(b: ModelBuilder, x: float, z: float = 0.0) -> tuple[float, ...]:
    """The point (x, 0[, z]) in the builder's dimension."""
    return (x, 0.0) if b.dimension == 2 else (x, 0.0, z)


def _add_spatial_mass(b: ModelBuilder, seated: SeatedOccupant, m: Mass, pos: dict[str, float], standoff: float,
                      speed: float) -> None:
    """Mass ``m`` of the spatial variant: the cell a rigid body on a prismatic rail along x; any other mass a
    point mass on a y-z bushing from the cell, hung at its static sag m g / k (so gravity starts balanced)."""
    x = -standoff - m.x
    if m.name == seated.cell:
        # a box-like cell of 1.8 x 1.5 x 1.2 m (its inertia only matters if a model frees its rotation)
        a, w, h = 1.8, 1.5, 1.2
        inertia = (m.mass * (w * w + h * h) / 12, m.mass * (a * a + h * h) / 12, m.mass * (a * a + w * w) / 12)
        b.add_rigid_body(f"{m.name}_body", m.mass, inertia, position=(x, 0.0, 0.0), velocity=(speed, 0.0, 0.0))
        b.add_marker(m.name, f"{m.name}_body")
        along_x = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)      # marker z along the world x
        b.add_marker(f"{m.name}_rail_start", "ground", orientation=along_x)
        b.add_marker(f"{m.name}_guide", f"{m.name}_body", orientation=along_x)
        b.add_joint(f"{m.name}_rail", "prismatic", f"{m.name}_rail_start", f"{m.name}_guide")
        return
    k, c = seated.support_stiffness, seated.support_damping
    b.add_point_mass(f"{m.name}_body", m.mass, position=(x, 0.0, -m.mass * G0 / k), velocity=(speed, 0.0, 0.0))
    b.add_marker(m.name, f"{m.name}_body")
    b.add_marker(f"{m.name}_mount", f"{seated.cell}_body", position=(pos[seated.cell] - m.x, 0.0, 0.0))
    b.add_bushing(f"{m.name}_support", f"{m.name}_mount", m.name, stiffness=(0.0, k, k), damping=(0.0, c, c))


def _add_occupant(b: ModelBuilder, problems: list[str], occ: Occupant, pos: dict[str, float], standoff: float,
                  speed: float) -> None:
    """The occupant body 'occupant_body' (marker 'occupant'), the seat bushing and the belt 'belt'."""
    if occ.cell not in pos:
        problems.append(f"occupant: the cell '{occ.cell}' is not a mass")
        return
    if not occ.mass > 0.0:
        problems.append(f"occupant: mass must be positive, got {occ.mass}")
        return
    x_world = -standoff - occ.x
    rel = pos[occ.cell] - occ.x                          # occupant position in the cell's frame (x)
    b.add_point_mass("occupant_body", occ.mass, position=(x_world, 0.0), velocity=(speed, 0.0))
    b.add_marker("occupant", "occupant_body")
    cell = f"{occ.cell}_body"
    back, h = rel - occ.anchor_offset, occ.anchor_height
    b.add_marker("seat", cell, position=(rel, 0.0))
    b.add_marker("retractor", cell, position=(back, -h - 0.1))
    b.add_marker("d_ring", cell, position=(back, h))
    b.add_marker("buckle", cell, position=(back, -h))
    b.add_bushing("seat_support", "seat", "occupant", stiffness=(0.0, occ.seat_stiffness, 0.0),
                  damping=(0.0, occ.seat_damping, 0.0))
    b.add_force(Belt("belt", "retractor", "buckle", stiffness=occ.belt_stiffness, rings=("d_ring", "occupant"),
                     mu=occ.mu, slack=occ.slack, load_limit=occ.load_limit,
                     pretensioner_stroke=occ.pretensioner_stroke, fire_time=occ.fire_time))


def example_vehicle() -> tuple[tuple[Mass, ...], tuple[Link, ...]]:
    """The masses and links of the catalogue's ``frontal_crash``: an illustrative 1500 kg mid-size car (bumper
    and rail fronts, engine, subframe, firewall and cell), NOT calibrated to a test (Kamal's and Munyazikwiye's
    parameter tables were not available): 0.60 m dynamic crush and a 44 g CFC 60 peak at 56 km/h."""
    masses = (Mass("rails", 60.0, 0.10), Mass("engine", 200.0, 0.45), Mass("subframe", 140.0, 0.60),
              Mass("cell", 1100.0, 1.00))
    links = (
        Link("crash_boxes", BARRIER, "rails", curve=((0.0, 0.0), (0.01, 100e3), (0.08, 110e3), (0.09, 1e6))),
        Link("front_rails", "rails", "cell", curve=((0.0, 0.0), (0.02, 200e3), (0.45, 240e3), (0.70, 700e3))),
        Link("engine_stack", BARRIER, "engine", gap=0.30, curve=((0.0, 0.0), (0.03, 200e3), (0.10, 350e3))),
        Link("engine_firewall", "engine", "cell", gap=0.20, curve=((0.0, 0.0), (0.02, 100e3), (0.20, 300e3))),
        Link("engine_mounts", "engine", "cell", stiffness=2e5, damping=3e3),
        Link("subframe_front", BARRIER, "subframe", gap=0.35, curve=((0.0, 0.0), (0.03, 80e3), (0.30, 120e3))),
        Link("subframe_mounts", "subframe", "cell", stiffness=1e6, damping=5e3),
    )
    return masses, links


def example_occupant() -> Occupant:
    """The belted occupant of the catalogue's ``frontal_crash``: 75 kg, EA = 100 kN webbing with mu = 0.2 and
    20 mm slack, an 8 kN load limiter and an 80 mm pretensioner (60 mm in 5 ms, 80 mm in 10 ms) fired 15 ms after
    the first contact (``belt.fire_time`` = 25 ms; -1 leaves it to the input ``belt.fire``). Illustrative values."""
    return Occupant(mass=75.0, x=1.6, belt_stiffness=1e5, mu=0.2, slack=0.02, load_limit=8e3,
                    pretensioner_stroke=((0.0, 0.0), (0.005, 0.06), (0.010, 0.08), (0.020, 0.08)), fire_time=0.025)


def example_seated_occupant() -> SeatedOccupant:
    """The occupant of the catalogue's ``frontal_crash``: de Leva's 73 kg male of model/occupant.py with its
    illustrative posture, joint and seat characteristics and belts (shoulder belt: EA = 100 kN, mu = 0.2, 20 mm
    slack, 8 kN load limiter, 80 mm pretensioner fired at ``belt.fire_time`` = 25 ms, 15 ms after the first
    contact, or by the input ``belt.fire``), hip 1.9 m behind the vehicle front, 0.45 m above the masses' line."""
    return SeatedOccupant(Occupant3D(), cell="cell", hip_x=1.9, hip_z=0.45)


def _add_link(b: ModelBuilder, problems: list[str], lk: Link, mi: str, mj: str, l0: float) -> None:
    """Add the elements of one link between the marker ``mi`` (AHEAD m in front of the link's front end) and
    ``mj``; ``l0``: the distance between the ends at which it engages (m)."""
    if lk.curve is None:
        if lk.gap:
            problems.append(f"link '{lk.name}': a Kelvin link (no curve) has no gap; give a crush curve")
        if not (lk.stiffness > 0.0 or lk.damping > 0.0):
            problems.append(f"link '{lk.name}': give a crush curve, or a stiffness or damping")
            return
        b.add_spring_damper(lk.name, mi, mj, stiffness=lk.stiffness, free_length=AHEAD + l0 + lk.gap,
                            damping=lk.damping)
        return
    if not l0 >= 0.0:
        problems.append(f"link '{lk.name}': the gap {lk.gap} m must be shorter than the distance between its "
                        f"ends ({l0 + lk.gap:g} m)")
        return
    if lk.damping and lk.gap:
        problems.append(f"link '{lk.name}': damping on a link with a gap would act before contact")
    curve = tuple((float(x), float(y)) for x, y in lk.curve)
    ku = lk.unloading_stiffness
    if ku is None:
        ku = 10.0 * _steepest(curve) if len(curve) > 1 else 0.0   # nearly plastic unloading by default
    b.add_force(CrushSpring(lk.name, mi, mj, free_length=AHEAD + l0, loading_curve=curve, unloading_stiffness=ku,
                            rate_constant=lk.rate_constant, rate_exponent=lk.rate_exponent))
    if lk.damping:
        b.add_spring_damper(f"{lk.name}_damper", mi, mj, free_length=AHEAD + l0, damping=lk.damping)


__all__ = ["crash", "example_vehicle", "example_occupant", "example_seated_occupant", "Occupant", "SeatedOccupant",
           "Mass", "Link", "RigidWall", "Pole",
           "DeformableBarrier", "BARRIER"]
