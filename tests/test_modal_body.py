"""The floating modal body in the full solver (model -> compiler -> kernels -> analyses): a free-floating body
conserves momentum, angular momentum and energy; a clamped modal cantilever's natural frequencies (linearised
about its equilibrium, analyses/modes.py) are the Euler-Bernoulli roots; its static tip deflection is P L^3 / (3 EI).

Beam: steel (E = 210 GPa, rho = 7850 kg/m^3), L = 1 m, 20 Euler-Bernoulli elements, A = 4e-4 m^2,
Iz = 1.3e-8 m^4 (bending in x-y), Iy = 2.1e-8 m^4 (x-z). Cubic Hermite elements give the tip deflection of a tip
load exactly, and with a Craig-Bampton interface at the tip its constraint modes hold that static shape, so the
statics must match the closed form to the solver's tolerance; the frequencies carry the FE discretisation error
(20 elements: below 2e-4 for the first five, docs/flexible-bodies.md §5)."""

from __future__ import annotations

import numpy as np
import pytest

from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.modes import mechanism_modes
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.analyses.statics import statics
from fmu_mbs.compiler import compile_model
from fmu_mbs.errors import ModelError
from fmu_mbs.fe.ffrf import euler_parameter_matrices
from fmu_mbs.model import ModelBuilder
from fmu_mbs.model.modal_data import modal_data

E, RHO, AREA, IZ, IY, L, N_EL = 2.1e11, 7850.0, 4e-4, 1.3e-8, 2.1e-8, 1.0, 20
SECTION = dict(E=E, G=8.0e10, rho=RHO, area=AREA, Iy=IY, Iz=IZ, J=3.0e-8)
NODES = [(L * i / N_EL, 0.0, 0.0) for i in range(N_EL + 1)]
ROOTS = np.array([1.875104, 4.694091, 7.854757, 10.995541, 14.137168])


def _cantilever(n_modes: int, load=(0.0, 0.0, 0.0), interfaces=((0,), (N_EL,))):
    b = ModelBuilder("modal_cantilever", 3, gravity=(0.0, 0.0, 0.0))
    b.add_modal_body("beam", nodes=NODES, n_modes=n_modes, interfaces=interfaces, **SECTION)
    b.add_marker("root", "beam", position=(0.0, 0.0, 0.0))
    b.add_marker("tip", "beam", position=(L, 0.0, 0.0))
    b.add_marker("wall", "ground")
    b.add_joint("clamp", "fixed", "wall", "root")
    b.add_point_load("P", "tip", force=load)
    return b.build()


def test_clamped_modal_cantilever_frequencies_are_the_euler_bernoulli_roots():
    cm = compile_model(_cantilever(n_modes=14, interfaces=((0,),)))    # the cantilever's own (normal) modes
    modes = mechanism_modes(cm)
    omega = 2.0 * np.pi * modes.frequencies
    assert np.all(modes.omega2 > 0.0) and len(omega) == 14
    # a mode shape moves only the modal coordinates (the frame is clamped) and is M-normalised
    assert np.allclose(modes.shapes[:7], 0.0, atol=1e-9)
    assert modes.shapes[:, 0] @ Evaluator(cm).mass(modes.q) @ modes.shapes[:, 0] == pytest.approx(1.0, rel=1e-9)
    for EI in (E * IZ, E * IY):                       # both bending planes
        exact = ROOTS ** 2 * np.sqrt(EI / (RHO * AREA * L ** 4))
        err = [np.min(np.abs(omega - w)) / w for w in exact]
        assert max(err) < 3e-4, (exact, err)


@pytest.mark.parametrize("axis, EI", [(1, E * IZ), (2, E * IY)])
def test_static_tip_load_deflection_is_PL3_over_3EI(axis, EI):
    P = 40.0
    load = [0.0, 0.0, 0.0]
    load[axis] = P
    cm = compile_model(_cantilever(n_modes=4, load=tuple(load)))
    eq = statics(cm, tol=1e-12)
    delta = eq[f"tip.r[{axis + 1}]"][-1]
    assert delta == pytest.approx(P * L ** 3 / (3.0 * EI), rel=1e-7)


