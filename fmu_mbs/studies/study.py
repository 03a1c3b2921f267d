"""A study: what to run (a model file, an FMU or a coupled system of FMUs), over which design of experiments, and
what to keep from each run. Read from TOML (``load_study``) or built in Python (``Study``); every problem found is
a StudyError naming the item.

Designs (``design.type``): "factorial" (every combination of the listed levels, the first factor varying slowest),
"lhs" (a Latin hypercube of ``samples`` points scaled to [low, high] per factor, scipy.stats.qmc with ``seed``) or
"table" (a CSV file with one column per parameter and one row per run). Runs are numbered in design order, so the
same study always gives the same run ids and parameter values.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FmuMbsError

KINDS = ("model", "fmu", "system")
DESIGNS = ("factorial", "lhs", "table")
REDUCERS = ("max", "min", "final", "initial", "mean", "rms", "max_abs", "time_of_max", "time_of_min", "integral")
RESERVED = ("run", "status", "attempts", "reason", "log", "worker", "history", "wall_time", "sim_time",
            "cpu_time")


class StudyError(FmuMbsError):
    """A study description is invalid (bad TOML, unknown key, bad design, unknown parameter or output)."""


@dataclass(frozen=True)
class Scalar:
    """A scalar result of a run: ``reduce`` of the output ``of`` over its samples, restricted to t >= ``t_from``
    and t <= ``t_to`` (s) and, with ``after_peak``, to the samples after the largest value of that output."""

    name: str
    of: str
    reduce: str = "max"
    t_from: float | None = None
    t_to: float | None = None
    after_peak: str | None = None


@dataclass
class Study:
    """One design of experiments. ``target``: the model file (kind "model"), the FMU (kind "fmu") or, for kind
    "system", a dict with ``instances`` {name: {fmu, parameters, input_mode}}, ``connections`` ["a.y -> b.u"],
    ``scheme`` and ``order`` (fmu_mbs.cosim). ``t_end`` and ``step`` (s): stop time and integrator step (model) or
    communication step (FMU, system); ``output_step`` (s, model only): spacing of the recorded rows.
    ``fixed``: parameter values for every run; ``runs``: one {parameter: value} per run (from the design);
    ``histories``: outputs whose time histories are kept; ``scalars``: scalar results per run; ``options``:
    integrator options for a model ("integrator", "rho_inf", ...)."""

    name: str
    kind: str
    target: Any
    t_end: float
    step: float
    runs: list[dict[str, Any]]
    fixed: dict[str, Any] = field(default_factory=dict)
    output_step: float | None = None
    histories: list[str] = field(default_factory=list)
    scalars: list[Scalar] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    design: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise StudyError(f"study '{self.name}': kind must be one of {KINDS}, got {self.kind!r}")
        for what, value in (("t_end", self.t_end), ("step", self.step)):
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise StudyError(f"study '{self.name}': '{what}' must be a positive number (s), got {value!r}")
        if self.output_step is not None and not self.output_step > 0:
            raise StudyError(f"study '{self.name}': 'output_step' must be positive (s), got {self.output_step!r}")
        if not self.runs:
            raise StudyError(f"study '{self.name}': the design has no runs")
        names = set(self.parameters)
        for k, run in enumerate(self.runs):
            if set(run) != names:
                raise StudyError(f"study '{self.name}': run {k} sets {sorted(run)}, not the design's {sorted(names)}")
        outputs = {s.name for s in self.scalars}
        for s in self.scalars:
            if s.reduce not in REDUCERS:
                raise StudyError(f"scalar '{s.name}': reduce must be one of {', '.join(REDUCERS)}, got {s.reduce!r}")
        clash = (outputs & (names | set(self.fixed))) | ((outputs | names) & set(RESERVED))
        if clash:
            raise StudyError(f"study '{self.name}': column name(s) {sorted(clash)} used twice or reserved "
                             f"({', '.join(RESERVED)} are the table's own columns)")

    @property
    def parameters(self) -> list[str]:
        """Names of the parameters the design varies, in column order."""
        return list(self.runs[0]) if self.runs else []

    def fingerprint(self) -> str:
        """Hash of everything that decides the runs' results (not of where the results go)."""
        spec = {k: v for k, v in self.to_dict().items() if k != "name"}
        return hashlib.sha1(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def to_dict(self) -> dict:
        """A JSON-able description (written next to the results)."""
        return {"name": self.name, "kind": self.kind, "target": self.target, "t_end": self.t_end, "step": self.step,
                "output_step": self.output_step, "fixed": self.fixed, "options": self.options,
                "histories": self.histories, "scalars": [vars(s) for s in self.scalars], "design": self.design,
                "runs": self.runs}


# --- designs ---------------------------------------------------------------------------------------------------------

def factorial(factors: dict[str, list]) -> list[dict[str, Any]]:
    """Every combination of the levels (first factor slowest)."""
    for name, levels in factors.items():
        if not isinstance(levels, list) or not levels:
            raise StudyError(f"factorial factor '{name}': give a non-empty list of levels, got {levels!r}")
    names = list(factors)
    return [dict(zip(names, combo)) for combo in itertools.product(*factors.values())]


def latin_hypercube(factors: dict[str, list], samples: int, seed: int = 0) -> list[dict[str, float]]:
    """``samples`` points of a Latin hypercube (scipy.stats.qmc.LatinHypercube, ``seed``) scaled to each factor's
    [low, high]."""
    from scipy.stats import qmc

    if not (isinstance(samples, int) and samples > 0):
        raise StudyError(f"lhs design: 'samples' must be a positive integer, got {samples!r}")
    for name, bounds in factors.items():
        ok = isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, int | float) for b in bounds)
        if not ok or not bounds[0] < bounds[1]:
            raise StudyError(f"lhs factor '{name}': give [low, high] with low < high, got {bounds!r}")
    unit = qmc.LatinHypercube(d=len(factors), seed=seed).random(samples)
    low = [float(b[0]) for b in factors.values()]
    high = [float(b[1]) for b in factors.values()]
    points = qmc.scale(unit, low, high)
    return [dict(zip(factors, map(float, row))) for row in points]


