"""Start-up latency and per-step cost of the catalogue's FMUs through fmpy's FMU2Slave, each in a fresh process.

Start-up (pendulum): wall time from the start of a new Python process to the end of its first doStep, split into
the phases of the FMI calls (import fmpy, unzip + load the library, fmi2Instantiate, setup + enter initialization,
fmi2ExitInitializationMode, first and second doStep):

- cold: an empty user kernel cache (FMU_MBS_CACHE_DIR and NUMBA_CACHE_DIR point at new temporary folders), as on a
  fresh machine: the FMU loads the kernels it ships (compiled at build time for the generic CPU); an FMU built with
  ``--no-precompile`` compiles every numba kernel it touches;
- warm: the same folders again, after the cold run.

``--startup-models all`` measures the start-up of every catalogue FMU (default: the pendulum); ``--startup-only``
skips the per-step part.

Per macro step (pendulum and four-bar, warm cache): H = 1 ms communication steps with solver.h = 1 ms (one ALF
substep per step); each step is setReal of the input + doStep + getReal of 4 outputs, timed one by one; the median
over the measured steps is reported, with the median of each call, next to the peers issue 13 names: the same work
done by the library directly (ALF advance + output channels, no FMI) and a pythonfmu FMU that does nothing (one
input, four outputs, a doStep that returns at once: the floor of any Python FMU under fmpy), each in another fresh
process. The ratio column is the model's step over the no-op FMU's.

``--baseline main`` also builds the FMUs with the library of another git revision and runs them alternately with
this tree's (``--rounds`` runs each, median), so a change is measured before/after at the same machine load.

    python bench/fmu_latency.py [--runs 1] [--steps 2000] [--baseline REV] [--rounds 3]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STARTUP = textwrap.dedent("""
    import time
    T = {{"python": time.time()}}
    import json, shutil
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    T["import fmpy"] = time.time()
    md = read_model_description({fmu!r})
    unzipped = extract({fmu!r})
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="bench")
    T["unzip + load library"] = time.time()
    fmu.instantiate()
    T["instantiate"] = time.time()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    T["setup + enter init"] = time.time()
    fmu.exitInitializationMode()
    T["exitInitializationMode"] = time.time()
    fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    T["first doStep"] = time.time()
    CPU = time.process_time()
    fmu.doStep(currentCommunicationPoint=0.01, communicationStepSize=0.01)
    T["second doStep"] = time.time()
    fmu.terminate()
    fmu.freeInstance()
    shutil.rmtree(unzipped, ignore_errors=True)
    print(json.dumps({{**T, "cpu": CPU}}))
""")

FMU_STEPS = textwrap.dedent("""
    import json, math, shutil, statistics, time
    import numpy as np
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    H, WARMUP, STEPS = 1e-3, 200, {steps}
    fmu_path, input_name, outputs = {fmu!r}, {input!r}, {outputs!r}

    def u(t):
        return {u_expr}

    ns = time.perf_counter_ns
    md = read_model_description(fmu_path)
    vr = {{v.name: v.valueReference for v in md.modelVariables}}
    unzipped = extract(fmu_path)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="bench")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.setReal([vr["solver.h"]], [H])
    fmu.exitInitializationMode()
    vin, vout = [vr[input_name]], [vr[n] for n in outputs]
    rows = []
    for k in range(WARMUP + STEPS):
        t = k * H
        a = ns(); fmu.setReal(vin, [u(t)])
        b = ns(); fmu.doStep(currentCommunicationPoint=t, communicationStepSize=H)
        c = ns(); fmu.getReal(vout)
        d = ns()
        if k >= WARMUP:
            rows.append((b - a, c - b, d - c, d - a))
    fmu.terminate()
    fmu.freeInstance()
    shutil.rmtree(unzipped, ignore_errors=True)
    cols = list(zip(*rows))
    print(json.dumps({{"setReal": statistics.median(cols[0]), "doStep": statistics.median(cols[1]),
                      "getReal": statistics.median(cols[2]), "step": statistics.median(cols[3]),
                      "p90 step": float(np.percentile(cols[3], 90))}}))
