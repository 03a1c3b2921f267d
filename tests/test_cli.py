"""The fmu-mbs command line, CSV recordings, plots and the progress bar.

References: Grübler's count for the four-bar (3 bodies x 3 - 4 pins x 2 = 1 DOF); the seed 002 digest
§1.9 (static holding torque 39.7645299 N m at 60 deg, g = 9.81); the four-bar's closed-form position
analysis (loop closure, digest C8 corrected) with its velocity ratios (C9); the constant-speed inverse
dynamics from Lagrange's equation, T_in = 1/2 J'(theta2) w^2 + dV/dtheta2; and the pendulum ODE
theta'' = -(g/L) cos(theta) integrated by scipy at rtol 1e-12.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from fmu_mbs.adapters.cli import main
from fmu_mbs.adapters.plot import plot_channels, select_channels
from fmu_mbs.adapters.progress import ProgressBar
from fmu_mbs.adapters.recording import read_csv, write_csv, write_trajectory
from fmu_mbs.analyses.trajectory import Trajectory
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, load_model, save_model
from fmu_mbs.model.functions import Constant, Linear
from fmu_mbs.model.names import channel_names

MODELS = Path(__file__).resolve().parents[1] / "models"
FOURBAR = str(MODELS / "fourbar.json")
PENDULUM = str(MODELS / "pendulum.json")
T_HOLD = 39.7645299          # digest §1.9, g = 9.81, printed to 9 digits


def _driven_fourbar(tmp_path: Path, function) -> str:
    b = ModelBuilder.from_model(load_model(FOURBAR))
    b.add_driver("motor", "pin_O2", function)
    path = tmp_path / "fourbar_driven.json"
    save_model(b.build(), path)
    return str(path)


def _wrap(a):
    return np.angle(np.exp(1j * np.asarray(a)))


# --- check ---------------------------------------------------------------------------------------------

def test_check_reports_counts_and_dof(capsys):
    assert main(["check", FOURBAR]) == 0
    out = capsys.readouterr().out
    assert "3 bodies" in out and "4 joints" in out and "0 drivers" in out
    # Grübler: 3 planar bodies x 3 coordinates, 4 pins x 2 rows, 9 - 8 = 1 DOF
    assert "n_q = 9" in out and "constraint rows = 8" in out and "degrees of freedom = 1" in out
    assert "redundant rows = 0" in out


def test_check_reports_redundant_rows(tmp_path, capsys):
    b = ModelBuilder("twice_pinned", dimension=2)
    b.add_planar_body("bar", 1.0, 0.1, position=(0.5, 0.0))
    b.add_marker("O", "ground")
    b.add_marker("end", "bar", (-0.5, 0.0))
    b.add_joint("pin", "revolute", "O", "end")
    b.add_joint("pin_again", "revolute", "O", "end")            # the same two rows once more
    save_model(b.build(), tmp_path / "m.json")
    assert main(["check", str(tmp_path / "m.json")]) == 0
    out = capsys.readouterr().out
    assert "degrees of freedom = 1" in out and "redundant rows = 2" in out


def test_check_bad_model_exits_1_with_the_element_named(tmp_path, capsys):
    data = json.loads(Path(FOURBAR).read_text())
    data["joints"][0]["marker_j"] = "nowhere"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "pin_O2" in err and "nowhere" in err and "Traceback" not in err


def test_missing_file_and_impossible_assembly_exit_1(tmp_path, capsys):
    assert main(["check", str(tmp_path / "absent.json")]) == 1
    assert "does not exist" in capsys.readouterr().err
    b = ModelBuilder("stretched", dimension=2)                  # 1 m + 1 m rods cannot span 3 m
    b.add_point_mass("bob", 1.0, position=(1.0, 0.5))
    b.add_marker("A", "ground")
    b.add_marker("B", "ground", (3.0, 0.0))
    b.add_marker("P", "bob")
    b.add_joint("rod_a", "distance", "A", "P", length=1.0)
    b.add_joint("rod_b", "distance", "B", "P", length=1.0)
    save_model(b.build(), tmp_path / "s.json")
    assert main(["check", str(tmp_path / "s.json")]) == 1
    err = capsys.readouterr().err
    assert "cannot be satisfied" in err and "rod_" in err and "Traceback" not in err


# --- assemble and the CSV --------------------------------------------------------------------------------

def test_assemble_writes_the_holding_torque(tmp_path, monkeypatch, capsys):
    model = _driven_fourbar(tmp_path, Constant(math.pi / 3))
    monkeypatch.chdir(tmp_path)
    assert main(["assemble", model]) == 0
    rec = read_csv(tmp_path / "fourbar_assemble.csv")               # default name: <model>_<verb>.csv
    assert list(rec) == ["time"] + channel_names(load_model(model))
    assert len(rec["time"]) == 1
    # at rest and fully driven, the assembled multipliers are the static equilibrium
    assert rec["motor.f"][0] == pytest.approx(T_HOLD, abs=1e-6)
    assert main(["assemble", model, "--out", "other.csv"]) == 0
    assert (tmp_path / "other.csv").exists()
    capsys.readouterr()
    assert main(["assemble", model, "--out", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("time,") and len(lines) == 2


def test_unwritable_output_exits_1(tmp_path, capsys):
    assert main(["assemble", FOURBAR, "--out", str(tmp_path / "no_such_dir" / "x.csv")]) == 1
    err = capsys.readouterr().err
    assert "no_such_dir" in err and "Traceback" not in err


def test_csv_round_trip_is_bit_exact(tmp_path):
    t = np.array([0.0, 0.1, 1.0 / 3.0])
    values = np.array([[math.pi, -1e-300, 2.0**-1074], [1e300, -0.0, 1.0 / 7.0], [np.nan, np.inf, 123456789.123]])
    write_csv(tmp_path / "r.csv", t, ["a.r[1]", "b.s", "energy.total"], values)
    rec = read_csv(tmp_path / "r.csv")
    assert list(rec) == ["time", "a.r[1]", "b.s", "energy.total"]
    np.testing.assert_array_equal(rec["time"], t)
    np.testing.assert_array_equal(np.column_stack([rec["a.r[1]"], rec["b.s"], rec["energy.total"]]), values)


def test_write_trajectory_columns_follow_the_names(tmp_path):
    cm = compile_model(load_model(PENDULUM))
    n = 4
    q = np.column_stack([np.cos(np.linspace(0, 1, n)), np.sin(np.linspace(0, 1, n))])
    traj = Trajectory(np.linspace(0, 1, n), q, np.zeros_like(q), np.zeros_like(q), np.zeros((n, cm.n_rows)))
    write_trajectory(tmp_path / "p.csv", cm, traj)
    rec = read_csv(tmp_path / "p.csv")
    assert list(rec)[1:] == channel_names(cm.model)
    np.testing.assert_array_equal(rec["P1.r[1]"], q[:, 0])       # a point-mass marker is its position
    np.testing.assert_array_equal(rec["P1.r[2]"], q[:, 1])


# --- plots and the progress bar ---------------------------------------------------------------------------

def test_select_channels_exact_wildcard_and_unknown():
    names = ["P1.r[1]", "P1.r[2]", "P1.r[3]", "P1.v[1]", "rod.F[1]", "energy.total"]
    assert select_channels(["P1.r[*]", "energy.total"], names) == ["P1.r[1]", "P1.r[2]", "P1.r[3]", "energy.total"]
    assert select_channels(["P1.?[1]"], names) == ["P1.r[1]", "P1.v[1]"]
    with pytest.raises(ValueError, match=r"no channel matches 'P1\.r\[4\]'; did you mean"):
        select_channels(["P1.r[4]"], names)


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    t = np.linspace(0.0, 1.0, 50)
    plot_channels(tmp_path / "p.png", t, {"P1.r[1]": np.cos(t), "P1.r[2]": np.sin(t), "energy.total": t},
                  {"P1.r[1]": "m", "P1.r[2]": "m", "energy.total": "J"}, title="stand-in")
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)     # makes the import fail
    with pytest.raises(ImportError, match=r"pip install fmu-mbs\[plot\]"):
        plot_channels(tmp_path / "p.png", np.zeros(2), {"x.s": np.zeros(2)}, {"x.s": "m"})


def test_unknown_plot_channel_fails_before_the_run(capsys):
    assert main(["kinematics", FOURBAR, "--t-end", "1", "--step", "0.1", "--plot", "crank.r[9]"]) == 1
    assert "no channel matches 'crank.r[9]'" in capsys.readouterr().err


def test_progress_bar_draws_only_when_forced_or_on_a_terminal():
    quiet = io.StringIO()                          # not a terminal
    bar = ProgressBar("run", stream=quiet, delay=0.0, interval=0.0)
    bar(0.5)
    bar.close()
    assert quiet.getvalue() == ""
    loud = io.StringIO()
    with ProgressBar("run", stream=loud, force=True, delay=0.0, interval=0.0) as bar:
        bar(0.5)
        bar(1.0)
    text = loud.getvalue()
    assert " 50%" in text and "100%" in text and text.endswith("\n") and text.startswith("\rrun [")
    late = io.StringIO()                           # a run shorter than the delay stays silent
    with ProgressBar("run", stream=late, force=True, delay=1e9) as bar:
        bar(1.0)
    assert late.getvalue() == ""


def test_python_dash_m_runs_the_same_cli():
    run = subprocess.run([sys.executable, "-m", "fmu_mbs", "check", FOURBAR], capture_output=True, text=True)
    assert run.returncode == 0 and "degrees of freedom = 1" in run.stdout


# --- the analyses through the CLI (seed 002 four-bar) -------------------------------------------------------

R1, R2, R3, R4 = 2.5, 2.0, 4.0, 4.0          # ground, crank, coupler, follower (m), Table 5.1
MASS, INERTIA = (1.0, 2.25, 2.0), (0.3, 2.0, 1.35)


def fourbar_closed_form(th2):
    """theta3, theta4 from loop closure (open branch of §1.9) and k = th3'/th2', p = th4'/th2' (C9)."""
    th2 = np.asarray(th2, dtype=float)
    ax, ay = R2 * np.cos(th2), R2 * np.sin(th2)
    dx, dy = ax - R1, ay
    dn = np.hypot(dx, dy)
    th4 = np.arctan2(dy, dx) - np.arccos((R4**2 + dn**2 - R3**2) / (2.0 * R4 * dn))
    bx, by = R1 + R4 * np.cos(th4), R4 * np.sin(th4)
    th3 = np.arctan2(by - ay, bx - ax)
    k = -R2 * np.sin(th4 - th2) / (R3 * np.sin(th4 - th3))
    p = R2 * np.sin(th3 - th2) / (R4 * np.sin(th3 - th4))
    return th3, th4, k, p, (bx, by)


def holding_torque(th2, g=9.81):
    """dV/dtheta2 = g [m2 rg2 cos th2 + m3 (r2 cos th2 + rg3 k cos th3) + m4 rg4 p cos th4] (digest §1.9)."""
    th3, th4, k, p, _ = fourbar_closed_form(th2)
    m2, m3, m4 = MASS
    return g * (m2 * 1.0 * np.cos(th2) + m3 * (R2 * np.cos(th2) + 2.0 * k * np.cos(th3)) + m4 * 2.0 * p * np.cos(th4))


def generalized_inertia(th2):
    """J(theta2) with T = 1/2 J th2'^2: CM speeds per unit crank speed (CMs at the link midpoints)."""
    th3, th4, k, p, _ = fourbar_closed_form(th2)
    (m2, m3, m4), (i2, i3, i4) = MASS, INERTIA
    v3x, v3y = -R2 * np.sin(th2) - 2.0 * k * np.sin(th3), R2 * np.cos(th2) + 2.0 * k * np.cos(th3)
    return m2 * 1.0 + i2 + m3 * (v3x**2 + v3y**2) + i3 * k**2 + (m4 * 4.0 + i4) * p**2


