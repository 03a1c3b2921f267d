"""fmpy FMU2Slave harnesses shared by the FMU tests: ``LoggedSlave`` records the FMU's log messages, ``Slave``
adds a clock and start/get/step, ``replays_from_saved_state`` checks rollback and serialized-state replay;
``sprung_pendulum_folder`` writes a small model with a force element as an FMU resources folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from fmpy import calloc, extract, free, read_model_description
from fmpy.fmi2 import (
    FMU2Slave,
    fmi2CallbackAllocateMemoryTYPE,
    fmi2CallbackFreeMemoryTYPE,
    fmi2CallbackFunctions,
    fmi2CallbackLoggerTYPE,
)


class LoggedSlave:
    """One instance of an extracted FMU; ``log`` collects its messages, ``vr`` maps names to value references."""

    def __init__(self, unzipped: str, name: str):
        md = read_model_description(unzipped)
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.log: list[str] = []

        def logger(component, instance, status, category, message):
            self.log.append(message.decode())

        # the callbacks (and the ctypes function objects in them) must live as long as the instance
        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        self._keep = (logger, self.callbacks.logger, self.callbacks.allocateMemory, self.callbacks.freeMemory)
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipped, modelIdentifier=md.coSimulation.modelIdentifier,
                             instanceName=name)
        self.fmu.instantiate(callbacks=self.callbacks, loggingOn=True)

    def set(self, name: str, value: float) -> None:
        self.fmu.setReal([self.vr[name]], [value])

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()


class Slave(LoggedSlave):
    """A LoggedSlave on a fresh extraction of ``path``, with its own clock."""

    def __init__(self, path: Path, name: str = "inst"):
        super().__init__(extract(str(path)), name)
        self.t = 0.0

    def start(self, **values):
        """Initialise with parameter values (int: Integer variables, else Real); returns self."""
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        for name, value in values.items():
            if isinstance(value, int):
                self.fmu.setInteger([self.vr[name]], [value])
            else:
                self.fmu.setReal([self.vr[name]], [value])
        self.fmu.exitInitializationMode()
        return self

    def get(self, *names):
        return np.array(self.fmu.getReal([self.vr[n] for n in names]))

    def step(self, h):
        self.fmu.doStep(currentCommunicationPoint=self.t, communicationStepSize=h)
        self.t += h


def replays_from_saved_state(s: Slave, watch: list[str], steps: int, h: float,
                             before_step: Callable[[Slave], None] | None = None) -> list[np.ndarray]:
    """Save the FMU state now, run ``steps`` steps of ``h`` recording ``watch`` (calling ``before_step`` before
    each), restore the state with setFMUstate and replay, restore it from its serialized bytes and replay again;
    returns the three recordings (bit-identical when rollback is exact)."""
    state = s.fmu.getFMUstate()
    blob = s.fmu.serializeFMUstate(state)
    t0 = s.t

    def replay():
        s.t = t0
        out = []
        for _ in range(steps):
            if before_step is not None:
                before_step(s)
            s.step(h)
            out.append(s.get(*watch))
        return np.array(out)

    runs = [replay()]
    s.fmu.setFMUstate(state)
    runs.append(replay())
    s.fmu.setFMUstate(s.fmu.deSerializeFMUstate(blob))
    runs.append(replay())
    s.fmu.freeFMUstate(state)
    return runs


def sprung_pendulum_folder(folder: Path, name: str, stiffness: float) -> Path:
    """``folder`` with the model.json of the catalogue pendulum plus a spring-damper (``stiffness`` N/m, 0.8 N s/m,
    a constant 1.5 N pull, free length 1 m) from a ground anchor to the bob: the damper dissipates, the constant
    force does work (energy.input), and the spring gives the integrator a force tangent."""
    from fmu_mbs.model import ModelBuilder, load_model, model_to_dict

    b = ModelBuilder.from_model(load_model(Path(__file__).resolve().parents[1] / "models" / "pendulum.json"),
                                name=name)
    b.add_marker("anchor", position=(0.0, -1.5))
    b.add_spring_damper("damper", "anchor", "P1", stiffness=stiffness, free_length=1.0, damping=0.8, force=1.5)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.json").write_text(json.dumps(model_to_dict(b.build())))
    return folder
