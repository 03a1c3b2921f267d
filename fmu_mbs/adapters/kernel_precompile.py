"""Compile an FMU's kernels for the architecture's generic CPU at build time and ship them in its resources.

The FMU is run (instantiate, Initialization Mode with its outputs read, a few doSteps with every output read, FMU
state get/set/serialize; then with each other switch setting that selects other kernels, ``VARIANTS``) in a fresh
process with ``NUMBA_CPU_NAME=generic`` and the kernel cache root at ``<cache root>/portable`` (shared by every FMU
built from this library version, so the catalogue compiles each kernel once; builds that run at once compile each
kernel once too, the others waiting for it: kernels/compile_lock.py). A second process repeats the run with that
cache filled and records which cache files numba loads: only the kernels called from Python (their callees are
inside their compiled code). Those files, in one deflated zip, and a manifest (adapters/shipped_kernels.py) go
into ``resources/numba-kernels/`` of the FMU.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import textwrap
import zipfile
from pathlib import Path

from .build_child import run_build_child
from .shipped_kernels import BLOB, FOLDER, MANIFEST, PORTABLE_CPU

#: switch settings run besides the defaults (each selects other kernels; model/ and adapters/fmu_slave.py)
VARIANTS = ({"solver.integrator": 1}, {"solver.integrator": 2}, {"solver.integrator": 3}, {"solver.integrator": 4},
            {"solver.scheme": 1}, {"solver.input_interpolation": 1})

#: the prefix of the workload's result line (JSON) in its output, which also carries its FMI log and warnings
RESULT = "fmu-mbs-precompile-result: "

#: the FMU run that decides which kernels are shipped (one process; prints the RESULT line)
WORKLOAD = textwrap.dedent("""
    import json, os, shutil, sys, tempfile
    from numba.core import caching
    loaded = set()
    _load_data = caching.IndexDataCacheFile._load_data
    def _record(self, name):
        loaded.add((self._cache_path, self._index_name, name))
        return _load_data(self, name)
    caching.IndexDataCacheFile._load_data = _record

    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    fmu, package = sys.argv[1], sys.argv[2]
    unzipdir = extract(fmu)
    __import__("atexit").register(shutil.rmtree, unzipdir, True)   # a run that raises leaves no extracted FMU
    md = read_model_description(fmu)
    refs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
    step = float(md.defaultExperiment.stepSize) if md.defaultExperiment and md.defaultExperiment.stepSize else 1e-3
    def run(switches, states):
        slave = FMU2Slave(guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=md.coSimulation.modelIdentifier,
                          instanceName="precompile")
        slave.instantiate()
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        slave.setInteger([vr[name] for name in switches], list(switches.values()))
        slave.getReal(refs)
        slave.exitInitializationMode()
        t = 0.0
        for k in range(3):
            slave.doStep(t, step)
            t += step
            slave.getReal(refs)
        if states:
            state = slave.getFMUstate()
            slave.doStep(t, step)
            slave.setFMUstate(state)
            slave.setFMUstate(slave.deSerializeFMUstate(slave.serializeFMUstate(state)))
            slave.freeFMUstate(state)
            slave.doStep(t, step)
            slave.getReal(refs)
        slave.terminate()
        slave.freeInstance()
    vr = {v.name: v.valueReference for v in md.modelVariables}
    # None: the defaults, with the FMU-state calls. Builds that run at once start at different settings, so that
    # they compile different kernels side by side instead of queueing for the same ones (kernels/compile_lock.py)
    runs = [None] + json.loads(sys.argv[3])
    first = os.getpid() % len(runs)
    failed = []
    for switches in runs[first:] + runs[:first]:
        if switches is None:
            run({}, True)
            continue
        try:   # a setting a model cannot run (the explicit rule on a stiff model, say) is skipped
            run(switches, False)
        except Exception as exc:
            failed.append(f"{switches}: {exc}")
    misses = 0
    for name, module in list(sys.modules.items()):
        if name.startswith(package + ".kernels"):
            for obj in vars(module).values():
                stats = getattr(obj, "stats", None)
                if stats is not None and hasattr(stats, "cache_misses"):
                    misses += sum(stats.cache_misses.values())
    print()     # the result on a line of its own (after any unterminated warning text)
    print(sys.argv[4] + json.dumps({"loaded": sorted(loaded), "misses": misses, "failed": failed}))
    sys.stdout.flush()
    shutil.rmtree(unzipdir, ignore_errors=True)
    os._exit(0)
