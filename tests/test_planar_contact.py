"""Contact in planar models (circle, line, capsule, polygon in the x-y plane; no quaternions) against closed forms
and against the same scene built as a spatial model; joined bodies and contact pairs that can never fire.

References: a linear contact spring k under gravity is a harmonic oscillator about the static depth d_s = m g / k,
so a disc dropped with speed v0 reaches d_max = d_s + sqrt(d_s^2 + m v0^2 / k) and, undamped, rebounds to its drop
height (energy conservation); a uniform disc rolling without slip down a line at angle alpha accelerates at
g sin(alpha) / (1 + J / (m r^2)) = 2/3 g sin(alpha) (Meriam & Kraige, Dynamics, sec. 6/6); a body resting on a
line carries its weight (statics)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ModelError
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.names import channel_names
from fmu_mbs.model.validate_contact import contact_warnings

G = 9.81


def _channels(cm, traj) -> dict[str, np.ndarray]:
    values = evaluate_channels(cm, traj)
    return {n: values[:, k] for k, n in enumerate(channel_names(cm.model))}


def _disc_on_line(alpha=0.0, height=0.5, r=0.1, m=2.0, k=2e5, **contact):
    """A uniform disc (radius r, mass m) above a line through the origin tilted by alpha (a ground marker's angle)."""
    b = ModelBuilder("disc", dimension=2)
    n = (-math.sin(alpha), math.cos(alpha))
    b.add_planar_body("disc", m, 0.5 * m * r * r, position=(n[0] * (r + height), n[1] * (r + height)))
    b.add_marker("centre", "disc")
    b.add_marker("ground_line", "ground", angle=alpha)
    b.add_shape("rim", "centre", "circle", [r])
    b.add_shape("floor", "ground_line", "line", [])
    b.add_contact("impact", "rim", "floor", law="linear", stiffness=k, **contact)
    return b.build()


def test_disc_dropped_on_a_line_reaches_the_closed_form_depth_and_rebounds_to_its_height():
    m, k, h0 = 2.0, 2e5, 0.05
    cm = compile_model(_disc_on_line(height=h0, m=m, k=k))
    traj = simulate(cm, 0.25, 1e-5, output_step=1e-4)
    ch = _channels(cm, traj)
    v0 = math.sqrt(2.0 * G * h0)
    ds = m * G / k
    d_max = ds + math.sqrt(ds * ds + m * v0 * v0 / k)
    assert ch["impact.depth"].max() == pytest.approx(d_max, rel=2e-3)
    assert ch["impact.fn"].max() == pytest.approx(k * d_max, rel=2e-3)
    y = ch["centre.r[2]"]
    after = traj.t > 0.15                          # on the way back up, past the contact
    assert y[after].max() == pytest.approx(0.1 + h0, abs=2e-4)       # elastic: back to the drop height
    assert np.all(np.abs(ch["centre.r[1]"]) < 1e-12)                    # a vertical drop stays vertical


def test_disc_rolls_down_a_line_at_two_thirds_g_sin_alpha():
    alpha, r, m, k = 0.3, 0.1, 2.0, 1e6
    ds = m * G * math.cos(alpha) / k              # start at the static depth
    cm = compile_model(_disc_on_line(alpha=alpha, height=-ds, r=r, m=m, k=k, damping=2e3, damping_depth=1e-6,
                                     friction="coulomb", mu=0.8, velocity_threshold=1e-3))
    traj = simulate(cm, 0.5, 1e-4)
    ch = _channels(cm, traj)
    x0, y0 = ch["centre.r[1]"][0], ch["centre.r[2]"][0]
    s = (ch["centre.r[1]"] - x0) * math.cos(alpha) + (ch["centre.r[2]"] - y0) * math.sin(alpha)   # along the line
    a = 2.0 / 3.0 * G * math.sin(alpha)
    assert s[-1] == pytest.approx(-0.5 * a * 0.5 ** 2, rel=2e-3)
    theta = traj.q[:, 2]
    assert theta[-1] * r == pytest.approx(-s[-1], rel=2e-3)           # rolling: the rim does not slip
    assert ch["impact.fn"][-1] == pytest.approx(m * G * math.cos(alpha), rel=1e-3)


@pytest.mark.parametrize("clockwise", [False, True])
def test_polygon_resting_on_a_line_carries_its_weight(clockwise):
    m, k, hx, hy = 3.0, 1e5, 0.2, 0.1
    ds = m * G / k / 2.0                          # two corners, each k d
    b = ModelBuilder("block", dimension=2)
    b.add_planar_body("block", m, m * (4 * hx * hx + 4 * hy * hy) / 12.0, position=(0.3, hy - ds))
    b.add_marker("cm", "block")
    b.add_marker("floor_m", "ground")
    square = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
    b.add_shape("outline", "cm", "polygon", vertices=square[::-1] if clockwise else square)
    b.add_shape("floor", "floor_m", "line", [])
    b.add_contact("rest", "outline", "floor", law="linear", stiffness=k, damping=500.0, damping_depth=1e-6)
    cm = compile_model(b.build())
    traj = simulate(cm, 0.2, 1e-4)
    ch = _channels(cm, traj)
    assert ch["rest.fn"][-1] == pytest.approx(m * G, rel=1e-6)
    assert ch["rest.depth"][-1] == pytest.approx(ds, rel=1e-4)
    assert abs(traj.q[-1, 2]) < 1e-9                                  # level: both corners carry half
    assert ch["cm.r[1]"][-1] == pytest.approx(0.3, abs=1e-12)


def _wheel(planar: bool):
    """A disc thrown spinning onto a floor with friction, built planar (circle on a line) or spatial (sphere on a
    plane whose normal is +y): the same motion in the x-y plane."""
    m, r, J = 1.5, 0.2, 0.5 * 1.5 * 0.2 ** 2
    b = ModelBuilder("wheel", dimension=2 if planar else 3, gravity=(0.0, -G) if planar else (0.0, -G, 0.0))
    if planar:
        b.add_planar_body("wheel", m, J, position=(0.0, 0.3), velocity=(1.0, -0.5), angular_velocity=12.0)
        b.add_marker("hub", "wheel")
        b.add_marker("road_m", "ground")
        b.add_shape("tyre", "hub", "circle", [r])
        b.add_shape("road", "road_m", "line", [])
    else:
        b.add_rigid_body("wheel", m, [J, J, J], position=(0.0, 0.3, 0.0), velocity=(1.0, -0.5, 0.0),
                         angular_velocity=(0.0, 0.0, 12.0))
        b.add_marker("hub", "wheel")
        c = math.cos(math.pi / 4.0)
        b.add_marker("road_m", "ground", orientation=(c, -c, 0.0, 0.0))       # z turned onto +y
        b.add_shape("tyre", "hub", "sphere", [r])
        b.add_shape("road", "road_m", "plane", [])
    b.add_contact("touch", "tyre", "road", law="hunt_crossley", stiffness=1e6, restitution=0.6, friction="coulomb",
                  mu=0.4, velocity_threshold=1e-3)
    return b.build()


def test_planar_and_spatial_builds_of_one_scene_give_the_same_trajectory():
    out = []
    for planar in (True, False):
        cm = compile_model(_wheel(planar))
        traj = simulate(cm, 0.6, 1e-4, output_step=1e-2)
        ch = _channels(cm, traj)
        w = ch["hub.w"] if planar else ch["hub.w[3]"]           # a planar model's w is about z
        out.append(np.column_stack([ch["hub.r[1]"], ch["hub.r[2]"], w, ch["touch.fn"]]))
    planar, spatial = out
    assert planar[:, 3].max() > 10.0                                   # it did land (and skid, then roll)
    # the same to the integration error (the rotation is an angle in one, Euler parameters in the other)
    assert planar[:, :3] == pytest.approx(spatial[:, :3], rel=1e-5, abs=1e-6)
    assert planar[:, 3] == pytest.approx(spatial[:, 3], abs=1e-3 * planar[:, 3].max())


def test_circle_bounces_off_a_polygon_face_as_off_a_mirror():
    """A frictionless elastic circle falling onto the 45-degree face of a ground triangle leaves horizontally with
    its impact speed (v' = v - 2 (v . n) n, n = (1, 1) / sqrt 2; gravity acts for the few ms of contact only)."""
    r = 0.1
    b = ModelBuilder("wedge", dimension=2)
    b.add_planar_body("ball", 1.0, 0.005, position=(0.5, 0.8))
    b.add_marker("c", "ball")
    b.add_marker("w", "ground")
    b.add_shape("ball_s", "c", "circle", [r])
    b.add_shape("wedge", "w", "polygon", vertices=[(-1.0, 0.0), (1.0, 0.0), (-1.0, 2.0)])
    b.add_contact("hit", "ball_s", "wedge", law="linear", stiffness=1e6)
    cm = compile_model(b.build())
    traj = simulate(cm, 0.25, 1e-5, output_step=1e-4)
    ch = _channels(cm, traj)
    touching = np.flatnonzero(ch["hit.fn"] > 0.0)
    assert touching.size > 0
    end = touching[-1] + 1
    v0 = math.sqrt(2.0 * G * (0.8 - (1.0 + r * math.sqrt(2.0) - 0.5)))
    assert ch["c.v[1]"][end] == pytest.approx(v0, rel=0.02)
    assert abs(ch["c.v[2]"][end]) < 0.03 * v0
    assert ch["hit.depth"].max() < 0.01


# --- model handling -----------------------------------------------------------------------------------------------

def test_planar_and_spatial_shape_kinds_are_checked_and_polygons_must_be_convex():
    b = ModelBuilder("kinds", dimension=2)
    b.add_planar_body("p", 1.0, 1.0)
    b.add_marker("mp", "p")
    b.add_marker("g", "ground")
    b.add_shape("ball", "mp", "sphere", [0.1])
    b.add_shape("dent", "mp", "polygon", vertices=[(0, 0), (1, 0), (0.2, 0.2), (0, 1)])
    b.add_shape("floor", "g", "line", [])
    b.add_contact("c", ["ball", "dent"], "floor", law="linear", stiffness=1e4)
    with pytest.raises(ModelError) as err:
        b.build()
    msg = str(err.value)
    assert "shape 'ball': a planar model takes the shape kinds circle, line, capsule, polygon, got 'sphere'" in msg
    assert "shape 'dent': the polygon must be convex" in msg
    s = ModelBuilder("kinds3")
    s.add_rigid_body("p", 1.0, [1.0, 1.0, 1.0])
    s.add_marker("mp", "p")
    s.add_shape("disc", "mp", "circle", [0.1])
    with pytest.raises(ModelError, match="shape 'disc': a spatial model takes the shape kinds .*got 'circle'"):
        s.build()


def _joined_pair(include_joined: bool | None):
    b = ModelBuilder("hinge", dimension=2)
    b.add_planar_body("arm", 1.0, 0.01, position=(0.5, 0.0))
    b.add_marker("pin", "arm", position=(-0.5, 0.0))
    b.add_marker("tip", "arm", position=(0.45, 0.0))
    b.add_marker("base", "ground")
    b.add_marker("stop_m", "ground", position=(1.3, 0.0))
    b.add_joint("hinge", "revolute", "pin", "base")
    b.add_shape("tip_s", "tip", "circle", [0.1])
    b.add_shape("stop", "stop_m", "circle", [0.1])
    b.add_shape("pin_s", "pin", "circle", [0.05])
    b.add_shape("base_s", "base", "circle", [0.05])
    extra = {} if include_joined is None else {"include_joined": include_joined}
    b.add_contact("limit", ["tip_s", "pin_s"], ["stop", "base_s"], law="linear", stiffness=1e5, **extra)
    return b.build()


def test_contact_between_joined_bodies_is_skipped_only_when_asked():
    # the tip is clear of the ground stop; the pin circle sits on the base circle (bodies joined by the hinge)
    for include, excluded in ((None, False), (True, False), (False, True)):
        m = compile_model(_joined_pair(include)).arrays
        assert (len(m.shape_excl_idx) > 0) == excluded, include
    # by default the joined pair pushes: the pin circle overlaps the base circle by 0.1 m
    cm = compile_model(_joined_pair(None))
    from fmu_mbs.analyses.assembly import assemble
    a = assemble(cm)
    ch = _channels(cm, simulate(cm, 1e-3, 1e-4, initial=a))
    assert ch["limit.depth"][0] == pytest.approx(0.1, abs=1e-12)


def test_check_warns_about_contact_pairs_that_can_never_fire():
    assert contact_warnings(_joined_pair(None)) == []
    warns = contact_warnings(_joined_pair(False))
    assert warns == ["contact 'limit': shapes 'tip_s' and 'stop' are on bodies joined by a joint ('arm' and "
                     "'ground') and include_joined is false: they never collide (and 3 more such pairs)"]
    b = ModelBuilder("same", dimension=2)
    b.add_planar_body("p", 1.0, 1.0)
    b.add_marker("m1", "p")
    b.add_marker("m2", "p", position=(0.5, 0.0))
    b.add_marker("g1", "ground")
    b.add_marker("g2", "ground", position=(0.0, -1.0))
    b.add_shape("a", "m1", "circle", [0.1])
    b.add_shape("b", "m2", "circle", [0.1])
    b.add_shape("fl", "g1", "line", [])
    b.add_shape("fl2", "g2", "line", [])
    b.add_contact("self", "a", "b", law="linear", stiffness=1e4)
    b.add_contact("grounds", "fl", "fl2", law="linear", stiffness=1e4)
    warns = contact_warnings(b.build())
    assert "contact 'self': shapes 'a' and 'b' are both on body 'p': shapes on one body never collide" in warns
    assert any(w.startswith("contact 'grounds': shapes 'fl' and 'fl2' are both on body 'ground'") for w in warns)
