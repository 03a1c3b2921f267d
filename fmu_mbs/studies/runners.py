"""One run of a study, as a worker executes it: set the parameters, run the model (library), the FMU (fmpy) or the
coupled system (fmu_mbs.cosim), record the wanted outputs at the output times, reduce them to scalars. A run never
raises: a failure comes back as status "failed" with its reason and the FMU log (or the traceback).

Worker processes keep the loaded model files between runs (``_MODELS``), so a run costs its own simulation plus
the parameter set-up; the numba kernels are loaded once per process (``warm``).
"""

from __future__ import annotations

import atexit
import difflib
import math
import os
import re
import shutil
import socket
import tempfile
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Model
from .study import Scalar, Study, StudyError

_INDEXED = re.compile(r"^(\w+)\.(\w+)\[(\d+)\]$")
_PLAIN = re.compile(r"^(\w+)\.(\w+)$")
_GRAVITY = re.compile(r"^g\[(\d+)\]$")
_MODELS: dict[tuple, Any] = {}
_EXTRACTED: dict[tuple, str] = {}


# --- model files: parameters by element name -------------------------------------------------------------------

def _base_model(path: str):
    from ..model import load_model
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _MODELS:
        _MODELS.clear()
        _MODELS[key] = load_model(path)
    return _MODELS[key]


def apply_parameters(model: Model, values: dict[str, Any]) -> Model:
    """``model`` with the values set: "<element>.<field>" (any scalar field), "<element>.<field>[k]" (component k,
    1-based, of a vector field such as ``ball.position[3]``) or "g[k]" (gravity); StudyError naming an unknown
    element or field, ModelError for an invalid value."""
    from ..model.builder import ModelBuilder

    b = ModelBuilder.from_model(model)
    elements = {el.name: el for group in (b.bodies, b.markers, b.joints, b.drivers, b.forces, b.shapes)
                for el in group}
    for name, value in values.items():
        g, m = _GRAVITY.match(name), _INDEXED.match(name) or _PLAIN.match(name)
        if g:
            k = int(g.group(1))
            if not 1 <= k <= len(b.gravity):
                raise StudyError(f"parameter '{name}': gravity has components 1..{len(b.gravity)}")
            b.gravity = tuple(float(value) if i == k - 1 else x for i, x in enumerate(b.gravity))
            continue
        if not m:
            raise StudyError(f"parameter '{name}': name it '<element>.<field>', '<element>.<field>[k]' or 'g[k]'")
        element, fld = m.group(1), m.group(2)
        if element not in elements:
            close = difflib.get_close_matches(element, elements, n=3)
            raise StudyError(f"parameter '{name}': model '{model.name}' has no element '{element}'"
                             + (f" (did you mean {', '.join(close)}?)" if close else ""))
        el = elements[element]
        if not hasattr(el, fld):
            fields = [f for f in el.__dataclass_fields__ if f != "name"]
            raise StudyError(f"parameter '{name}': element '{element}' has no field '{fld}' (fields: "
                             f"{', '.join(fields)})")
        current = getattr(el, fld)
        if len(m.groups()) == 3:
            k = int(m.group(3))
            if not isinstance(current, tuple) or not 1 <= k <= len(current):
                raise StudyError(f"parameter '{name}': '{element}.{fld}' is not a vector with a component {k}")
            value = tuple(float(value) if i == k - 1 else x for i, x in enumerate(current))
        elif isinstance(current, bool):
            value = bool(value)
        elif isinstance(current, int) and float(value).is_integer():
            value = int(value)
        elif isinstance(current, int | float):
            value = float(value)
        el = replace(el, **{fld: value})
        elements[element] = el
        b.set_value(element, fld, value)
    return b.build()


def _run_model(study: Study, values: dict, wanted: list[str], timing: dict) -> dict[str, np.ndarray]:
    from ..analyses.channels import evaluate_channels
    from ..analyses.simulate import simulate
    from ..compiler import compile_model
    from ..model.names import channel_names

    cm = compile_model(apply_parameters(_base_model(study.target), values))
    names = channel_names(cm.model)
    _check_outputs(wanted, names, f"model '{cm.model.name}'")
    options = dict(study.options)
    integrator = options.pop("integrator", "alf")
    t0 = time.perf_counter()
    traj = simulate(cm, study.t_end, study.step, integrator=integrator, output_step=study.output_step, **options)
    timing["sim_time"] = time.perf_counter() - t0
    ch = evaluate_channels(cm, traj)
    return {"time": np.asarray(traj.t, dtype=float), **{n: np.array(ch[:, names.index(n)]) for n in wanted}}


def _check_outputs(wanted: list[str], names: list[str], where: str) -> None:
    for n in wanted:
        if n not in names:
            close = difflib.get_close_matches(n, names, n=4, cutoff=0.5)
            raise StudyError(f"output '{n}': {where} has no such output"
                             + (f" (did you mean {', '.join(close)}?)" if close else ""))


