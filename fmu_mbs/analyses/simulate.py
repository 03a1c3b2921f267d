"""simulate: forward dynamics of a compiled model over a time interval, returned as a Trajectory."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..compiler import CompiledModel, compile_model
from ..errors import AnalysisError
from ..kernels.integrate_alf import SC_T
from ..model import Model, load_model
from .assembly import AssemblyResult, assemble
from .evaluate import Evaluator
from .integrators import INTEGRATORS, REPORT_KEYS, STEPPERS, integrate_reference
from .trajectory import Trajectory

_CHUNK_STEPS = 4096   # integrator steps per call into numba when rows are on the step grid


def output_times(t_start: float, t_end: float, output_step: float) -> np.ndarray:
    """t_start, t_start + output_step, ... and t_end (s); the last interval may be shorter."""
    if not t_end > t_start:
        raise AnalysisError(f"simulate: t_end ({t_end}) must be greater than t_start ({t_start})")
    if not output_step > 0.0:
        raise AnalysisError(f"simulate: output_step must be positive, got {output_step}")
    n = math.floor((t_end - t_start) / output_step * (1.0 + 1e-12))
    t = t_start + output_step * np.arange(n + 1)
    if t_end - t[-1] > 1e-9 * output_step:
        t = np.append(t, t_end)
    t[-1] = t_end
    return t


def _initial_info(cm: CompiledModel, a: AssemblyResult) -> dict[str, float]:
    ev = Evaluator(cm)
    ev.forces(a.t, a.q, a.qd)
    ev.constraints(a.t, a.q, a.qd)
    res = lambda x: float(np.max(np.abs(x), initial=0.0))  # noqa: E731
    return {"iterations": 0.0, "residual_position": res(ev.phi), "residual_velocity": res(ev.J @ a.qd - ev.nu),
            "residual_acceleration": res(ev.J @ a.qdd - ev.gamma),
            "energy_kinetic": ev.kinetic_energy(a.q, a.qd),
            "energy_potential": ev.gravity_energy(a.q) + ev.spring_energy,
            "energy_dissipated": 0.0, "energy_input": 0.0}


def _check_options(integrator: str, target: Callable, options: dict) -> None:
    """AnalysisError naming the options that ``integrator`` does not take (not a TypeError deep inside). A
    class that forwards ``**options`` to its base takes the base's options too."""
    funcs = [c.__init__ for c in target.__mro__ if "__init__" in vars(c)] if inspect.isclass(target) else [target]
    taken: list[str] = []
    for f in funcs:
        params = inspect.signature(f).parameters
        taken += [n for n, p in params.items() if n not in taken and p.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
            and n not in ("self", "cm", "step", "initial", "t_out", "progress")]
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            break
    unknown = sorted(set(options) - set(taken))
    if unknown:
        raise AnalysisError(f"simulate: integrator '{integrator}' does not take option(s) {', '.join(unknown)} "
                            f"(it takes: {', '.join(taken)})")


