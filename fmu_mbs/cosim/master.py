"""A small co-simulation master for FMI 2.0 co-simulation FMUs (through fmpy).

Schemes, over a communication step [t_k, t_k+1]:

- ``jacobi``: every FMU steps on inputs extrapolated from its sources' outputs up to t_k;
- ``gauss-seidel``: the FMUs step one after the other (``sequence``); an input whose source already stepped uses
  that source's output at t_k+1 (interpolation), the others are extrapolated;
- ``iterative``: every coupling value at t_k+1 is an unknown u; all FMUs step from their saved states
  (fmi2GetFMUstate/SetFMUstate) on inputs interpolated through u, giving their outputs G(u); the master solves
  u = G(u) by quasi-Newton iteration with the interface Jacobian I - dG/du from finite differences (one extra
  doStep per coupling variable, reused over steps while the iteration contracts quickly).

``order`` (0, 1, 2) is the degree of the polynomial through the newest source values that stands for a coupling
signal over the step (constant, linear, quadratic extrapolation); how it is handed to an FMU depends on the FMU's
``input_mode`` (extrapolation.py). Initialization follows OSP libcosim: parameters are set, then in
initialization mode as many rounds of output-to-input transfers as there are FMUs, then every FMU leaves
initialization mode. Power bonds (energy.py) report the energy residual of each step and can correct it.

Errors are CosimError: an unknown instance or variable (with close matches), an input linked twice, an FMU call
that fails (fmi2Discard/Error/Fatal, with the FMU's log), an iteration that does not converge.
"""

from __future__ import annotations

import math
import time as _time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import CosimError
from .energy import PowerBond, correction, residual
from .extrapolation import lagrange, step_value
from .result import CosimResult
from .slave import Slave

SCHEMES = ("jacobi", "gauss-seidel", "iterative")
INPUT_MODES = {"hold": 0, "linear": 1, "quadratic": 2}
INTERPOLATION_PARAMETERS = ("input_interpolation", "solver.input_interpolation")

__all__ = ["CoSimulation", "CosimResult", "PowerBond"]


@dataclass(frozen=True)
class Link:
    """A connection src.out -> dst.inp with the value references of both ends."""

    src: str
    out: str
    dst: str
    inp: str
    vr_out: int
    vr_in: int

    @property
    def label(self) -> str:
        return f"{self.src}.{self.out} -> {self.dst}.{self.inp}"


