"""Write models/sled.json: a belted occupant on a deceleration sled with a prescribed half-sine pulse.

The sled (a planar body on a prismatic rail) moves at 56 km/h for 10 ms, then is stopped by the half-sine
deceleration A sin(pi tau / T), T = 100 ms, A = pi V0 / (2 T) = 244.3 m/s^2 (24.9 g; delta-V = 2 A T / pi = V0);
its displacement is prescribed by a cubic table sampled every 0.5 ms from -10 ms (a table holds its end values,
so it must start before the run for the sled to start at speed). The occupant and belt are those of the
catalogue's frontal_crash (fmu_mbs.model.crash.example_occupant), anchored on the sled. Run:
``python examples/make_sled.py`` (from the repository root).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from fmu_mbs.model import ModelBuilder, save_model
from fmu_mbs.model.crash import example_occupant
from fmu_mbs.model.force_elements import Belt
from fmu_mbs.model.functions import Table

V0, T, PRE = 56.0 / 3.6, 0.100, 0.010
A = math.pi * V0 / (2 * T)


def sled_displacement(t: np.ndarray) -> np.ndarray:
    """s(t) of the sled (m): V0 t before the pulse, the integral of V0 - A T/pi (1 - cos(pi tau/T)) during it,
    held after it."""
    tau = np.clip(t - PRE, 0.0, T)
    s = V0 * np.minimum(t, PRE) + V0 * tau - A * T / math.pi * (tau - T / math.pi * np.sin(math.pi * tau / T))
    return s


def build():
    occ = example_occupant()
    b = ModelBuilder("sled", dimension=2, gravity=(0.0, 0.0), description=(
        "Belted 75 kg occupant (the frontal_crash occupant: 8 kN load limiter, 80 mm pretensioner at "
        "belt.fire_time or the input belt.fire) on a deceleration sled: 56 km/h stopped by a 100 ms half-sine pulse "
        "of 24.9 g from 10 ms (driver 'pulse', a cubic table of the sled displacement). examples/make_sled.py, "
        "docs/crash.md. Pulse sled.a[1], chest occupant.a[1], belt belt.force[k]; run 0.15 s at 1e-4 s and read "
        "it with 'fmu-mbs crash-report --pulse sled.a[1]'."))
    b.add_planar_body("sled_body", 500.0, 50.0, position=(0.0, 0.0), velocity=(V0, 0.0))
    b.add_marker("rail_start", "ground")
    b.add_marker("sled", "sled_body")
    b.add_joint("rail", "prismatic", "rail_start", "sled")
    t = np.arange(-0.01, 0.2 + 1e-9, 5e-4)      # from before t = 0: the table's end slopes are held at zero
    b.add_driver("pulse", "rail", Table(tuple(t.tolist()), tuple(sled_displacement(t).tolist()), "cubic"))
    back, h = -occ.anchor_offset, occ.anchor_height
    b.add_point_mass("occupant_body", occ.mass, position=(0.0, 0.0), velocity=(V0, 0.0))
    b.add_marker("occupant", "occupant_body")
    b.add_marker("seat", "sled_body")
    b.add_marker("retractor", "sled_body", position=(back, -h - 0.1))
    b.add_marker("d_ring", "sled_body", position=(back, h))
    b.add_marker("buckle", "sled_body", position=(back, -h))
    b.add_bushing("seat_support", "seat", "occupant", stiffness=(0.0, occ.seat_stiffness, 0.0),
                  damping=(0.0, occ.seat_damping, 0.0))
    b.add_force(Belt("belt", "retractor", "buckle", stiffness=occ.belt_stiffness, rings=("d_ring", "occupant"),
                     mu=occ.mu, slack=occ.slack, load_limit=occ.load_limit,
                     pretensioner_stroke=occ.pretensioner_stroke, fire_time=occ.fire_time))
    b.expose("belt.fire_time", "belt.load_limit")
    b.fmu_output("default", "sled.a", "occupant.a")     # the pulses crash-report reads, in an FMU's result too
    return b.build()


if __name__ == "__main__":
    save_model(build(), Path(__file__).resolve().parents[1] / "models" / "sled.json")
