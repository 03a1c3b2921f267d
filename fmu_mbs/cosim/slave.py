"""One FMU instance driven through fmpy's FMU2Slave, with its log kept and every failure named."""

from __future__ import annotations

import difflib
import shutil
import tempfile
from pathlib import Path

from fmpy import calloc, extract, free, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (
    FMU2Slave,
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)

from ..errors import CosimError

STATUS = ["ok", "warning", "discard", "error", "fatal", "pending"]


class Slave:
    """An instance of an FMI 2.0 co-simulation FMU: name -> value-reference maps, typed parameter setting, the
    FMU's log messages (``log``), and calls that raise CosimError with the instance name, the call and the log."""

    def __init__(self, name: str, path: str | Path, unzip_dir: str | Path | None = None, *,
                 extracted: tuple[str, object] | None = None):
        """Instantiate the FMU at ``path``. It is extracted into ``unzip_dir`` (a fresh temporary folder, deleted
        on close, when None). ``extracted`` = (folder, model description) reuses an extraction the caller owns
        and keeps (a study worker unzips each FMU once, not at every run)."""
        self.name = name
        self.path = Path(path)
        if not self.path.exists():
            raise CosimError(f"FMU instance '{name}': file '{self.path}' does not exist")
        if extracted is not None:
            folder, md = extracted
            self._own_dir, self.unzip_dir = False, str(folder)
        else:
            md = read_model_description(str(self.path))
            self._own_dir = unzip_dir is None
            self.unzip_dir = str(unzip_dir) if unzip_dir else tempfile.mkdtemp(prefix=f"cosim_{name}_")
        if md.coSimulation is None:
            raise CosimError(f"FMU instance '{name}': '{self.path.name}' is not a co-simulation FMU")
        self.md = md
        self.variables = {v.name: v for v in md.modelVariables}
        if extracted is None:
            extract(str(self.path), unzipdir=self.unzip_dir)
        self.log: list[str] = []

        def logger(component, instance, status, category, message):
            self.log.append(f"[{STATUS[status] if 0 <= status < 6 else status}] {message.decode(errors='replace')}")

        self._callbacks = fmi2CallbackFunctions()
        self._callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        self._callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self._callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        self._keep = (logger, self._callbacks.logger, self._callbacks.allocateMemory, self._callbacks.freeMemory)
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=self.unzip_dir,
                             modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
        self.call("fmi2Instantiate", lambda: self.fmu.instantiate(callbacks=self._callbacks, loggingOn=True))
        self.can_rollback = bool(md.coSimulation.canGetAndSetFMUstate)

    # --- names --------------------------------------------------------------------------------------------------
    def variable(self, name: str, causality: tuple[str, ...] | None = None, kind: str = "variable"):
        """The model variable ``name``; CosimError naming close matches if it does not exist or has another
        causality."""
        v = self.variables.get(name)
        if v is None:
            pool = [n for n, x in self.variables.items() if causality is None or x.causality in causality]
            close = difflib.get_close_matches(name, pool, n=5, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; its {kind}s: {', '.join(pool[:30])}"
            raise CosimError(f"FMU instance '{self.name}' ({self.path.name}) has no {kind} '{name}'{hint}")
        if causality is not None and v.causality not in causality:
            raise CosimError(f"FMU instance '{self.name}': '{name}' has causality {v.causality}, so it cannot be "
                             f"used as {kind}")
        if v.type != "Real" and kind in ("input", "output"):
            raise CosimError(f"FMU instance '{self.name}': '{name}' is a {v.type}; only Real variables can be linked")
        return v

    # --- calls ----------------------------------------------------------------------------------------------------
    def call(self, what: str, fn):
        """Run an FMI call; on a failed status raise CosimError with the last log messages."""
        n = len(self.log)
        try:
            return fn()
        except FMICallException as exc:
            status = STATUS[exc.status] if 0 <= exc.status < 6 else str(exc.status)
            messages = "\n".join(self.log[n:] or self.log[-5:]) or "(the FMU logged nothing)"
            raise CosimError(f"FMU instance '{self.name}': {what} returned fmi2{status.capitalize()}; FMU log:\n"
                             f"{messages}") from exc

    def set_start(self, name: str, value) -> None:
        """Set a parameter or input (before or in initialization mode), by its declared type."""
        v = self.variable(name, ("parameter", "input", "calculatedParameter"), "parameter or input")
        setter = {"Real": self.fmu.setReal, "Integer": self.fmu.setInteger, "Boolean": self.fmu.setBoolean,
                  "String": self.fmu.setString, "Enumeration": self.fmu.setInteger}[v.type]
        cast = {"Real": float, "Integer": int, "Boolean": bool, "String": str, "Enumeration": int}[v.type]
        self.call(f"setting {name} = {value!r}", lambda: setter([v.valueReference], [cast(value)]))

    def set_real(self, vrs: list[int], values: list[float]) -> None:
        if vrs:
            self.call("fmi2SetReal", lambda: self.fmu.setReal(vrs, values))

    def get_real(self, vrs: list[int]) -> list[float]:
        return self.call("fmi2GetReal", lambda: self.fmu.getReal(vrs)) if vrs else []

    def do_step(self, t: float, h: float) -> None:
        self.call(f"fmi2DoStep(t = {t:.9g} s, h = {h:.6g} s)",
                  lambda: self.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h))

    def get_state(self):
        if not self.can_rollback:
            raise CosimError(f"FMU instance '{self.name}' cannot get and set its state (canGetAndSetFMUstate is "
                             "false); the iterative scheme needs it")
        return self.call("fmi2GetFMUstate", self.fmu.getFMUstate)

    def set_state(self, state) -> None:
        self.call("fmi2SetFMUstate", lambda: self.fmu.setFMUstate(state))

    def free_state(self, state) -> None:
        self.call("fmi2FreeFMUstate", lambda: self.fmu.freeFMUstate(state))

    def close(self) -> None:
        """Terminate and free the instance (errors ignored: this runs on the way out) and delete its extraction."""
        for fn in (self.fmu.terminate, self.fmu.freeInstance):
            try:
                fn()
            except Exception:
                pass
        if self._own_dir:
            shutil.rmtree(self.unzip_dir, ignore_errors=True)
