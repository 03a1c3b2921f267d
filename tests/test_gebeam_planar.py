"""The geometrically exact beam in planar models (planar node bodies; the closed-form planar case of
kernels/families/gebeam.py): the same motion as the spatial beam in its plane, Timoshenko's tip deflection, forces
that are the gradient of the strain energy, and energy conservation."""

from __future__ import annotations

import numpy as np
import pytest

from fmu_mbs import ModelBuilder, compile_model
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.analyses.statics import statics
from fmu_mbs.errors import ModelError
from fmu_mbs.model.exact_beam import GeometricallyExactBeam, add_geometrically_exact_beam
from fmu_mbs.model.json_io import model_from_dict, model_to_dict

E, NU, H = 2.1e11, 0.3, 0.02


def bar(n: int, dim: int, length: float = 0.2, damping: float = 0.0, soft: bool = False) -> GeometricallyExactBeam:
    e = 1e4 if soft else E
    a, i = H * H, H ** 4 / 12.0
    end = (length, 0.0) if dim == 2 else (length, 0.0, 0.0)
    return GeometricallyExactBeam("bar", E=e, G=e / (2 * (1 + NU)), rho=7800.0, area=a, Iy=i, Iz=i, J=0.1406 * H ** 4,
                                  start=(0.0,) * dim, end=end, n_elements=n, damping=damping)


def pinned(beam: GeometricallyExactBeam, dim: int, joint: str = "revolute"):
    """``beam`` on a pin at its first node (about z), gravity -y; (compiled model, node marker names)."""
    b = ModelBuilder(f"pin{dim}", dim, gravity=(0.0, -9.81) if dim == 2 else (0.0, -9.81, 0.0))
    nodes = add_geometrically_exact_beam(b, beam)
    b.add_marker("pivot", "ground")
    b.add_joint("pin", joint, "pivot", nodes[0])
    return compile_model(b.build()), nodes


def test_planar_tip_deflection_is_timoshenkos():
    """P L^3 / (3 EI) (1 - 1 / (4 n^2)) + P L / (k G A): one-point integration's law (tests/test_gebeam.py)."""
    for n in (8, 16):
        beam = bar(n, 2)
        b = ModelBuilder("cantilever", 2, gravity=(0.0, 0.0))
        nodes = add_geometrically_exact_beam(b, beam)
        b.add_marker("base", "ground")
        b.add_joint("clamp", "fixed", "base", nodes[0])
        P = 1000.0
        b.add_point_load("tip", nodes[-1], force=(0.0, P))
        cm = compile_model(b.build())
        assert cm.n_q == 3 * (n + 1)
        w = statics(cm)[f"{nodes[-1]}.r[2]"][0]
        bending = P * 0.2 ** 3 / (3 * E * beam.Iz) * (1.0 - 1.0 / (4 * n * n))
        shear = P * 0.2 / (beam.shear_factor * beam.G * beam.area)
        assert w == pytest.approx(bending + shear, rel=2e-4)


def test_planar_forces_are_the_gradient_of_the_strain_energy():
    beam = GeometricallyExactBeam("g", E=1e3, G=4e2, rho=1.0, area=0.1, Iy=2e-3, Iz=1e-3, J=1.5e-3,
                                  nodes=((0.0, 0.0), (0.3, 0.1), (0.5, 0.3), (0.6, 0.6)))
    b = ModelBuilder("grad", 2, gravity=(0.0, 0.0))
    add_geometrically_exact_beam(b, beam)
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    rng = np.random.default_rng(5)
    q = cm.q0 + 0.2 * rng.normal(size=cm.q0.size)
    zero = np.zeros_like(q)
    Q = ev.forces(0.0, q, zero).copy()
    assert ev.spring_energy > 1.0
    for _ in range(3):
        dq = rng.normal(size=q.size)
        ev.forces(0.0, q + 1e-6 * dq, zero)
        vp = ev.spring_energy
        ev.forces(0.0, q - 1e-6 * dq, zero)
        assert Q @ dq == pytest.approx(-(vp - ev.spring_energy) / 2e-6, rel=1e-6)


def test_planar_beam_moves_as_the_spatial_one_in_its_plane():
    """A damped soft bar swings down from the horizontal on a pin: planar node bodies (closed-form element) and
    spatial ones (the SO(3) element, a revolute about z) integrate the same equations, so with the reference
    integrator at tight tolerances their tip paths agree to the integration tolerance."""
    runs = []
    for dim in (2, 3):
        cm, nodes = pinned(bar(6, dim, length=1.0, damping=2e-3, soft=True), dim)
        tr = simulate(cm, 0.3, 1e-3, integrator="reference", output_step=0.01)
        runs.append(np.column_stack([tr[f"{nodes[-1]}.r[1]"], tr[f"{nodes[-1]}.r[2]"],
                                     tr.info["energy_dissipated"]]))
    planar, spatial = runs
    assert spatial[-1, 1] < -0.3 and spatial[-1, 2] > 1e-3          # it swings down, bends and dissipates
    assert np.max(np.abs(planar[:, :2] - spatial[:, :2])) < 1e-6
    assert planar[-1, 2] == pytest.approx(spatial[-1, 2], rel=1e-4)


def test_undamped_planar_pendulum_conserves_energy():
    cm, nodes = pinned(bar(4, 2, length=1.0, soft=True), 2)
    info = simulate(cm, 0.2, 1e-3, integrator="reference", output_step=0.01).info
    energy = info["energy_kinetic"] + info["energy_potential"] + info["energy_dissipated"] - info["energy_input"]
    assert info["energy_kinetic"].max() > 1.0
    assert np.max(np.abs(energy - energy[0])) < 1e-8 * info["energy_kinetic"].max()


