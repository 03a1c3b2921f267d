"""More first-hour traps of issue 18, one test each: planar models emit planar columns (no z, quaternion or 3D
angular velocity); an output step that is a multiple of the step gives the rows of recording every step; the
integrator's energy.dissipated and energy.input are channels; `check` warns about contact pairs that never fire.

References: a free body spinning at w in zero gravity turns by w t (its frame angle phi passes +-pi without a
jump); a damped oscillator's kinetic + potential + dissipated energy stays at its initial value (energy balance);
the work of a constant force F on a body it moves by dx is F dx."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fmu_mbs import load_model
from fmu_mbs.adapters.cli import main
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, save_model
from fmu_mbs.model.names import channel_names

MODELS = Path(__file__).resolve().parents[1] / "models"


def test_planar_models_have_no_z_quaternion_or_spatial_angular_velocity_columns():
    names = channel_names(load_model(MODELS / "pendulum.json"))
    assert [n for n in names if n.startswith("P1.")] == ["P1.r[1]", "P1.r[2]", "P1.v[1]", "P1.v[2]", "P1.a[1]",
                                                         "P1.a[2]", "P1.phi", "P1.w"]
    spatial = channel_names(load_model(MODELS / "slider_crank.json"))
    assert any(n.endswith(".q[4]") for n in spatial) and any(n.endswith(".r[3]") for n in spatial)


def test_planar_frame_angle_is_continuous_over_turns_and_w_is_its_rate():
    w = 7.0
    b = ModelBuilder("spin", dimension=2, gravity=(0.0, 0.0))
    b.add_planar_body("disc", 1.0, 0.1, velocity=(0.3, 0.0), angular_velocity=w)
    b.add_marker("rim", "disc", position=(0.2, 0.0), angle=0.5)
    traj = simulate(compile_model(b.build()), 2.0, 1e-3, output_step=1e-2)
    assert traj["rim.phi"] == pytest.approx(0.5 + w * traj.t, abs=1e-9)      # 14 rad: over two turns, no jumps
    assert traj["rim.w"] == pytest.approx(np.full(len(traj.t), w), abs=1e-9)
    assert traj["rim.r[1]"] == pytest.approx(0.3 * traj.t + 0.2 * np.cos(w * traj.t), abs=1e-9)


def test_energy_dissipated_and_input_are_channels_that_close_the_balance():
    k, c, m, F = 400.0, 3.0, 2.0, 5.0
    b = ModelBuilder("osc", dimension=2, gravity=(0.0, 0.0))
    b.add_point_mass("mass", m, position=(0.1, 0.0))
    b.add_marker("M", "mass")
    b.add_marker("O", "ground")
    b.add_spring_damper("spring", "O", "M", stiffness=k, damping=c)
    b.add_point_load("push", "M", force=(F, 0.0))
    traj = simulate(compile_model(b.build()), 1.0, 1e-4, output_step=1e-2)
    kin, pot = traj["energy.kinetic"], traj["energy.potential"]
    diss, inp = traj["energy.dissipated"], traj["energy.input"]
    assert diss[0] == 0.0 and inp[0] == 0.0
    assert inp == pytest.approx(F * (traj["M.r[1]"] - 0.1), abs=1e-9)        # work of the constant force
    assert np.all(np.diff(diss) >= -1e-12) and diss[-1] > 0.1 * kin.max()    # the damper takes energy out
    assert kin + pot + diss - inp == pytest.approx(np.full(len(kin), kin[0] + pot[0]), abs=1e-6)


def test_check_prints_a_warning_for_a_contact_pair_that_never_fires(tmp_path, capsys):
    b = ModelBuilder("same_body", dimension=2)
    b.add_planar_body("p", 1.0, 0.01)
    b.add_marker("m1", "p")
    b.add_marker("m2", "p", position=(0.5, 0.0))
    b.add_marker("g", "ground", position=(0.0, -1.0))
    b.add_shape("a", "m1", "circle", [0.1])
    b.add_shape("b", "m2", "circle", [0.1])
    b.add_shape("floor", "g", "line", [])
    b.add_contact("both", "a", ["b", "floor"], law="linear", stiffness=1e4)
    path = tmp_path / "same_body.json"
    save_model(b.build(), path)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert ("warning: contact 'both': shapes 'a' and 'b' are both on body 'p': shapes on one body never collide"
            in out)
