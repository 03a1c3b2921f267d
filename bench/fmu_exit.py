"""Clean exits: many fresh processes that run an FMU and exit normally (no ``os._exit``, no ``_exit``).

Three kinds of process, each ``--runs`` times (``--kinds`` to choose):

- ``fmpy``: a Python process runs the FMU with fmpy's ``simulate_fmu`` (0.05 s, 10 ms steps) and returns from main;
- ``native``: the C host (integration/native_host/fmu_host.c) runs it under ``env -i`` and returns from main;
- ``misuse``: the cases of tests/fmi_misuse.py in turn (wrong URIs, GUID, types, states, freed instances, ...),
  each in its own Python process.

A process counts as clean when it exits with status 0 and its stderr has no glibc abort message ("corrupted",
"double free", "free(): ", "malloc"). Prints the counts per kind; exit status 1 if any process was not clean.

    OPENBLAS_NUM_THREADS=1 python bench/fmu_exit.py --runs 200 --model pendulum
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ABORT_SIGNS = ("corrupted", "double free", "free(): ", "malloc(): ", "Fatal Python error")
FMPY_RUN = ("import sys; from fmpy import simulate_fmu; "
            "simulate_fmu(sys.argv[1], stop_time=0.05, step_size=0.01, output_interval=0.01)")


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="processes per kind")
    parser.add_argument("--model", default="pendulum", help="catalogue model")
    parser.add_argument("--kinds", nargs="+", default=["fmpy", "native", "misuse"])
    args = parser.parse_args(argv)
    from fmu_mbs.adapters.fmu_build import build_fmu

    runner = _load(ROOT / "integration" / "native_host" / "run.py", "native_host_run")
    misuse = _load(ROOT / "tests" / "fmi_misuse.py", "fmi_misuse")
    cases = [c for c in misuse.CASES if c not in ("bad_parameter", "initial_unknowns")]   # crane-only cases
    with tempfile.TemporaryDirectory(prefix="fmu_exit_") as tmp:
        out = Path(tmp)
        fmu = build_fmu(ROOT / "models" / f"{args.model}.json", out)
        unzipped = out / args.model
        zipfile.ZipFile(fmu).extractall(unzipped)
        host = runner.compile_host(out)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
        commands = {
            "fmpy": lambda k: ([sys.executable, "-c", FMPY_RUN, str(fmu)], env),
            "native": lambda k: ([str(host), str(unzipped), "--input", "-", "--const", "0", "--stop", "0.05",
                                  "--step", "0.01", "--out", str(out / "host.csv"), "--quiet"], {}),
            "misuse": lambda k: ([sys.executable, str(ROOT / "tests" / "fmi_misuse.py"), cases[k % len(cases)],
                                  str(unzipped)], env),
        }
        failed = 0
        for kind in args.kinds:
            started = time.perf_counter()
            counts: collections.Counter = collections.Counter()
            for k in range(args.runs):
                cmd, environment = commands[kind](k)
                proc = subprocess.run(cmd, env=environment, capture_output=True, text=True, timeout=900)
                aborted = any(sign in proc.stderr for sign in ABORT_SIGNS)
                if proc.returncode == 0 and not aborted:
                    counts["clean"] += 1
                else:
                    counts[f"status {proc.returncode}{' with an abort message' if aborted else ''}"] += 1
                    print(f"{kind} run {k}: status {proc.returncode}\n{proc.stderr[-2000:]}", file=sys.stderr)
            failed += args.runs - counts["clean"]
            print(f"{kind}: {args.runs} processes in {time.perf_counter() - started:.0f} s: "
                  + ", ".join(f"{n} {what}" for what, n in sorted(counts.items())), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
