"""Contacts that scale (kernels/contact.py with the broad phase, compiler/contacts.py signatures, the contact state
table in z, the colouring that follows the contacts).

References from elsewhere: the contact forces of a scene of many overlapping spheres against an all-pairs
evaluation written here from the analytic sphere-sphere and sphere-plane depths (f = k d along the centre line);
exclusions by construction (no force between joined or same-body shapes); a row of spheres conserves momentum
(internal forces only) and, with an elastic law, kinetic + elastic energy; a saved integrator state restores bit
for bit.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest

from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.integrators.alf import ALFIntegrator
from fmu_mbs.analyses.integrators.explicit import ExplicitIntegrator
from fmu_mbs.analyses.integrators.pattern import CONTACT_ENVELOPE_LIMIT
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ConvergenceError
from fmu_mbs.kernels import contact as kc
from fmu_mbs.model import ModelBuilder

K = 2e4          # N/m, linear law
R0 = 0.05        # m


def _spheres(centres, radii, gravity=(0.0, 0.0, -9.81), velocities=None, floor=True, law="linear", **contact):
    b = ModelBuilder("spheres", gravity=gravity)
    names = []
    for i, (c, r) in enumerate(zip(centres, radii)):
        v = (0.0, 0.0, 0.0) if velocities is None else tuple(velocities[i])
        b.add_rigid_body(f"b{i}", 1.0, [0.4 * r * r] * 3, position=tuple(c), velocity=v)
        b.add_marker(f"m{i}", f"b{i}")
        b.add_shape(f"s{i}", f"m{i}", "sphere", [r], young=1e7, poisson=0.3)
        names.append(f"s{i}")
    kw = dict(stiffness=K) if law == "linear" else {}
    b.add_contact("pile", names, names, law=law, **kw, **contact)
    if floor:
        b.add_marker("origin", "ground")
        b.add_shape("floor", "origin", "plane", [], young=1e7, poisson=0.3)
        b.add_contact("on_floor", names, ["floor"], law=law, **kw, **contact)
    return b


def _random_scene(n, seed=4):
    rng = np.random.default_rng(seed)
    side = 0.1 * n ** (1.0 / 3.0)
    centres = rng.uniform(0.0, side, (n, 3))
    centres[:, 2] += 0.02                      # some spheres dip into the floor z < 0
    radii = rng.uniform(0.03, 0.07, n)
    return centres, radii


def _brute_force(centres, radii):
    """Contact force on each sphere, the active pairs and the total normal force, all pairs, f = K d."""
    n = len(radii)
    F = np.zeros((n, 3))
    active, fn_pile, fn_ground = set(), 0.0, 0.0
    for i, j in itertools.combinations(range(n), 2):
        d = centres[i] - centres[j]
        dist = np.linalg.norm(d)
        depth = radii[i] + radii[j] - dist
        if depth > 0.0:
            F[i] += K * depth * d / dist
            F[j] -= K * depth * d / dist
            active.add((i, j))
            fn_pile += K * depth
    for i in range(n):
        depth = radii[i] - centres[i, 2]
        if depth > 0.0:
            F[i, 2] += K * depth
            fn_ground += K * depth
    return F, active, fn_pile, fn_ground


def test_forces_of_many_spheres_equal_an_all_pairs_evaluation():
    centres, radii = _random_scene(300)
    cm = compile_model(_spheres(centres, radii).build())
    ev = Evaluator(cm)
    Q = ev.forces(0.0, cm.q0, np.zeros(cm.n_q))
    F, active, fn_pile, fn_ground = _brute_force(centres, radii)
    got = Q.reshape(-1, 7)[:, :3] - np.array([0.0, 0.0, -9.81])
    assert len(active) > 100                       # a dense scene: many touching pairs
    assert np.max(np.abs(got - F)) < 1e-9 * K
    assert ev.cont_out[0, 0] == pytest.approx(fn_pile, rel=1e-12)
    assert ev.cont_out[1, 0] == pytest.approx(fn_ground, rel=1e-12)
    # the broad phase listed every touching pair (and a few near ones, within the margin), not all n^2/2
    cand = {(int(s), int(t)) for s, t in ev.cw[3][:int(ev.cw[8][kc.ST_ACTIVE])]}
    assert active <= cand
    assert len(cand) < 4 * len(active) + 300


def test_a_too_short_pair_buffer_grows_and_gives_the_same_forces():
    centres, radii = _random_scene(200, seed=7)
    cm = compile_model(_spheres(centres, radii).build())
    ev = Evaluator(cm)
    Q_ref = ev.forces(0.0, cm.q0, np.zeros(cm.n_q)).copy()
    ev.cw = kc.new_contact_workspace(cm.arrays, pair_capacity=3)
    Q = ev.forces(0.0, cm.q0, np.zeros(cm.n_q))
    assert ev.cw[3].shape[0] >= ev.cw[8][kc.ST_NEEDED] > 3
    assert np.array_equal(Q, Q_ref)


def _two_bodies(joined: bool, include_joined: bool):
    b = ModelBuilder("pair", gravity=(0.0, 0.0, 0.0))
    b.add_rigid_body("a", 1.0, [1e-3] * 3)
    b.add_rigid_body("c", 1.0, [1e-3] * 3, position=(0.15, 0.0, 0.0))
    b.add_marker("ma", "a")
    b.add_marker("ma2", "a", position=(0.05, 0.0, 0.0))
    b.add_marker("mc", "c")
    b.add_marker("joint", "a", position=(0.075, 0.0, 0.0))
    b.add_marker("joint_c", "c", position=(-0.075, 0.0, 0.0))
    if joined:
        b.add_joint("hinge", "spherical", "joint", "joint_c")
    b.add_shape("sa", "ma", "sphere", [0.1])
    b.add_shape("sa2", "ma2", "sphere", [0.1])      # overlaps sa on the same body: never collides
    b.add_shape("sc", "mc", "sphere", [0.1])
    b.add_contact("touch", ["sa", "sa2", "sc"], ["sa", "sa2", "sc"], law="linear", stiffness=K,
                  include_joined=include_joined)
    cm = compile_model(b.build())
    ev = Evaluator(cm)
    Q = ev.forces(0.0, cm.q0, np.zeros(cm.n_q))
    return Q.reshape(2, 7)[:, :3]


def test_joined_bodies_collide_only_if_asked_and_same_body_shapes_never():
    assert np.all(_two_bodies(joined=True, include_joined=False) == 0.0)
    # depths 0.2 - 0.15 = 0.05 (sa - sc) and 0.2 - 0.10 = 0.10 (sa2 - sc), along x; sa - sa2 (same body) none
    for joined, include in ((True, True), (False, False)):
        F = _two_bodies(joined, include)
        assert F[1] == pytest.approx([K * (0.05 + 0.10), 0.0, 0.0], abs=1e-9)
        assert F[0] == pytest.approx(-F[1], abs=1e-9)


def test_a_row_of_spheres_conserves_momentum_and_energy_on_the_dynamic_colouring_path():
    n = 25
    centres = [(-0.01 + 0.0, 0.0, 1.0)] + [(2 * R0 * i, 0.0, 1.0) for i in range(1, n)]
    vel = [(1.0, 0.0, 0.0)] + [(0.0, 0.0, 0.0)] * (n - 1)
    b = _spheres(centres, [R0] * n, gravity=(0.0, 0.0, 0.0), velocities=vel, floor=False)
    cm = compile_model(b.build())
    assert n * n > CONTACT_ENVELOPE_LIMIT
    integ = ALFIntegrator(cm, 2e-4, tol=1e-11)
    assert integ.use_fd and integ.pattern.dynamic_colors
    assert integ.pattern.size == 28 * n                 # envelope: the body blocks only (7 x 8 / 2 each)
    masses = cm.arrays.body_mass
    p0 = masses @ integ.qd.reshape(n, 7)[:, :3]
    rep = integ.advance(int(0.4 / 2e-4))
    p1 = masses @ integ.qd.reshape(n, 7)[:, :3]
    # exact up to the Newton tolerance: a residual of tol (m) leaves ~ m tol 2/h = 1e-7 kg m/s per step
    assert p1 == pytest.approx(p0, abs=1e-7)
    e = rep[:, 4] + rep[:, 5]                           # kinetic + elastic contact energy
    assert np.max(np.abs(e - 0.5)) < 0.01 * 0.5
    assert integ.qd.reshape(n, 7)[-1, 0] > 0.1          # the impulse travelled down the whole row
    assert rep[:, 0].mean() < 4.0                       # Newton converges with the block-diagonal contact tangent


def _stateful_pile():
    centres = [(0.0, 0.0, R0 * 0.98), (0.02, 0.0, 3 * R0), (-0.03, 0.01, 5 * R0), (0.1, 0.0, R0 * 0.99)]
    return _spheres(centres, [R0] * 4, law="hunt_crossley", restitution=0.6, friction="bristle", mu=0.4,
                    tangential_stiffness=1e4, tangential_damping=10.0)


def test_contact_states_save_and_restore_bit_for_bit_while_in_touch():
    cm = compile_model(_stateful_pile().build())
    cap = int(cm.arrays.cont_state[1])
    assert len(cm.arrays.z0) == kc.Z_RECORD * cap and cap == 64
    integ = ALFIntegrator(cm, 1e-4)
    integ.advance(1500)
    saved = integ.save()
    recs = integ.zs.reshape(cap, kc.Z_RECORD)
    assert np.count_nonzero(recs[:, 0]) >= 2             # points in touch hold records
    assert np.any(recs[:, kc.R_S:kc.R_S + 3] != 0.0)     # bristle displacement stored
    _, q1, *_ = integ.advance(300, record=True)
    z1 = integ.zs.copy()
    integ.restore(saved)
    _, q2, *_ = integ.advance(300, record=True)
    assert np.array_equal(q1, q2) and np.array_equal(z1, integ.zs)


def test_a_full_state_table_names_the_compile_option():
    cm = compile_model(_stateful_pile().build(), contact_state_capacity=1)
    with pytest.raises(ConvergenceError, match="contact_state_capacity"):
        ALFIntegrator(cm, 1e-4, max_halvings=0).advance(2000)


@pytest.mark.parametrize("integrator", [ALFIntegrator, ExplicitIntegrator], ids=["alf", "explicit"])
def test_a_state_table_that_fills_during_stepping_names_the_compile_option(integrator):
    """Spheres released above the floor: the table is empty at assembly and fills at the first touch, inside the
    step loop. The error names the option on this and on every later advance (the overflow flag was left set and
    the wrong workspace entry read, an IndexError, before)."""
    centres = [(0.0, 0.0, 2 * R0), (0.3, 0.0, 3 * R0), (-0.3, 0.01, 4 * R0)]
    cm = compile_model(_spheres(centres, [R0] * 3, law="hunt_crossley", restitution=0.6, friction="bristle",
                                mu=0.4, tangential_stiffness=1e4, tangential_damping=10.0).build(),
                       contact_state_capacity=1)
    integ = integrator(cm, 1e-4, max_halvings=0)        # nothing touches yet: no error at assembly
    for _ in range(2):
        with pytest.raises(ConvergenceError, match="contact_state_capacity"):
            integ.advance(3000)                         # R0 of free fall takes 1,010 steps
        assert integ.t < 0.3


def test_compiling_1000_spheres_is_linear_in_time_and_state_size():
    n = 1000
    centres = np.array([(i % 10, (i // 10) % 10, i // 100) for i in range(n)], dtype=float) * 0.11
    b = _spheres(centres, [R0] * n, law="hunt_crossley")
    model = b.build()
    t0 = time.perf_counter()
    cm = compile_model(model)
    elapsed = time.perf_counter() - t0
    assert elapsed < 5.0
    m = cm.arrays
    assert m.sig_contact.shape == (3, 3)               # no contact, the spheres, the floor
    assert len(m.z0) == kc.Z_RECORD * m.cont_state[1] and m.cont_state[1] <= 8 * 2048
    assert len(m.shape_excl_idx) == 0
    assert math.isfinite(elapsed)
