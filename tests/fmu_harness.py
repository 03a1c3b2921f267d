"""An fmpy FMU2Slave that records the FMU's log messages, shared by the FMU tests."""

from __future__ import annotations

from fmpy import calloc, free, read_model_description
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