""")

# The same work without FMI, in a process of its own: a process that has run an FMU holds two copies of the library
# (the installed one and the FMU's), and numba's dispatcher fingerprints a namedtuple by its items only, so the
# copy that types ModelArrays second falls back to the slow Python dispatch path at every call.
LIBRARY_STEPS = textwrap.dedent("""
    import json, math, statistics, time
    from fmu_mbs.analyses.assembly import assemble
    from fmu_mbs.analyses.channels import ChannelEvaluator
    from fmu_mbs.analyses.integrators.alf import ALFIntegrator
    from fmu_mbs.compiler import compile_model
    from fmu_mbs.model import load_model

    H, WARMUP, STEPS = 1e-3, 200, {steps}
    model_json, input_name = {model!r}, {input!r}

    def u(t):
        return {u_expr}

    ns = time.perf_counter_ns
    cm = compile_model(load_model(model_json))
    integ = ALFIntegrator(cm, H, assemble(cm))
    chan = ChannelEvaluator(cm)
    k_in = cm.input_names.index(input_name)
    adv, lib = [], []
    for k in range(WARMUP + STEPS):
        t = k * H
        a = ns()
        integ.u[k_in] = u(t)
        integ.advance_to(t + H)
        b = ns()
        chan(integ.t, integ.q, integ.qd, integ.qdd, integ.lam, u=integ.u)
        c = ns()
        if k >= WARMUP:
            adv.append(b - a)
            lib.append(c - a)
    print(json.dumps({{"library": statistics.median(lib), "ALF advance": statistics.median(adv)}}))
""")

# The one-call step's kernel in one process, called both ways on the same arguments: packed (one table of
# addresses, kernels/packed_args.py: what the FMU does) and as one named tuple of ~200 arrays that numba types and
# unboxes at every call (the FMU's call before the arguments were packed).
KERNEL_CALLS = textwrap.dedent("""
    import json, shutil, statistics, tempfile, time
    from pathlib import Path
    from numba import njit
    from fmu_mbs.adapters.fmu_slave import MbsSlave
    from fmu_mbs.kernels.comm_step import alf_comm_step, packed_comm_step

    @njit
    def named_comm_step(tree, n, h, t):     # alf_comm_step has no Python entry (kernels/inner.py)
        return alf_comm_step(tree, n, h, t)

    H, WARMUP, STEPS = 1e-3, 200, {steps}
    ns = time.perf_counter_ns
    folder = Path(tempfile.mkdtemp())
    shutil.copy({model!r}, folder / "model.json")
    s = MbsSlave(instance_name="calls", resources=str(folder))
    s.setup_experiment(0.0)
    s.exit_initialization_mode()
    t = 0.0
    for _ in range(3):                 # builds the one-call step (again once the unwrap memory is valid)
        assert s.do_step(t, H)
        t += H
    args = s._fast.args
    packed, named, slave = [], [], []
    for k in range(WARMUP + STEPS):
        a = ns()
        assert packed_comm_step(args.table, args.layout, 1, H, t + H) == 0
        b = ns()
        assert named_comm_step(args.tree, 1, H, t + 2 * H) == 0
        c = ns()
        assert s.do_step(t + 2 * H, H)
        d = ns()
        t += 3 * H
        if k >= WARMUP:
            packed.append(b - a)
            named.append(c - b)
            slave.append(d - c)
    assert s._fast.args is args        # no step left the one-call path
    shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps({{"kernel, packed": statistics.median(packed), "kernel, named tuple": statistics.median(named),
                      "slave.do_step": statistics.median(slave)}}))
""")

# The peer: a pythonfmu 0.7.0 FMU whose doStep does nothing (built by pythonfmu, run through its own binary).
NOOP_SLAVE = textwrap.dedent("""
    from pythonfmu import Fmi2Causality, Fmi2Slave, Real

    class NoOp(Fmi2Slave):
        author = "fmu-mbs bench"
        description = "does nothing: the cost floor of a Python FMU"

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.u, self.y = 0.0, [0.0, 0.0, 0.0, 0.0]
            self.register_variable(Real("u", causality=Fmi2Causality.input))
            for k in range(4):
                self.register_variable(Real(f"y{k}", causality=Fmi2Causality.output,
                                            getter=lambda k=k: self.y[k]))

        def do_step(self, current_time, step_size):
            return True
