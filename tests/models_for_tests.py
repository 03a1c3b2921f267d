"""Small inline models shared by the tests (catalogue models live in models/)."""

from __future__ import annotations

import math

from fmu_mbs.model import ModelBuilder


def every_joint_spatial(conservative: bool = False):
    """Two rigid bodies and ground joined by every spatial joint type, plus every force element."""
    b = ModelBuilder("every_joint", dimension=3, gravity=(0.0, -9.81, 0.0))
    s = math.sqrt(0.5)
    b.add_rigid_body("A", 2.0, [[0.3, 0.01, 0.02], [0.01, 0.4, 0.03], [0.02, 0.03, 0.5]], position=(0.1, 0.2, 0.3),
                     orientation=tuple(x / math.sqrt(0.95) for x in (0.9, 0.1, 0.3, 0.2)))
    b.add_rigid_body("B", 1.5, [0.2, 0.25, 0.3], position=(1.0, -0.2, 0.1), orientation=(s, 0.0, s, 0.0))
    b.add_marker("g0", "ground", (0.0, 0.1, 0.0), orientation=(s, s, 0.0, 0.0))
    b.add_marker("a0", "A", (0.2, -0.1, 0.05))
    b.add_marker("a1", "A", (-0.3, 0.1, 0.2), orientation=(0.5, 0.5, 0.5, 0.5))
    b.add_marker("b0", "B", (0.1, 0.2, -0.1), orientation=(s, 0.0, 0.0, s))
    b.add_marker("b1", "B", (0.0, -0.2, 0.3))
    for k, typ in enumerate(("revolute", "spherical", "prismatic", "cylindrical", "universal", "fixed", "planar",
                             "distance", "point_on_line")):
        b.add_joint(f"j_{typ}", typ, "a1" if k % 2 else "g0", "b0", length=0.7 if typ == "distance" else None)
    b.add_joint("j_rev_ab", "revolute", "a0", "b1")
    b.add_driver("d_rot", "j_revolute", {"type": "harmonic", "amplitude": 0.3, "omega": 2.0, "phase": 0.1,
                                         "offset": 0.2} and _harmonic())
    b.add_driver("d_trans", "j_cylindrical", _poly(), coordinate=1)
    b.add_driver("d_rot2", "j_cylindrical", _poly(), coordinate=2)
    b.add_spring_damper("tsda", "g0", "a0", stiffness=100.0, free_length=0.3, damping=2.0,
                        force=0.0 if conservative else 5.0)
    b.add_spring_damper("tsda_curve", "a1", "b1", spring_curve=[[-1.0, -50.0], [0.0, 0.0], [0.5, 80.0]],
                        free_length=0.4)
    b.add_rotational_spring_damper("rsda", "a1", "b0", stiffness=20.0, free_angle=0.1, damping=0.5,
                                   torque=0.0 if conservative else 1.0)
    b.add_bushing("bush", "g0", "b1", stiffness=(10.0, 20.0, 30.0), damping=(1.0, 1.0, 1.0),
                  rotational_stiffness=(0.0, 0.0, 0.0) if conservative else (3.0, 4.0, 5.0),
                  rotational_damping=(0.1, 0.2, 0.3))
    if not conservative:
        b.add_point_load("load", "a1", force=(1.0, 2.0, 3.0), torque=(0.5, -0.5, 0.2), frame="marker")
        b.add_actuator("act", "g0", "b0", force=7.0)
    return b.build()


def _harmonic():
    from fmu_mbs.model.functions import Harmonic
    return Harmonic(amplitude=0.3, omega=2.0, phase=0.1, offset=0.2)


def _poly():
    from fmu_mbs.model.functions import Polynomial
    return Polynomial((0.1, 0.2, -0.3, 0.05))


def every_joint_planar(conservative: bool = False):
    b = ModelBuilder("every_joint_2d", dimension=2)
    b.add_planar_body("A", 2.0, 0.3, position=(0.1, 0.2), angle=0.3)
    b.add_planar_body("B", 1.5, 0.2, position=(1.0, -0.2), angle=-0.4)
    b.add_point_mass("P", 0.7, position=(0.5, 0.5))
    b.add_marker("g0", "ground", (0.0, 0.1), angle=0.2)
    b.add_marker("a0", "A", (0.2, -0.1), angle=0.5)
    b.add_marker("b0", "B", (0.1, 0.2), angle=-0.3)
    b.add_marker("p0", "P")
    for typ in ("revolute", "prismatic", "fixed", "distance", "point_on_line"):
        b.add_joint(f"j_{typ}", typ, "a0", "b0", length=0.7 if typ == "distance" else None)
    b.add_joint("j_pm", "revolute", "g0", "p0")
    b.add_driver("d_rot", "j_revolute", _harmonic())
    b.add_driver("d_tr", "j_prismatic", _poly())
    b.add_spring_damper("tsda", "g0", "a0", stiffness=100.0, free_length=0.3, damping=2.0,
                        force=0.0 if conservative else 5.0)
    b.add_rotational_spring_damper("rsda", "g0", "b0", stiffness=20.0, free_angle=0.1, damping=0.5)
    b.add_bushing("bush", "a0", "p0", stiffness=(10.0, 20.0, 0.0), damping=(1.0, 1.0, 0.0),
                  rotational_stiffness=(0.0, 0.0, 0.0) if conservative else (0.0, 0.0, 3.0))
    if not conservative:
        b.add_point_load("load", "b0", force=(1.0, 2.0), torque=0.5)
        b.add_actuator("act", "g0", "b0", force=7.0)
    return b.build()