def test_closed_form_helpers_reproduce_the_digest():
    th3, th4, k, p, _ = fourbar_closed_form(math.pi / 3)
    assert (th3, th4) == pytest.approx((0.423245598299, 1.00420315959), abs=1e-11)
    assert (k, p) == pytest.approx((0.0391574493535, 0.532271122075), abs=1e-12)
    assert holding_torque(math.pi / 3) == pytest.approx(T_HOLD, abs=1e-7)


def test_statics_cli_gives_the_holding_torque(tmp_path):
    model = _driven_fourbar(tmp_path, Constant(math.pi / 3))
    assert main(["statics", model, "--out", str(tmp_path / "s.csv")]) == 0
    rec = read_csv(tmp_path / "s.csv")
    assert rec["motor.f"][0] == pytest.approx(T_HOLD, abs=1e-6)    # 9 printed digits


def test_kinematics_cli_follows_the_closed_form_over_turns(tmp_path, monkeypatch, capsys):
    w = 2.0                                                          # 4 s = 8 rad, more than one turn
    model = _driven_fourbar(tmp_path, Linear(math.pi / 3, w))
    monkeypatch.chdir(tmp_path)
    args = ["kinematics", model, "--t-end", "4", "--step", "0.02", "--plot", "pin_O4.s", "B_coupler.r[*]"]
    assert main(args) == 0
    rec = read_csv(tmp_path / "fourbar_kinematics.csv")
    assert (tmp_path / "fourbar_kinematics.png").exists()
    t = rec["time"]
    th2 = math.pi / 3 + w * t
    _, th4, _, p, (bx, by) = fourbar_closed_form(th2)
    # Newton tolerance 1e-10 on positions; 1e-8 leaves margin for the velocity solve
    np.testing.assert_allclose(rec["pin_O2.s"], th2, atol=1e-8)       # continuous, no 2 pi jumps
    np.testing.assert_allclose(rec["pin_O2.sd"], w, atol=1e-8)
    np.testing.assert_allclose(_wrap(rec["pin_O4.s"] - th4), 0.0, atol=1e-8)
    np.testing.assert_allclose(rec["B_coupler.r[1]"], bx, atol=1e-8)
    np.testing.assert_allclose(rec["B_coupler.r[2]"], by, atol=1e-8)
    np.testing.assert_allclose(rec["B_coupler.v[1]"], -R4 * p * w * np.sin(th4), atol=1e-8)
    assert "kinematics: 201 rows" in capsys.readouterr().out


