"""Write models/sled.json: a belted ellipsoid-segment occupant on a deceleration sled with a prescribed half-sine pulse.

The sled (a rigid body on a prismatic rail along x) moves at 56 km/h for 10 ms, then is stopped by the half-sine
deceleration A sin(pi tau / T), T = 100 ms, A = pi V0 / (2 T) = 244.3 m/s^2 (24.9 g; delta-V = 2 A T / pi = V0);
its displacement is prescribed by a cubic table sampled every 0.5 ms from -10 ms (a table holds its end values,
so it must start before the run for the sled to start at speed). The occupant is the ellipsoid-segment occupant of
fmu_mbs.model.occupant (de Leva's segment table) with its shoulder and lap belts, anchored on the sled. Run:
``python examples/make_sled.py`` (from the repository root).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from fmu_mbs.model import ModelBuilder, save_model
from fmu_mbs.model.functions import Table
from fmu_mbs.model.occupant import add_ellipsoid_occupant

V0, T, PRE = 56.0 / 3.6, 0.100, 0.010
A = math.pi * V0 / (2 * T)


def sled_displacement(t: np.ndarray) -> np.ndarray:
    """s(t) of the sled (m): V0 t before the pulse, the integral of V0 - A T/pi (1 - cos(pi tau/T)) during it,
    held after it."""
    tau = np.clip(t - PRE, 0.0, T)
    s = V0 * np.minimum(t, PRE) + V0 * tau - A * T / math.pi * (tau - T / math.pi * np.sin(math.pi * tau / T))
    return s


def build():
    b = ModelBuilder("sled", dimension=3, gravity=(0.0, 0.0, -9.80665), description=(
        "Belted ellipsoid-segment occupant (de Leva 1996 50th-percentile-male segment table, joint stops, seat, "
        "floor and toe-board contact tables; fmu_mbs.model.occupant) on a deceleration sled: 56 km/h stopped by a "
        "100 ms half-sine pulse of 24.9 g from 10 ms (driver 'pulse', a cubic table of the sled displacement). "
        "Shoulder belt 'belt' (8 kN load limiter, 80 mm pretensioner at belt.fire_time or the input belt.fire) and "
        "lap belt 'lap_belt'. examples/make_sled.py, docs/crash.md. Pulse sled.a[1], chest occupant.a[k], head "
        "head_cg.a[k]; run 0.15 s at 1e-4 s and read it with 'fmu-mbs crash-report --pulse sled.a[1] --head "
        "head_cg.a[1] head_cg.a[3] --chest occupant.a[1] occupant.a[3]'."))
    b.add_rigid_body("sled_body", 500.0, [50.0, 50.0, 50.0], velocity=(V0, 0.0, 0.0))
    along_x = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)      # marker z along the world x
    b.add_marker("rail_start", "ground", orientation=along_x)
    b.add_marker("sled", "sled_body", orientation=along_x)
    b.add_joint("rail", "prismatic", "rail_start", "sled")
    t = np.arange(-0.01, 0.2 + 1e-9, 5e-4)      # from before t = 0: the table's end slopes are held at zero
    b.add_driver("pulse", "rail", Table(tuple(t.tolist()), tuple(sled_displacement(t).tolist()), "cubic"))
    add_ellipsoid_occupant(b, "sled_body", hip=(0.0, 0.0, 0.5), velocity=(V0, 0.0, 0.0))
    b.expose("belt.fire_time", "belt.load_limit")
    b.fmu_output("default", "sled.a", "occupant.a", "head_cg.a")     # the pulses crash-report reads, in an FMU too
    return b.build()


if __name__ == "__main__":
    save_model(build(), Path(__file__).resolve().parents[1] / "models" / "sled.json")
