"""Write models/flexible_boom.json: the hydraulic crane of models/crane.json (Project Chrono's hydraulic-crane demo,
data of Rahikainen et al. 2020) with its boom as a floating modal body, so that the crane FMU and the
hydraulic-crane co-simulation (integration/crane_hydraulic.py --model models/flexible_boom.json) run with a
flexible boom.

Same geometry, masses and interface as the rigid crane, in 3D (the crane moves in the x-y plane; the revolute
hinge turns about z): boom 1 m long on a pivot at the origin at 30 deg, 500 kg spread uniformly along it (so its
inertia about the centre is m L^2/12, the rigid boom's), the actuator ``cylinder`` (input ``cylinder.f``) from
ground (sqrt(3)/2, 0, 0) to the boom's mid-span node ``boom_mount``, and a 100 kg point mass on a 0.3 m massless
link at the tip node ``boom_tip``. The boom: 10 Euler-Bernoulli elements, Craig-Bampton with rigid interfaces at
the hinge (node 0, the frame's tangent reference), the cylinder mount (node 5) and the tip (node 10), plus 4
fixed-interface modes: 16 modal coordinates. Its section is illustrative: EI = 5e4 N m^2 in the crane's plane and
out of it (E = 210 GPa, I = 2.381e-7 m^4), EA = 4.2e8 N, GJ = 3.9e4 N m^2 and a density that puts 500 kg/m
on an area of 2e-3 m^2 (the rigid crane's boom carries its hydraulics and fittings as mass, not as steel);
1 % modal damping. Output channels beside the default ones: ``boom.eta[k]``, ``boom.etad[k]``, the tip node's
elastic displacement ``boom.node10.u[k]`` (body frame: [2] is the bending deflection in the crane's plane) and
world position ``boom.node10.r[k]``, and the bending stress at the top fibre (y = 0.03 m) of the section at the
cylinder mount, ``boom.stress[1]``.

Static start: the file's initial modal coordinates and payload position are the equilibrium of the boom held at
30 deg under the cylinder force that needs no hinge torque (integration/crane_pd_demo.holding_force_by_statics),
so the FMU, given that force as ``cylinder.f``, starts at rest as the rigid crane does. Run
``python examples/make_flexible_boom.py`` from the repository root.
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

from fmu_mbs.model import ModelBuilder, save_model

ROOT = Path(__file__).resolve().parents[1]

L, N_EL, MASS, PAYLOAD, LINK = 1.0, 10, 500.0, 100.0, 0.3
E, G, AREA, I_BEND, J_TORSION = 2.1e11, 8.1e10, 2.0e-3, 2.381e-7, 4.8e-7
FIBRE = 0.03                        # m: distance of the stress point from the section's neutral axis
ANGLE = math.radians(30.0)
MOUNT, TIP = N_EL // 2, N_EL


def build(stiffness_scale: float = 1.0, static_start: bool = True):
    """The model; ``stiffness_scale`` multiplies E and G (a stiffer boom approaches the rigid crane);
    ``static_start``: start deflected at the held equilibrium (module docstring), else undeformed."""
    model = _undeformed(stiffness_scale)
    return _static_start(model) if static_start else model


def _static_start(model):
    """``model`` starting at its held equilibrium: initial modal coordinates and payload position from statics."""
    sys.path.insert(0, str(ROOT / "integration"))
    from crane_pd_demo import held_statics, holding_force_by_statics

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "undeformed.json"
        save_model(model, path)
        _, eq = held_statics(path, holding_force_by_statics(path))
    b = ModelBuilder.from_model(model)
    m = sum(n.startswith("boom.eta[") for n in eq.channel_names())
    b.set_value("boom", "modal_coordinates", tuple(float(eq[f"boom.eta[{k}]"][-1]) for k in range(1, m + 1)))
    b.set_value("payload", "position", tuple(float(eq[f"hook.r[{k}]"][-1]) for k in (1, 2, 3)))
    return b.build()


def _undeformed(stiffness_scale: float):
    b = ModelBuilder("flexible_boom", 3, gravity=(0.0, -9.81, 0.0),
                     description="The hydraulic crane of crane.json with a flexible boom: a floating modal body "
                                 "(10 beam elements, Craig-Bampton at hinge, cylinder mount and tip, 4 normal "
                                 "modes; illustrative section EI = 5e4 N m^2) lifted by the actuator 'cylinder' "
                                 "(input cylinder.f), 100 kg payload on a 0.3 m link at the tip. Outputs: the modal "
                                 "coordinates boom.eta[k], the tip deflection boom.node10.u[2] (boom frame) and "
                                 "the bending stress at the mount boom.stress[1].")
    half = 0.5 * ANGLE
    b.add_modal_body("boom", nodes=[(L * i / N_EL, 0.0, 0.0) for i in range(N_EL + 1)],
                     E=E * stiffness_scale, G=G * stiffness_scale, rho=MASS / (L * AREA), area=AREA,
                     Iy=I_BEND, Iz=I_BEND, J=J_TORSION, n_modes=4, interfaces=[[0], [MOUNT], [TIP]], damping=0.01,
                     orientation=(math.cos(half), 0.0, 0.0, math.sin(half)), output_nodes=[TIP],
                     stress_points=[[MOUNT - 1, 1, FIBRE, 0.0]])
    tip = (L * math.cos(ANGLE), L * math.sin(ANGLE))
    b.add_point_mass("payload", PAYLOAD, position=(tip[0], tip[1] - LINK, 0.0))
    b.add_marker("pivot", "ground")
    b.add_marker("cylinder_base", "ground", position=(math.sqrt(3.0) / 2.0, 0.0, 0.0))
    b.add_marker("boom_root", "boom")
    b.add_marker("boom_mount", "boom", position=(L * MOUNT / N_EL, 0.0, 0.0))
    b.add_marker("boom_tip", "boom", position=(L, 0.0, 0.0))
    b.add_marker("hook", "payload")
    b.add_joint("boom_hinge", "revolute", "pivot", "boom_root")
    b.add_joint("pendulum", "distance", "boom_tip", "hook", length=LINK)
    b.add_actuator("cylinder", "cylinder_base", "boom_mount", 0.0)
    b.expose("payload.mass", "pendulum.length", "boom_hinge.s_start")
    b.add_graphic("boom_1", "boom_root", "link", (0.04,), to_marker="boom_mount")
    b.add_graphic("boom_2", "boom_mount", "link", (0.04,), to_marker="boom_tip")
    b.add_graphic("cylinder_shape", "cylinder_base", "link", (0.03,), to_marker="boom_mount")
    b.add_graphic("payload_shape", "hook", "sphere", (0.05,))
    return b.build()


if __name__ == "__main__":
    save_model(build(), Path(__file__).resolve().parents[1] / "models" / "flexible_boom.json")