def _number(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def table(path: str | Path) -> list[dict[str, Any]]:
    """Runs from a CSV file: a header of parameter names, one row per run (numbers where they parse)."""
    path = Path(path)
    if not path.exists():
        raise StudyError(f"table design: file '{path}' does not exist")
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) < 2:
        raise StudyError(f"table design '{path.name}': needs a header row and at least one run")
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header) or not all(header):
        raise StudyError(f"table design '{path.name}': the header must name each column once: {header}")
    runs = []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise StudyError(f"table design '{path.name}', line {line}: {len(row)} values for {len(header)} columns")
        runs.append({h: _number(c.strip()) for h, c in zip(header, row)})
    return runs


def make_design(design: dict, base: Path) -> list[dict[str, Any]]:
    """The runs of a ``[design]`` table (relative CSV paths from ``base``)."""
    kind = design.get("type")
    if kind not in DESIGNS:
        raise StudyError(f"[design] 'type' must be one of {', '.join(DESIGNS)}, got {kind!r}")
    allowed = {"factorial": {"type", "factors"}, "lhs": {"type", "factors", "samples", "seed"},
               "table": {"type", "file"}}[kind]
    unknown = sorted(set(design) - allowed)
    if unknown:
        raise StudyError(f"[design] of type {kind!r}: unknown key(s) {unknown} (allowed: {sorted(allowed)})")
    if kind == "table":
        if "file" not in design:
            raise StudyError("[design] of type 'table' needs 'file' (a CSV file)")
        return table(base / design["file"])
    factors = design.get("factors")
    if not isinstance(factors, dict) or not factors:
        raise StudyError(f"[design] of type {kind!r} needs [design.factors] with at least one parameter")
    if kind == "factorial":
        return factorial(factors)
    return latin_hypercube(factors, design.get("samples"), int(design.get("seed", 0)))


# --- TOML ---------------------------------------------------------------------------------------------------

_TOP = {"study", "design", "parameters", "outputs", "system", "solver"}
_STUDY_KEYS = {"name", "model", "fmu", "t_end", "step", "output_step"}


