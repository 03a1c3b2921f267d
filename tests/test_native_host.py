"""A native (C, no Python) FMI 2.0 host runs the FMUs as a Modelica tool's or Simulink's FMU import would, from an
empty environment (``env -i``: the FMU's binary starts its own Python): every catalogue FMU runs, the crane gives the
same outputs as fmpy at every communication point, restores FMU states bit for bit, exits cleanly, and failures
(a missing Python included) are reported through the FMI logger. The host: integration/native_host/."""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fmu_harness import LoggedSlave

ROOT = Path(__file__).resolve().parents[1]
STOP, H = 0.5, 1e-3
KP, KD = 2.0e5, 2.0e4
RUNS = 5                 # clean exits in a row (the upstream exit abort showed in about 1 of 100 processes)

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to compile the native host")


def _load_runner():
    spec = importlib.util.spec_from_file_location("native_host_run", ROOT / "integration" / "native_host" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def host(tmp_path_factory, catalogue_fmu):
    """(runner module, host executable, extracted crane FMU, feed-forward force f0 in N)."""
    runner = _load_runner()
    out = tmp_path_factory.mktemp("native_host")
    crane = runner.extract(catalogue_fmu("crane"), out / "crane")
    return runner, runner.compile_host(out), crane, runner.holding_force()


def _run(host, *args, env=None, out=None, unzipped=None):
    """The host on the crane (or ``unzipped``) with an empty environment plus ``env`` (and the kernel-cache
    location, if this session has one set, so that the host finds the kernels the session compiled)."""
    _, exe, crane, _ = host
    unzipped = unzipped or crane
    cache = {k: os.environ[k] for k in ("FMU_MBS_CACHE_DIR", "XDG_CACHE_HOME") if k in os.environ}
    cmd = [str(exe), str(unzipped), "--out", str(out or unzipped.parent / "host.csv"), *args]
    return subprocess.run(cmd, env={**cache, **(env or {})}, capture_output=True, text=True, timeout=600)


def _reference(t: float) -> float:
    """integration/crane_pd_demo.py's boom-angle profile, rad."""
    def ramp(x):
        x = min(max(x, 0.0), 1.0)
        return x * x * x * (10 - 15 * x + 6 * x * x)
    return math.radians(30.0 + 10.0 * (ramp(t - 1.0) - ramp(t - 3.5)))


def _fmpy_run(unzipped: Path, f0: float) -> tuple[list[str], np.ndarray]:
    """The host's loop through fmpy: at each communication point every output, the PD law, setReal, doStep."""
    s = LoggedSlave(str(unzipped), "fmpy_reference")
    outputs = _output_names(unzipped)
    refs = [s.vr[n] for n in outputs]
    th, thd = outputs.index("boom_hinge.s"), outputs.index("boom_hinge.sd")
    s.fmu.setupExperiment(startTime=0.0, stopTime=STOP)
    s.fmu.enterInitializationMode()
    s.set("cylinder.f", f0)
    s.fmu.exitInitializationMode()
    rows, t = [], 0.0
    while True:
        y = s.fmu.getReal(refs)
        force = f0 + KP * (_reference(t) - y[th]) - KD * y[thd]
        rows.append([t, force, *y])
        if not t < STOP - 1e-12:
            break
        s.set("cylinder.f", force)
        s.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=H)
        t += H
    s.close()
    return ["time", "cylinder.f", *outputs], np.array(rows)


def _output_names(unzipped: Path) -> list[str]:
    from fmpy import read_model_description

    md = read_model_description(str(unzipped))
    return [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]


def _read_csv(path: Path) -> tuple[list[str], np.ndarray]:
    with path.open() as f:
        header = f.readline().strip().split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def test_native_host_matches_fmpy_and_exits_cleanly(host):
    """Same FMU, same calls in the same order: the C host's outputs equal fmpy's (rtol 1e-12; measured: identical
    bits) at all 501 communication points, and RUNS processes in a row exit with status 0."""
    _, _, unzipped, f0 = host
    names, ref = _fmpy_run(unzipped, f0)     # also warms the numba cache for the host processes
    for k in range(RUNS):
        csv = unzipped.parent / f"host_{k}.csv"
        proc = _run(host, "--stop", repr(STOP), "--step", repr(H), "--f0", repr(f0), out=csv)
        assert proc.returncode == 0, f"run {k}: exit status {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        assert "run completed; 500 steps" in proc.stdout
        header, got = _read_csv(csv)
        assert header == names
        assert got.shape == ref.shape == (501, len(names))
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0.0)
    # the PD law holds the boom near its 30 deg reference over 0.5 s
    assert abs(ref[-1, names.index("boom_hinge.s")] - math.radians(30.0)) < math.radians(0.1)


