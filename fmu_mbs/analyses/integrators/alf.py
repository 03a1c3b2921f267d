"""ALFIntegrator: fixed-step index-3 augmented Lagrangian with mass-orthogonal projections (ALI3-P,
kernels/integrate_alf.py) on the trapezoidal rule (rho_inf = 1) or the generalized-alpha scheme
(rho_inf < 1, numerical damping of high frequencies; GeneralizedAlphaIntegrator), as an object with a
complete, saveable state.

The state is (t, q, qd, qdd, lam, u, zs (element states), accumulated energies, AL multipliers,
pseudo-accelerations a). ``advance(n)`` runs n steps in one call into numba; ``advance_to(t)`` takes equal
substeps of at most the nominal step; a step that fails (Newton diverges or does not converge, NaN, singular
matrix) is rejected and redone as two half steps, up to ``max_halvings`` times, before the error is raised;
``save()`` / ``restore()`` copy the whole state (for event handling and FMU reject/redo). The arrays
``q, qd, qdd, lam, u`` are the live state (copy them to keep them); set inputs by writing into ``u``.
"""

from __future__ import annotations

import math

import numpy as np

from ...compiler import CompiledModel
from ...compiler.families import FAMILIES, analytic_tangent_covers, has_stiff_elements, needs_after_step
from ...errors import ConvergenceError
from ...kernels import integrate_alf as K
from ...kernels import model_arrays as ma
from ...kernels.alf_loop import alf_advance
from ...kernels.contact import grown_contact_workspace
from ...kernels.solver_data import State
from ..assembly import AssemblyResult, assemble
from ..evaluate import Evaluator, check_contact_states
from ..workspace import new_options, new_state, new_work
from .pattern import pattern_for

REPORT_KEYS = ("iterations", "residual_position", "residual_velocity", "residual_acceleration",
               "energy_kinetic", "energy_potential", "energy_dissipated", "energy_input", "rejected")

_REASONS = {
    K.SINGULAR: "singular iteration matrix (M + c Phi_q^T Phi_q not positive definite, or NaN in Phi_q)",
    K.NOT_FINITE: "NaN or inf in the Newton correction",
    K.DIVERGED: "Newton diverged (corrections grow)",
    K.NOT_CONVERGED: "Newton did not converge within max_iter iterations",
}


#: why scheme 'energy' refuses rigid bodies in Euler parameters (issue 16, measured on main before the refusal)
ENERGY_SCHEME_SPATIAL = (
    "model '{model}': scheme 'energy' (the energy-consistent trapezoid) is not robust on spatial rigid bodies "
    "(Euler parameters, whose constraint rows are not quadratic): on conservative spatial mechanisms it drifts after "
    "a few seconds whatever the step (the spatial slider-crank: the acceleration-level residual grows from 2e-9 to "
    "6e-3, the energy rises by tens of joules and Newton fails at t = 9.3 s at h = 1 ms, 8.4 s at 0.1 ms; a 4-link "
    "spatial chain at 6.25 s); it is exact for quadratic rows (planar models, point masses). Use scheme 'ali3p' (the "
    "default) or the error-controlled integrator 'variable'")


def nonconservative(cm: CompiledModel) -> bool:
    """True if some element family of the model does work that is not elastic (the energy split has work to do)."""
    return any(f.nonconservative(getattr(cm.arrays, f.key)) for f in FAMILIES)


MODAL_TANGENT_EVERY = 20     # steps between tangent refreshes on a model with a modal body (default_tangent_every)


def default_tangent_every(cm: CompiledModel, pattern) -> int:
    """Steps between refreshes of the finite-difference force tangent when the user sets none. 1 (every step),
    except where a refresh is expensive and a tangent a few steps old still converges (Newton stalling or a failed
    step refreshes it anyway, so the converged steps are those of a fresh tangent to within the Newton tolerance):

    - 10 for a large contact scene whose colours follow the contacts (a refresh costs 14 x colours force
      evaluations);
    - MODAL_TANGENT_EVERY for a model with a modal body: its reference and modal coordinates are all coupled
      through the mass matrix and quadratic velocity vector, one colour each, so a refresh is ~20 force
      evaluations, ~300 us of a ~380 us step on the flexible slider-crank; kept 20 steps, the same runs take a
      fifth of the CPU with the same errors (bench/exudyn_flexible.py, docs/performance.md)."""
    if pattern.dynamic_colors:
        return 10
    if np.any(cm.arrays.body_kind == ma.MODAL):
        return MODAL_TANGENT_EVERY
    return 1