def test_inverse_cli_matches_lagrange_at_constant_crank_speed(tmp_path):
    w = 3.0
    model = _driven_fourbar(tmp_path, Linear(math.pi / 3, w))
    assert main(["inverse", model, "--t-end", "2.5", "--step", "0.05", "--out", str(tmp_path / "i.csv")]) == 0
    rec = read_csv(tmp_path / "i.csv")
    th2 = math.pi / 3 + w * rec["time"]
    h = 1e-5                      # central difference of the closed-form J: error ~1e-9 N m
    dJ = (generalized_inertia(th2 + h) - generalized_inertia(th2 - h)) / (2 * h)
    expected = 0.5 * dJ * w**2 + holding_torque(th2)
    # |T| up to ~200 N m; 1e-6 N m covers the finite difference and the solver tolerances
    np.testing.assert_allclose(rec["motor.f"], expected, atol=1e-6)


def test_simulate_cli_pendulum_against_the_ode(tmp_path):
    assert main(["simulate", PENDULUM, "--t-end", "1", "--step", "0.001", "--out", str(tmp_path / "p.csv")]) == 0
    rec = read_csv(tmp_path / "p.csv")
    sol = solve_ivp(lambda t, y: [y[1], -9.81 * math.cos(y[0])], (0.0, 1.0), [0.0, 0.0], method="DOP853",
                    rtol=1e-12, atol=1e-12, dense_output=True)
    theta = sol.sol(rec["time"])[0]
    # plumbing check at the IFToMM pendulum criterion (1e-3 m); accuracy is tested in test_integrators
    np.testing.assert_allclose(rec["P1.r[1]"], np.cos(theta), atol=1e-3)
    np.testing.assert_allclose(rec["P1.r[2]"], np.sin(theta), atol=1e-3)
