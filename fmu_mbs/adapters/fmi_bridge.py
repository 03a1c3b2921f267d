"""The Python side of the FMU binary (adapters/native/fmi2_shim.c): one ``Instance`` per fmi2Instantiate.

The C shim checks pointers and passes value arrays as memoryviews; this module checks everything else and never
raises into C: the FMI 2.0 co-simulation state machine (which call is allowed in which mode), value references,
types, causalities (outputs are not settable; fixed parameters only before fmi2ExitInitializationMode), ranges
and enumeration values, and FMU states (versioned bytes, adapters/fmu_state.py). Usage errors return fmi2Error
with the reason in the FMI log and change nothing; a failed step returns fmi2Discard (state back at the start of
the step, as MbsSlave.do_step does); a failed initialization puts the instance in the error mode (fmi2Reset,
fmi2SetFMUstate, getters, fmi2Terminate and fmi2FreeInstance remain).

Outputs read in Initialization Mode are computed from the parameters and inputs set so far (InitialUnknowns).
Messages with status fmi2OK are sent only with logging on; warnings and errors always.
"""

from __future__ import annotations

import math
import os
import traceback
from collections.abc import Callable

import numpy as np
from pythonfmu import Fmi2Causality, Fmi2Variability, Integer, Real

from ..kernels import compile_notice
from . import fmu_state, shipped_kernels
from .step_lane import StepLane

OK, WARNING, DISCARD, ERROR, FATAL = range(5)
SMALL = 16   # up to this many values per call, plain Python beats numpy's per-call overhead
INSTANTIATED, INITIALIZATION, STEP, TERMINATED, FAILED = range(5)
MODE_NAMES = ("Instantiated", "Initialization Mode", "Step Mode (slave initialized)", "Terminated",
              "the error mode (after a failed call)")
REAL, INTEGER, OTHER = range(3)
CATEGORIES = ("logStatusWarning", "logStatusDiscard", "logStatusError", "logStatusFatal", "logAll")
_CATEGORY = {OK: "logAll", WARNING: "logStatusWarning", DISCARD: "logStatusDiscard", ERROR: "logStatusError",
             FATAL: "logStatusFatal"}


class UsageError(Exception):
    """A call the FMI standard does not allow here (fmi2Error, nothing changed)."""


def instantiate(cls, resources: str, name: str, visible: bool, logging_on: bool, log: Callable):
    """A new Instance of the slave class ``cls``, or None (the reason is logged)."""
    try:
        return Instance(cls, resources, name, visible, logging_on, log)
    except Exception as exc:   # noqa: BLE001 - reported through the FMI log, never raised into C
        _send(log, ERROR, "logStatusError", f"fmi2Instantiate: the model could not be set up: {exc}\n"
                                            + "".join(traceback.format_exception(exc)))
        return None


def _send(log: Callable, status: int, category: str, message: str) -> None:
    log(int(status), category.encode("ascii"), message.encode("utf-8", "backslashreplace").replace(b"\0", b"?"))


def _guarded(fn_name: str, allowed: tuple[int, ...] | None = None):
    """Run the method in ``allowed`` modes only; usage errors and exceptions become fmi2Error with the reason."""

    def wrap(method):
        def call(self, *args):
            try:
                if allowed is not None and self.mode not in allowed:
                    raise UsageError(f"not allowed in {MODE_NAMES[self.mode]}; allowed in: "
                                     + ", ".join(MODE_NAMES[m] for m in allowed))
                return method(self, *args)
            except UsageError as exc:
                self.emit(ERROR, f"{fn_name}: {exc}")
                return ERROR
            except Exception as exc:   # noqa: BLE001 - never raised into C
                self.emit(ERROR, f"{fn_name} failed: {exc}\n" + "".join(traceback.format_exception(exc)))
                return ERROR
            finally:
                self.flush()
        call.__name__ = method.__name__
        call.__doc__ = method.__doc__
        return call
    return wrap