def _scalars(table_: dict) -> list[Scalar]:
    out = []
    for name, spec in table_.items():
        if not isinstance(spec, dict) or "of" not in spec:
            raise StudyError(f"scalar '{name}': give a table {{ of = \"<output>\", reduce = \"max\" }}")
        unknown = sorted(set(spec) - {"of", "reduce", "t_from", "t_to", "after_peak"})
        if unknown:
            raise StudyError(f"scalar '{name}': unknown key(s) {unknown}")
        out.append(Scalar(name, **spec))
    return out


def study_from_dict(data: dict, base: Path, name: str = "study") -> Study:
    """A Study from the parsed TOML ``data``; relative paths are taken from ``base``."""
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise StudyError(f"unknown section(s) {unknown} (sections: {sorted(_TOP)})")
    head = data.get("study", {})
    unknown = sorted(set(head) - _STUDY_KEYS)
    if unknown:
        raise StudyError(f"[study]: unknown key(s) {unknown} (keys: {sorted(_STUDY_KEYS)})")
    given = [k for k in ("model", "fmu") if k in head] + (["system"] if "system" in data else [])
    if len(given) != 1:
        raise StudyError("the study must name exactly one of [study] model = \"...\", [study] fmu = \"...\" or a "
                         f"[system] section; it names {given or 'none'}")
    kind = given[0]
    if kind == "system":
        target = _system(data["system"], base)
    else:
        path = (base / head[kind]).resolve()
        if not path.exists():
            raise StudyError(f"[study] {kind} = '{head[kind]}': file '{path.name}' does not exist")
        target = str(path)
    for key in ("t_end", "step"):
        if key not in head:
            raise StudyError(f"[study] needs '{key}' (s)")
    options = dict(data.get("solver", {}))
    if options and kind != "model":
        raise StudyError("[solver] options apply to a model file; for an FMU set its solver.* parameters in "
                         "[parameters]")
    outputs = data.get("outputs", {})
    unknown = sorted(set(outputs) - {"histories", "scalars"})
    if unknown:
        raise StudyError(f"[outputs]: unknown key(s) {unknown} (keys: histories, scalars)")
    if "design" not in data:
        raise StudyError("the study needs a [design] section")
    return Study(name=head.get("name", name), kind=kind, target=target, t_end=head["t_end"], step=head["step"],
                 output_step=head.get("output_step"), runs=make_design(data["design"], base),
                 fixed=dict(data.get("parameters", {})), histories=list(outputs.get("histories", [])),
                 scalars=_scalars(outputs.get("scalars", {})), options=options, design=dict(data["design"]))


def _system(sec: dict, base: Path) -> dict:
    unknown = sorted(set(sec) - {"instances", "connections", "scheme", "order"})
    if unknown:
        raise StudyError(f"[system]: unknown key(s) {unknown} (keys: instances, connections, scheme, order)")
    instances = sec.get("instances")
    if not isinstance(instances, dict) or not instances:
        raise StudyError("[system] needs [system.instances.<name>] tables with fmu = \"...\"")
    out = {}
    for name, inst in instances.items():
        if not isinstance(inst, dict) or "fmu" not in inst:
            raise StudyError(f"[system.instances.{name}] needs fmu = \"<file>\"")
        unknown = sorted(set(inst) - {"fmu", "parameters", "input_mode"})
        if unknown:
            raise StudyError(f"[system.instances.{name}]: unknown key(s) {unknown}")
        path = (base / inst["fmu"]).resolve()
        if not path.exists():
            raise StudyError(f"[system.instances.{name}] fmu: file '{path.name}' does not exist")
        out[name] = {"fmu": str(path), "parameters": dict(inst.get("parameters", {})),
                     "input_mode": inst.get("input_mode", "hold")}
    return {"instances": out, "connections": list(sec.get("connections", [])),
            "scheme": sec.get("scheme", "jacobi"), "order": int(sec.get("order", 0))}


def load_study(path: str | Path) -> Study:
    """Read a study TOML file (see docs/studies.md); StudyError for any problem."""
    path = Path(path)
    if not path.exists():
        raise StudyError(f"study file '{path}' does not exist")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"study file '{path.name}' is not valid TOML: {exc}") from None
    return study_from_dict(data, path.resolve().parent, name=path.stem)