class ALFIntegrator:
    """Fixed-step ALI3-P integrator of one compiled model (seed 000 ch. 8.5; Bayo & Ledesma 1996), on the
    trapezoidal rule or, with ``rho_inf`` < 1, the generalized-alpha scheme (Arnold & Bruels 2007).

    Options: ``penalty`` (c = penalty x largest diagonal of M, default 1e7 as seed 000 eq. 5.37),
    ``tol`` (Newton convergence, max |dq|, m or rad; the last correction is applied, so results hardly
    depend on it: 1e-8 and 1e-12 agree to 3 digits on the test models; the velocity-constraint residual
    grows as tol x speed / length), ``accept_tol`` (a step that reaches ``max_iter``
    is accepted if its last correction is below this, else it fails), ``max_iter`` (Newton
    iterations per step = residual evaluations and factorisations, >= 2: the last one checks convergence
    and its factorisation serves the projections; a converging step normally takes 2),
    ``tangent`` ("auto": add the force tangent (stiffness and damping) when the model has springs, dampers, beams
    or bushings; "full": always; "fd": always, by finite differences; "constraints": never; the tangent is the
    families' closed form when it covers the model, compiler.families.analytic_tangent_covers, else finite
    differences), ``pivot_tol``, ``fd_eps``,
    ``rho_inf`` (spectral radius of the step's amplification at infinite frequency, in [0, 1]: 1 = the
    trapezoidal rule, no numerical damping; 0 = high frequencies removed in one step), ``max_halvings`` (a
    failed step is redone as two half steps, recursively, up to this many times; 0 = raise at once),
    ``scheme`` ("ali3p": the book's scheme, constraint forces at the step's ends and mass-orthogonal velocity and
    acceleration projections fed back into the step; "energy": the energy-consistent trapezoid, constraint
    impulse on the chord gradient, exact energy for quadratic rows such as distance joints of point masses, the
    projections only for the reported qd, qdd, lam; trapezoidal rule only, see kernels/integrate_alf.py);
    ``tangent_every`` (refresh the finite-difference tangent at every k-th step's predictor, and whenever Newton
    stalls or a step fails; default: see ``default_tangent_every``); ``energy_balance`` (False:
    skip the per-step energy split, three to four force evaluations per step on models with dampers, friction,
    contact or inputs; 'energy_dissipated' and 'energy_input' are then NaN); ``accept_first`` (True: a step whose
    first correction is already below ``tol`` ends there, without the evaluation that checks it; about half the
    work of a step where the predictor is within tol, as on smooth motion at small steps; Newton leaves about
    rho x tol, rho its contraction; not with scheme "energy"); ``project_accelerations`` (False: the
    accelerations stay the scheme's, not projected onto the constraints, and the multipliers are the augmented
    Lagrangian ones, both first order in h; positions and velocities stay second order; a solve less per step, and
    with energy_balance False no evaluation of the end state either (~25 % of a smooth step at one Newton
    iteration); the reported residuals are then the last iteration's; not with scheme "energy")."""

    name = "alf"
    label = "ALF"
    reasons = _REASONS

    def __init__(self, cm: CompiledModel, step: float, initial: AssemblyResult | None = None, *,
                 penalty: float = 1e7, tol: float = 1e-9, accept_tol: float = 1e-6, max_iter: int = 10,
                 tangent: str = "auto", pivot_tol: float = 1e-13, fd_eps: float = 1e-7, rho_inf: float = 1.0,
                 max_halvings: int = 4, scheme: str = "ali3p", tangent_every: int | None = None,
                 energy_balance: bool = True, accept_first: bool = False, project_accelerations: bool = True):
        if not step > 0.0:
            raise ValueError(f"{self.label} step must be positive, got {step!r}")
        if int(max_iter) < 2:
            raise ValueError(f"max_iter must be at least 2 (a correction and the converged evaluation), got {max_iter}")
        if tangent not in ("auto", "full", "fd", "constraints"):
            raise ValueError(f"tangent must be 'auto', 'full', 'fd' or 'constraints', got {tangent!r}")
        try:
            rho = float(rho_inf)
        except (TypeError, ValueError):
            rho = math.nan
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"rho_inf (spectral radius at infinity) must be in [0, 1], got {rho_inf!r}")
        if scheme not in ("ali3p", "energy"):
            raise ValueError(f"scheme must be 'ali3p' or 'energy', got {scheme!r}")
        if scheme == "energy" and rho != 1.0:
            raise ValueError(f"scheme 'energy' is the energy-consistent trapezoidal rule (rho_inf = 1), got rho_inf "
                             f"= {rho_inf!r}")
        if scheme == "energy" and not project_accelerations:
            raise ValueError("project_accelerations=False does not apply to scheme 'energy' (its step does not read "
                             "the accelerations back; the reported ones are computed at the end state)")
        if int(max_halvings) != max_halvings or max_halvings < 0:
            raise ValueError(f"max_halvings must be a non-negative integer, got {max_halvings!r}")
        if scheme == "energy" and np.any(cm.arrays.body_kind == ma.RIGID):
            raise ValueError(ENERGY_SCHEME_SPATIAL.format(model=cm.model.name))
        self.cm = cm
        self.step = float(step)
        self.rho_inf = rho
        self.scheme = scheme
        self.max_halvings = int(max_halvings)
        initial = initial if initial is not None else assemble(cm)
        n = cm.n_q
        self.use_fd = tangent in ("full", "fd") or (tangent == "auto" and has_stiff_elements(cm.arrays))
        self.analytic_tangent = self.use_fd and tangent != "fd" and analytic_tangent_covers(cm.arrays)
        self.pattern = pattern_for(cm, self.use_fd)
        ev = Evaluator(cm)
        self.m_ref = float(np.max(np.diag(ev.mass(initial.q)))) if n else 1.0
        self.penalty = float(penalty)
        every = default_tangent_every(cm, self.pattern) if tangent_every is None else int(tangent_every)
        if every < 1:
            raise ValueError(f"tangent_every must be a positive integer, got {tangent_every!r}")
        self.opt = new_options(c=self.penalty * self.m_ref, tol=tol, accept_tol=accept_tol, max_iter=max_iter,
                               use_fd=self.use_fd, noncons=nonconservative(cm), pivot=pivot_tol, fd_eps=fd_eps,
                               rho=self.rho_inf, energy=scheme == "energy", dyn_colors=self.pattern.dynamic_colors,
                               fd_every=every, energy_balance=bool(energy_balance),
                               accept_first=bool(accept_first) and scheme != "energy",
                               analytic_tangent=self.analytic_tangent,
                               project_acc=bool(project_accelerations))
        self._kernel = alf_advance
        # state (the arrays q, qd, qdd, lam, u, zs are the live state: the kernel writes them in place)
        self.state = new_state(cm, initial.t, initial.q, initial.qd, initial.qdd, initial.lam)
        if needs_after_step(cm.arrays):        # after-step hooks at the initial solve (passive cylinders)
            ev.forces(initial.t, initial.q, initial.qd)
            ev.after_step(initial.q, initial.qdd)
            self.state.zs[:] = ev.zs
        st = self.state
        st.sc[K.SC_T0], st.sc[K.SC_H] = initial.t, self.step      # the step clock (integrate_alf.step_clock)
        self.sc, self.q, self.qd, self.qdd, self.lam, self.u, self.zs = st.sc, st.q, st.qd, st.qdd, st.lam, st.u, st.zs
        self.lam_star, self.acc, self.vt, self.at, self.gc = st.lam_star, st.acc, st.vt, st.at, st.gc
        # workspace, allocated once
        self._ws = new_work(cm, self.pattern.size, len(self.pattern.adj_idx) if self.use_fd else 1)
        self._pat = self.pattern.arrays()
        self._empty = (np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, cm.n_rows)),
                       np.zeros((0, len(cm.arrays.z0))))
        self.last_report = np.zeros((0, K.N_REP))

    # --- state -------------------------------------------------------------------------------------
    @property
    def t(self) -> float:
        return float(self.sc[K.SC_T])

    @property
    def energy_dissipated(self) -> float:
        """Work removed by dampers since the start (J)."""
        return float(self.sc[K.SC_W_DISS])

    @property
    def energy_input(self) -> float:
        """Work of time-function forces, loads, inputs, actuators and drivers since the start (J)."""
        return float(self.sc[K.SC_W_IN])

    def save(self, keep_tangent: bool = False) -> State:
        """A copy of the complete state (a State of arrays; restore it with ``restore``). The next step refreshes the
        finite-difference tangent (workspace, not state), so that a run from the saved state and its replay after
        ``restore`` are the same bit for bit also when the tangent is kept over several steps (tangent_every > 1).
        ``keep_tangent``: leave the refresh schedule as it is (a rollback snapshot that is restored only on failure:
        ``restore`` refreshes; the FMU's one-call step keeps its schedule the same way)."""
        if not keep_tangent:
            self.sc[K.SC_FD_AGE] = 0.0
        return State(*(a.copy() for a in self.state))

    def restore(self, saved) -> None:
        """Put back a state from ``save`` (in place: the live arrays keep their identity)."""
        if len(saved) != len(self.state):
            raise ValueError(f"{self.label} integrator: a saved state has {len(self.state)} arrays, got {len(saved)}")
        for name, dst, src in zip(State._fields, self.state, saved):
            if np.shape(src) != dst.shape:
                raise ValueError(f"{self.label} integrator: saved state array '{name}' has shape {np.shape(src)}, "
                                 f"expected {dst.shape}")
            np.copyto(dst, src)
        self.sc[K.SC_FD_AGE] = 0.0          # refresh the tangent at the next step (see save)

    # --- stepping ------------------------------------------------------------------------------------
    def advance(self, n_steps: int, h: float | None = None, record: bool = False, every: int = 1):
        """Take ``n_steps`` steps of size ``h`` (default: the nominal step). Returns the per-step reports
        (n_steps, 9: REPORT_KEYS) and, with ``record``, also (q, qd, qdd, lam, z) after every ``every``-th step
        (n_steps // every rows; z: element states), all in one call into numba. The steps and their numbers do not
        depend on how a run is split into calls, nor on round-off of h against the grid's step
        (kernels.integrate_alf.step_clock).

        A step that fails is rejected and redone as two steps of half the size (each of them again, up to
        ``max_halvings`` levels); the next step has the size h again. The step's report row is that of its
        last substep, with 'iterations' summed over the accepted substeps and 'rejected' the number of
        rejected attempts. If the smallest substep fails too, ConvergenceError says when and why; the state
        is then left at the last accepted (sub)step."""
        h = self.step if h is None else float(h)
        n_steps = int(n_steps)
        every = int(every)
        if every < 1 or n_steps % every:
            raise ValueError(f"{self.label} integrator: {n_steps} steps cannot be recorded every {every} steps")
        rep = np.zeros((n_steps, K.N_REP))
        n_rec = n_steps // every if record else 0
        rec = (np.zeros((n_rec, self.cm.n_q)), np.zeros((n_rec, self.cm.n_q)), np.zeros((n_rec, self.cm.n_q)),
               np.zeros((n_rec, self.cm.n_rows)), np.zeros((n_rec, len(self.zs))))
        i = 0
        try:
            while True:          # one call into numba for the whole run, more after a redone step
                # a call records every ``every``-th of its steps (kernel record_row): after a redone step the
                # next call runs to the next recorded step first, so that the rows stay on every ``every``-th step
                k = n_steps - i if i % every == 0 else every - i % every
                r0 = i // every
                rows = (rep[i:i + k], *(r[r0:r0 + (k + every - 1) // every if record else 0] for r in rec))
                status, done, err = self._kernel(self.cm.arrays, self._pat, self.state, self._ws, self.opt, k, h,
                                                 *rows)
                i += done
                if status == K.OK:
                    if i >= n_steps:
                        break
                    continue
                if self._contact_buffers(status):
                    continue
                self._redo(h, status, err, rep[i], 0)
                i += 1
                if record and i % every == 0:
                    for r, x in zip(rec, (self.q, self.qd, self.qdd, self.lam, self.zs)):
                        r[i // every - 1] = x
                if i >= n_steps:
                    break
        finally:
            self.last_report = rep[:i]
        return (rep, *rec) if record else rep

    def _contact_buffers(self, status: int) -> bool:
        """True if a step failed on a too short contact pair buffer (grown here: redo the step); raises if the
        contact state table is full."""
        if status == K.CONTACT_STATES:
            check_contact_states(self.cm, self._ws.cw)
        if status != K.CONTACT_PAIRS:
            return False
        self._ws = self._ws._replace(cw=grown_contact_workspace(self._ws.cw))
        return True

    def _redo(self, h: float, status: int, err: float, row: np.ndarray, level: int) -> None:
        """The step of size h from the current state failed (status, err): count it in ``row``, and take it
        as two steps of h/2 (each one redone the same way on failure), writing their report into ``row``."""
        sc = self.sc
        clock = sc[K.SC_T0], sc[K.SC_K], sc[K.SC_H]     # the step's clock (kernel step_clock), at its start
        h = float(clock[2])          # the size the kernel took (the clock's, where h was it to round-off)
        row[K.REP_REJECTED] += 1.0
        if level >= self.max_halvings:
            self._raise(status, h, err, level)
        sc[K.SC_FD_AGE] = 0.0                          # a fresh tangent for the half steps
        iterations = row[K.REP_ITER]
        rejected = row[K.REP_REJECTED]
        sub = np.zeros((1, K.N_REP))
        for _half in range(2):
            sub[0] = 0.0
            while True:
                status, _, err = self._kernel(self.cm.arrays, self._pat, self.state, self._ws, self.opt, 1,
                                              0.5 * h, sub, *self._empty)
                if not self._contact_buffers(status):
                    break
            if status != K.OK:
                self._redo(0.5 * h, status, err, sub[0], level + 1)
            iterations += sub[0, K.REP_ITER]
            rejected += sub[0, K.REP_REJECTED]
        row[:] = sub[0]
        row[K.REP_ITER] = iterations
        row[K.REP_REJECTED] = rejected
        # the clock goes on where the step would have ended: the redone step is one step of its grid, as in a run
        # split at another place (the half steps ran on a grid of their own)
        sc[K.SC_T0], sc[K.SC_K], sc[K.SC_H] = clock[0], clock[1] + 1.0, clock[2]
        sc[K.SC_T] = clock[0] + (clock[1] + 1.0) * clock[2]
        sc[K.SC_FD_AGE] = 0.0

    def advance_to(self, t_target: float, record: bool = False):
        """Advance to ``t_target`` in equal substeps of at most the nominal step; t ends exactly at t_target."""
        span = t_target - self.t
        if span <= 0.0:
            if span < -1e-12 * max(1.0, abs(t_target)):
                raise ValueError(f"cannot advance backwards from t = {self.t:.9g} s to {t_target:.9g} s")
            return self.advance(0, self.step, record)
        n = max(1, math.ceil(span / self.step * (1.0 - 1e-9)))   # a substep may exceed h by 1e-9 h
        # a target on the step grid to round-off takes n nominal steps (kernel step_clock), whatever the caller's
        # round-off in t_target; t ends at t_target
        out = self.advance(n, span / n, record)
        self.sc[K.SC_T] = t_target
        return out

    @property
    def rejected(self) -> int:
        """Rejected step attempts in the last ``advance`` / ``advance_to``."""
        return int(self.last_report[:, K.REP_REJECTED].sum())

    def _detail(self, status: int, err: float) -> str:
        """What the kernel's failure value ``err`` says about the failing step."""
        names = self.cm.q_names
        if status == K.SINGULAR:
            coord = int(np.argsort(self.pattern.pos)[int(err)])
            return (f"no mass and no constraint stiffness on coordinate {names[coord]} (a massless or "
                    f"inertia-free body that the joints do not hold)")
        dq = self._ws.dq
        worst = int(np.argmax(np.abs(np.nan_to_num(dq, nan=np.inf)))) if len(dq) else -1
        return f"max |dq| = {err:.3g}" + (f", largest correction on {names[worst]}" if worst >= 0 else "")

    def _raise(self, status: int, h: float, err: float, halvings: int = 0) -> None:
        redone = f", after {halvings} halving(s) of the step {h * 2 ** halvings:.3g} s" if halvings else ""
        raise ConvergenceError(
            f"model '{self.cm.model.name}': {self.label} integrator failed at t = {self.t + h:.9g} s (step {h:.3g} s"
            f"{redone}): {self.reasons.get(status, 'unknown failure')} ({self._detail(status, err)}); reduce the "
            f"step or check the model")


class GeneralizedAlphaIntegrator(ALFIntegrator):
    """The ALI3-P integrator on the generalized-alpha scheme (Arnold & Bruels, Multibody Syst. Dyn. 18:185-202,
    2007; Chung & Hulbert 1993): second order, with numerical damping set by ``rho_inf`` in [0, 1] (default
    0.8: frequencies with omega h >> 1 lose 20 % of their amplitude per step, those with omega h << 1 almost
    nothing). Same options as ALFIntegrator; ``rho_inf = 1`` is the trapezoidal ALF."""

    name = "galpha"
    label = "generalized-alpha"

    def __init__(self, cm: CompiledModel, step: float, initial: AssemblyResult | None = None, *,
                 rho_inf: float = 0.8, **options):
        super().__init__(cm, step, initial, rho_inf=rho_inf, **options)