# --- FMUs ------------------------------------------------------------------------------------------------------------

def _extraction(path: str):
    """(folder holding the FMU at ``path`` extracted, its model description): once per worker process and version
    of the file, so a run does not pay the unzip (~80 ms for our FMUs, which carry the library)."""
    from fmpy import extract, read_model_description
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _EXTRACTED:
        folder = tempfile.mkdtemp(prefix="fmu_mbs_sweep_")
        atexit.register(shutil.rmtree, folder, True)
        extract(path, unzipdir=folder)
        _EXTRACTED[key] = (folder, read_model_description(folder))
    return _EXTRACTED[key]


def _extracted_slave(name: str, path: str):
    """A cosim Slave on the worker's extraction of the FMU (cosim.Slave itself extracts at every instantiation)."""
    from ..cosim.slave import Slave

    return Slave(name, path, extracted=_extraction(path))


def _grid(study: Study) -> int:
    n = round(study.t_end / study.step)
    if n < 1 or abs(n * study.step - study.t_end) > 1e-9 * max(1.0, study.t_end):
        raise StudyError(f"t_end = {study.t_end} s is not a multiple of the communication step {study.step} s")
    return n


def _run_fmu(study: Study, values: dict, wanted: list[str], log: list[str], timing: dict) -> dict[str, np.ndarray]:
    n = _grid(study)
    slave = _extracted_slave("run", study.target)
    try:
        outs = [slave.variable(o, None, "output") for o in wanted]
        vrs = [v.valueReference for v in outs]
        slave.call("fmi2SetupExperiment", lambda: slave.fmu.setupExperiment(startTime=0.0))
        for name, value in values.items():
            slave.set_start(name, value)
        slave.call("fmi2EnterInitializationMode", slave.fmu.enterInitializationMode)
        slave.call("fmi2ExitInitializationMode", slave.fmu.exitInitializationMode)
        rows = np.empty((n + 1, len(vrs)))
        rows[0] = slave.get_real(vrs)
        t0 = time.perf_counter()
        for k in range(n):
            slave.do_step(k * study.step, study.step)
            rows[k + 1] = slave.get_real(vrs)
        timing["sim_time"] = time.perf_counter() - t0
    finally:
        log.extend(slave.log)
        slave.close()
    return {"time": study.step * np.arange(n + 1), **{o: rows[:, i] for i, o in enumerate(wanted)}}


def _run_system(study: Study, values: dict, wanted: list[str], log: list[str], timing: dict) -> dict[str, np.ndarray]:
    from ..cosim import CoSimulation

    sys_ = study.target
    per: dict[str, dict] = {name: dict(inst["parameters"]) for name, inst in sys_["instances"].items()}
    for name, value in values.items():
        inst, dot, var = name.partition(".")
        if not dot or inst not in per:
            raise StudyError(f"parameter '{name}': name it '<instance>.<variable>' with an instance of "
                             f"{sorted(per)}")
        per[inst][var] = value
    sim = CoSimulation()
    ran = False
    try:
        for name, inst in sys_["instances"].items():
            sim.add(name, inst["fmu"], per[name], input_mode=inst["input_mode"])
        for c in sys_["connections"]:
            sim.connect(c)
        t0 = time.perf_counter()
        ran = True   # run() frees the instances itself, whatever happens (freeing twice crashes the process)
        res = sim.run(study.t_end, study.step, scheme=sys_["scheme"], order=sys_["order"], record=wanted)
        timing["sim_time"] = time.perf_counter() - t0
    finally:
        for slave in sim.slaves.values():
            log.extend(f"{slave.name}: {line}" for line in slave.log)
            if not ran:
                slave.close()
    return {"time": np.asarray(res.time, dtype=float), **{o: np.asarray(res[o], dtype=float) for o in wanted}}


# --- scalars ---------------------------------------------------------------------------------------------------------

def reduce(s: Scalar, h: dict[str, np.ndarray]) -> float:
    """The scalar ``s`` of the recorded histories ``h`` (NaN when its window holds no sample)."""
    t, y = h["time"], h[s.of]
    mask = np.ones(len(t), dtype=bool)
    if s.t_from is not None:
        mask &= t >= s.t_from
    if s.t_to is not None:
        mask &= t <= s.t_to
    if s.after_peak is not None:
        mask &= np.arange(len(t)) > int(np.argmax(h[s.after_peak]))
    if not mask.any():
        return math.nan
    t, y = t[mask], y[mask]
    r = s.reduce
    if r in ("max", "min", "max_abs"):
        return float({"max": np.max, "min": np.min, "max_abs": lambda v: np.max(np.abs(v))}[r](y))
    if r in ("final", "initial"):
        return float(y[-1] if r == "final" else y[0])
    if r in ("mean", "rms"):
        return float(np.mean(y) if r == "mean" else math.sqrt(np.mean(y * y)))
    if r in ("time_of_max", "time_of_min"):
        return float(t[np.argmax(y) if r == "time_of_max" else np.argmin(y)])
    return float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(t)))   # integral, trapezoidal rule


