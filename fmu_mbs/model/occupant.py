"""``add_ellipsoid_occupant``: a seated occupant of rigid ellipsoid segments (MADYMO/ATB-style) on a seat body.

The segment table is de Leva (1996), "Adjustments to Zatsiorsky-Seluyanov's segment inertia parameters",
J. Biomech. 29(9) 1223-1230, Table 4, male: segment length (mm, for the mean stature 1741 mm and mass 73.0 kg),
mass (% of body mass), centre of mass (% of the length from the first endpoint) and radii of gyration about the
sagittal (x, front-back), transverse (y, left-right) and longitudinal (z) axes (% of the length). Values as
transcribed by BMClab/BMC (``data/BSP_ZdeLeva.txt``) and checked against the length ratios of two other public
transcriptions. Everything else is derived and says how:

- lengths and masses scale with ``stature`` / 1.741 m and ``mass`` / 73.0 kg; inertias m (r L)^2;
- the contact ellipsoid of a segment is its equimomental ellipsoid (the uniform ellipsoid with the segment's
  mass and principal moments): a_x^2 = 5/2 (r_y^2 + r_z^2 - r_x^2) L^2 and cyclically, centred at the CM;
- left and right limbs move together in a frontal sled test (a sagittal-plane model), so each pair is one body of
  twice the mass and inertia, its ellipsoid on the mid-plane;
- forearm and hand are one body (hand on the forearm's axis past the wrist); the foot's mass and inertia sit at
  the ankle on the lower leg (its ellipsoid there, horizontal), so the chain has no ankle joint;
- the shoulders sit on the trunk axis at the suprasternale, 71.4 mm (603.3 - 531.9 mm, the table's CERV-MIDH and
  SUPR-MIDH trunk lengths) below the cervicale; the hips at MIDH; the neck joint at the cervicale.

Joints are revolute about the lateral axis y, each with a ``JointStop`` (model/joint_stop.py) whose free angle is
the initial posture; the joint characteristics and the contact tables of ``Occupant3D`` are **illustrative**
(no published joint or seat characteristic was available to this project). Bodies: ``torso`` (the root, free),
``head``, ``upper_arm``, ``lower_arm``, ``thigh``, ``lower_leg``; markers ``occupant`` (chest, where the shoulder
belt crosses), ``head_cg`` (head CM), ``pelvis`` (lap belt); contacts ``seat`` (cushion), ``backrest``, ``feet``
(floor and toe board). x forward, z up, motion in the x-z plane.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .builder import ModelBuilder
from .force_elements import Belt
from .joint_stop import JointStop

STATURE_REF, MASS_REF = 1.741, 73.0          # m, kg: de Leva's mean male

#: de Leva (1996) Table 4, male: length (m, stature 1.741 m), mass fraction, CM from the first endpoint (fraction of
#: the length), radii of gyration about the sagittal, transverse and longitudinal axes (fractions of the length)
DE_LEVA_MALE = {
    "head": (0.2429, 0.0694, 0.5002, 0.303, 0.315, 0.261),        # VERT-CERV ("head 2")
    "trunk": (0.6033, 0.4346, 0.5138, 0.328, 0.306, 0.169),       # CERV-MIDH ("trunk 2")
    "upper_arm": (0.2817, 0.0271, 0.5772, 0.285, 0.269, 0.158),   # SJC-EJC
    "forearm": (0.2689, 0.0162, 0.4574, 0.276, 0.265, 0.121),     # EJC-WJC
    "hand": (0.0862, 0.0061, 0.7900, 0.628, 0.513, 0.401),        # WJC-MET3
    "thigh": (0.4222, 0.1416, 0.4095, 0.329, 0.329, 0.149),       # HJC-KJC
    "shank": (0.4340, 0.0433, 0.4395, 0.251, 0.246, 0.102),       # KJC-AJC
    "foot": (0.2581, 0.0137, 0.4415, 0.257, 0.245, 0.124),        # HEEL-TTIP
}
SHOULDER_BELOW_CERV = 0.6033 - 0.5319        # m at the reference stature (the two trunk lengths of the table)


@dataclass(frozen=True)
class Occupant3D:
    """Posture (rad from the vertical, positive leaning forward / pointing forward), size, joint characteristics
    and the belts of ``add_ellipsoid_occupant``. Joint tables [[phi rad, T N m], ...]; contact tables [[depth m,
    force N], ...]. Illustrative defaults."""
    mass: float = MASS_REF
    stature: float = STATURE_REF
    torso_angle: float = -math.radians(20.0)     # reclined 20 degrees
    thigh_angle: float = math.radians(90.0)      # horizontal
    shank_angle: float = math.radians(40.0)      # 40 degrees forward of vertical, down from the knee
    upper_arm_angle: float = math.radians(10.0)
    lower_arm_angle: float = math.radians(70.0)
    joint_curve: tuple = ((-1.0, -200.0), (-0.3, -20.0), (0.0, 0.0), (0.3, 20.0), (1.0, 200.0))
    neck_range: tuple[float, float] = (-0.6, 0.8)
    hip_range: tuple[float, float] = (-0.5, 0.9)
    knee_range: tuple[float, float] = (-0.6, 1.2)
    shoulder_range: tuple[float, float] = (-1.5, 1.5)
    elbow_range: tuple[float, float] = (-1.2, 1.0)
    stop_stiffness: float = 2000.0               # N m/rad past the range
    joint_damping: float = 2.0                   # N m s/rad
    joint_unloading: float = 1000.0              # N m/rad (hysteresis of the joint tables)
    seat_curve: tuple = ((0.0, 0.0), (0.02, 1500.0), (0.05, 6000.0), (0.08, 30000.0))
    seat_unloading: tuple = ((0.0, 0.0), (0.005, 2000.0), (0.01, 12000.0))
    foot_curve: tuple = ((0.0, 0.0), (0.01, 1000.0), (0.03, 8000.0))
    seat_mu: float = 0.3
    belt_stiffness: float = 1e5
    belt_mu: float = 0.2
    slack: float = 0.02
    load_limit: float = 8e3
    pretensioner_stroke: tuple | None = ((0.0, 0.0), (0.005, 0.06), (0.010, 0.08), (0.020, 0.08))
    fire_time: float = 0.025


def segment(name: str, stature: float = STATURE_REF, mass: float = MASS_REF):
    """(length m, mass kg, CM from the first endpoint m, principal inertias about the CM (x, y, z) kg m^2,
    equimomental ellipsoid semi-axes (x, y, z) m) of one de Leva segment."""
    length, fm, cm, rx, ry, rz = DE_LEVA_MALE[name]
    length *= stature / STATURE_REF
    m = fm * mass
    r = np.array([rx, ry, rz]) * length
    inertia = m * r ** 2
    semi = np.sqrt(2.5 * np.array([r[1] ** 2 + r[2] ** 2 - r[0] ** 2, r[0] ** 2 + r[2] ** 2 - r[1] ** 2,
                                   r[0] ** 2 + r[1] ** 2 - r[2] ** 2]))
    return length, m, cm * length, inertia, semi


def _quat_y(beta: float) -> tuple[float, float, float, float]:
    """Rotation about y by beta: body z -> (sin beta, 0, cos beta)."""
    return (math.cos(beta / 2), 0.0, math.sin(beta / 2), 0.0)


def _unit(beta: float) -> np.ndarray:
    return np.array([math.sin(beta), 0.0, math.cos(beta)])


def _local(p, origin, beta) -> tuple[float, float, float]:
    """World point p in the frame at ``origin`` rotated by beta about y."""
    d = np.asarray(p, dtype=float) - np.asarray(origin, dtype=float)
    c, s = math.cos(beta), math.sin(beta)
    return (float(c * d[0] - s * d[2]), float(d[1]), float(s * d[0] + c * d[2]))


def _support(semi, beta, n) -> float:
    """Support distance of an ellipsoid (semi-axes, rotated by beta about y) along the unit world direction n."""
    c, s = math.cos(beta), math.sin(beta)
    nl = np.array([c * n[0] - s * n[2], n[1], s * n[0] + c * n[2]])
    return float(np.linalg.norm(np.asarray(semi) * nl))


LATERAL = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)   # marker z along the body's y (lateral)


def _combined(parts):
    """(mass, CM distance along the axis, inertias (x, y, z) about the combined CM) of bodies on one axis, each
    (mass, CM distance, inertias): the parallel-axis theorem."""
    m = sum(p[0] for p in parts)
    c = sum(p[0] * p[1] for p in parts) / m
    inertia = np.zeros(3)
    for pm, pc, pi in parts:
        d2 = (pc - c) ** 2
        inertia += np.asarray(pi) + pm * np.array([d2, d2, 0.0])
    return m, c, inertia


def add_ellipsoid_occupant(b: ModelBuilder, seat_body: str, hip, occ: Occupant3D | None = None,
                           velocity=(0.0, 0.0, 0.0), seat_origin=(0.0, 0.0, 0.0)) -> dict[str, float]:
    """Add the occupant (module docstring) to ``b``, seated on ``seat_body`` (whose frame is at ``seat_origin``,
    unrotated, at the start) with the hip joint centre at the world point ``hip`` and every body moving at
    ``velocity``; the seat cushion, seat back, floor and toe board (planes on the seat body, placed to touch the
    ellipsoids), their table-law contacts, the shoulder belt ``belt`` (retractor, D-ring, chest ring ``occupant``,
    buckle; load limiter and pretensioner) and the lap belt ``lap_belt``. Returns the total occupant mass (kg)
    under ``"mass"``."""
    o = occ or Occupant3D()
    S, M = o.stature, o.mass
    hip = np.array(hip, dtype=float)
    up = _unit(o.torso_angle)

    def down(a):
        return np.array([math.sin(a), 0.0, -math.cos(a)])

    seg = {n: segment(n, S, M) for n in DE_LEVA_MALE}
    total = 0.0

    def body(name, cm_world, u, mass, inertia):
        nonlocal total
        beta = math.atan2(u[0], u[2])
        b.add_rigid_body(name, mass, [float(x) for x in inertia], position=tuple(float(x) for x in cm_world),
                         orientation=_quat_y(beta), velocity=tuple(velocity))
        total += mass
        return beta

    lt, mt, ct, it, et = seg["trunk"]
    cerv = hip + lt * up
    torso_cm = cerv - ct * up
    bt = body("torso", torso_cm, up, mt, it)
    lh, mh, ch, ih, _ = seg["head"]
    head_cm = cerv + (lh - ch) * up
    bh = body("head", head_cm, up, mh, ih)
    shoulder = cerv - SHOULDER_BELOW_CERV * S / STATURE_REF * up
    lu, mu_, cu, iu, _ = seg["upper_arm"]
    uu = down(o.upper_arm_angle)
    bu = body("upper_arm", shoulder + cu * uu, uu, 2 * mu_, 2 * iu)
    elbow = shoulder + lu * uu
    lf, mf, cf, i_f, _ = seg["forearm"]
    _, mhd, chd, ihd, _ = seg["hand"]
    ml, cl, il = _combined([(mf, cf, i_f), (mhd, lf + chd, ihd)])
    ul = down(o.lower_arm_angle)
    bl = body("lower_arm", elbow + cl * ul, ul, 2 * ml, 2 * il)
    lth, mth, cth, ith, eth = seg["thigh"]
    uth = down(o.thigh_angle)
    bth = body("thigh", hip + cth * uth, uth, 2 * mth, 2 * ith)
    knee = hip + lth * uth
    ls, ms, cs, i_s, _ = seg["shank"]
    _, mft, _, ift, eft = seg["foot"]
    mg, cg, ig = _combined([(ms, cs, i_s), (mft, ls, ift)])
    ush = down(o.shank_angle)
    bg = body("lower_leg", knee + cg * ush, ush, 2 * mg, 2 * ig)
    ankle = knee + ls * ush
    cm = {"torso": torso_cm, "head": head_cm, "upper_arm": shoulder + cu * uu, "lower_arm": elbow + cl * ul,
          "thigh": hip + cth * uth, "lower_leg": knee + cg * ush}
    beta = {"torso": bt, "head": bh, "upper_arm": bu, "lower_arm": bl, "thigh": bth, "lower_leg": bg}

    def marker(name, bname, p_world, frame_beta=None, lateral=False):
        q = LATERAL if lateral else _quat_y(0.0 if frame_beta is None else frame_beta - beta[bname])
        b.add_marker(name, bname, position=_local(p_world, cm[bname], beta[bname]), orientation=q)

    def joint(name, parent, child, p_world, rng):
        marker(f"{name}_i", parent, p_world, lateral=True)
        marker(f"{name}_j", child, p_world, lateral=True)
        b.add_joint(name, "revolute", f"{name}_i", f"{name}_j")
        b.add_force(JointStop(f"{name}_stop", f"{name}_i", f"{name}_j", loading_curve=o.joint_curve,
                              free_angle=beta[child] - beta[parent], unloading_stiffness=o.joint_unloading,
                              lower=rng[0], upper=rng[1], stop_stiffness=o.stop_stiffness,
                              damping=o.joint_damping))

    joint("neck", "torso", "head", cerv, o.neck_range)
    joint("shoulder", "torso", "upper_arm", shoulder, o.shoulder_range)
    joint("elbow", "upper_arm", "lower_arm", elbow, o.elbow_range)
    joint("hip", "torso", "thigh", hip, o.hip_range)
    joint("knee", "thigh", "lower_leg", knee, o.knee_range)
    marker("head_cg", "head", head_cm)
    # contact ellipsoids (equimomental) and the seat planes that touch them
    marker("torso_shape", "torso", torso_cm)
    b.add_shape("torso_ellipsoid", "torso_shape", "ellipsoid", [float(x) for x in et])
    marker("thigh_shape", "thigh", cm["thigh"])
    b.add_shape("thigh_ellipsoid", "thigh_shape", "ellipsoid", [float(x) for x in eth])
    marker("foot_shape", "lower_leg", ankle, frame_beta=math.pi / 2)       # foot horizontal, pointing forward
    b.add_shape("foot_ellipsoid", "foot_shape", "ellipsoid", [float(x) for x in eft])
    zc = min(torso_cm[2] - _support(et, bt, (0.0, 0.0, 1.0)), cm["thigh"][2] - _support(eth, bth, (0.0, 0.0, 1.0)))
    planes = {"cushion": (np.array([0.0, 0.0, 1.0]), np.array([torso_cm[0], 0.0, zc]))}
    nb = np.array([math.cos(o.torso_angle), 0.0, -math.sin(o.torso_angle)])
    planes["back"] = (nb, torso_cm - _support(et, bt, nb) * nb)
    fz = np.array([0.0, 0.0, 1.0])
    planes["floor"] = (fz, ankle - _support(eft, math.pi / 2, fz) * fz)
    nt = np.array([-math.sqrt(0.5), 0.0, math.sqrt(0.5)])
    planes["toe_board"] = (nt, ankle - _support(eft, math.pi / 2, nt) * nt)
    for name, (n, p) in planes.items():
        b.add_marker(name, seat_body, position=tuple(float(x) for x in p - np.asarray(seat_origin)),
                     orientation=_quat_y(math.atan2(n[0], n[2])))
        b.add_shape(f"{name}_plane", name, "plane", [])
    table = {"loading_curve": [list(x) for x in o.seat_curve], "unloading_curve": [list(x) for x in o.seat_unloading]}
    b.add_contact("seat", ["torso_ellipsoid", "thigh_ellipsoid"], "cushion_plane", law="table",
                  friction="coulomb", mu=o.seat_mu, **table)
    b.add_contact("backrest", "torso_ellipsoid", "back_plane", law="table", **table)
    b.add_contact("feet", "foot_ellipsoid", ["floor_plane", "toe_board_plane"], law="table",
                  loading_curve=[list(x) for x in o.foot_curve], friction="coulomb", mu=o.seat_mu)
    # belts: the shoulder belt over the chest, the lap belt over the pelvis, anchored on the seat body
    rz = cerv - torso_cm
    h_chest = float(np.dot(rz, up)) - 0.3 * lt                  # chest level above the torso CM, on the axis
    depth = et[0] * math.sqrt(max(1.0 - (h_chest / et[2]) ** 2, 0.0))
    fwd = nb
    marker("occupant", "torso", torso_cm + h_chest * up + depth * fwd)
    h_pel = -float(np.dot(torso_cm - hip, up))
    marker("pelvis", "torso", hip + et[0] * math.sqrt(max(1.0 - (h_pel / et[2]) ** 2, 0.0)) * fwd)
    anchors = {"d_ring": shoulder + np.array([-0.15, 0.0, 0.10]), "retractor": hip + np.array([-0.25, 0.0, -0.10]),
               "buckle": hip + np.array([-0.05, 0.0, -0.12]), "lap_anchor": hip + np.array([-0.10, 0.0, -0.12])}
    for name, p in anchors.items():
        b.add_marker(name, seat_body, position=tuple(float(x) for x in p - np.asarray(seat_origin)))
    b.add_force(Belt("belt", "retractor", "buckle", stiffness=o.belt_stiffness, rings=("d_ring", "occupant"),
                     mu=o.belt_mu, slack=o.slack, load_limit=o.load_limit,
                     pretensioner_stroke=o.pretensioner_stroke, fire_time=o.fire_time))
    b.add_force(Belt("lap_belt", "lap_anchor", "buckle", stiffness=o.belt_stiffness, rings=("pelvis",),
                     mu=o.belt_mu))
    return {"mass": total}
