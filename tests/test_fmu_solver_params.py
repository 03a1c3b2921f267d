"""The FMU's Newton shortcuts (adapters/fmu_solver.py): ``solver.accept_first`` and ``solver.tangent_every`` reach
the ALF / generalized-alpha integrator of the FMU, whose run then equals the library's ``simulate`` with the same
options (energy sums to round-off, as tests/test_fmu_fast.py checks for the defaults), with fewer Newton iterations
than the FMU's default settings; a negative ``solver.tangent_every`` is refused with its name in the reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fmu_mbs.adapters.fmu_slave import MbsSlave
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model

from fmu_harness import sprung_pendulum_folder

ENERGY = ["energy.dissipated", "energy.input"]


def _model_folder(folder: Path) -> Path:
    """The pendulum with a stiff spring-damper to an anchor (a force element with a stiffness: the force tangent is
    used and refreshed on the schedule of solver.tangent_every) and a constant force."""
    return sprung_pendulum_folder(folder, "sprung_pendulum", 200.0)


def _slave(folder: Path, **params) -> MbsSlave:
    s = MbsSlave(instance_name="sprung", resources=str(folder))
    vr = {v.name: k for k, v in s.vars.items()}
    for name, value in params.items():
        if isinstance(value, bool):
            s.set_boolean([vr[name]], [value])
        elif isinstance(value, int):
            s.set_integer([vr[name]], [value])
        else:
            s.set_real([vr[name]], [value])
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    s.exit_initialization_mode()
    return s


def _run(s: MbsSlave) -> tuple[np.ndarray, float]:
    col = [next(k for k, c in enumerate(s._outputs) if c.name == n) for n in ENERGY]
    got, t = [], 0.0
    for _ in range(50):
        assert s.do_step(t, 0.01), s._init_error
        t += 0.01
        got.append(s.y[col].copy())
    return np.array(got), t


def test_fmu_newton_shortcuts_equal_the_library_run(tmp_path):
    folder = _model_folder(tmp_path / "m")
    params = {"solver.integrator": 1, "solver.rho_inf": 0.9, "solver.tolerance": 1e-7, "solver.accept_first": True,
              "solver.tangent_every": 3}
    s = _slave(folder, **params)
    assert s.integ.opt.accept_first > 0.0 and s.integ.opt.fd_every == 3.0
    got, t_end = _run(s)
    lib = simulate(compile_model(load_model(folder / "model.json")), t_end, 1e-3, output_step=0.01,
                   integrator="galpha", rho_inf=0.9, tol=1e-7, accept_first=True, tangent_every=3)
    ref = np.column_stack([lib.info["energy_dissipated"], lib.info["energy_input"]])[1:]
    assert np.max(np.abs(got - ref)) < 1e-9 * np.max(np.abs(ref))
    assert got[-1, 0] > 0.1                        # the damper took energy: the sums are not trivially equal
    # the shortcut does less work than the FMU's defaults on the same scheme (Newton iterations per step)
    plain = simulate(compile_model(load_model(folder / "model.json")), t_end, 1e-3, output_step=0.01,
                     integrator="galpha", rho_inf=0.9, tol=1e-7)
    assert np.sum(lib.info["iterations"]) < np.sum(plain.info["iterations"])   # (2.0 per step without)


def test_negative_tangent_every_is_refused_with_its_name(tmp_path):
    s = _slave(_model_folder(tmp_path / "m"), **{"solver.tangent_every": -1})
    assert s.integ is None and "solver.tangent_every must be >= 0" in s._init_error
    assert not s.do_step(0.0, 0.01)
