"""The exception family of every layer. Each error names the element and the problem."""

from __future__ import annotations


class FmuMbsError(Exception):
    """Base class of all fmu-mbs errors."""


class ModelError(FmuMbsError):
    """A model description is invalid. ``problems`` lists every problem found, one line each."""

    def __init__(self, problems: list[str] | str, model: str = ""):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        head = f"model '{model}' is invalid" if model else "model is invalid"
        super().__init__(head + ":\n  - " + "\n  - ".join(self.problems))


class AssemblyError(FmuMbsError):
    """The constraints cannot be satisfied (assembly, kinematics) at the given time."""


class ConvergenceError(FmuMbsError):
    """An iterative solver (statics, integrator Newton loop) did not converge."""


class AnalysisError(FmuMbsError):
    """An analysis was asked of a model that cannot support it (e.g. inverse dynamics with free DOF)."""


class CosimError(FmuMbsError):
    """A co-simulation cannot be set up or run: unknown FMU variable, bad connection, an FMU call that failed
    (the message carries the FMU's log), an iterative coupling that did not converge."""