""")


def portable_cache_root() -> str:
    """Cache root of the kernels compiled for the generic CPU (``<cache root>/portable``)."""
    from ..kernels import kernel_cache_dir

    return os.path.join(os.path.dirname(kernel_cache_dir()), "portable")


def portable_environment(root: str | None = None) -> dict[str, str]:
    """Environment variables of a process that compiles (or loads) this library copy's kernels for the generic CPU
    in the portable cache (``root``: its folder, default portable_cache_root())."""
    return {"NUMBA_CPU_NAME": PORTABLE_CPU[0], "NUMBA_CPU_FEATURES": PORTABLE_CPU[1],
            "FMU_MBS_CACHE_DIR": root or portable_cache_root()}


def _run_workload(fmu_path: Path, package: str, root: str, timeout: float) -> dict:
    """Run WORKLOAD on ``fmu_path``; the FMU's compile messages (its FMI log, which fmpy prints on standard output:
    kernels/compile_notice.py) are passed on to standard error as they come, so a first build says how far it got."""
    run = run_build_child(WORKLOAD, [str(fmu_path), package, json.dumps(VARIANTS), RESULT], fmu_path,
                          portable_environment(root), timeout)
    results = [ln[len(RESULT):] for ln in run.lines if ln.startswith(RESULT)]
    if run.returncode != 0 or not results:
        raise RuntimeError(run.failure("precompiling the kernels", fmu_path.name, timeout))
    return json.loads(results[-1])


def precompile(fmu_path: Path, package: str, timeout: float = 7200.0) -> list[tuple[str, bytes]]:
    """Compile (or find compiled) the generic-CPU kernels an FMU runs; returns the zip entries to add to it
    (``resources/numba-kernels/...``). Takes minutes the first time a library version is built."""
    from ..kernels import kernel_cache_dir
    from .shipped_kernels import target_description

    root = portable_cache_root()
    os.makedirs(root, exist_ok=True)
    kernels = os.path.basename(kernel_cache_dir(package))
    folder = os.path.normpath(os.path.join(root, kernels))
    if not (os.path.isdir(folder) and any(n.endswith(".nbi") for n in os.listdir(folder))):
        print(f"fmu-mbs: {fmu_path.name}: compiling kernels for the generic CPU (first build of this library "
              f"version only: minutes of CPU)", file=sys.stderr, flush=True)
    result = _run_workload(fmu_path, package, root, timeout)
    if result["misses"]:   # something compiled: run again to see what a warm run loads
        result = _run_workload(fmu_path, package, root, timeout)
    if result["misses"]:
        raise RuntimeError(f"precompiling '{fmu_path.name}': {result['misses']} kernels compiled again in a "
                           f"second run (not cachable?)")
    names = sorted({n for path, index, data in result["loaded"] if os.path.normpath(path) == folder
                    for n in (index, data)})
    blob = io.BytesIO()
    with zipfile.ZipFile(blob, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for n in names:
            z.writestr(zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0)), Path(folder, n).read_bytes(),
                       compress_type=zipfile.ZIP_DEFLATED)
    data = blob.getvalue()
    manifest = dict(target_description(), package=package, kernels=kernels,
                    blob={"sha256": hashlib.sha256(data).hexdigest(), "files": len(names)})
    return [(f"resources/{FOLDER}/{BLOB}", data),
            (f"resources/{FOLDER}/{MANIFEST}", (json.dumps(manifest, indent=1) + "\n").encode())]


#: zip entries kept as they are: the kernels' blob, deflated already (shipped_kernels.BLOB)
STORED_SUFFIXES = (".zip",)


def add_to_fmu(fmu_path: Path, entries: list[tuple[str, bytes]]) -> None:
    """Append files to an FMU (zip): compressed, except STORED_SUFFIXES."""
    with zipfile.ZipFile(fmu_path, "a", zipfile.ZIP_DEFLATED) as z:
        present = set(z.namelist())
        for name, data in entries:
            if name in present:
                raise RuntimeError(f"'{fmu_path.name}' already has {name}")
            kind = zipfile.ZIP_STORED if name.endswith(STORED_SUFFIXES) else zipfile.ZIP_DEFLATED
            z.writestr(name, data, compress_type=kind)
