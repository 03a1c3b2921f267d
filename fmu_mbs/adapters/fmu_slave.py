"""MbsSlave: the one generic pythonfmu slave behind every fmu-mbs FMU (FMI 2.0 co-simulation).

It reads ``model.json`` from the FMU resources, registers the variables named by ``model/names.py`` (the same
names as the CSV columns), and integrates with the ALF integrator (or its generalized-alpha form, or the explicit
midpoint rule) in substeps of at most ``solver.h``; a substep that fails is redone as two half steps, up to 4 times
(explicit: 2), before the communication step is discarded.

- The declared interface (model/fmu_interface.py): outputs are the model's ``fmu_outputs`` (default: a default set
  per element), marker inputs exist only at markers whose ``port`` is true.
- Inputs (``<actuator>.f``, ``<marker>.F[1..3]``, ``<marker>.T[1..3]``) are **held** over a communication step
  (``solver.input_interpolation = 0``, default) or ramped **linearly** from their value at the previous
  communication point to the value set for this step (``= 1``; each substep uses the value at its end).
- A driver whose function is ``external`` takes its coordinate, rate and acceleration as inputs ``<d>.s``,
  ``<d>.sd``, ``<d>.sdd`` at each communication point and follows s + sd dt + sdd dt^2/2 over the step.
- Parameters (fixed, set before initialization): ``g[k]``, ``solver.h`` (s), ``solver.tolerance`` (Newton
  tolerance, m or rad), ``solver.penalty`` (penalty factor), ``solver.integrator`` (0 = ALF, trapezoidal rule;
  1 = generalized-alpha; 2 = explicit midpoint, for contact scenes, h below its stability limit; 3 = error-controlled
  variable steps, ``solver.rtol`` and ``solver.atol`` (0: = rtol), smooth models without element states),
  ``solver.rho_inf`` (its spectral radius at infinity, in [0, 1], default 0.8),
  ``solver.scheme`` (trapezoidal rule only: 0 = the book's ALI3-P with projections, 1 = energy-consistent),
  ``solver.input_interpolation``, ``solver.accept_first`` and ``solver.tangent_every`` (Newton's shortcuts of the
  ALF and generalized-alpha steps; adapters/fmu_solver.py declares them all), and the model values listed in the
  model's ``exposed`` field
  (``<element>.<field>``; ``<joint>.s_start`` assembles the model with that joint coordinate held).
- FMU state get/set/serialize captures the complete solver state (integrator state, the variable-step size
  controller, inputs, outputs and the output evaluator's turn counters), so restore-and-replay is bit-identical.
- ``energy.dissipated`` and ``energy.input`` are the integrator's energy sums (J, accumulated over the substeps as
  in the library's runs); they live in the integrator's state, so a restored state carries them.
- A communication step of the ALF or generalized-alpha integrator with held inputs is one call into numba
  (adapters/fmu_fast_step.py, kernels/comm_step.py): snapshot, input check, substeps and every output channel;
  the general path below takes over, with the same numbers, whenever that call declines a step.
- Any failure in a step (divergence, singular matrix, NaN input) is written to the FMI log with its reason and
  traceback, the state goes back to the start of the step, and doStep returns fmi2Discard; it never crashes
  the host. pythonfmu 0.7.0 turns every Python exception into fmi2Fatal and frees the instance, and ignores the
  result of exitInitializationMode, so no method here raises: a failed initialization (bad parameter, model
  that cannot be assembled) is logged at error level with its reason, and every later doStep returns
  fmi2Discard with the same reason.
"""

from __future__ import annotations

import hashlib
import math
import traceback
import uuid
from pathlib import Path
from xml.etree.ElementTree import Element, SubElement

import numpy as np
from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability
from pythonfmu.default_experiment import DefaultExperiment
from pythonfmu.enums import Fmi2Status

