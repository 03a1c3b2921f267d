"""Compiles are announced (fmu_mbs/kernels/compile_notice.py): a first run on an empty kernel cache says that it
compiles, where the result goes, and how far it got; a run that loads its kernels from the cache says nothing.

Each case runs in a fresh process on its own empty cache (FMU_MBS_CACHE_DIR), calling a small kernel (one callee)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CALL = textwrap.dedent("""
    import numpy as np
    from fmu_mbs.kernels import functions
    par = np.array([0.0, 1.0, 2.0, 0.0, 1.0, 4.0])     # curve through (0, 0), (1, 1), (2, 4)
    print(functions.eval_curve(par, 0, 3, 1.5))
""")


def _run(code: str, cache: Path, **env_extra) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "FMU_MBS_COMPILE_NOTICE")}
    env.update(FMU_MBS_CACHE_DIR=str(cache), **env_extra)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)


def test_a_first_run_says_it_compiles_and_a_cached_run_is_silent(tmp_path):
    cache = tmp_path / "cache"
    first = _run(CALL, cache, FMU_MBS_COMPILE_NOTICE_INTERVAL="0")
    assert first.returncode == 0, first.stderr
    lines = [ln for ln in first.stderr.splitlines() if ln.startswith("fmu-mbs: ")]
    assert lines[0].startswith("fmu-mbs: compiling kernels (first run only"), first.stderr
    assert str(cache) in lines[0]                              # where the compiled kernels go
    # interval 0: a progress line at every later compile (eval_curve and its callees), then the summary at exit
    progress = [ln for ln in lines if ln.startswith("fmu-mbs: still compiling kernels: ")]
    assert progress, first.stderr
    counts = [int(ln.split(": ")[2].split()[0]) for ln in progress]
    assert counts == sorted(counts) and counts[0] >= 2
    assert lines[-1].startswith(f"fmu-mbs: compiled {counts[-1]} kernels in "), first.stderr
    again = _run(CALL, cache)                                  # the same cache: loads, compiles nothing
    assert again.returncode == 0, again.stderr
    assert "fmu-mbs:" not in again.stderr
    assert again.stdout == first.stdout


def test_the_notice_can_be_silenced_or_sent_elsewhere(tmp_path):
    quiet = _run(CALL, tmp_path / "quiet", FMU_MBS_COMPILE_NOTICE="0")
    assert quiet.returncode == 0, quiet.stderr
    assert "fmu-mbs:" not in quiet.stderr
    code = textwrap.dedent("""
        from fmu_mbs.kernels import compile_notice
        class Log:
            def __init__(self):
                self.lines = []
            def add(self, message):
                self.lines.append(message)
        log = Log()
        compile_notice.set_reporter(log.add, first_line=False)
    """) + CALL + textwrap.dedent("""
        n, seconds = compile_notice.compiled()
        assert n >= 2 and seconds >= 0.0, (n, seconds)
        assert log.lines and all(m.startswith("still compiling kernels: ") for m in log.lines), log.lines
        print("reported", len(log.lines))
    """)
    routed = _run(code, tmp_path / "routed", FMU_MBS_COMPILE_NOTICE_INTERVAL="0")
    assert routed.returncode == 0, routed.stderr
    assert "reported" in routed.stdout
    assert "fmu-mbs:" not in routed.stderr                  # nothing on stderr, no exit summary


def test_the_cli_says_it_compiles_within_seconds(tmp_path):
    """A new user's first command on a fresh machine: the notice comes before the minutes of compiling (the run
    is stopped at the notice)."""
    env = dict(os.environ, FMU_MBS_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("FMU_MBS_COMPILE_NOTICE", None)
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "fmu_mbs", "check", str(ROOT / "models" / "pendulum.json")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        line = proc.stderr.readline()
        waited = time.monotonic() - t0
    finally:
        proc.kill()
        proc.communicate()
    assert line.startswith("fmu-mbs: compiling kernels (first run only"), line
    assert waited < 60.0, waited


def test_a_first_fmu_build_passes_the_compile_messages_on(tmp_path, monkeypatch, capsys):
    """The build's precompile run (adapters/kernel_precompile.py) runs the FMU in a child process, where fmpy prints
    the FMU's log on standard output: its compile lines reach the user as they come, named by the FMU; a child that
    fails or hangs is reported with its own output."""
    import pytest

    from fmu_mbs.adapters import kernel_precompile as kp
    child = textwrap.dedent("""
        import json, sys, time
        print("[WARNING] fmu-mbs: compiling kernels (first run only: minutes of CPU) (first: eval_curve)")
        print("[OK] something else")
        print("[WARNING] fmu-mbs: still compiling kernels: 7 compiled, 20 s")
        print('{"not": "the result"}')
        print(sys.argv[4] + json.dumps({"loaded": [], "misses": 7, "failed": []}))
        mode = sys.argv[2]
        if mode == "fail":
            print("the FMU went wrong", file=sys.stderr)
            sys.exit(3)
        if mode == "hang":
            time.sleep(60)
    """)
    monkeypatch.setattr(kp, "WORKLOAD", child)
    fmu = tmp_path / "model.fmu"
    assert kp._run_workload(fmu, "ok", str(tmp_path), 60.0) == {"loaded": [], "misses": 7, "failed": []}
    err = capsys.readouterr().err.splitlines()
    assert err == ["fmu-mbs: model.fmu: compiling kernels (first run only: minutes of CPU) (first: eval_curve)",
                   "fmu-mbs: model.fmu: still compiling kernels: 7 compiled, 20 s"]
    with pytest.raises(RuntimeError, match=r"(?s)failed \(exit 3\).*the FMU went wrong"):
        kp._run_workload(fmu, "fail", str(tmp_path), 60.0)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"killed after 2 s"):
        kp._run_workload(fmu, "hang", str(tmp_path), 2.0)
    assert time.monotonic() - t0 < 30.0


def test_the_description_child_passes_its_output_on_and_cannot_hang_a_build(tmp_path, monkeypatch, capsys):
    """pythonfmu's description step (adapters/fmu_build._describe) runs in a child process like the precompile:
    its compile lines are named by the FMU, its other output (warnings) passed on, and a child that hangs is killed
    after the timeout with its output in the error."""
    import pytest

    from fmu_mbs.adapters import fmu_build
    child = textwrap.dedent("""
        import json, sys, time
        from pathlib import Path
        args = json.loads(sys.argv[1])
        print("fmu-mbs: compiling kernels (first run only: minutes of CPU)", file=sys.stderr)
        print("UserWarning: something pythonfmu said")
        if Path(args["script"]).stem == "hang":
            time.sleep(60)
        Path(args["dest"]).write_bytes(b"PK")
    """)
    monkeypatch.setattr(fmu_build, "DESCRIBE", child)
    (tmp_path / "ok.py").write_text("")
    fmu_build._describe(tmp_path / "ok.py", tmp_path / "model.fmu", [], portable=False)
    assert (tmp_path / "model.fmu").read_bytes() == b"PK"
    err = capsys.readouterr().err.splitlines()
    assert err == ["fmu-mbs: model.fmu: compiling kernels (first run only: minutes of CPU)",
                   "UserWarning: something pythonfmu said"]
    (tmp_path / "hang.py").write_text("")
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"(?s)'other.fmu' failed \(killed after 2 s\).*something pythonfmu said"):
        fmu_build._describe(tmp_path / "hang.py", tmp_path / "other.fmu", [], portable=False, timeout=2.0)
    assert time.monotonic() - t0 < 30.0
