"""The catalogue's frontal_crash with its ellipsoid-segment occupant (model/crash.py ``SeatedOccupant``), and the
belts of both occupant models against the capstan law.

References from elsewhere:
- conservation of energy: kinetic + potential (gravity, springs, recoverable crush) + dissipated stays at its
  initial value, the impact energy 1/2 M V0^2 of the 1573 kg car and occupant (issue 15: to 1e-3 of it);
- the capstan (Euler-Eytelwein) law at every slip ring: F_high <= e^{mu alpha} F_low, alpha the wrap angle between
  the two segments (computed here from the ring and neighbour marker positions of the run), with equality while
  the webbing slides; so a segment may carry more than the 8 kN load limiter next to the retractor, up to
  8 kN e^{mu alpha} on the D-ring's far side.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs.analyses.channels import evaluate_channels
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model
from fmu_mbs.model.names import channel_names

MODELS = Path(__file__).resolve().parents[1] / "models"
V0 = 56.0 / 3.6


@pytest.fixture(scope="module")
def runs():
    """name -> (model, trajectory, channels) of 150 ms at 0.1 ms steps, rows every 0.5 ms, run once per module."""
    out = {}
    for name in ("frontal_crash", "sled"):
        cm = compile_model(load_model(MODELS / f"{name}.json"))
        tr = simulate(cm, 0.15, 1e-4, output_step=5e-4)
        ch = evaluate_channels(cm, tr)
        out[name] = (cm.model, tr, {n: ch[:, k] for k, n in enumerate(channel_names(cm.model))})
    return out


def test_frontal_crash_is_spatial_with_the_seated_occupant_and_its_energy_closes(runs):
    model, tr, ch = runs["frontal_crash"]
    assert model.dimension == 3 and {"torso", "head", "thigh", "lower_leg", "cell_body"} <= {b.name for b in
                                                                                          model.bodies}
    mass = sum(b.mass for b in model.bodies)
    assert mass == pytest.approx(1500.0 + 73.0, rel=1e-12)
    e_impact = 0.5 * mass * V0 ** 2
    info = tr.info
    split = info["energy_kinetic"] + info["energy_potential"] + info["energy_dissipated"] - info["energy_input"]
    assert info["energy_kinetic"][0] == pytest.approx(e_impact, rel=1e-9)
    assert np.max(np.abs(split - split[0])) < 1e-3 * e_impact
    assert info["energy_kinetic"][-1] < 0.1 * e_impact                     # the crash took the energy
    # the vehicle masses ride on their supports: no drop under gravity beyond the static sag
    assert np.max(np.abs(ch["engine.r[3]"] - ch["engine.r[3]"][0])) < 1e-4
    # the occupant is restrained inside the cell: the chest moves forward relative to it, by less than 0.4 m
    rel = (ch["occupant.r[1]"] - ch["occupant.r[1]"][0]) - (ch["cell.r[1]"] - ch["cell.r[1]"][0])
    assert 0.05 < np.max(rel) < 0.4
    assert np.max(ch["belt.force[1]"]) == pytest.approx(8e3, rel=1e-6)     # the load limiter held


def _wrap(ch, a: str, ring: str, b: str) -> np.ndarray:
    """Wrap angle (rad) of the webbing a -> ring -> b at the ring: the angle between the two segment directions."""
    p = [np.stack([ch[f"{m}.r[{k}]"] for k in (1, 2, 3)], axis=1) for m in (a, ring, b)]
    u1, u2 = p[1] - p[0], p[2] - p[1]
    cos = np.sum(u1 * u2, axis=1) / (np.linalg.norm(u1, axis=1) * np.linalg.norm(u2, axis=1))
    return np.arccos(np.clip(cos, -1.0, 1.0))


@pytest.mark.parametrize("name", ["frontal_crash", "sled"])
def test_belt_segment_forces_obey_the_capstan_law_at_every_ring(runs, name):
    model, tr, ch = runs[name]
    for belt in (f for f in model.forces if type(f).__name__ == "Belt"):
        path = [belt.marker_i, *belt.rings, belt.marker_j]
        for r in range(1, len(path) - 1):
            f_a, f_b = ch[f"{belt.name}.force[{r}]"], ch[f"{belt.name}.force[{r + 1}]"]
            bound = np.exp(belt.mu * _wrap(ch, path[r - 1], path[r], path[r + 1]))
            taut = (f_a > 100.0) & (f_b > 100.0)
            assert taut.any(), (belt.name, r)
            ratio = np.maximum(f_a, f_b)[taut] / np.minimum(f_a, f_b)[taut]
            assert np.all(ratio <= bound[taut] * (1.0 + 1e-9)), (belt.name, path[r])
    if name == "frontal_crash":
        # the D-ring segment's peak: 8 kN at the limiter times e^{mu alpha} at that instant (the webbing slides)
        k = int(np.argmax(ch["belt.force[2]"]))
        alpha = _wrap(ch, "retractor", "d_ring", "occupant")[k]
        assert ch["belt.force[1]"][k] == pytest.approx(8e3, rel=1e-9)
        assert ch["belt.force[2]"][k] == pytest.approx(8e3 * math.exp(0.2 * alpha), rel=1e-6)
        assert ch["belt.force[2]"][k] > 11e3                                  # more than the limiter, legitimately


def test_seated_occupant_needs_a_cell_and_works_with_a_deformable_barrier():
    from fmu_mbs.errors import ModelError
    from fmu_mbs.model.crash import DeformableBarrier, Link, SeatedOccupant, crash, example_vehicle

    masses, links = example_vehicle()
    with pytest.raises(ModelError, match="occupant: the cell 'body' is not a mass"):
        crash("bad", masses, links, occupant=SeatedOccupant(cell="body"))
    field = (Link("foam", "face", "ground", curve=((0.0, 0.0), (0.1, 150e3), (0.5, 200e3))),)
    model = crash("odb", masses, links, occupant=SeatedOccupant(),
                  barrier=DeformableBarrier(field, face_mass=20.0, depth=0.6, engaged=("crash_boxes",)))
    tr = simulate(compile_model(model), 0.04, 1e-4, output_step=1e-3)
    info = tr.info
    split = info["energy_kinetic"] + info["energy_potential"] + info["energy_dissipated"] - info["energy_input"]
    assert np.max(np.abs(split - split[0])) < 1e-3 * info["energy_kinetic"][0]   # the face hangs on its support
