"""Build the crane FMU, compile the native C host (fmu_host.c) with gcc and run the crane through the FMI 2.0 C API
from a process without Python, as a Modelica tool's or Simulink's FMU import does.

    python integration/native_host/run.py [--out DIR] [--stop T] [--step H] [--compare-fmpy] [-- fmu_host options]

It prints the command it runs, so the run can be repeated by hand. The host runs with an empty environment
(``env -i``): the FMU's binary finds and starts the Python that built it by itself (see
docs/using-in-modelica-and-simulink.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

# our linear systems are small: one BLAS thread (multi-threaded BLAS only adds hand-off cost); set before numpy
# is imported, and inherited by the host
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve().parent
FMI_HEADERS = Path(importlib.util.find_spec("fmu_mbs.adapters.native").origin).parent / "fmi2"
ROOT = HERE.parents[1]
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-ffp-contract=off"]


def host_environment() -> dict[str, str]:
    """The environment the host runs with: empty, as ``env -i`` (nothing is needed to run an fmu-mbs FMU)."""
    return {}


def compile_host(dest: Path) -> Path:
    """gcc fmu_host.c -> dest/fmu_host (FMI headers: the package's copy, fmu_mbs/adapters/native/fmi2/, which the
    FMU binary is built with too)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        raise RuntimeError("gcc not found")
    exe = dest / "fmu_host"
    subprocess.run([gcc, *CFLAGS, "-I", str(FMI_HEADERS), str(HERE / "fmu_host.c"), "-o", str(exe), "-ldl", "-lm"],
                   check=True)
    return exe


def build_and_extract(dest: Path, model: str = "crane") -> Path:
    """Build a catalogue FMU into dest and extract it to dest/<model> (a fixed folder, as a tool would)."""
    from fmu_mbs.adapters.fmu_build import build_fmu

    return extract(build_fmu(ROOT / "models" / f"{model}.json", dest), dest / model)


def extract(fmu: Path, folder: Path) -> Path:
    """Unzip ``fmu`` into ``folder`` (emptied first), as a tool would; returns the folder."""
    shutil.rmtree(folder, ignore_errors=True)
    with zipfile.ZipFile(fmu) as z:
        z.extractall(folder)
    return folder


def holding_force() -> float:
    """The PD law's feed-forward: the static cylinder force (N) that holds the crane at 30 deg. Moment balance about
    the pivot (boom centre of mass at 0.5 m, payload below the tip at 1.0 m) over the cylinder's lever dL/dtheta =
    0.5 sin(60 deg) (cylinder from (sqrt(3)/2, 0) to the boom centre of mass); 6867 N. integration/crane_pd_demo.py
    gets the same force from fmu-mbs statics, but this process must not run the library's kernels before the FMU's
    (a process that ran both is slower in the second; see integration/README.md)."""
    model = json.loads((ROOT / "models" / "crane.json").read_text())
    mass = {b["name"]: b["mass"] for b in model["bodies"]}
    g, a = -model["gravity"][1], math.radians(30.0)
    return g * (0.5 * mass["boom"] + 1.0 * mass["payload"]) * math.cos(a) / (0.5 * math.sin(2.0 * a))


def fmpy_run(unzipped: Path, f0: float, stop: float, step: float) -> tuple[list[str], list[list[float]], float]:
    """The host's loop (every output at each communication point, the PD law, setReal, doStep) in this Python
    process through fmpy: (CSV header, rows, wall time per communication step after the first, s)."""
    import time

    from fmpy import read_model_description
    from fmpy.fmi2 import FMU2Slave

    spec = importlib.util.spec_from_file_location("crane_pd_demo", ROOT / "integration" / "crane_pd_demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    md = read_model_description(str(unzipped))
    outputs = [v for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    refs = [v.valueReference for v in outputs]
    names = [v.name for v in outputs]
    th, thd = names.index("boom_hinge.s"), names.index("boom_hinge.sd")
    vr_f = next(v.valueReference for v in md.modelVariables if v.name == "cylinder.f")
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(unzipped), modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="fmpy_reference")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0, stopTime=stop)
    fmu.enterInitializationMode()
    fmu.setReal([vr_f], [f0])
    fmu.exitInitializationMode()
    rows, t, k, started = [], 0.0, 0, 0.0
    while True:
        y = fmu.getReal(refs)
        force = f0 + demo.KP * (demo.reference(t) - y[th]) - demo.KD * y[thd]
        rows.append([t, force, *y])
        if not t < stop - 1e-12:
            break
        fmu.setReal([vr_f], [force])
        fmu.doStep(currentCommunicationPoint=t, communicationStepSize=step)
        if k == 0:
            started = time.perf_counter()
        t += step
        k += 1
    per_step = (time.perf_counter() - started) / max(k - 1, 1)
    fmu.terminate()
    fmu.freeInstance()
    return ["time", "cylinder.f", *names], rows, per_step


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/native_host", help="output folder (FMU, host, CSV)")
    parser.add_argument("--stop", type=float, default=6.0, help="stop time, s")
    parser.add_argument("--step", type=float, default=1e-3, help="communication step, s")
    parser.add_argument("--compare-fmpy", action="store_true",
                        help="then run the same loop through fmpy in this process and compare outputs and cost")
    parser.add_argument("extra", nargs="*", help="more fmu_host options (after --)")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    unzipped = build_and_extract(out)
    exe = compile_host(out)
    f0 = holding_force()
    csv = out / "crane_native_host.csv"
    cmd = [str(exe), str(unzipped), "--out", str(csv), "--stop", repr(args.stop), "--step", repr(args.step),
           "--f0", repr(f0), *args.extra]
    print("command (empty environment):\n  env -i " + shlex.join(cmd), flush=True)
    code = subprocess.run(cmd, env=host_environment()).returncode
    if code == 0 and args.compare_fmpy:
        import numpy as np

        header, rows, per_step = fmpy_run(unzipped, f0, args.stop, args.step)
        with csv.open() as f:
            same_header = f.readline().strip().split(",") == header
        host = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
        ref = np.array(rows)
        equal = same_header and host.shape == ref.shape and np.array_equal(host, ref)
        print(f"fmpy, same loop in this process: {1e6 * per_step:.1f} us per communication step; outputs at all "
              f"{len(rows)} communication points {'identical to' if equal else 'DIFFERENT from'} the native host's")
        code = 0 if equal else 5
    return code


if __name__ == "__main__":
    sys.exit(main())
