"""Misuse of the FMU's C API, each case in its own process (tests/fmi_misuse.py calls the binary through ctypes, as
a C host would): no case crashes the host or aborts at exit, and every refusal says why in the FMI log."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(__file__).resolve().parent / "fmi_misuse.py"

# case -> (model, [(call, status)] expected in order among the calls printed, log fragments)
CASES = {
    "normal_run": ("pendulum", [("fmi2ExitInitializationMode", "fmi2OK"), ("fmi2DoStep", "fmi2OK"),
                                ("fmi2Terminate", "fmi2OK")], []),
    "uri_not_resolving": ("pendulum", [("fmi2Instantiate", "NULL")], ["names no folder", "no_such_folder"]),
    "uri_malformed": ("pendulum", [("fmi2Instantiate", "NULL")], ["not a usable file URI",
                                                                  "not followed by two hexadecimal digits"]),
    "uri_not_file": ("pendulum", [("fmi2Instantiate", "NULL")], ["not a file: URI"]),
    "wrong_guid": ("pendulum", [("fmi2Instantiate", "NULL")], ["does not match this FMU's"]),
    "model_exchange": ("pendulum", [("fmi2Instantiate", "NULL")], ["supports Co-Simulation only",
                                                                   "Model Exchange"]),
    "empty_instance_name": ("pendulum", [("fmi2Instantiate", "NULL")], ["instance name must be a non-empty"]),
    "no_callbacks": ("pendulum", [("fmi2Instantiate", "instance")], []),
    "unknown_value_reference": ("pendulum", [("fmi2GetReal", "fmi2Error"), ("fmi2DoStep", "fmi2OK")],
                                ["valueReference 1000000 does not exist"]),
    "wrong_type": ("pendulum", [("fmi2GetInteger", "fmi2Error"), ("fmi2SetReal", "fmi2Error")],
                   ["variable 'g[1]'", "is Real, not Integer", "'solver.integrator'",
                    "is an Enumeration (Integer), not Real"]),
    "set_output": ("pendulum", [("fmi2SetReal", "fmi2Error")], ["is output; it cannot be set"]),
    "fixed_parameter_after_init": ("pendulum", [("fmi2SetReal", "fmi2Error"), ("fmi2GetReal", "fmi2OK")],
                                   ["'solver.h'", "fixed parameter: it can be set only before"]),
    "enumeration_out_of_range": ("pendulum", [("fmi2SetInteger", "fmi2Error")],
                                 ["must be one of [0, 1, 2, 3, 4], got 7"]),
    "step_before_initialization": ("pendulum", [("fmi2DoStep", "fmi2Error")], ["fmi2DoStep: not allowed in "
                                                                              "Instantiated"]),
    "calls_in_wrong_order": ("pendulum", [("fmi2ExitInitializationMode", "fmi2Error"), ("fmi2GetReal", "fmi2Error"),
                                          ("fmi2Terminate", "fmi2Error")],
                             ["fmi2ExitInitializationMode: not allowed in Instantiated"]),
    "null_arrays": ("pendulum", [("fmi2GetReal", "fmi2Error"), ("fmi2SetReal", "fmi2Error")],
                    ["the valueReference array is NULL", "the value array is NULL"]),
    "null_and_freed_instance": ("pendulum", [("fmi2DoStep", "fmi2Error"), ("fmi2DoStep", "fmi2Error"),
                                             ("fmi2GetReal", "fmi2Error")], []),
    "bad_states": ("pendulum", [("fmi2GetFMUstate", "fmi2OK"), ("fmi2SetFMUstate", "fmi2Error"),
                                ("fmi2FreeFMUstate", "fmi2OK"), ("fmi2SetFMUstate", "fmi2Error"),
                                ("fmi2FreeFMUstate", "fmi2Error"), ("fmi2DeSerializeFMUstate", "fmi2Error"),
                                ("fmi2DeSerializeFMUstate", "fmi2Error")],
                   ["is not a state of this instance", "not an fmu-mbs FMU state", "the byte array is NULL"]),
    "bad_parameter": ("crane", [("fmi2ExitInitializationMode", "fmi2Error"), ("fmi2DoStep", "fmi2Error"),
                                ("fmi2Terminate", "fmi2OK")],
                      ["body 'payload': 'mass' must be positive", "fmi2DoStep: not allowed in the error mode"]),
    "not_provided": ("pendulum", [("fmi2CancelStep", "fmi2Error"), ("fmi2GetDirectionalDerivative", "fmi2Error"),
                                  ("fmi2GetRealStatus", "fmi2OK")],
                     ["fmi2CancelStep", "is not provided by this FMU"]),
}


@pytest.fixture(scope="module")
def unzipped(tmp_path_factory, catalogue_fmu):
    out = tmp_path_factory.mktemp("misuse")
    dirs = {}
    for model in ("pendulum", "crane"):
        dirs[model] = out / model
        zipfile.ZipFile(catalogue_fmu(model)).extractall(dirs[model])
    return dirs


def run_case(case: str, folder: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), case, str(folder)], capture_output=True, text=True,
                          timeout=600, env=env)


def check(case: str, proc: subprocess.CompletedProcess) -> None:
    _, expected, fragments = CASES[case]
    assert proc.returncode == 0, f"{case}: exit status {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "end of case" in proc.stdout, proc.stdout
    calls = [line[5:].split(" -> ") for line in proc.stdout.splitlines() if line.startswith("call ") and " -> " in line]
    got = iter(calls)
    for name, status in expected:    # in order, other calls may come in between
        assert any(c == [name, status] for c in got), f"{case}: no '{name} -> {status}' in order in\n{proc.stdout}"
    log = "\n".join(line for line in proc.stdout.splitlines() if not line.startswith(("call ", "values ")))
    for fragment in fragments:
        assert fragment in log, f"{case}: '{fragment}' not in the FMI log:\n{log}"
    # every refused call has its reason in the log (or, without an instance to log to, on stderr)
    refused = sum(1 for c in calls if c[1] in ("fmi2Error", "NULL") and case != "no_callbacks")
    reasons = log.count("log fmi2Error") + proc.stderr.count("[fmu-mbs]")
    assert reasons >= refused, f"{case}: {refused} refusals, {reasons} reasons\n{proc.stdout}\n{proc.stderr}"


def test_misuse_cases_each_in_its_own_process(unzipped):
    run_case("normal_run", unzipped["pendulum"])      # compile or load the kernels once, before the parallel runs
    with ThreadPoolExecutor(max_workers=2) as pool:
        procs = dict(zip(CASES, pool.map(lambda c: run_case(c, unzipped[CASES[c][0]]), CASES), strict=True))
    for case, proc in procs.items():
        check(case, proc)


def test_fixed_parameter_keeps_its_value_and_initial_unknowns_are_computed(unzipped):
    proc = run_case("fixed_parameter_after_init", unzipped["pendulum"])
    check("fixed_parameter_after_init", proc)
    assert "values [0.001]" in proc.stdout                       # solver.h still the default, 1 ms
    proc = run_case("initial_unknowns", unzipped["crane"])
    assert proc.returncode == 0, proc.stderr
    values = [eval(line[7:]) for line in proc.stdout.splitlines() if line.startswith("values ")]   # noqa: S307
    # crane: cylinder from (sqrt(3)/2, 0) to the boom's centre of mass at 0.5 m, boom at 30 deg: length 0.5 m
    assert values[0][0] == pytest.approx(0.5, abs=1e-9) and values[0][1] == pytest.approx(math.pi / 6, abs=1e-9)
    mount = [0.5 * math.cos(0.4), 0.5 * math.sin(0.4)]
    assert values[1][0] == pytest.approx(math.dist(mount, [math.sqrt(3) / 2, 0.0]), abs=1e-9)
    assert values[1][1] == pytest.approx(0.4, abs=1e-9)


def test_resource_folder_with_reserved_and_non_ascii_characters(unzipped, tmp_path):
    """fmuResourceLocation as RFC 3986 writes it (%25, %23, %2B, %20 and UTF-8 bytes): the FMU finds its folder."""
    odd = tmp_path / "a b%c#d+e ü"
    shutil.copytree(unzipped["pendulum"], odd)
    proc = run_case("normal_run", odd)
    check("normal_run", proc)
    assert "%25" in (odd / "resources").as_uri() and "%23" in (odd / "resources").as_uri()


def test_exit_is_clean_over_repeated_processes(unzipped):
    """Processes that ran the FMU and exit normally (no os._exit): status 0 every time, no abort message."""
    runs = int(os.environ.get("FMU_MBS_EXIT_RUNS", "6"))
    for _ in range(runs):
        proc = run_case("normal_run", unzipped["pendulum"])
        assert proc.returncode == 0 and "corrupted" not in proc.stderr, proc.stderr
