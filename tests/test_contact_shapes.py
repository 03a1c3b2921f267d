"""Ellipsoid and mesh contacts end to end, in models run by the integrator (the narrow phase's unit tests are in
test_contact_geometry.py; here the shapes act on moving bodies).

Reference values: a body resting on compliant contacts with the linear law sinks by m g / (n k) (n contact points of
stiffness k); an ellipsoid rocking on a plane without slip has the small-amplitude period of a rolling body whose
centre of curvature lies above its centre of mass; a head-on elastic collision of equal masses exchanges their
velocities, and equal and opposite forces at one contact point conserve linear and angular momentum in any
collision; a ball rolling without slip down a slope accelerates at g sin a / (1 + I / (m r^2)) = 5/7 g sin a.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder

G = 9.81


def _quat_about_x(angle: float) -> tuple[float, float, float, float]:
    return (math.cos(0.5 * angle), math.sin(0.5 * angle), 0.0, 0.0)


def _rotation(p: np.ndarray) -> np.ndarray:
    """Rotation matrix of Euler parameters p = (e0, e1, e2, e3)."""
    e0, e1, e2, e3 = p / np.linalg.norm(p)
    return np.array([[e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                     [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
                     [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3]])


def _ellipsoid_inertia(m: float, a: float, b: float, c: float) -> list[float]:
    return [m / 5.0 * (b * b + c * c), m / 5.0 * (a * a + c * c), m / 5.0 * (a * a + b * b)]


def test_a_tilted_ellipsoid_rocks_with_the_rolling_period_and_keeps_its_amplitude():
    """An ellipsoid (semi-axes a, b, c along x, y, z) tilted by 0.5 deg about x on a plane with stick friction
    rolls back and forth without slipping: small-amplitude period 2 pi sqrt((I_x + m c^2) / (m g (rho - c))),
    rho = b^2 / c the radius of curvature at the bottom (the centre of mass sits c above the contact point, the
    centre of curvature rho above it). The finite amplitude shifts the period by ~(theta / 3 deg)^2 0.25 %
    (measured: 5.9e-5 at 0.5 deg); rolling dissipates nothing, so the amplitude stays."""
    axes, m, k, tilt = (0.2, 0.12, 0.08), 2.0, 1e6, math.radians(0.5)
    b = ModelBuilder("rocking", gravity=(0.0, 0.0, -G))
    support = math.hypot(axes[1] * math.sin(tilt), axes[2] * math.cos(tilt))   # lowest point of the tilted ellipse
    b.add_rigid_body("egg", m, _ellipsoid_inertia(m, *axes), position=(0.0, 0.0, support - m * G / k),
                     orientation=_quat_about_x(tilt))
    b.add_marker("cm", "egg")
    b.add_marker("origin", "ground")
    b.add_shape("egg_surface", "cm", "ellipsoid", axes)
    b.add_shape("floor", "origin", "plane", [])
    b.add_contact("rest", "egg_surface", "floor", law="linear", stiffness=k, friction="bristle", mu=0.8,
                  tangential_stiffness=1e6, tangential_damping=2e3)
    cm = compile_model(b.build())
    tr = simulate(cm, 4.0, 1e-3, output_step=1e-3)
    y = np.array([_rotation(p)[1, 2] for p in tr.q[:, 3:7]])             # sine of the tilt
    i = np.where(np.sign(y[1:]) != np.sign(y[:-1]))[0]
    crossings = tr.t[i] - y[i] * (tr.t[i + 1] - tr.t[i]) / (y[i + 1] - y[i])
    c, rho = axes[2], axes[1] ** 2 / axes[2]
    period = 2.0 * math.pi * math.sqrt((_ellipsoid_inertia(m, *axes)[0] + m * c * c) / (m * G * (rho - c)))
    assert len(crossings) >= 11
    assert np.diff(crossings[::2]).mean() == pytest.approx(period, rel=1.5e-4)
    assert np.abs(y[-700:]).max() == pytest.approx(math.sin(tilt), rel=1e-3)
    assert np.abs(tr.q[:, 0]).max() < 1e-9                                # nothing pushes it along x


def _two_ellipsoids(offset: float, law: str = "hertz"):
    """Two equal ellipsoids in free space, the first moving along +x towards the second, their long axes on the
    line of motion, the second displaced sideways by ``offset`` (m)."""
    axes, m = (0.15, 0.08, 0.06), 1.5
    b = ModelBuilder("eggs", gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("a", m, _ellipsoid_inertia(m, *axes), position=(-0.1501, 0.0, 0.0), velocity=(1.0, 0.0, 0.0))
    b.add_rigid_body("b", m, _ellipsoid_inertia(m, *axes), position=(0.1501, offset, 0.0))
    for body in ("a", "b"):
        b.add_marker(f"{body}_cm", body)
        b.add_shape(f"{body}_surface", f"{body}_cm", "ellipsoid", axes)
    b.add_contact("knock", "a_surface", "b_surface", law=law, stiffness=1e7)
    return compile_model(b.build()), m


def test_ellipsoids_colliding_head_on_exchange_their_velocities():
    cm, m = _two_ellipsoids(0.0)
    tr = simulate(cm, 0.04, 1e-5, output_step=1e-3)
    assert tr.qd[-1, 0] == pytest.approx(0.0, abs=1e-5)      # qd: (x, y, z, p0..p3) per body
    assert tr.qd[-1, 7] == pytest.approx(1.0, abs=1e-5)
    assert np.abs(tr.qd[-1, [1, 2, 8, 9]]).max() < 1e-9       # no sideways motion from a symmetric impact


def _momenta(cm, tr, m):
    """Linear momentum (3) and angular momentum about the origin (3) of both bodies at every record."""
    from fmu_mbs.analyses.channels import evaluate_channels
    from fmu_mbs.model.names import channel_names
    names = channel_names(cm.model)
    ch = evaluate_channels(cm, tr)
    out = []
    for i in range(len(tr.t)):
        p, h = np.zeros(3), np.zeros(3)
        for body, adr in (("a", 0), ("b", 7)):
            r, v = tr.q[i, adr:adr + 3], tr.qd[i, adr:adr + 3]
            w = np.array([ch[i, names.index(f"{body}_cm.w[{j}]")] for j in (1, 2, 3)])   # world axes
            R = _rotation(tr.q[i, adr + 3:adr + 7])
            J = R @ np.diag(_ellipsoid_inertia(m, 0.15, 0.08, 0.06)) @ R.T
            p += m * v
            h += np.cross(r, m * v) + J @ w
        out.append(np.concatenate([p, h]))
    return np.array(out)


def test_an_oblique_ellipsoid_collision_conserves_linear_and_angular_momentum_and_energy():
    cm, m = _two_ellipsoids(0.05)
    tr = simulate(cm, 0.04, 1e-5, output_step=1e-3)
    mom = _momenta(cm, tr, m)
    assert np.abs(mom[-1] - mom[0]).max() < 1e-9 * m          # after the impact
    assert np.abs(mom - mom[0]).max() < 1e-7 * m              # during it (the discrete rotation update is not exact)
    assert np.abs(tr.q[-1, [3, 4, 5, 6]] - tr.q[0, [3, 4, 5, 6]]).max() > 1e-3      # the impact spun a
    e = tr.info["energy_kinetic"] + tr.info["energy_potential"]
    assert abs(e[-1] - e[0]) < 1e-4 * e[0]                   # elastic Hertz law: no loss


def _mesh_cube(half: float):
    v = [(x, y, z) for z in (-half, half) for y in (-half, half) for x in (-half, half)]
    t = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
         (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]
    return v, t


def test_a_mesh_cube_rests_on_its_four_bottom_vertices():
    half, m, k = 0.05, 1.0, 1e5
    v, t = _mesh_cube(half)
    b = ModelBuilder("mesh_cube", gravity=(0.0, 0.0, -G))
    b.add_rigid_body("cube", m, [m * (2 * half) ** 2 / 6.0] * 3, position=(0.0, 0.0, half + 2e-3))
    b.add_marker("cm", "cube")
    b.add_marker("origin", "ground")
    b.add_shape("cube_mesh", "cm", "mesh", vertices=v, triangles=t)
    b.add_shape("floor", "origin", "plane", [])
    b.add_contact("rest", "cube_mesh", "floor", law="linear", stiffness=k, damping=2.0 * math.sqrt(k * m / 4.0),
                  damping_depth=1e-5)
    cm = compile_model(b.build())
    tr = simulate(cm, 1.0, 1e-3, output_step=0.01)
    assert tr.q[-1, 2] == pytest.approx(half - m * G / (4.0 * k), abs=1e-8)
    assert tr.q[-1, 3:7] == pytest.approx(np.array([1.0, 0.0, 0.0, 0.0]), abs=1e-9)


def test_a_ball_rolls_down_a_mesh_ramp_at_five_sevenths_g_sin_a():
    """A two-triangle ramp (a mesh on ground) tilted by 15 deg about y; the ball rolls without slipping
    (bristle friction), so its speed along the ramp grows at 5/7 g sin a (the contact point sits half the
    Hertz depth inside the ball: r_c = r - d/2, as in test_friction's plane version)."""
    a, r, m, k = math.radians(15.0), 0.1, 1.0, 1e6
    ca, sa = math.cos(a), math.sin(a)
    # ramp surface through the origin with normal (sin a, 0, cos a): falls towards +x
    pts = [(-2.0, -1.0), (3.0, -1.0), (3.0, 1.0), (-2.0, 1.0)]
    verts = [(x * ca, y, -x * sa) for x, y in pts]
    b = ModelBuilder("ramp", gravity=(0.0, 0.0, -G))
    depth = (m * G * ca / k) ** (2.0 / 3.0)
    b.add_rigid_body("ball", m, [0.4 * m * r * r] * 3, position=((r - depth) * sa, 0.0, (r - depth) * ca))
    b.add_marker("c", "ball")
    b.add_marker("o", "ground")
    b.add_shape("ball_surface", "c", "sphere", [r])
    b.add_shape("ramp", "o", "mesh", vertices=verts, triangles=[(0, 1, 2), (0, 2, 3)])
    b.add_contact("rolling", "ball_surface", "ramp", law="hertz", stiffness=k, damping=50.0, damping_depth=1e-5,
                  friction="bristle", mu=0.6, tangential_stiffness=1e4, tangential_damping=200.0)
    cm = compile_model(b.build())
    tr = simulate(cm, 0.8, 1e-3, output_step=0.05)
    speed = tr.qd[:, 0] * ca - tr.qd[:, 2] * sa                 # along the ramp, downhill
    r_c = r - 0.5 * depth
    accel = G * sa / (1.0 + 0.4 * r * r / r_c ** 2)
    assert (speed[-1] - speed[4]) / (tr.t[-1] - tr.t[4]) == pytest.approx(accel, rel=1e-4)
    normal = tr.qd[:, 0] * sa + tr.qd[:, 2] * ca
    assert np.abs(normal[4:]).max() < 1e-4                      # it stays on the ramp