class CoSimulation:
    """A system of FMU instances and their connections, run once by ``run``.

    >>> sim = CoSimulation()
    >>> sim.add("crane", "dist/crane.fmu", input_mode="linear")
    >>> sim.add("cyl", "dist/HydraulicCylinder.fmu")
    >>> sim.connect("cyl.F -> crane.cylinder.f")
    >>> result = sim.run(t_end=2.0, step=5e-4, scheme="jacobi", order=1)
    """

    def __init__(self):
        self.slaves: dict[str, Slave] = {}
        self.parameters: dict[str, dict] = {}
        self.modes: dict[str, int] = {}
        self.links: list[Link] = []
        self.bonds: list[PowerBond] = []
        self._ran = False

    # --- set-up -----------------------------------------------------------------------------------------------
    def add(self, name: str, path: str | Path, parameters: dict | None = None, input_mode: str = "hold",
            unzip_dir: str | Path | None = None) -> Slave:
        """Instantiate the FMU at ``path`` as ``name``. ``parameters``: start values of parameters or inputs.
        ``input_mode``: how the FMU reconstructs its inputs between communication points ("hold", "linear" or
        "quadratic"); if the FMU has a parameter ``input_interpolation`` or ``solver.input_interpolation`` it is set
        to match (0, 1, 2), otherwise the FMU must hold its inputs."""
        if not name or "." in name or name in self.slaves:
            raise CosimError(f"instance name '{name}' must be non-empty, without '.', and unique")
        if input_mode not in INPUT_MODES:
            raise CosimError(f"instance '{name}': input_mode must be one of {list(INPUT_MODES)}, got {input_mode!r}")
        parameters = dict(parameters or {})
        slave = Slave(name, path, unzip_dir)
        self.slaves[name] = slave
        for var in parameters:
            slave.variable(var, ("parameter", "input", "calculatedParameter"), "parameter or input")
        mode = INPUT_MODES[input_mode]
        knob = next((p for p in INTERPOLATION_PARAMETERS if p in slave.variables), None)
        if knob is not None:
            parameters.setdefault(knob, mode)
        elif mode:
            raise CosimError(f"instance '{name}': input_mode {input_mode!r} needs a parameter "
                             f"{' or '.join(INTERPOLATION_PARAMETERS)}, which {Path(path).name} lacks")
        self.parameters[name] = parameters
        self.modes[name] = mode
        return slave

    def _split(self, ref: str) -> tuple[str, str]:
        inst, dot, var = ref.strip().partition(".")
        if not dot or not var:
            raise CosimError(f"'{ref}' is not '<instance>.<variable>'")
        if inst not in self.slaves:
            raise CosimError(f"'{ref}': no FMU instance '{inst}' (instances: {', '.join(self.slaves) or 'none'})")
        return inst, var

    def connect(self, src: str, dst: str | None = None) -> Link:
        """Connect an output to an input: ``connect("a.y -> b.u")`` or ``connect("a.y", "b.u")``."""
        if dst is None:
            if "->" not in src:
                raise CosimError(f"connection '{src}' must read '<instance>.<output> -> <instance>.<input>'")
            src, dst = (s.strip() for s in src.split("->", 1))
        si, so = self._split(src)
        di, dn = self._split(dst)
        if si == di:
            raise CosimError(f"connection '{src} -> {dst}' links an FMU to itself")
        v_out = self.slaves[si].variable(so, ("output",), "output")
        v_in = self.slaves[di].variable(dn, ("input",), "input")
        for link in self.links:
            if (link.dst, link.inp) == (di, dn):
                raise CosimError(f"input '{dst}' is already connected ({link.label})")
        link = Link(si, so, di, dn, v_out.valueReference, v_in.valueReference)
        self.links.append(link)
        return link

    def bond(self, bond: PowerBond) -> None:
        """Monitor (and optionally correct) the energy through a power bond; its connections must exist."""
        for ref in (bond.effort, bond.flow):
            self._link(ref)
        e, f = self._link(bond.effort), self._link(bond.flow)
        if not (e.src == f.dst and e.dst == f.src):
            raise CosimError(f"power bond '{bond.name}': the effort ({e.label}) and flow ({f.label}) connections "
                             "must join the same two FMUs in opposite directions")
        self.bonds.append(bond)

    def _link(self, ref: str) -> Link:
        key = "".join(ref.split())
        for link in self.links:
            if "".join(link.label.split()) == key:
                return link
        raise CosimError(f"no connection '{ref}' (connections: {', '.join(x.label for x in self.links)})")

    # --- run ----------------------------------------------------------------------------------------------------
    def run(self, t_end: float, step: float, scheme: str = "jacobi", order: int = 0, t_start: float = 0.0,
            record: list[str] | tuple[str, ...] = (), sequence: list[str] | None = None, grid: str = "multiply",
            tolerance: float = 1e-8, abs_tolerance: float = 1e-12, max_iterations: int = 25,
            fd_step: float = 1e-6, init: str = "libcosim") -> CosimResult:
        """Run from t_start to t_end with communication step ``step`` and return the recorded results.

        ``record``: extra "<instance>.<variable>" to record (every connected output is recorded). ``sequence``:
        the Gauss-Seidel order (default: the order of ``add``). ``grid``: communication points t_k = t_start +
        k step with step sizes ``step`` ("multiply"), or libcosim's integer nanoseconds ("nanoseconds").
        ``init``: "libcosim" (parameters set before initialization mode, rounds of transfers in it, then all leave
        it) or "container" (as fmu-manipulation-toolbox 2.0 containers do, measured against one: the FMUs leave
        initialization mode one by one in ``sequence`` order, each with its parameters and the inputs linked to
        FMUs already initialized set just before; an input linked to an FMU later in the sequence keeps its start
        value through initialization and is set before the first step).
        ``tolerance``/``abs_tolerance``: convergence of the iterative scheme, |u - G(u)| <= tolerance *
        max(|u|, largest |value| so far) + abs_tolerance per coupling variable; ``fd_step``: relative perturbation
        of its finite differences."""
        if self._ran:
            raise CosimError("a CoSimulation runs once; build a new one for another run")
        if scheme not in SCHEMES:
            raise CosimError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
        if order not in (0, 1, 2):
            raise CosimError(f"order must be 0, 1 or 2 (constant, linear, quadratic), got {order!r}")
        if not (math.isfinite(step) and step > 0.0 and t_end > t_start):
            raise CosimError(f"need step > 0 and t_end > t_start, got step = {step}, t = [{t_start}, {t_end}]")
        n_steps = int(round((t_end - t_start) / step))
        if abs(n_steps * step - (t_end - t_start)) > 1e-9 * max(1.0, abs(t_end)):
            raise CosimError(f"(t_end - t_start) = {t_end - t_start} is not a multiple of step = {step}")
        sequence = list(sequence or self.slaves)
        if sorted(sequence) != sorted(self.slaves):
            raise CosimError(f"sequence {sequence} must name every instance once: {list(self.slaves)}")
        if grid == "multiply":
            times = [t_start + k * step for k in range(n_steps + 1)]
            sizes = [step] * n_steps
        elif grid == "nanoseconds":
            h_ns = int(round(step * 1e9))
            t0_ns = int(round(t_start * 1e9))
            times = [(t0_ns + k * h_ns) / 1e9 for k in range(n_steps + 1)]
            sizes = [times[k + 1] - times[k] for k in range(n_steps)]
        else:
            raise CosimError(f"grid must be 'multiply' or 'nanoseconds', got {grid!r}")
        if init not in ("libcosim", "container"):
            raise CosimError(f"init must be 'libcosim' or 'container', got {init!r}")
        self._ran = True
        run = _Run(self, times, sizes, scheme, order, sequence, list(record), tolerance, abs_tolerance,
                   max_iterations, fd_step)
        run.init = init
        try:
            return run.execute()
        finally:
            for slave in self.slaves.values():
                slave.close()