def wanted_outputs(study: Study) -> list[str]:
    """Outputs to record: the histories, then those the scalars need, each once."""
    out = list(dict.fromkeys(study.histories))
    for s in study.scalars:
        for n in (s.of, s.after_peak):
            if n is not None and n not in out:
                out.append(n)
    return out


def execute(study: Study, run_id: int, values: dict[str, Any]) -> dict:
    """Run ``values`` (the run's parameters; the study's fixed values come first) and return its record:
    run, status ("ok"/"failed"), reason, log, wall_time (s, all of the run), sim_time (s, the integration or the
    doStep loop alone), cpu_time (s, CPU time of the run's thread: below wall_time when the core is shared),
    worker, scalars, history (time and the histories)."""
    start, cpu = time.perf_counter(), time.thread_time()
    log: list[str] = []
    timing = {"sim_time": math.nan}
    params = {**study.fixed, **values}
    wanted = wanted_outputs(study)
    record = {"run": run_id, "status": "ok", "reason": "", "log": "", "scalars": {}, "history": {},
              "worker": f"{socket.gethostname()}:{os.getpid()}"}
    try:
        if study.kind == "model":
            h = _run_model(study, params, wanted, timing)
        elif study.kind == "fmu":
            h = _run_fmu(study, params, wanted, log, timing)
        else:
            h = _run_system(study, params, wanted, log, timing)
        bad = [n for n in wanted if not np.isfinite(h[n]).all()]
        if bad:
            raise ArithmeticError(f"output(s) {', '.join(bad)} became NaN or inf")
        record["scalars"] = {s.name: reduce(s, h) for s in study.scalars}
        record["history"] = {k: v for k, v in h.items() if k == "time" or k in study.histories}
    except Exception as exc:   # a run never stops the study: its failure is its result
        lines = str(exc).strip().splitlines() or [""]
        record.update(status="failed", reason=f"{type(exc).__name__}: {lines[0]}"[:500], scalars={}, history={})
        if not log:   # no FMU log (a model file, or a failure before the FMU logged): the traceback instead
            log.append(traceback.format_exc(limit=6))
    record["log"] = "\n".join(log)[-8000:]
    record["wall_time"] = time.perf_counter() - start
    record["sim_time"] = timing["sim_time"]
    record["cpu_time"] = time.thread_time() - cpu
    return record


def warm(study: Study) -> float:
    """Load the kernels (and the FMU's library copy) in this process with one short run; returns its wall time (s).
    A failing warm-up is harmless: the real runs report their own failures."""
    start = time.perf_counter()
    span = 2.0 * max(study.step, study.output_step or 0.0)   # two output rows: the same kernel paths as a run
    short = replace(study, t_end=min(study.t_end, span))
    execute(short, -1, dict(short.runs[0]))
    return time.perf_counter() - start


def check(study: Study) -> None:
    """Problems that would fail every run, found before any is submitted: unknown parameter or output names."""
    first = {**study.fixed, **study.runs[0]}
    if study.kind == "model":
        from ..compiler import compile_model
        from ..model.names import channel_names
        model = apply_parameters(_base_model(study.target), first)
        _check_outputs(wanted_outputs(study), channel_names(compile_model(model).model), f"model '{model.name}'")
    elif study.kind == "fmu":
        _check_fmu(study.target, first, wanted_outputs(study), "")
        _grid(study)
    else:
        per: dict[str, dict] = {name: dict(inst["parameters"]) for name, inst in study.target["instances"].items()}
        outs: dict[str, list] = {name: [] for name in per}
        for kind, names in (("parameter", first), ("output", wanted_outputs(study))):
            for name in names:
                inst, dot, var = name.partition(".")
                if not dot or inst not in per:
                    raise StudyError(f"{kind} '{name}': name it '<instance>.<variable>' with an instance of "
                                     f"{sorted(per)}")
                if kind == "parameter":
                    per[inst][var] = None
                else:
                    outs[inst].append(var)
        for name, inst in study.target["instances"].items():
            _check_fmu(inst["fmu"], per[name], outs[name], f"{name}.")
        _grid(study)


def _check_fmu(path: str, params, outputs: list[str], prefix: str) -> None:
    from fmpy import read_model_description
    variables = {v.name: v for v in read_model_description(path).modelVariables}
    for name in params:
        v = variables.get(name)
        if v is None or v.causality not in ("parameter", "input"):
            pool = [n for n, x in variables.items() if x.causality in ("parameter", "input")]
            close = [prefix + c for c in difflib.get_close_matches(name, pool, n=4, cutoff=0.5)]
            raise StudyError(f"parameter '{prefix}{name}': FMU '{Path(path).name}' has no parameter or input of "
                             f"that name" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    _check_outputs([prefix + o for o in outputs], [prefix + n for n in variables], f"FMU '{Path(path).name}'")
