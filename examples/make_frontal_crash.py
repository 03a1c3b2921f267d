"""Write models/frontal_crash.json: the lumped-mass vehicle at 56 km/h into a rigid wall with the belted
ellipsoid-segment occupant on its passenger cell (issue 15's catalogue model).

``crash("frontal_crash", *example_vehicle(), occupant=example_seated_occupant())`` of fmu_mbs.model.crash: the
spatial variant of the builder (gravity -z, the cell a rigid body on a prismatic rail along x, the other masses on
y-z bushings from it) with the occupant of fmu_mbs.model.occupant (de Leva's segment table; shoulder belt with
8 kN load limiter and pretensioner, lap belt, seat, floor and toe-board contacts), ``belt.fire_time`` and
``belt.load_limit`` exposed. Run: ``python examples/make_frontal_crash.py`` (from the repository root).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from fmu_mbs.model import save_model
from fmu_mbs.model.crash import crash, example_seated_occupant, example_vehicle

DESCRIPTION = (
    "Lumped-mass (Kamal-type) 1500 kg car at 56 km/h into a rigid wall with a belted 73 kg ellipsoid-segment "
    "occupant (de Leva 1996 segment table, joint stops, seat, floor and toe-board contact tables; "
    "fmu_mbs.model.occupant) on its passenger cell: rails, engine, subframe (point masses on y-z bushings from the "
    "cell) and the cell (a rigid body on a prismatic rail along x) joined by hysteretic crush links and Kelvin "
    "mounts; shoulder belt 'belt' through D-ring and chest (8 kN load limiter, 80 mm pretensioner fired at "
    "belt.fire_time or by the input belt.fire) and lap belt 'lap_belt'. fmu_mbs.model.crash.example_vehicle / "
    "example_seated_occupant, examples/make_frontal_crash.py, illustrative parameters; docs/crash.md. Pulse "
    "cell.a[1], chest occupant.a[k], head head_cg.a[k], belt belt.force[k], crush <link>.deflection; run 0.15 s "
    "at 1e-4 s and read it with 'fmu-mbs crash-report --head head_cg.a[1] head_cg.a[2] head_cg.a[3] --chest "
    "occupant.a[1] occupant.a[2] occupant.a[3]'.")
EXPOSED = ("belt.fire_time", "belt.load_limit")


def build():
    masses, links = example_vehicle()
    model = crash("frontal_crash", masses, links, occupant=example_seated_occupant(), description=DESCRIPTION)
    return dataclasses.replace(model, exposed=EXPOSED)


if __name__ == "__main__":
    save_model(build(), Path(__file__).resolve().parents[1] / "models" / "frontal_crash.json")