class _Run:
    """The state of one run (history of the coupling outputs, the values set, the records)."""

    def __init__(self, sim: CoSimulation, times, sizes, scheme, order, sequence, record, tol, atol, max_it, fd):
        self.sim, self.times, self.sizes = sim, times, sizes
        self.scheme, self.order, self.sequence = scheme, order, sequence
        self.tol, self.atol, self.max_it, self.fd = tol, atol, max_it, fd
        self.links = sim.links
        self.slaves = sim.slaves
        # outputs each FMU reports after a step: connected outputs first, then the recorded extras
        self.watch: dict[str, list[str]] = {n: [] for n in self.slaves}
        for link in self.links:
            if link.out not in self.watch[link.src]:
                self.watch[link.src].append(link.out)
        for ref in record:
            inst, var = sim._split(ref)
            self.slaves[inst].variable(var)
            if var not in self.watch[inst]:
                self.watch[inst].append(var)
        self.vrs = {n: [self.slaves[n].variables[v].valueReference for v in vs] for n, vs in self.watch.items()}
        self.now: dict[tuple[str, str], float] = {}
        self.history: dict[tuple[str, str], deque] = {(n, v): deque(maxlen=3) for n, vs in self.watch.items()
                                                     for v in vs}
        self.nominal = {key: 0.0 for key in self.history}
        self.sent = {link: 0.0 for link in self.links}          # value set for the current step
        self.signal_start = {link: 0.0 for link in self.links}  # the FMU's input at the step's start
        self.inputs_of = {n: [x for x in self.links if x.dst == n] for n in self.slaves}
        self.bond_links = [(b, sim._link(b.effort), sim._link(b.flow)) for b in sim.bonds]
        self.effort_correction = {link: 0.0 for link in self.links}
        self.do_steps = 0

    # --- helpers ------------------------------------------------------------------------------------------------
    def read(self, name: str, t: float) -> None:
        values = self.slaves[name].get_real(self.vrs[name])
        for var, value in zip(self.watch[name], values):
            key = (name, var)
            self.now[key] = value
            hist = self.history[key]
            if hist and hist[-1][0] == t:
                hist[-1] = (t, value)
            else:
                hist.append((t, value))
            self.nominal[key] = max(self.nominal[key], abs(value))

    def points(self, link: Link, t_upto: float, n: int, end: tuple[float, float] | None = None) -> list:
        hist = [p for p in self.history[(link.src, link.out)] if p[0] <= t_upto]
        pts = hist[-n:] if n else []
        if end is not None:
            pts = pts[-(n - 1):] if n > 1 else []
            pts.append(end)
        return pts

    def value_for(self, link: Link, t0: float, t1: float, stepped: bool, guess: float | None = None) -> float:
        """The value to set on link.dst for [t0, t1] (see extrapolation.py)."""
        n = self.order + 1
        if guess is not None:
            pts = self.points(link, t0, n, end=(t1, guess))
        else:
            pts = self.points(link, t1 if stepped else t0, n)
        return step_value(pts, t0, t1, hold=self.sim.modes[link.dst] == 0) + self.effort_correction[link]

    def step_fmu(self, name: str, t: float, h: float, t1: float, values: dict) -> None:
        """Set the FMU's inputs, step it over [t, t1] (step size h), read its outputs as values at t1."""
        links = self.inputs_of[name]
        slave = self.slaves[name]
        slave.set_real([x.vr_in for x in links], [values[x] for x in links])
        slave.do_step(t, h)
        self.do_steps += 1
        self.read(name, t1)

    # --- the run --------------------------------------------------------------------------------------------------
    def initialize(self) -> None:
        t0 = self.times[0]
        sequential = self.init == "container"
        for name, slave in self.slaves.items():
            slave.call("fmi2SetupExperiment", lambda s=slave: s.fmu.setupExperiment(startTime=t0))
            if not sequential:
                for var, value in self.sim.parameters[name].items():
                    slave.set_start(var, value)
            slave.call("fmi2EnterInitializationMode", slave.fmu.enterInitializationMode)

        def transfer(links):
            values = [(x, self.slaves[x.src].get_real([x.vr_out])[0]) for x in links]
            for link, value in values:
                self.slaves[link.dst].set_real([link.vr_in], [value])
                self.signal_start[link] = value

        if self.init == "libcosim":
            for _ in range(len(self.slaves)):
                transfer(self.links)
            for slave in self.slaves.values():
                slave.call("fmi2ExitInitializationMode", slave.fmu.exitInitializationMode)
        else:
            done: set[str] = set()
            for name in self.sequence:
                for var, value in self.sim.parameters[name].items():
                    self.slaves[name].set_start(var, value)
                transfer([x for x in self.inputs_of[name] if x.src in done])
                self.slaves[name].call("fmi2ExitInitializationMode", self.slaves[name].fmu.exitInitializationMode)
                done.add(name)
        for name in self.slaves:
            self.read(name, t0)

    def execute(self) -> CosimResult:
        wall = _time.perf_counter()
        self.initialize()
        n = len(self.sizes)
        rec = {(a, v): np.empty(n + 1) for a, vs in self.watch.items() for v in vs}
        for key in rec:
            rec[key][0] = self.now[key]
        energy = {b.name: np.zeros(n) for b, _, _ in self.bond_links}
        evaluations = np.ones(n, dtype=int)
        jacobians = np.zeros(n, dtype=int)
        self.J = None
        for k in range(n):
            t, h = self.times[k], self.sizes[k]
            t1 = self.times[k + 1]
            before = dict(self.now)
            if self.scheme == "jacobi":
                values = {x: self.value_for(x, t, t1, stepped=False) for x in self.links}
                for name in self.slaves:
                    self.step_fmu(name, t, h, t1, values)
            elif self.scheme == "gauss-seidel":
                done: set[str] = set()
                values = {}
                for name in self.sequence:
                    for x in self.inputs_of[name]:
                        values[x] = self.value_for(x, t, t1, stepped=x.src in done)
                    self.step_fmu(name, t, h, t1, values)
                    done.add(name)
            else:
                values, evaluations[k], jacobians[k] = self.iterate(t, h, t1)
            for x in self.links:
                if self.sim.modes[x.dst] == 0:
                    self.signal_start[x] = values[x]
            for bond, e, f in self.bond_links:
                effort_out, flow_out = (e.src, e.out), (f.src, f.out)
                d_e = residual(h, (before[effort_out], self.now[effort_out]), (self.signal_start[f], values[f]),
                               (self.signal_start[e], values[e]), (before[flow_out], self.now[flow_out]))
                energy[bond.name][k] = d_e
                if bond.correct:
                    self.effort_correction[e] = correction(d_e, h, self.now[(f.src, f.out)], bond.flow_eps)
            for x in self.links:
                self.signal_start[x] = values[x]
            for key in rec:
                rec[key][k + 1] = self.now[key]
        return CosimResult(scheme=self.scheme, order=self.order, step=self.sizes[0] if n else 0.0,
                           time=np.array(self.times), values={f"{a}.{v}": arr for (a, v), arr in rec.items()},
                           energy=energy, evaluations=evaluations, jacobians=jacobians, do_steps=self.do_steps,
                           wall_time=_time.perf_counter() - wall)

    # --- iterative scheme ---------------------------------------------------------------------------------------
    def evaluate(self, u: np.ndarray, t: float, h: float, t1: float, names=None) -> dict:
        values = {x: self.value_for(x, t, t1, stepped=False, guess=u[i]) for i, x in enumerate(self.links)}
        for name in names or self.slaves:
            self.step_fmu(name, t, h, t1, values)
        return values

    def outputs(self) -> np.ndarray:
        return np.array([self.now[(x.src, x.out)] for x in self.links])

    def iterate(self, t: float, h: float, t1: float):
        links = self.links
        states = {name: s.get_state() for name, s in self.slaves.items()}
        try:
            # predictor: quadratic extrapolation of each source to t1 (lower degree at the start)
            u = np.array([lagrange(self.points(x, t, 3), t1) for x in links])
            scale = np.array([self.nominal[(x.src, x.out)] for x in links])
            n_jac = 0
            previous = math.inf
            for it in range(1, self.max_it + 1):
                if it > 1:
                    for name, s in self.slaves.items():
                        s.set_state(states[name])
                values = self.evaluate(u, t, h, t1)
                g = self.outputs()
                r = g - u
                bound = self.tol * np.maximum(np.abs(u), scale) + self.atol
                if np.all(np.abs(r) <= bound):
                    return values, it, n_jac
                size = float(np.max(np.abs(r) / bound))
                if self.J is None or size > 0.3 * previous:
                    self.J = self.jacobian(u, g, t, h, t1, states, scale)
                    n_jac += 1
                previous = size
                u = u + np.linalg.solve(self.J, r)
            raise CosimError(f"iterative coupling did not converge at t = {t:.9g} s (step {h:.6g} s) in "
                             f"{self.max_it} iterations; largest residual "
                             + ", ".join(f"{x.label}: {ri:.3g}" for x, ri in zip(links, r)))
        finally:
            for name, s in self.slaves.items():
                s.free_state(states[name])

    def jacobian(self, u, g, t, h, t1, states, scale) -> np.ndarray:
        """I - dG/du by forward differences: perturb one coupling value, restep only the FMU it feeds."""
        m = len(self.links)
        dg = np.zeros((m, m))
        for i, x in enumerate(self.links):
            delta = self.fd * max(abs(u[i]), scale[i], 1e-8)
            up = u.copy()
            up[i] += delta
            self.slaves[x.dst].set_state(states[x.dst])
            self.evaluate(up, t, h, t1, names=[x.dst])
            gp = self.outputs()
            for j, y in enumerate(self.links):
                if y.src == x.dst:
                    dg[j, i] = (gp[j] - g[j]) / delta
        return np.eye(m) - dg