from ..analyses.assembly import assemble
from ..analyses.channels import ChannelEvaluator
from ..analyses.joint_starts import JointStarts
from ..compiler import compile_model
from ..compiler.initial_values import initial_joint_coordinate
from ..errors import FmuMbsError
from ..model import ModelBuilder, load_model
from ..model.elements import EXPOSED_UNITS, ModalBody
from ..model.fmu_interface import fmu_inputs, fmu_outputs
from ..model.functions import External
from ..model.names import UNITS, channels, driver_input_channels, input_channels
from . import fmu_state
from .fmu_fast_step import FastStep
from .fmu_solver import make_integrator, register_solver_parameters, set_solver_defaults, solver_problems
from .fmu_variables import ENUMERATIONS, UnitReal

DEFAULT_STOP, DEFAULT_STEP = 10.0, 0.01   # DefaultExperiment (s): communication steps of 10 solver.h

#: references to the FMU entry scripts' module dicts (see the KEEPALIVE note in adapters/fmu_build.py)
KEEPALIVE: list = []


def _assembled(cm, t: float) -> tuple[np.ndarray, np.ndarray]:
    """Assembled initial positions and velocities of a compiled model."""
    res = assemble(cm, t=t)
    return res.q, res.qd


class MbsSlave(Fmi2Slave):
    """Generic co-simulation slave of an fmu-mbs model (see the module docstring)."""

    author = "fmu-mbs"
    MODEL_FILE = "model.json"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        path = Path(self.resources or ".") / self.MODEL_FILE
        text = path.read_text(encoding="utf-8")
        self.model = load_model(path)
        modal = [b for b in self.model.bodies if isinstance(b, ModalBody)]
        if modal:
            self._use_stored_modes(modal)
        self.description = self.model.description or f"fmu-mbs model {self.model.name}"
        self.guid = uuid.uuid5(uuid.NAMESPACE_URL, "fmu-mbs:" + __name__.split(".")[0] + ":"
                               + hashlib.sha1(text.encode()).hexdigest())
        #: identifies this model and library build in serialized states
        self.state_id = hashlib.sha256(f"{self.guid}:{__name__}".encode()).digest()[:16]
        self.default_experiment = DefaultExperiment(start_time=0.0, stop_time=DEFAULT_STOP, step_size=DEFAULT_STEP)
        dim = self.model.dimension
        self.gravity = np.array(list(self.model.gravity), dtype=float)
        set_solver_defaults(self)
        self.t_start = 0.0
        self._outputs = channels(self.model)
        self._inputs = input_channels(self.model)
        self.y = np.zeros(len(self._outputs))
        self.u_set = np.zeros(len(self._inputs))     # values the master set for the coming step
        self.u_prev = np.zeros(len(self._inputs))    # values at the previous communication point
        self._driver_inputs = driver_input_channels(self.model)
        self.d_set = np.zeros(len(self._driver_inputs))   # (s, sd, sdd) of each external driver
        for k, d in enumerate(x for x in self.model.drivers if isinstance(x.function, External)):
            self.d_set[3 * k] = d.function.initial
        self.integ = None
        self.chan = None
        self._fast: FastStep | None | bool = None   # the one-call step (None: to build; False: not applicable)
        self._units: dict[str, str] = {}
        self._init_error: str | None = None

        def real(name, unit, getter, setter=None, **kw):
            self._units[name] = unit
            self.register_variable(UnitReal(name, unit=unit, getter=getter, setter=setter, **kw), nested=False)

        par = dict(causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed)
        for k in range(dim):
            real(f"g[{k + 1}]", "m/s2", lambda k=k: self.gravity[k], lambda v, k=k: self.gravity.__setitem__(k, v),
                 description=f"gravity component {k + 1}", **par)
        register_solver_parameters(self, real)
        self.exposed = self._exposed_defaults()
        for entry in self.model.exposed:
            element, field = entry.split(".")
            el = self.model.element(element)
            if field in ("s_start", "sd_start"):
                unit = ("rad" if el.type == "revolute" else "m") + ("/s" if field == "sd_start" else "")
            else:
                unit = EXPOSED_UNITS.get((field, type(el)), EXPOSED_UNITS.get(field, "1"))
            real(entry, unit, lambda e=entry: self.exposed[e], lambda v, e=entry: self.exposed.__setitem__(e, float(v)),
                 description=f"{field} of {type(el).__name__} '{element}'", **par)
        for k in fmu_inputs(self.model):    # the declared interface (model/fmu_interface.py); the others stay 0
            c = self._inputs[k]
            real(c.name, c.unit, lambda k=k: self.u_set[k], lambda v, k=k: self.u_set.__setitem__(k, v),
                 causality=Fmi2Causality.input, variability=Fmi2Variability.continuous, description=c.description)
        for k, c in enumerate(self._driver_inputs):
            real(c.name, c.unit, lambda k=k: self.d_set[k], lambda v, k=k: self.d_set.__setitem__(k, v),
                 causality=Fmi2Causality.input, variability=Fmi2Variability.continuous,
                 description=f"prescribed {c.quantity} of driver '{c.element}'")
        #: position in ``u_set`` of each declared input (the FMU binary's step lane writes there)
        self.input_index: dict[str, int] = {self._inputs[k].name: k for k in fmu_inputs(self.model)}
        #: position in ``y`` (every channel is computed) of each declared output
        self.output_index: dict[str, int] = {}
        for k in fmu_outputs(self.model):
            c = self._outputs[k]
            self.output_index[c.name] = k
            real(c.name, c.unit, lambda k=k: self.y[k], causality=Fmi2Causality.output,
                 variability=Fmi2Variability.continuous, description=c.description)

    def _use_stored_modes(self, bodies: list[ModalBody]) -> None:
        """The modal bodies' mode data computed at build time (model/modal_data.py; none in an older FMU)."""
        from ..model.modal_data import STORED_FILE, use_stored_file

        stored = Path(self.resources or ".") / STORED_FILE
        note = use_stored_file(stored, bodies) if stored.is_file() else None
        if note:
            self.log(f"fmu-mbs: the stored mode data is not used ({note}); the modes are computed",
                     Fmi2Status.warning)

    def _exposed_defaults(self) -> dict[str, float]:
        values = {}
        cm = None
        for entry in self.model.exposed:
            element, field = entry.split(".")
            joint = self.model.element(element)
            if field == "s_start":
                cm = cm or compile_model(self.model)
                values[entry] = joint.s_start if joint.s_start is not None else initial_joint_coordinate(cm, element)
            elif field == "sd_start":         # the joint's rate at the assembled initial state unless given
                cm = cm or compile_model(self.model)
                values[entry] = joint.sd_start if joint.sd_start is not None else \
                    float(JointStarts(cm).rates(self.t_start, *_assembled(cm, self.t_start), [element])[0])
            else:
                values[entry] = float(getattr(self.model.element(element), field))
        return values

    def _model_with_parameters(self):
        """(model with the exposed values set, {joint: initial coordinate}); validated again (ModelError)."""
        b = ModelBuilder.from_model(self.model)
        holds = {}
        for entry, value in self.exposed.items():
            element, field = entry.split(".")
            if field == "s_start":
                holds[element] = value
            else:
                b.set_value(element, field, value)
        return b.build(), holds

    def _set_driver_polynomials(self, t0: float) -> None:
        """Coefficients (in absolute time) of s(t) = s + sd (t - t0) + sdd (t - t0)^2 / 2 for external drivers."""
        par = self._fn_par      # the writable buffer under the kernels' read-only view
        for k, adr in enumerate(self.cm.external_drivers.values()):
            s0, sd, sdd = self.d_set[3 * k:3 * k + 3]
            par[adr:adr + 3] = (s0 - sd * t0 + 0.5 * sdd * t0 * t0, sd - sdd * t0, 0.5 * sdd)

    def _initial_state(self, model, holds: dict[str, float]):
        """Compiled model and its assembled initial state, with the joints of ``holds`` held at their values."""
        cm = compile_model(model)
        if cm.external_drivers:   # their coefficients change at every communication point
            # written through a writable buffer; the kernels keep a read-only view of it, the array type they were
            # compiled (and shipped) for: a writable array is another numba type and would compile every kernel again
            self._fn_par = np.array(cm.arrays.fn_par)
            view = self._fn_par.view()
            view.flags.writeable = False
            cm.arrays = cm.arrays._replace(fn_par=view)
        else:
            self._fn_par = cm.arrays.fn_par
        self.cm = cm
        self._set_driver_polynomials(self.t_start)
        q = None
        if holds:
            b = ModelBuilder.from_model(model)
            for joint, value in holds.items():
                b.set_value(joint, "s_start", None)      # the driver holds the coordinate; sd_start applies below
                b.set_value(joint, "sd_start", None)
                b.add_driver(f"__s_start_{joint}", joint, value)
            held = compile_model(b.build())
            q = assemble(held, t=self.t_start).q
        self.chan = ChannelEvaluator(cm)
        self.chan.ev.u[:] = self.u_set
        return cm, assemble(cm, t=self.t_start, q=q, evaluator=self.chan.ev)

    # --- FMI calls ----------------------------------------------------------------------------------
    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self.t_start = float(start_time)

    def exit_initialization_mode(self):
        try:
            self._init_error = None
            self._initialize()
        except Exception as exc:
            self.integ = None
            self._init_error = f"initialization failed: {exc}"
            self._log_failure("initialization", exc)

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self._init_error is not None:
            self.log(f"doStep(t = {current_time:.9g} s) refused: {self._init_error}", Fmi2Status.error)
            return False
        t, H = float(current_time), float(step_size)
        fast = self._fast if self._fast is not None else self._build_fast()
        return self._continue_step(fast, fast.run(t, H) if fast else None, t, H)

    def resume_step(self, current_time: float, step_size: float, code: int) -> bool:
        """doStep after the FMU binary's step lane ran this instance's one-call step kernel (adapters/step_lane.py),
        which returned ``code`` (not 0): as do_step from there."""
        fast = self._fast
        if not fast:
            raise RuntimeError("the step lane ran without a one-call step (internal error)")
        fast.declined(code)
        return self._continue_step(fast, code, float(current_time), float(step_size))

    def _continue_step(self, fast: FastStep | bool, code: int | None, t: float, H: float) -> bool:
        """The rest of do_step once the one-call step returned ``code`` (None: not taken or not applicable)."""
        if fast:
            if code == 0:
                if self.chan.has_modal:   # modal channels: fill and gather them (planar angles: the kernel)
                    self.chan.finish_modal(self.integ.state.q, self.integ.state.qd)
                    np.add(self.chan._raw[self.chan._plan], 0.0, out=self.y)
                if not fast.has_prev:     # the unwrap memory is valid from now on: the kernel must know it
                    self.chan._has_prev = True
                    self._fast = None
                return True
            self._fast = None             # the general path below may replace arrays (contact buffers)
            if code is None and H > fast.capacity * self.h:
                self._fast_substeps = math.ceil(H / self.h) + 1
        saved = self._get_fmu_state(rollback=True)
        try:
            self._step(t, H)
            return True
        except Exception as exc:
            self._set_fmu_state(saved)
            self._log_failure(f"doStep(t = {t:.9g} s, h = {H:.6g} s)", exc)
            return False

    def _build_fast(self) -> FastStep | bool:
        """The one-call step of this instance (adapters/fmu_fast_step.py), or False where it does not apply."""
        if self.integ is None:
            return False
        self._fast = FastStep.build(self, getattr(self, "_fast_substeps", 0)) or False
        return self._fast

    # --- work ------------------------------------------------------------------------------------------
    def _check_parameters(self) -> None:
        problems = solver_problems(self)
        if not np.all(np.isfinite(self.gravity)):
            problems.append(f"gravity g must be finite, got {self.gravity.tolist()}")
        if problems:
            raise FmuMbsError(f"model '{self.model.name}': invalid parameter(s): " + "; ".join(problems))

    def _check_inputs(self, t: float) -> None:
        bad = [self._inputs[k].name for k in np.flatnonzero(~np.isfinite(self.u_set))]
        bad += [self._driver_inputs[k].name for k in np.flatnonzero(~np.isfinite(self.d_set))]
        if bad:
            raise FmuMbsError(f"model '{self.model.name}': input(s) {', '.join(bad)} not finite at t = {t:.9g} s")

    def _initialize(self) -> None:
        self._fast = None
        self._check_parameters()
        self._check_inputs(self.t_start)
        b = ModelBuilder.from_model(self.model)
        b.gravity = tuple(float(g) for g in self.gravity)
        self.model = b.build()
        model, holds = self._model_with_parameters()
        cm, initial = self._initial_state(model, holds)
        self.cm = cm
        self.integ = make_integrator(self, cm, initial)
        self.integ.u[:] = self.u_set
        self.u_prev[:] = self.u_set
        self._update_outputs(0.0, 0.0)

    def _step(self, t: float, H: float) -> None:
        if self.integ is None:
            raise FmuMbsError(f"model '{self.model.name}': doStep before exitInitializationMode")
        if abs(t - self.integ.t) > 1e-9 * max(1.0, abs(t)):
            raise FmuMbsError(f"model '{self.model.name}': doStep at t = {t:.12g} s, but the FMU is at "
                              f"t = {self.integ.t:.12g} s (restore a state to go back)")
        if not (math.isfinite(H) and H >= 0.0):
            raise FmuMbsError(f"model '{self.model.name}': communication step must be >= 0, got {H}")
        self._check_inputs(t)
        self._set_driver_polynomials(t)
        integ = self.integ
        if self.input_interpolation == 0 or H == 0.0:
            integ.u[:] = self.u_set
            integ.advance_to(t + H)
            rejected = integ.rejected
        else:
            n = max(1, math.ceil(H / self.h * (1.0 - 1e-12)))
            rejected = 0
            for k in range(1, n + 1):
                integ.u[:] = self.u_prev + (self.u_set - self.u_prev) * (k / n)
                integ.advance(1, H / n)
                rejected += integ.rejected
            integ.sc[0] = t + H  # the integrator's clock, exactly at the communication point
        if rejected:
            self.log(f"doStep(t = {t:.9g} s, h = {H:.6g} s): {rejected} failed substep attempt(s) redone with "
                     f"halved steps")
        self.u_prev[:] = self.u_set
        rep = integ.last_report
        self._update_outputs(float(rep[-1, 0]) if len(rep) else 0.0, float(rep[-1, 1]) if len(rep) else 0.0)

    def _update_outputs(self, iterations: float, residual: float) -> None:
        i = self.integ
        self.y[:] = self.chan(i.t, i.q, i.qd, i.qdd, i.lam, u=i.u, iterations=iterations, residual=residual,
                               z=i.zs, dissipated=i.energy_dissipated, energy_input=i.energy_input)

    def _log_failure(self, where: str, exc: BaseException) -> None:
        self.log(f"{where} failed: {exc}\n{''.join(traceback.format_exception(exc))}", Fmi2Status.error)

    # --- state ----------------------------------------------------------------------------------------
    def _get_fmu_state(self, rollback: bool = False) -> dict:
        """The instance's complete state. ``rollback``: a snapshot that do_step restores only if the step fails; it
        leaves the integrator's tangent schedule alone (ALFIntegrator.save), as the one-call step does, so that both
        step paths take the same steps bit for bit."""
        integ = None if self.integ is None else self.integ.save(keep_tangent=rollback)
        chan = None if self.chan is None else (None if self.chan._prev_s is None else self.chan._prev_s.copy(),
                                               self.chan.ev.zs.copy(), self.chan._prev_phi.copy())
        control = getattr(self.integ, "control_state", None)    # a variable-step size controller
        return {"model_id": self.state_id, "solver": (self.integrator_kind, self.scheme), "integ": integ,
                "control": np.zeros(4) if control is None else control(),
                "chan": chan, "u_set": self.u_set.copy(), "u_prev": self.u_prev.copy(), "d_set": self.d_set.copy(),
                "y": self.y.copy()}

    def state_from_parsed(self, parsed: fmu_state.ParsedState) -> dict:
        """A state read from bytes, checked against this instance (StateError with the reason)."""
        template = self._get_fmu_state()
        tree = fmu_state.rebuild(parsed, {k: v for k, v in template.items() if k != "model_id"}, self.state_id)
        return {**tree, "model_id": self.state_id}

    def _set_fmu_state(self, state) -> None:
        if isinstance(state, fmu_state.ParsedState):
            state = self.state_from_parsed(state)
        if state.get("model_id") != self.state_id:
            raise fmu_state.StateError(f"model '{self.model.name}': the FMU state belongs to another model or build")
        if tuple(state["solver"]) != (self.integrator_kind, self.scheme):
            raise fmu_state.StateError(f"model '{self.model.name}': the FMU state was saved with (solver.integrator, "
                                       f"solver.scheme) = {tuple(state['solver'])}, this instance runs "
                                       f"{(self.integrator_kind, self.scheme)}")
        if (state["integ"] is None) != (self.integ is None):
            raise fmu_state.StateError(f"model '{self.model.name}': an FMU state saved "
                                       f"{'before' if state['integ'] is None else 'after'} initialization cannot be "
                                       f"restored {'after' if self.integ is not None else 'before'} it")
        if state["integ"] is not None:
            self.integ.restore(state["integ"])
            control = getattr(self.integ, "set_control_state", None)
            if control is not None:     # restore() restarts the controller; the replay continues it instead
                control(state["control"])
        if state["chan"] is not None and self.chan is not None:
            prev, ref, prev_phi = state["chan"]
            if prev is not None:      # in place, as every array here: the one-call step's table addresses them
                self.chan._prev_s[:] = prev
            self.chan.ev.zs[:] = ref
            self.chan._prev_phi[:] = prev_phi    # a planar model's angle memory (the unwrapped phi depend on it)
        self.u_set[:] = state["u_set"]
        self.u_prev[:] = state["u_prev"]
        self.d_set[:] = state["d_set"]
        self.y[:] = state["y"]

    @staticmethod
    def _fmu_state_to_bytes(state: dict) -> bytes:
        return fmu_state.to_bytes({k: v for k, v in state.items() if k != "model_id"}, state["model_id"])

    @staticmethod
    def _fmu_state_from_bytes(data: bytes) -> fmu_state.ParsedState:
        return fmu_state.parse(data)

    # --- model description ----------------------------------------------------------------------------
    def to_xml(self, model_options=None) -> Element:
        """pythonfmu's description plus: UnitDefinitions, TypeDefinitions (the switches' enumerations), units and
        ranges, Outputs without direct feedthrough (``dependencies=""``: an output changes only in fmi2DoStep and
        fmi2ExitInitializationMode), InitialUnknowns (computed in Initialization Mode), a deterministic GUID and no
        generation timestamp (so equal builds give equal files)."""
        root = super().to_xml(model_options or {})
        root.attrib.pop("generationDateAndTime", None)
        units = sorted(set(self._units.values()))
        ud = Element("UnitDefinitions")
        for u in units:
            SubElement(SubElement(ud, "Unit", {"name": u}), "BaseUnit", {k: str(v) for k, v in UNITS[u].items()}
                       if u in UNITS else {})
        at = list(root).index(root.find("CoSimulation")) + 1
        root.insert(at, ud)
        types = Element("TypeDefinitions")
        for name, items in ENUMERATIONS.items():
            enum = SubElement(SubElement(types, "SimpleType", {"name": name}), "Enumeration")
            for value, item, text in items:
                SubElement(enum, "Item", {"name": item, "value": str(value), "description": text})
        root.insert(at + 1, types)
        structure = root.find("ModelStructure")
        outputs = structure.find("Outputs")
        if outputs is not None:
            initial = SubElement(structure, "InitialUnknowns")
            for unknown in outputs:
                unknown.set("dependencies", "")
                SubElement(initial, "Unknown", {"index": unknown.get("index")})
        return root
