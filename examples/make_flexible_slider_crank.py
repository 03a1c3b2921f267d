"""Write models/flexible_slider_crank.json: a slider-crank whose connecting rod is a floating modal body.

Crank (rigid, R = 0.15 m) driven from rest at a constant angular acceleration of 200 rad/s^2 (angle 100 t^2);
connecting rod L = 0.3 m, a 6 mm steel rod (E = 200 GPa, G = 77 GPa, rho = 7870 kg/m^3) of 12 Euler-Bernoulli
beam elements, reduced by Craig-Bampton with rigid interfaces at its ends (frame tangent at the crank pin) and 6
fixed-interface modes, 1 % modal damping, geometric stiffening on; slider 0.05 kg on a prismatic rail along x.
All pins are revolute joints about z: the rod's elastic coordinates take what a rigid rod's closure would make
redundant. Markers ``rod_A``, ``rod_mid``, ``rod_B`` sit on the rod's end and mid-span nodes. Run:
``python examples/make_flexible_slider_crank.py`` (from the repository root).
"""

from __future__ import annotations

import math
from pathlib import Path

from fmu_mbs.model import ModelBuilder, save_model
from fmu_mbs.model.functions import Polynomial

R, L, D, N_EL = 0.15, 0.30, 0.006, 12
E, G, RHO = 2.0e11, 7.7e10, 7870.0
ALPHA = 200.0            # crank angular acceleration (rad/s^2)
SLIDER = 0.05            # slider mass (kg)
X_AXIS = (math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0)     # a marker whose z axis is the world x axis


def build(radius: float = R, slider: float = SLIDER):
    """The model (crank radius in m and slider mass in kg may be changed, e.g. by tests)."""
    b = ModelBuilder("flexible_slider_crank", 3, gravity=(0.0, -9.81, 0.0),
                     description="Slider-crank with a flexible connecting rod (floating modal body: 12 beam "
                                 "elements, Craig-Bampton, 6 modes); crank driven from rest at 200 rad/s^2. "
                                 "Outputs: the rod's mid-span node 'rod_mid' and end nodes 'rod_A', 'rod_B'.")
    area, inertia = math.pi * D * D / 4.0, math.pi * D ** 4 / 64.0
    m_crank = 0.5
    j_crank = m_crank * radius * radius / 12.0
    b.add_rigid_body("crank", mass=m_crank, inertia=(1e-5, j_crank, j_crank),
                     position=(radius / 2.0, 0.0, 0.0))
    b.add_modal_body("rod", nodes=[(L * i / N_EL, 0.0, 0.0) for i in range(N_EL + 1)], E=E, G=G, rho=RHO,
                     area=area, Iy=inertia, Iz=inertia, J=2.0 * inertia, n_modes=6, interfaces=[[0], [N_EL]],
                     damping=0.01, position=(radius, 0.0, 0.0))
    b.add_rigid_body("slider", mass=slider, inertia=(1e-5, 1e-5, 1e-5), position=(radius + L, 0.0, 0.0))
    b.add_marker("O", "ground")
    b.add_marker("crank_O", "crank", position=(-radius / 2.0, 0.0, 0.0))
    b.add_marker("crank_A", "crank", position=(radius / 2.0, 0.0, 0.0))
    b.add_marker("rod_A", "rod", position=(0.0, 0.0, 0.0))
    b.add_marker("rod_mid", "rod", position=(L / 2.0, 0.0, 0.0))
    b.add_marker("rod_B", "rod", position=(L, 0.0, 0.0))
    b.add_marker("slider_B", "slider", position=(0.0, 0.0, 0.0))
    b.add_marker("rail", "ground", position=(radius + L, 0.0, 0.0), orientation=X_AXIS)
    b.add_marker("slider_rail", "slider", orientation=X_AXIS)
    b.add_joint("pivot", "revolute", "O", "crank_O")
    b.add_joint("crank_pin", "revolute", "crank_A", "rod_A")
    b.add_joint("wrist_pin", "revolute", "rod_B", "slider_B")
    b.add_joint("guide", "prismatic", "rail", "slider_rail")
    b.add_driver("motor", "pivot", Polynomial((0.0, 0.0, ALPHA / 2.0)))
    b.add_graphic("crank_shape", "crank_O", "link", (0.02,), to_marker="crank_A")
    b.add_graphic("rod_1", "rod_A", "link", (0.01,), to_marker="rod_mid")
    b.add_graphic("rod_2", "rod_mid", "link", (0.01,), to_marker="rod_B")
    b.add_graphic("slider_shape", "slider_B", "box", (0.03, 0.015, 0.015))
    return b.build()


if __name__ == "__main__":
    save_model(build(), Path(__file__).resolve().parents[1] / "models" / "flexible_slider_crank.json")
