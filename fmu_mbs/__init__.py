"""fmu-mbs: multibody dynamics with a numba core, shipped as FMI 2.0 co-simulation FMUs.

The public surface; every layer is also importable on its own (fmu_mbs.model, .compiler, .kernels, .analyses,
.adapters). Analyses are loaded on first use, so ``import fmu_mbs`` stays light::

    from fmu_mbs import load_model, compile_model, simulate
    cm = compile_model(load_model("models/pendulum.json"))
    trajectory = simulate(cm, t_end=10.0, step=1e-3)
"""

from __future__ import annotations

import importlib

from .startup import preload_cython_blas

preload_cython_blas()            # before numba's first kernel: see startup.py

from .compiler import CompiledModel, compile_model  # noqa: E402
from .errors import AnalysisError, AssemblyError, ConvergenceError, FmuMbsError, ModelError  # noqa: E402
from .model import Model, ModelBuilder, load_model, save_model  # noqa: E402

__version__ = "0.1.0"

_LAZY = {
    "assemble": ".analyses.assembly",
    "kinematics": ".analyses.kinematics",
    "statics": ".analyses.statics",
    "inverse_dynamics": ".analyses.inverse",
    "simulate": ".analyses.simulate",
    "evaluate_channels": ".analyses.channels",
    "build_fmu": ".adapters.fmu_build",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'fmu_mbs' has no attribute '{name}'")


__all__ = ["Model", "ModelBuilder", "load_model", "save_model", "CompiledModel", "compile_model", "FmuMbsError",
           "ModelError", "AssemblyError", "ConvergenceError", "AnalysisError", "__version__", *_LAZY]
