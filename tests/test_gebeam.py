"""The geometrically exact beam (kernels/families/gebeam.py, model/exact_beam.py) against numbers from elsewhere:
Timoshenko's small-load tip deflection, the elastica (a shooting solution written here), the 45-degree bend of
seed 000 Table 11.1 and the Euler-Bernoulli cantilever frequencies; plus the element's forces as the gradient of its
energy, the JSON round trip and the validation messages."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from fmu_mbs import ModelBuilder, compile_model
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.modes import mechanism_modes
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.analyses.statics import load_increments, statics
from fmu_mbs.errors import AnalysisError, ModelError
from fmu_mbs.model.exact_beam import GeometricallyExactBeam, add_geometrically_exact_beam, expand
from fmu_mbs.model.functions import Linear
from fmu_mbs.model.gebeam import BeamElement
from fmu_mbs.model.json_io import model_from_dict, model_to_dict


def cantilever(beam: GeometricallyExactBeam, force=None, torque=None, ramp: bool = False):
    """``beam`` clamped at its first node, a dead load at its last (N, world; a Linear ramp force * t when
    ``ramp``); returns the compiled model and the node marker names."""
    b = ModelBuilder(f"{beam.name}_cantilever", 3, gravity=(0.0, 0.0, 0.0))
    nodes = add_geometrically_exact_beam(b, beam)
    root = b.bodies[-len(nodes)]                        # the first node body: the clamp takes its pose
    b.add_marker("base", "ground", position=root.position, orientation=root.orientation)
    b.add_joint("clamp", "fixed", "base", nodes[0])
    if force is not None:
        b.add_point_load("tip_load", nodes[-1], force=[Linear(0.0, f) if ramp else f for f in force],
                         torque=torque or (0.0, 0.0, 0.0))
    return compile_model(b.build()), nodes


def steel_bar(n: int, length: float = 1.0, h: float = 0.02) -> GeometricallyExactBeam:
    E, nu, a = 2.1e11, 0.3, h * h
    i = h ** 4 / 12.0
    return GeometricallyExactBeam("bar", E=E, G=E / (2 * (1 + nu)), rho=7800.0, area=a, Iy=i, Iz=i, J=0.1406 * h ** 4,
                                  start=(0.0, 0.0, 0.0), end=(length, 0.0, 0.0), n_elements=n)


def test_small_tip_load_gives_timoshenko_deflection():
    """P L^3 / (3 EI) + P L / (k G A) for a short bar (L/h = 10: shear 3 % of the bending). One-point integration
    takes each element's bending moment at its mid-point, i.e. the unit-load integral of (L - x)^2 by the midpoint
    rule, which misses -h^2 L / 12 of L^3 / 3: the bending part comes out (1 - 1/(4 n^2)) times the exact one
    (0.39 % at n = 8), the shear part exactly. Both the total error and that law are asserted."""
    for n in (8, 16):
        beam = steel_bar(n, length=0.2)
        P = 1000.0                                      # N: deflection 0.5 % of the length, linear range
        cm, nodes = cantilever(beam, force=(0.0, P, 0.0))
        w = statics(cm)[f"{nodes[-1]}.r[2]"][0]
        bending = P * 0.2 ** 3 / (3 * beam.E * beam.Iz)
        shear = P * 0.2 / (beam.shear_factor * beam.G * beam.area)
        assert w == pytest.approx(bending + shear, rel=1.0 / (4 * n * n) + 1e-4)
        assert w == pytest.approx(bending * (1.0 - 1.0 / (4 * n * n)) + shear, rel=1e-4)   # + 2e-5 nonlinear


def elastica_tip(alpha: float) -> tuple[float, float]:
    """Tip (x, y) / L of an inextensible, shear-rigid cantilever under a dead tip load normal to it (alpha = P L^2 /
    EI): EI theta'' = -P cos(theta), theta(0) = 0, theta'(L) = 0, by shooting on theta'(0) (scipy, tight
    tolerances)."""
    def rhs(s, y):
        return [y[1], -alpha * math.cos(y[0]), math.cos(y[0]), math.sin(y[0])]

    def end(k):
        return solve_ivp(rhs, (0.0, 1.0), [0.0, k, 0.0, 0.0], rtol=1e-11, atol=1e-12).y[:, -1]

    k = brentq(lambda k: end(k)[1], 0.0, alpha)
    tip = end(k)
    return tip[2], tip[3]


@pytest.fixture(scope="module")
def elastica_path():
    """A slender cantilever (L = 1 m, EI = 1 N m^2, axial and shear stiffness 1e5 times larger: the elastica's
    inextensibility to 1e-4) under a tip load ramped to P L^2/EI = 10 in 7 load increments."""
    beam = GeometricallyExactBeam("el", E=1e5, G=1e5, rho=1.0, area=1.0, Iy=1e-5, Iz=1e-5, J=1e-5,
                                  shear_factor=1.0, start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0), n_elements=12)
    cm, nodes = cantilever(beam, force=(0.0, 1.0, 0.0), ramp=True)
    return load_increments(cm, [0.5, 1.0, 2.0, 3.0, 4.5, 6.5, 10.0]), nodes


@pytest.mark.parametrize("alpha", [1.0, 3.0, 10.0])
def test_elastica_against_shooting_solution(elastica_path, alpha):
    """Tip position within 0.15 % of L of the elastica (12 elements: the element's O(h^2) error, measured
    2026-11-26 at most 0.07 % of L, and 0.04 % with 16 elements)."""
    traj, nodes = elastica_path
    row = int(np.argmin(abs(traj.t - alpha)))
    x_ref, y_ref = elastica_tip(alpha)
    assert traj[f"{nodes[-1]}.r[1]"][row] == pytest.approx(x_ref, abs=1.5e-3)
    assert traj[f"{nodes[-1]}.r[2]"][row] == pytest.approx(y_ref, abs=1.5e-3)


def test_load_increments_need_increasing_times(elastica_path):
    traj, _ = elastica_path
    with pytest.raises(AnalysisError, match="load increments need increasing times"):
        load_increments(traj.model, [2.0, 1.0])


def test_45_degree_bend_against_table_11_1():
    """Seed 000 Ex. 11.2 / Table 11.1 (Bathe & Bolourchi's bend): R = 100, 45-degree arc in the horizontal plane,
    8 elements, unit square section, E = 1e7, G = E/2 (the book's "E = G" is a misprint), vertical tip load in
    load increments; tip against Simo & Vu-Quoc (1986, the same element) within 1 % out of plane and 2 % in plane.
    Measured 2026-11-26: (22.17, 58.63, 40.36) at P = 300, (18.43, 52.08, 48.59) at 450, (15.62, 47.01, 53.50) at
    600: at most 1.07 % in plane and 0.69 % out of plane from Simo's, within 0.1 of Cardona's (1989) at 300."""
    phi = np.linspace(0.0, math.pi / 4, 9)
    nodes = tuple((100.0 * (1 - math.cos(f)), 100.0 * math.sin(f), 0.0) for f in phi)
    beam = GeometricallyExactBeam("bend", E=1e7, G=5e6, rho=1.0, area=1.0, Iy=1 / 12, Iz=1 / 12, J=0.1406,
                                  nodes=nodes, up=(0.0, 0.0, 1.0))
    cm, names = cantilever(beam, force=(0.0, 0.0, 1.0), ramp=True)
    traj = load_increments(cm, np.arange(50.0, 600.1, 50.0))
    simo = {300.0: (22.33, 58.84, 40.08), 450.0: (18.62, 52.32, 48.39), 600.0: (15.79, 47.23, 53.37)}
    for P, ref in simo.items():
        row = int(np.argmin(abs(traj.t - P)))
        tip = [traj[f"{names[-1]}.r[{k}]"][row] for k in (1, 2, 3)]
        assert tip[2] == pytest.approx(ref[2], rel=0.01), (P, tip)
        assert tip[0] == pytest.approx(ref[0], rel=0.02), (P, tip)
        assert tip[1] == pytest.approx(ref[1], rel=0.02), (P, tip)


def test_cantilever_frequencies_against_euler_bernoulli():
    """First three bending frequencies of a slender cantilever (L/h = 100, 20 elements, lumped node masses),
    linearised about the straight state, against (beta L)^2 sqrt(EI / (rho A L^4)): the lumped masses and the
    one-point integration give O(h^2) errors, measured 2026-11-26 -0.07 %, -0.12 %, +0.02 %; asserted 0.3 %,
    0.5 %, 0.5 %."""
    n = 20
    beam = steel_bar(n, length=2.0)
    cm, _ = cantilever(beam)
    modes = mechanism_modes(cm)
    w = np.sqrt(np.clip(modes.omega2, 0.0, None))
    w_bend = np.sort(w)[::2][:3]               # each bending frequency twice (square section: y and z)
    scale = math.sqrt(beam.E * beam.Iz / (beam.rho * beam.area * 2.0 ** 4))
    for wk, bl, tol in zip(w_bend, (1.875104, 4.694091, 7.854757), (3e-3, 5e-3, 5e-3)):
        assert wk == pytest.approx(bl ** 2 * scale, rel=tol)


def test_stiff_steel_cantilever_under_a_small_load_has_an_equilibrium():
    """A 1 cm steel bar, 1 m in 10 elements, 10 N at the tip: the force residual's round-off floor (EA/L0 times
    the positions' round-off, ~2e-8 N) lies above the force tolerance (1e-9 of 10 N); statics must still converge
    (at the floor) to Timoshenko's deflection with the one-point law."""
    n, P = 10, 10.0
    beam = steel_bar(n, length=1.0, h=0.01)
    cm, nodes = cantilever(beam, force=(0.0, P, 0.0))
    w = statics(cm)[f"{nodes[-1]}.r[2]"][0]
    bending = P / (3 * beam.E * beam.Iz) * (1.0 - 1.0 / (4 * n * n))
    assert w == pytest.approx(bending + P / (beam.shear_factor * beam.G * beam.area), rel=1e-3)


def test_forces_are_the_gradient_of_the_strain_energy():
    """Q . dq = -dV along random coordinate directions of a deformed, twisted, curved beam (exact consistency the
    statics tangent and energy balance rely on)."""
    nodes = ((0.0, 0.0, 0.0), (0.3, 0.1, 0.0), (0.5, 0.3, 0.2), (0.6, 0.6, 0.3))
    beam = GeometricallyExactBeam("g", E=1e3, G=4e2, rho=1.0, area=0.1, Iy=2e-3, Iz=1e-3, J=1.5e-3, nodes=nodes)
    b = ModelBuilder("grad", 3, gravity=(0.0, 0.0, 0.0))
    add_geometrically_exact_beam(b, beam)
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    rng = np.random.default_rng(3)
    q = cm.q0 + 0.2 * rng.normal(size=cm.q0.size)
    for a in range(len(nodes)):                          # back to unit Euler parameters
        adr = cm.arrays.body_q_adr[a] + 3
        q[adr:adr + 4] /= np.linalg.norm(q[adr:adr + 4])
    zero = np.zeros_like(q)
    Q = ev.forces(0.0, q, zero).copy()
    assert ev.spring_energy > 1.0
    for _ in range(3):
        dq = rng.normal(size=q.size)
        h = 1e-6
        ev.forces(0.0, q + h * dq, zero)
        vp = ev.spring_energy
        ev.forces(0.0, q - h * dq, zero)
        vm = ev.spring_energy
        assert Q @ dq == pytest.approx(-(vp - vm) / (2 * h), rel=1e-6)


def test_json_round_trip_and_validation():
    beam = steel_bar(3)
    b = ModelBuilder("rt", 3, gravity=(0.0, 0.0, -9.81))
    add_geometrically_exact_beam(b, beam)
    model = b.build()
    again = model_from_dict(model_to_dict(model))
    assert again == model
    bodies, markers, elements = expand(beam)
    assert sum(x.mass for x in bodies) == pytest.approx(beam.rho * beam.area * 1.0)
    assert [e.marker_i for e in elements] == [m.name for m in markers[:-1]]
    with pytest.raises(ModelError, match="beam 'bar': 'E' must be finite and > 0"):
        expand(GeometricallyExactBeam(**{**beam.__dict__, "E": -1.0}))
    with pytest.raises(ModelError, match="beam 'bar': give either 'nodes'"):
        expand(GeometricallyExactBeam(**{**beam.__dict__, "nodes": ((0, 0, 0), (1, 0, 0))}))
    with pytest.raises(ModelError, match="force element 'bad': 'EI_z' must be finite and > 0"):
        b.add_force(elements[0].__class__(**{**elements[0].__dict__, "name": "bad", "EI_z": 0.0}))
        b.build()


def test_model_file_beams_are_expanded_with_named_problems():
    fields = {"E": 2e11, "G": 8e10, "rho": 7800.0, "area": 1e-4, "Iy": 1e-9, "Iz": 1e-9, "J": 2e-9,
              "start": [0.0, 0.0, 0.0], "end": [1.0, 0.0, 0.0], "n_elements": 2}
    data = {"name": "file_beam", "dimension": 3, "gravity": [0.0, 0.0, -9.81],
            "beams": [{"name": "rod", **fields}],
            "markers": [{"name": "base", "body": "ground"}],
            "joints": [{"name": "pin", "type": "spherical", "marker_i": "base", "marker_j": "rod_n0"}]}
    model = model_from_dict(data)
    assert [b.name for b in model.bodies] == ["rod_node0", "rod_node1", "rod_node2"]
    assert [f.name for f in model.forces] == ["rod_e1", "rod_e2"]
    assert model_from_dict(model_to_dict(model)) == model
    bad = dict(data, beams=[{"name": "rod", **fields, "E": -1.0, "n_elements": 0}])
    with pytest.raises(ModelError, match=r"beam 'rod': 'E' must be finite and > 0, got -1.0; a straight beam needs"):
        model_from_dict(bad)


def test_beam_elements_join_rigid_node_bodies_only():
    b = ModelBuilder("on_point_mass", 3, gravity=(0.0, 0.0, 0.0))
    b.add_point_mass("p", 1.0, position=(1.0, 0.0, 0.0))
    b.add_rigid_body("r", 1.0, (1.0, 1.0, 1.0))
    b.add_marker("mp", "p")
    b.add_marker("mr", "r")
    b.add_force(BeamElement("link", "mr", "mp", EA=1.0, GA_y=1.0, GA_z=1.0, GJ=1.0, EI_y=1.0, EI_z=1.0))
    with pytest.raises(ModelError, match="beam element 'link': marker 'mp' is on body 'p' of kind PointMass"):
        compile_model(b.build())


def test_flexible_pendulum_conserves_energy():
    """A soft beam (4 elements) on a spherical pin swings down from the horizontal under gravity: large rotations
    and bending together. With the scipy reference integrator (tight tolerances) kinetic + gravity + strain energy
    stays constant (a conservation law: it fails if the node loads are not the gradient of the strain energy or the
    node inertia is inconsistent); over 0.08 s (to keep the test cheap) it converts a few tenths of the 4.9 J
    it can gain. Measured 2026-11-26 over 0.5 s: constant to 3e-13 J while 4.9 J were exchanged."""
    beam = GeometricallyExactBeam("fp", E=1e4, G=1e4, rho=1.0, area=1.0, Iy=5e-4, Iz=5e-4, J=5e-4,
                                  shear_factor=1.0, start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0), n_elements=4)
    b = ModelBuilder("flexible_pendulum", 3, gravity=(0.0, 0.0, -9.81))
    nodes = add_geometrically_exact_beam(b, beam)
    b.add_marker("pivot", "ground")
    b.add_joint("pin", "spherical", "pivot", nodes[0])
    traj = simulate(compile_model(b.build()), 0.08, 1e-3, integrator="reference", output_step=0.01)
    info = traj.info
    energy = info["energy_kinetic"] + info["energy_potential"] + info["energy_dissipated"] - info["energy_input"]
    assert info["energy_kinetic"].max() > 0.2
    assert np.max(np.abs(energy - energy[0])) < 1e-8 * 4.9
    assert traj[f"{nodes[-1]}.r[3]"][-1] < -0.02                # it swings down