""")
NOOP = {"input": "u", "u_expr": "0.5 * math.sin(2.0 * math.pi * t)", "outputs": ["y0", "y1", "y2", "y3"]}

MODELS = {
    "pendulum": {"input": "P1.F[1]", "u_expr": "0.5 * math.sin(2.0 * math.pi * t)",
                 "outputs": ["P1.r[1]", "P1.r[2]", "P1.v[1]", "P1.v[2]"]},
    "fourbar": {"input": "crank.T[3]", "u_expr": "39.75 + 20.0 * math.sin(2.0 * math.pi * t)",
                "outputs": ["pin_O2.s", "pin_O2.sd", "B_coupler.r[1]", "pin_O4.F[2]"]},
}


def child(code: str, cache_dir: str, user_cache: bool = False, env_extra: dict | None = None) -> tuple[dict, float]:
    """Run code in a fresh Python process with the given kernel cache (``user_cache``: the user's own) and extra
    environment variables; returns its JSON line and the wall time at which the process was started."""
    os.makedirs(os.path.join(cache_dir, "numba"), exist_ok=True)
    env = dict(os.environ) if user_cache else dict(os.environ, FMU_MBS_CACHE_DIR=cache_dir,
                                                   NUMBA_CACHE_DIR=os.path.join(cache_dir, "numba"))
    env.update(env_extra or {})
    for var in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"):
        env.pop(var, None)
    t0 = time.time()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0:
        # about 1 in 100 processes that ran an FMU abort at interpreter exit with a glibc heap-corruption message
        # (see tests/test_masters.py); the results printed before that are kept, and the abort is reported
        if not (lines and lines[-1].startswith("{") and out.returncode in (-6, 134) and "corrupted" in out.stderr):
            raise RuntimeError(f"benchmark child failed with status {out.returncode}:\n{out.stderr[-3000:]}")
        print(f"  (a child aborted at exit after its work, status {out.returncode}: {out.stderr.strip()[-200:]})",
              file=sys.stderr)
    return json.loads(lines[-1]), t0


def baseline_fmus(rev: str, names: list[str], dest: Path) -> dict[str, Path]:
    """FMUs of the catalogue models ``names`` built by the library of git revision ``rev`` (exported next to them)."""
    tree = dest / "tree"
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "fmu_mbs"], capture_output=True, check=True)
    tarfile.open(fileobj=io.BytesIO(archive.stdout)).extractall(tree, filter="data")
    code = ("import json, sys; from fmu_mbs.adapters.fmu_build import build_fmu; "
            "print(json.dumps({n: str(build_fmu(p, sys.argv[1])) for n, p in json.loads(sys.argv[2]).items()}))")
    models = {n: str(ROOT / "models" / f"{n}.json") for n in names}
    out = subprocess.run([sys.executable, "-c", code, str(dest), json.dumps(models)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree)     # "-c" imports from cwd first
    if out.returncode != 0:
        raise RuntimeError(f"building the FMUs of {rev} failed:\n{out.stderr[-3000:]}")
    return {n: Path(p) for n, p in json.loads(out.stdout.strip().splitlines()[-1]).items()}


def startup(fmu: Path, cache_dir: str) -> dict:
    """Phase durations (s) of one fresh process, plus the total from process start to the end of the first doStep."""
    marks, t0 = child(STARTUP.format(fmu=str(fmu)), cache_dir)
    cpu = marks.pop("cpu")
    phases, last = {"python start": marks["python"] - t0}, marks["python"]
    for name, t in marks.items():
        if name != "python":
            phases[name], last = t - last, t
    phases["total to end of first doStep"] = marks["first doStep"] - t0
    phases["CPU to end of first doStep"] = cpu
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1, help="cold/warm pairs (each cold run compiles everything)")
    parser.add_argument("--steps", type=int, default=2000, help="measured macro steps per model")
    parser.add_argument("--startup-models", default="pendulum", help="'all' (the catalogue) or comma-separated names")
    parser.add_argument("--startup-only", action="store_true", help="skip the per-step measurement")
    parser.add_argument("--no-precompile", action="store_true", help="build the FMUs without shipped kernels")
    parser.add_argument("--baseline", metavar="REV", help="also run the FMUs built by the library of this git "
                        "revision (e.g. main), alternating with this tree's in the same run")
    parser.add_argument("--rounds", type=int, default=3, help="per-step runs of each FMU (alternating), median")
    parser.add_argument("--kernel-only", action="store_true", help="only the in-process calls of the one-call "
                        "step's kernel and MbsSlave.do_step (no FMU is built)")
    args = parser.parse_args()
    from fmu_mbs.adapters.fmu_build import build_fmu

    if args.kernel_only:
        with tempfile.TemporaryDirectory(prefix="fmu_latency_") as cache:
            print(f"in-process calls, H = solver.h = 1 ms, median over {args.steps} steps after 200 warm-up, us")
            for name in MODELS:
                calls, _ = child(KERNEL_CALLS.format(steps=args.steps, model=str(ROOT / "models" / f"{name}.json")),
                                 cache, user_cache=True)
                print(f"  {name:10s}" + "".join(f" {k}: {v / 1e3:.1f}" for k, v in calls.items()))
        return
    names = (sorted(p.stem for p in (ROOT / "models").glob("*.json")) if args.startup_models == "all"
             else args.startup_models.split(","))
    with tempfile.TemporaryDirectory(prefix="fmu_latency_") as tmp:
        wanted = sorted(set(names) | (set() if args.startup_only else set(MODELS)))
        fmus = {name: build_fmu(ROOT / "models" / f"{name}.json", tmp, precompile=not args.no_precompile)
                for name in wanted}
        builds = {"this tree": fmus}
        if args.baseline:
            builds = {args.baseline: baseline_fmus(args.baseline, wanted, Path(tmp, "baseline")), "this tree": fmus}
        caches = []
        for name in names:
            cold = {label: [] for label in builds}
            warm = {label: [] for label in builds}
            for _ in range(args.runs):
                for label, build in builds.items():     # alternating, so both see the same machine load
                    caches.append(cache := tempfile.mkdtemp(prefix="fmu_latency_cache_", dir=tmp))
                    cold[label].append(startup(build[name], cache))
                    warm[label].append(startup(build[name], cache))
            print(f"{name} FMU start-up through fmpy FMU2Slave, s (median of {args.runs} fresh process(es) each)")
            print(f"  {'phase':32s}" + "".join(f" {'cold, ' + label:>16s} {'warm, ' + label:>16s}"
                                               for label in builds))
            for phase in cold["this tree"][0]:
                print(f"  {phase:32s}" + "".join(f" {statistics.median(r[phase] for r in cold[label]):16.3f} "
                                                 f"{statistics.median(r[phase] for r in warm[label]):16.3f}"
                                                 for label in builds))
        if args.startup_only:
            return
        from pythonfmu.builder import FmuBuilder

        script = Path(tmp, "NoOp.py")
        script.write_text(NOOP_SLAVE)
        noop_fmu = FmuBuilder.build_FMU(script, dest=tmp)
        noop_code = FMU_STEPS.replace('fmu.setReal([vr["solver.h"]], [H])', "pass")
        noop, _ = child(noop_code.format(steps=args.steps, fmu=str(noop_fmu), input=NOOP["input"],
                                         outputs=NOOP["outputs"], u_expr=NOOP["u_expr"]), caches[-1])

        cache = caches[-1]
        builds = {("" if label == "this tree" else f" ({label})"): build for label, build in builds.items()}
        # this tree's FMUs once more with the binary's step lane off (FMU_MBS_STEP_LANE=0): every call through the
        # bridge's Python, as before the lane (adapters/step_lane.py)
        variants = {label: (build, {}) for label, build in builds.items()}
        variants[" (lane off)"] = (builds[""], {"FMU_MBS_STEP_LANE": "0"})
        for name in MODELS:   # the cache holds the pendulum's kernels; this adds the four-bar's, if any
            for build in builds.values():
                startup(build[name], cache)
        print(f"\nper macro step, H = solver.h = 1 ms, median over {args.steps} steps after 200 warm-up steps, "
              f"us (median of {args.rounds} alternating run(s) per FMU)")
        cols = ("setReal", "doStep", "getReal", "step", "p90 step", "library", "ALF advance", "kernel, packed",
                "kernel, named tuple")
        width = max(len(f"{n}{label}") for n in MODELS for label in variants)
        print(f"  {'model':{width}s}" + "".join(f" {c.split(', ')[-1]:>11s}" for c in cols) + f" {'/ no-op':>8s}")
        print(f"  {'no-op FMU':{width}s}" + "".join(f" {noop[c] / 1e3:11.1f}" for c in cols[:5]) + " " * 48
              + f" {1.0:8.2f}")
        for name, m in MODELS.items():
            runs = {label: [] for label in variants}
            for _ in range(args.rounds):
                for label, (build, env_extra) in variants.items():
                    runs[label].append(child(FMU_STEPS.format(steps=args.steps, fmu=str(build[name]),
                                                              input=m["input"], outputs=m["outputs"],
                                                              u_expr=m["u_expr"]), cache, env_extra=env_extra)[0])
            model = str(ROOT / "models" / f"{name}.json")
            # the library's children use the user's kernel cache (an empty one would compile the library)
            lib, _ = child(LIBRARY_STEPS.format(steps=args.steps, model=model, input=m["input"],
                                                u_expr=m["u_expr"]), cache, user_cache=True)
            calls, _ = child(KERNEL_CALLS.format(steps=args.steps, model=model), cache, user_cache=True)
            for label in variants:
                res = {c: statistics.median(r[c] for r in runs[label]) for c in runs[label][0]}
                if not label:
                    res.update(lib, **calls)
                print(f"  {name + label:{width}s}" + "".join(f" {res[c] / 1e3:11.1f}" if c in res else " " * 12
                                                            for c in cols) + f" {res['step'] / noop['step']:8.2f}")
        print("\n  setReal: 1 input; getReal: 4 outputs in one call; step: setReal + doStep + getReal;\n"
              "  library: the same work without FMI (ALF advance + output channels), in a process of its own;\n"
              "  packed / named tuple: the one-call step's kernel called from Python with its arguments packed into\n"
              "  one table (what the FMU does) or as one named tuple of arrays, in one process (this tree);\n"
              "  no-op FMU: a pythonfmu FMU whose doStep returns at once; / no-op: step over the no-op FMU's step;\n"
              "  (lane off): this tree's FMU with FMU_MBS_STEP_LANE=0 (every FMI call through the bridge's Python)")


if __name__ == "__main__":
    main()