class _State:
    """An FMU state held by the C shim: the instance mode and the slave's state."""

    __slots__ = ("mode", "slave")

    def __init__(self, mode: int, slave: dict):
        self.mode, self.slave = mode, slave


class Instance:
    """One FMU instance: the slave and its FMI mode."""

    def __init__(self, cls, resources: str, name: str, visible: bool, logging_on: bool, log: Callable):
        self._cls, self._resources, self._name, self._visible = cls, resources, name, visible
        self._log, self.logging_on, self.categories = log, bool(logging_on), None
        self.freed = False
        self.lane: StepLane | None = None      # the binary's step lane (use_lane), if it has one
        self._last_time = np.zeros(1)          # fmi2LastSuccessfulTime (s); the lane writes it too
        # kernels compiled at build time (resources/numba-kernels) where the user's cache lacks them; a kernel in
        # neither is compiled, and the first such compile is logged as a warning (shows with logging off), then a
        # progress line every 20 s while compiles go on (kernels/compile_notice.py)
        shipped_kernels.set_reporter(self._report_compile)
        compile_notice.set_reporter(self._report_compile_progress, first_line=False)
        note = shipped_kernels.use(resources)
        if note:
            self.emit(OK, f"fmu-mbs: precompiled kernels not used: {note}")
        self._new_slave()

    def _new_slave(self) -> None:
        if self.lane is not None:
            self.lane.forget()
        self.slave = self._cls(instance_name=self._name, resources=self._resources, visible=self._visible)
        self.mode, self.dirty, self.last_time = INSTANTIATED, True, 0.0
        self.vars = list(self.slave.vars.values())
        n = len(self.vars)
        self.kind = np.full(n, OTHER, dtype=np.int8)
        self.out_pos = np.full(n, -1, dtype=np.int64)   # position of an output in slave.y
        self.rules = []   # per variable: (settable, fixed, allowed values, min, max)
        for k, v in enumerate(self.vars):
            if v.value_reference != k:
                raise RuntimeError(f"variable '{v.name}' has valueReference {v.value_reference}, expected {k}")
            self.kind[k] = REAL if isinstance(v, Real) else INTEGER if isinstance(v, Integer) else OTHER
            if v.causality == Fmi2Causality.output:
                self.out_pos[k] = self.slave.output_index[v.name]
            settable = v.causality in (Fmi2Causality.parameter, Fmi2Causality.input) and v.setter is not None
            fixed = v.causality == Fmi2Causality.parameter and v.variability == Fmi2Variability.fixed
            self.rules.append((settable, fixed, getattr(v, "allowed", None), getattr(v, "min", None),
                               getattr(v, "max", None)))
        self.kind_list, self.pos_list = self.kind.tolist(), self.out_pos.tolist()   # for the per-value paths
        self.flush()

    @property
    def last_time(self) -> float:
        return float(self._last_time[0])

    @last_time.setter
    def last_time(self, value: float) -> None:
        self._last_time[0] = value

    def use_lane(self, arm: Callable) -> None:
        """Called by the binary after fmi2Instantiate: its step lane's arm function (adapters/step_lane.py); with
        FMU_MBS_STEP_LANE=0 in the environment every call goes through this bridge (a diagnostic switch)."""
        if os.environ.get("FMU_MBS_STEP_LANE", "1") != "0":
            self.lane = StepLane(arm)

    # --- logging ------------------------------------------------------------------------------------
    def emit(self, status: int, message: str, category: str | None = None) -> None:
        category = category or _CATEGORY.get(int(status), "logAll")
        if status == OK and not (self.logging_on and (self.categories is None or category in self.categories)):
            return
        _send(self._log, status, category, message)

    def flush(self) -> None:
        """Forward the slave's queued log messages."""
        queue = getattr(self.slave, "log_queue", None)
        while queue:
            msg = queue.pop(0)
            self.emit(int(msg.status), str(msg.msg), msg.category)

    @_guarded("fmi2SetDebugLogging")
    def set_debug_logging(self, on: int, categories: bytes) -> int:
        names = [c for c in categories.decode("utf-8", "replace").split("\n") if c]
        unknown = [c for c in names if c not in CATEGORIES]
        if unknown:
            raise UsageError(f"unknown log categor{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}; "
                             f"this FMU has {', '.join(CATEGORIES)}")
        self.logging_on, self.categories = bool(on), (set(names) or None)
        return OK

    # --- modes --------------------------------------------------------------------------------------
    @_guarded("fmi2SetupExperiment", (INSTANTIATED,))
    def setup_experiment(self, tol_defined: int, tol: float, start: float, stop_defined: int, stop: float) -> int:
        if not math.isfinite(start):
            raise UsageError(f"startTime must be finite, got {start}")
        if stop_defined and not stop >= start:
            raise UsageError(f"stopTime {stop} is before startTime {start}")
        self.slave.setup_experiment(start, stop if stop_defined else None, tol if tol_defined else None)
        self.last_time = float(start)
        return OK

    @_guarded("fmi2EnterInitializationMode", (INSTANTIATED,))
    def enter_initialization_mode(self) -> int:
        self.slave.enter_initialization_mode()
        self.mode, self.dirty = INITIALIZATION, True
        return OK

    def _initialize(self, fn_name: str) -> bool:
        """Assemble the initial state from the values set so far (once per change); False if that fails."""
        if not self.dirty and self.slave.integ is not None:
            return True
        try:
            self.slave._initialize()
        except Exception as exc:   # noqa: BLE001 - the model's own reason goes to the log
            self.slave.integ = None
            self.emit(ERROR, f"{fn_name}: initialization failed: {exc}\n" + "".join(traceback.format_exception(exc)))
            return False
        self.dirty = False
        return True

    @_guarded("fmi2ExitInitializationMode", (INITIALIZATION,))
    def exit_initialization_mode(self) -> int:
        if not self._initialize("fmi2ExitInitializationMode"):
            self.mode = FAILED
            return ERROR
        self.mode = STEP
        return OK

    @_guarded("fmi2DoStep", (STEP,))
    def do_step(self, t: float, h: float, no_set_prior: int, lane_code: int = -1) -> int:
        """``lane_code`` >= 0: the binary's step lane ran the one-call step kernel, which declined the step with
        this code (the slave restores and takes its general path); -1: the lane did not run."""
        if not (math.isfinite(h) and h >= 0.0):
            raise UsageError(f"communicationStepSize must be finite and >= 0, got {h}")
        ok = self.slave.do_step(t, h) if lane_code < 0 else self.slave.resume_step(t, h, lane_code)
        if not ok:
            return DISCARD
        self.last_time = t + h
        if self.lane is not None:
            self.lane.offer(self.slave, self.vars, self.rules, self.pos_list, self._last_time)
        return OK

    @_guarded("fmi2Terminate", (STEP, FAILED))
    def terminate(self) -> int:
        self.slave.terminate()
        self.mode = TERMINATED
        return OK

    @_guarded("fmi2Reset")
    def reset(self) -> int:
        self._new_slave()
        return OK

    def free(self) -> None:
        self.flush()
        if self.lane is not None:
            self.lane.forget()
        self.slave = None
        self.freed = True

    def _report_compile(self, message: str) -> None:
        if not self.freed:
            self.emit(WARNING, message)

    def _report_compile_progress(self, message: str) -> None:
        self._report_compile(f"fmu-mbs: {message}")

    def last_successful_time(self) -> float:
        return float(self.last_time)

    # --- values -------------------------------------------------------------------------------------
    def _bad_ref(self, vr: int, type_name: str) -> UsageError:
        if vr >= len(self.vars):
            return UsageError(f"valueReference {vr} does not exist (this FMU has 0 to {len(self.vars) - 1})")
        v = self.vars[vr]
        actual = "Real" if isinstance(v, Real) else "an Enumeration (Integer)" if hasattr(v, "allowed") \
            else "Integer" if isinstance(v, Integer) else type(v).__name__
        return UsageError(f"variable '{v.name}' (valueReference {v.value_reference}) is {actual}, not {type_name}")

    def _refs(self, mv: memoryview, kind: int, type_name: str) -> list[int] | np.ndarray:
        """The value references, checked (a list for a few, a numpy array for many: each is faster there)."""
        if len(mv) <= 4 * SMALL:
            vrs = mv.cast("I").tolist()
            kinds, n = self.kind_list, len(self.kind_list)
            for vr in vrs:
                if vr >= n or kinds[vr] != kind:
                    raise self._bad_ref(vr, type_name)
            return vrs
        vrs = np.frombuffer(mv, dtype=np.uint32)
        bad = np.flatnonzero(vrs >= len(self.vars))
        if not bad.size:
            bad = np.flatnonzero(self.kind[vrs] != kind)
        if bad.size:
            raise self._bad_ref(int(vrs[bad[0]]), type_name)
        return vrs

    def _get(self, fn_name: str, mv_vr: memoryview, mv_out: memoryview, kind: int, dtype, type_name: str) -> int:
        vrs = self._refs(mv_vr, kind, type_name)
        if isinstance(vrs, list):
            pos = self.pos_list
            if self.mode == INITIALIZATION and any(pos[vr] >= 0 for vr in vrs) and not self._initialize(fn_name):
                return ERROR
            out, y, cast = mv_out.cast("d" if kind == REAL else "i"), self.slave.y, float if kind == REAL else int
            for k, vr in enumerate(vrs):
                p = pos[vr]
                out[k] = float(y[p]) if p >= 0 else cast(self.vars[vr].getter())
            return OK
        out = np.frombuffer(mv_out, dtype=dtype)
        if self.mode == INITIALIZATION and np.any(self.out_pos[vrs] >= 0) and not self._initialize(fn_name):
            return ERROR
        pos = self.out_pos[vrs]
        if kind == REAL and np.all(pos >= 0):
            out[:] = self.slave.y[pos]
        else:
            for k, vr in enumerate(vrs):
                out[k] = self.vars[vr].getter()
        return OK

    _READABLE = (INITIALIZATION, STEP, TERMINATED, FAILED)

    @_guarded("fmi2GetReal", _READABLE)
    def get_real(self, mv_vr: memoryview, mv_out: memoryview) -> int:
        return self._get("fmi2GetReal", mv_vr, mv_out, REAL, np.float64, "Real")

    @_guarded("fmi2GetInteger", _READABLE)
    def get_integer(self, mv_vr: memoryview, mv_out: memoryview) -> int:
        return self._get("fmi2GetInteger", mv_vr, mv_out, INTEGER, np.int32, "Integer")

    @_guarded("fmi2GetBoolean", _READABLE)
    def get_boolean(self, mv_vr: memoryview, mv_out: memoryview) -> int:
        self._refs(mv_vr, -1, "Boolean")   # this FMU has no Boolean variable
        return OK

    @_guarded("fmi2GetString", _READABLE)
    def get_string(self, mv_vr: memoryview, mv_out: memoryview) -> int:
        self._refs(mv_vr, -1, "String")
        return OK

    def _set(self, mv_vr: memoryview, mv_val: memoryview, kind: int, dtype, type_name: str) -> int:
        vrs = self._refs(mv_vr, kind, type_name)
        vrs = vrs if isinstance(vrs, list) else vrs.tolist()
        values = mv_val.cast("d" if kind == REAL else "i").tolist()
        initialized = self.mode not in (INSTANTIATED, INITIALIZATION)
        for vr, value in zip(vrs, values, strict=True):
            settable, fixed, allowed, lo, hi = self.rules[vr]
            if settable and not (fixed and initialized) and allowed is None and lo is None and hi is None:
                continue
            v = self.vars[vr]
            what = f"variable '{v.name}' (valueReference {v.value_reference})"
            if not settable:
                raise UsageError(f"{what} is {v.causality.name if v.causality else 'local'}; it cannot be set")
            if fixed and initialized:
                raise UsageError(f"{what} is a fixed parameter: it can be set only before "
                                 f"fmi2ExitInitializationMode")
            if allowed is not None and value not in allowed:
                raise UsageError(f"{what} must be one of {sorted(allowed)}, got {value}")
            if (lo is not None and not value >= lo) or (hi is not None and not value <= hi):
                raise UsageError(f"{what} must be in [{lo}, {hi}], got {value}")
        variables = self.vars
        for vr, value in zip(vrs, values, strict=True):
            variables[vr].setter(value)
        if self.mode == INITIALIZATION and vrs:
            self.dirty = True
        return OK

    _WRITABLE = (INSTANTIATED, INITIALIZATION, STEP)

    @_guarded("fmi2SetReal", _WRITABLE)
    def set_real(self, mv_vr: memoryview, mv_val: memoryview) -> int:
        return self._set(mv_vr, mv_val, REAL, np.float64, "Real")

    @_guarded("fmi2SetInteger", _WRITABLE)
    def set_integer(self, mv_vr: memoryview, mv_val: memoryview) -> int:
        return self._set(mv_vr, mv_val, INTEGER, np.int32, "Integer")

    @_guarded("fmi2SetBoolean", _WRITABLE)
    def set_boolean(self, mv_vr: memoryview, mv_val: memoryview) -> int:
        self._refs(mv_vr, -1, "Boolean")
        return OK

    @_guarded("fmi2SetString", _WRITABLE)
    def set_string(self, mv_vr: memoryview, mv_val: memoryview) -> int:
        self._refs(mv_vr, -1, "String")
        return OK

    # --- FMU states ---------------------------------------------------------------------------------
    def _guarded_value(self, fn_name: str, fn):
        try:
            return fn()
        except Exception as exc:   # noqa: BLE001 - never raised into C
            detail = "" if isinstance(exc, fmu_state.StateError | UsageError) else \
                "\n" + "".join(traceback.format_exception(exc))
            self.emit(ERROR, f"{fn_name}: {exc}{detail}")
            return None
        finally:
            self.flush()

    def get_state(self):
        """A new _State (None on failure, logged)."""
        return self._guarded_value("fmi2GetFMUstate", lambda: _State(self.mode, self.slave._get_fmu_state()))

    @_guarded("fmi2SetFMUstate")
    def set_state(self, state: _State) -> int:
        if not isinstance(state, _State):
            raise UsageError("not an FMU state of this FMU")
        self.slave._set_fmu_state(state.slave)
        self.mode = state.mode
        self.dirty = state.mode == INITIALIZATION
        return OK

    def _tree(self, state: _State) -> dict:
        return {"mode": state.mode, "slave": {k: v for k, v in state.slave.items() if k != "model_id"}}

    def serialize_state(self, state: _State):
        """The versioned bytes of a state (None on failure, logged)."""
        return self._guarded_value("fmi2SerializeFMUstate",
                                   lambda: fmu_state.to_bytes(self._tree(state), self.slave.state_id))

    def deserialize_state(self, data: memoryview):
        """A _State from bytes, checked against this instance (None with the reason logged)."""
        def load():
            parsed = fmu_state.parse(data)
            template = self._tree(_State(self.mode, self.slave._get_fmu_state()))
            tree = fmu_state.rebuild(parsed, template, self.slave.state_id)
            if tree["mode"] not in (INSTANTIATED, INITIALIZATION, STEP, TERMINATED, FAILED):
                raise fmu_state.StateError(f"FMU state: unknown mode {tree['mode']}")
            return _State(tree["mode"], {**tree["slave"], "model_id": self.slave.state_id})
        return self._guarded_value("fmi2DeSerializeFMUstate", load)