def simulate(cm: CompiledModel | Model | str | Path, t_end: float, step: float, integrator: str = "alf",
             progress: Callable[[float], None] | None = None, t_start: float = 0.0,
             output_step: float | None = None, initial: AssemblyResult | None = None, **options) -> Trajectory:
    """Forward dynamics from ``initial`` (default: assemble(cm, t_start)) to ``t_end`` (s) of a compiled model (or
    a Model, or the path of a model file, compiled here). The result gives the channels by name:
    ``simulate(...)["P1.r[1]"]``.

    ``step``: integrator step (s; for "reference" only the default output step); ``output_step``: spacing
    of the returned rows (default ``step``); ``progress(fraction)`` is called as the run advances;
    ``integrator``: "alf" (trapezoidal ALI3-P), "galpha" (generalized-alpha ALI3-P, option ``rho_inf`` in
    [0, 1], default 0.8), "explicit" (explicit midpoint, for contact scenes; h below the stability limit of the
    stiffest force), "variable" (error-controlled Dormand-Prince, ``rtol``, ``atol``), "alf-variable"
    (error-controlled trapezoidal ALF, also "alf" with ``rtol``; for stiff models) or "reference"; ``options`` go to
    the integrator (ALFIntegrator, GeneralizedAlphaIntegrator, ExplicitIntegrator, VariableStepIntegrator,
    ALFVariableIntegrator or integrate_reference). ``info`` holds per-row reports REPORT_KEYS:
    'iterations' (Newton iterations, or RHS evaluations, since the previous row), 'rejected' (failed step
    attempts redone with half the step, since the previous row),
    'residual_position|velocity|acceleration' (max |Phi|, |Phi_q qd - nu|, |Phi_q qdd - gamma|),
    'energy_kinetic', 'energy_potential' (gravity + springs), 'energy_dissipated' (work removed by
    dampers), 'energy_input' (work of time-function forces, loads, inputs, actuators and drivers), J.
    For a passive model kinetic + potential + dissipated - input stays constant."""
    if not isinstance(cm, CompiledModel):
        cm = compile_model(cm if isinstance(cm, Model) else load_model(cm))
    if integrator == "alf" and ("rtol" in options or "atol" in options):
        integrator = "alf-variable"      # the ALF with a tolerance: its error-controlled steps (as Adams's integrators)
    if integrator not in INTEGRATORS:
        raise AnalysisError(f"simulate: unknown integrator '{integrator}' (choose from {', '.join(INTEGRATORS)})")
    output_step = step if output_step is None else output_step
    t_out = output_times(t_start, t_end, output_step)
    initial = initial if initial is not None else assemble(cm, t=t_start)
    if abs(initial.t - t_start) > 1e-12 * max(1.0, abs(t_start)):
        raise AnalysisError(f"simulate: the initial state is at t = {initial.t} s, not t_start = {t_start} s")
    if integrator == "alf" and options.get("rho_inf", 1.0) != 1.0:
        raise AnalysisError(f"simulate: integrator 'alf' is the trapezoidal rule (rho_inf = 1); use "
                            f"integrator='galpha' for rho_inf = {options['rho_inf']}")
    target = integrate_reference if integrator == "reference" else STEPPERS[integrator]
    _check_options(integrator, target, options)
    if integrator == "reference":
        traj = integrate_reference(cm, t_out, initial, progress=progress, **options)
        traj.model = cm
        return traj

    ig = STEPPERS[integrator](cm, step, initial, **options)
    N = len(t_out)
    q, qd, qdd = (np.zeros((N, cm.n_q)) for _ in range(3))
    lam = np.zeros((N, cm.n_rows))
    z = np.zeros((N, len(ig.zs)))
    z[0] = ig.zs
    info = {k: np.zeros(N) for k in REPORT_KEYS}
    q[0], qd[0], qdd[0], lam[0] = initial.q, initial.qd, initial.qdd, initial.lam
    for k, v in _initial_info(cm, initial).items():
        info[k][0] = v

    def store(rows, rep, rq, rqd, rqdd, rlam, rz, m):
        """Rows ``rows`` from the per-step reports ``rep`` of their steps (m per row) and the recorded states:
        'iterations' and 'rejected' summed over each row's steps, the other reports of its last step."""
        q[rows], qd[rows], qdd[rows], lam[rows], z[rows] = rq, rqd, rqdd, rlam, rz
        per_row = rep.reshape(-1, m, rep.shape[1])
        for j, key in enumerate(REPORT_KEYS):
            info[key][rows] = per_row[:, -1, j]
        for key in ("iterations", "rejected"):
            info[key][rows] = per_row[:, :, REPORT_KEYS.index(key)].sum(axis=1)

    # Rows m >= 1 steps apart (all but maybe a shorter last one) are recorded in chunks of steps per call into
    # numba that keep every m-th step; the rest take one advance_to per row, as an FMU's communication steps do.
    # Both give the same numbers bit for bit: the integrators' state holds everything a step depends on (the step
    # clock, kernels.integrate_alf.step_clock, and the tangent's age), so a run does not depend on its calls.
    m = round(output_step / step)
    every = "every" in inspect.signature(ig.advance).parameters      # the variable-step integrator records per time
    chunked = 1
    if m >= 1 and abs(output_step - m * step) <= 1e-9 * step and (every or m == 1):
        regular = np.isclose(np.diff(t_out), m * step, rtol=1e-9, atol=0.0)
        chunked = N if regular.all() else N - 1 if regular[:-1].all() else 1
    i = 1
    while i < chunked:
        k = min(max(1, _CHUNK_STEPS // m), chunked - i)
        out = ig.advance(k * m, step, record=True, every=m) if every else ig.advance(k, step, record=True)
        store(slice(i, i + k), *out, m)
        i += k
        ig.sc[SC_T] = t_out[i - 1]
        if progress is not None:
            progress((i - 1) / (N - 1))
    for i in range(max(chunked, 1), N):          # rows not on the step grid (or the shorter last one)
        rep, rq, rqd, rqdd, rlam, rz = ig.advance_to(t_out[i], record=True)
        store(slice(i, i + 1), rep, rq[-1:], rqd[-1:], rqdd[-1:], rlam[-1:], rz[-1:], len(rep))
        if progress is not None:
            progress(i / (N - 1))
    scheme = f", rho_inf {ig.rho_inf:g}" if integrator == "galpha" else ""
    return Trajectory(t_out, q, qd, qdd, lam, u=np.zeros((N, cm.n_inputs)), z=z, info=info,
                      analysis=f"dynamics ({integrator}{scheme}, step {step:g} s)", model=cm)