def test_several_simulations_in_one_host_process_give_the_same_result(host, tmp_path):
    """A tool that runs several simulations in one session (Simulink in MATLAB) loads, runs, frees and dlcloses
    the FMU again and again; pythonfmu's binary stays loaded (its interpreter is never finalized) and every run
    gives the same bits as a run in a fresh process."""
    args = ["--stop", "0.1", "--f0", repr(host[3])]
    single = _run(host, *args, out=tmp_path / "single.csv")
    assert single.returncode == 0, single.stderr
    repeated = _run(host, *args, "--repeat", "3", out=tmp_path / "repeated.csv")
    assert repeated.returncode == 0, repeated.stderr
    assert repeated.stdout.count("run completed; 100 steps") == 3
    assert repeated.stdout.count("after dlclose the FMU binary is still loaded") == 3
    assert (tmp_path / "single.csv").read_bytes() == (tmp_path / "repeated.csv").read_bytes()


def test_native_host_restores_fmu_state_bit_for_bit(host):
    proc = _run(host, "--stop", "0.1", "--f0", repr(host[3]), "--state-check", "20")
    assert proc.returncode == 0, proc.stderr
    assert "state check: 20 steps from t = 0.05 s replayed after fmi2SetFMUstate: identical outputs" in proc.stdout


def test_nan_input_is_discarded_with_the_reason_in_the_fmi_log(host):
    proc = _run(host, "--stop", "0.1", "--f0", repr(host[3]), "--nan-at", "0.05")
    assert proc.returncode == 2, proc.stderr               # 2: the FMU returned fmi2Discard or fmi2Error
    assert "fmi2DoStep(t = 0.05 s, h = 0.001 s) returned fmi2Discard" in proc.stderr
    log = [line for line in proc.stderr.splitlines() if line.startswith("[FMI log] crane_host fmi2Error")]
    assert any("input(s) cylinder.f not finite at t = 0.05 s" in line for line in log), proc.stderr
    assert "stopped early; 50 steps" in proc.stdout          # terminated and freed, then a normal exit


def test_bad_parameter_is_reported_and_the_host_exits_cleanly(host):
    proc = _run(host, "--stop", "0.1", "--const", "0", "--param", "payload.mass=-1")
    assert proc.returncode == 2, proc.stderr
    assert "body 'payload': 'mass' must be positive" in proc.stderr
    assert "initialization returned fmi2Error" in proc.stderr


def test_errors_are_logged_even_with_logging_off(host):
    """Logging off silences fmi2OK messages only: the reason of an error still reaches the FMI log."""
    proc = _run(host, "--stop", "0.1", "--const", "0", "--param", "payload.mass=-1", "--logging", "off")
    assert proc.returncode == 2
    assert "[FMI log] crane_host fmi2Error" in proc.stderr and "'mass' must be positive" in proc.stderr


def test_every_catalogue_fmu_runs_in_an_empty_environment(host, tmp_path, catalogue_fmu):
    """env -i, no input set, two 10 ms steps: every catalogue FMU instantiates, initializes, steps, exits 0. Two
    host processes at a time (each mostly starts Python and loads kernels; CI machines have two cores)."""
    from concurrent.futures import ThreadPoolExecutor

    models = sorted(p.stem for p in (ROOT / "models").glob("*.json"))
    folders = {m: host[0].extract(catalogue_fmu(m), tmp_path / m) for m in models}

    def run(model):
        return _run(host, "--input", "-", "--const", "0", "--stop", "0.02", "--step", "0.01",
                    unzipped=folders[model], out=tmp_path / f"{model}.csv")

    with ThreadPoolExecutor(max_workers=2) as pool:
        for model, proc in zip(models, pool.map(run, models)):
            assert proc.returncode == 0, f"{model}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            assert "run completed; 2 steps" in proc.stdout, f"{model}: {proc.stdout}"


def test_missing_python_is_reported_in_the_fmi_log(host, tmp_path):
    """A Python that cannot be found or lacks numba: fmi2Instantiate returns NULL and the log says what is missing."""
    proc = _run(host, "--const", "0", "--stop", "0.01", env={"FMU_MBS_PYTHON": str(tmp_path / "no_python")})
    assert proc.returncode == 1
    assert "fmi2Instantiate failed" in proc.stderr
    assert "cannot start Python" in proc.stderr and "no Python executable at" in proc.stderr
    # a virtual environment without numpy, scipy and numba
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    proc = _run(host, "--const", "0", "--stop", "0.01", env={"FMU_MBS_PYTHON": str(venv / "bin" / "python")})
    assert proc.returncode == 1
    assert "needs a Python with numpy, scipy and numba" in proc.stderr and "No module named" in proc.stderr


def test_python_named_in_a_file_next_to_the_fmu_and_a_venv(host, tmp_path, catalogue_fmu):
    """fmu-mbs-python.txt in the FMU's folder names the Python (here a venv); the venv's site folder is set up,
    .pth files included (a .pth line that prints proves it ran)."""
    unzipped = host[0].extract(catalogue_fmu("crane"), tmp_path / "crane")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    site_dir = next((venv / "lib").glob("python*/site-packages"))
    (site_dir / "fmu_mbs_probe.pth").write_text("import sys; sys.stderr.write('venv site folder processed\\n')\n")
    (unzipped / "fmu-mbs-python.txt").write_text(f"# the Python for this FMU\n{venv / 'bin' / 'python'}\n")
    proc = _run(host, "--const", repr(host[3]), "--stop", "0.01", unzipped=unzipped)
    assert proc.returncode == 0, proc.stderr
    assert "venv site folder processed" in proc.stderr