def test_planar_model_file_beams_expand_to_planar_nodes_with_named_problems():
    fields = {"E": 2e11, "G": 8e10, "rho": 7800.0, "area": 1e-4, "Iy": 1e-9, "Iz": 1e-9, "J": 2e-9,
              "start": [0.0, 0.0], "end": [1.0, 0.0], "n_elements": 2}
    data = {"name": "planar_file_beam", "dimension": 2, "gravity": [0.0, -9.81],
            "beams": [{"name": "rod", **fields}],
            "markers": [{"name": "base", "body": "ground"}],
            "joints": [{"name": "pin", "type": "revolute", "marker_i": "base", "marker_j": "rod_n0"}]}
    model = model_from_dict(data)
    assert [type(b).__name__ for b in model.bodies] == ["PlanarBody"] * 3
    assert model.bodies[1].mass == pytest.approx(7800.0 * 1e-4 * 0.5)
    assert model_from_dict(model_to_dict(model)) == model
    bad = dict(data, beams=[{"name": "rod", **fields, "end": [1.0, 0.0, 0.0]}])
    with pytest.raises(ModelError, match=r"beam 'rod': a straight beam needs 'start' and 'end' \[x, y\]"):
        model_from_dict(bad)


def offset_chain(damping: float = 0.0):
    """Three tilted, moving planar bodies joined by two beam elements whose markers sit off the bodies' origins and at
    angles (the marker-offset terms of the closed-form tangent), the first pinned to the ground, the last tied to it
    by a third element; gravity."""
    from fmu_mbs.model.gebeam import BeamElement
    b = ModelBuilder("offsets", 2, gravity=(0.0, -9.81))
    b.add_planar_body("A", 1.0, 0.02, position=(0.0, 0.0), angle=0.1, angular_velocity=1.5)
    b.add_planar_body("B", 0.8, 0.015, position=(0.35, 0.05), angle=-0.2, velocity=(0.1, -0.2))
    b.add_planar_body("C", 0.6, 0.01, position=(0.7, -0.02), angle=0.3, angular_velocity=-2.0)
    b.add_marker("pivot", "ground")
    b.add_marker("A0", "A")
    b.add_joint("pin", "revolute", "pivot", "A0")
    for k, (m1, m2, p1, p2, a1, a2) in enumerate((("A", "B", (0.12, 0.03), (-0.1, 0.02), 0.05, -0.1),
                                                   ("B", "C", (0.11, -0.02), (-0.09, 0.01), 0.2, 0.15))):
        b.add_marker(f"e{k}i", m1, position=p1, angle=a1)
        b.add_marker(f"e{k}j", m2, position=p2, angle=a2)
        b.add_force(BeamElement(f"beam{k}", f"e{k}i", f"e{k}j", EA=2e5, GA_y=8e4, GA_z=8e4, GJ=30.0, EI_y=40.0,
                                EI_z=60.0, damping=damping))
    b.add_marker("c1", "C", position=(0.2, 0.02), angle=0.1)          # and one from C to the ground
    b.add_marker("g1", "ground", position=(0.95, 0.0), angle=0.05)
    b.add_force(BeamElement("tie", "c1", "g1", EA=5e4, GA_y=2e4, GA_z=2e4, GJ=10.0, EI_y=10.0, EI_z=15.0,
                            damping=damping))
    return compile_model(b.build())


@pytest.mark.parametrize("damping", [0.0, 2e-3])
def test_closed_form_tangent_equals_the_finite_differences(damping):
    """The ALF's force tangent kq K + kv C (kernels/families/gebeam.add_planar_tangent) against the finite-difference
    one at the same predictor: to fd accuracy without damping; with damping the closed form leaves out the damping
    rate's dependence on q (a Newton tangent), ~beta x speed of the stiffness part."""
    from fmu_mbs.analyses.integrators.alf import ALFIntegrator
    cm = offset_chain(damping)
    ws = {}
    for tangent in ("fd", "auto"):
        ig = ALFIntegrator(cm, 1e-3, tangent=tangent, tangent_every=1000)
        assert ig.analytic_tangent == (tangent == "auto")
        ig.advance(1)
        ws[tangent] = ig._ws.Wx.copy()
    scale = np.max(np.abs(ws["fd"]))
    err = np.max(np.abs(ws["auto"] - ws["fd"])) / scale
    assert err < (1e-5 if damping == 0.0 else 2e-3)          # measured 2.2e-9 and 4.7e-4


def test_closed_form_tangent_integrates_the_same_motion():
    """Same discrete equations, another Newton matrix: the trajectories agree to the Newton tolerance, and a step
    takes as many iterations (the tangent refreshed at every step)."""
    cm = offset_chain(2e-3)
    runs = {t: simulate(cm, 0.3, 1e-3, output_step=0.01, tangent=t) for t in ("fd", "auto")}
    assert np.max(np.abs(runs["auto"].q - runs["fd"].q)) < 1e-8
    its = {t: float(np.mean(tr.info["iterations"][1:])) for t, tr in runs.items()}
    assert its["auto"] <= its["fd"] + 0.1


def test_closed_form_tangent_only_where_it_covers_the_model():
    from fmu_mbs.compiler.families import analytic_tangent_covers
    assert analytic_tangent_covers(offset_chain().arrays)
    assert analytic_tangent_covers(pinned(bar(4, 2), 2)[0].arrays)
    assert not analytic_tangent_covers(pinned(bar(4, 3), 3)[0].arrays)      # spatial beam: finite differences
    b = ModelBuilder("loaded", 2, gravity=(0.0, 0.0))
    nodes = add_geometrically_exact_beam(b, bar(4, 2))
    b.add_point_load("tip", nodes[-1], force=(0.0, 10.0))                   # another family: finite differences
    assert not analytic_tangent_covers(compile_model(b.build()).arrays)