def _free_body():
    b = ModelBuilder("modal_free", 3, gravity=(0.0, 0.0, 0.0))
    section = dict(SECTION, E=7.0e8)                  # soft, so that elastic and rigid motion exchange energy
    b.add_modal_body("rod", nodes=NODES[::4], n_modes=2, interfaces=[[0], [5]], stiffening=False,
                     position=(0.1, -0.2, 0.3), orientation=(0.8, 0.0, 0.6, 0.0), velocity=(0.3, -0.2, 0.1),
                     angular_velocity=(1.5, 4.0, -2.0), **section)
    b.add_marker("end", "rod", position=(L, 0.0, 0.0))
    m = b.build()
    n = modal_data(m.bodies[0]).inv.n_modes
    rng = np.random.default_rng(2)
    b.bodies[0] = type(m.bodies[0])(**{**m.bodies[0].__dict__, "modal_velocities": tuple(0.02 * rng.normal(size=n)),
                                       "modal_coordinates": tuple(1e-4 * rng.normal(size=n))})
    return b.build()


def _conserved(inv, q, qd):
    """World linear momentum, angular momentum about the world origin and energy (kinetic + elastic)."""
    A, Gb = euler_parameter_matrices(q[3:7] / np.linalg.norm(q[3:7]))
    s = np.concatenate([A.T @ qd[:3], 2.0 * Gb @ qd[3:7], qd[7:]])
    p = inv.mass_matrix(q[7:]) @ s
    lin = A @ p[:3]
    return lin, A @ p[3:6] + np.cross(q[:3], lin), 0.5 * s @ p + 0.5 * q[7:] @ inv.K_ff @ q[7:]


def test_free_floating_modal_body_conserves_momentum_angular_momentum_and_energy():
    model = _free_body()
    inv = modal_data(model.bodies[0]).inv
    traj = simulate(model, t_end=0.2, step=0.01, integrator="reference", rtol=1e-11, atol=1e-12)
    lin0, ang0, e0 = _conserved(inv, traj.q[0], traj.qd[0])
    el = 0.5 * traj.q[:, 7:] @ inv.K_ff * traj.q[:, 7:]
    assert np.ptp(el.sum(axis=1)) > 1e-5 * e0            # elastic energy changes: 1000x the tolerance below
    for q, qd in zip(traj.q[1:], traj.qd[1:], strict=True):
        lin, ang, e = _conserved(inv, q, qd)
        assert np.allclose(lin, lin0, rtol=0, atol=1e-8 * np.linalg.norm(lin0))
        assert np.allclose(ang, ang0, rtol=0, atol=1e-8 * np.linalg.norm(ang0))
        assert e == pytest.approx(e0, rel=1e-8)


def test_modal_body_errors_name_the_body():
    b = ModelBuilder("bad", 3)
    b.add_modal_body("rod", nodes=NODES[:3], n_modes=2, interfaces=[[0], [7]], E=-1.0)
    b.add_marker("x", "rod", position=(0.3, 0.0, 0.0))
    with pytest.raises(ModelError) as err:
        b.build()
    text = str(err.value)
    assert "body 'rod': the beam section needs positive E" in text
    assert "body 'rod': interface [7] must list node rows 0..2" in text
    assert "marker 'x': on modal body 'rod' a marker must sit at an FE node" in text
    b = ModelBuilder("bad2", 3)
    b.add_modal_body("rod", nodes=NODES[:3], n_modes=2, modal_coordinates=(1.0,), **SECTION)
    with pytest.raises(ModelError, match="body 'rod': 'modal_coordinates' must be empty or 2 numbers"):
        compile_model(b.build())
