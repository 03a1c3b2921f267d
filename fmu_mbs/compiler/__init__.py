"""Layer 2: Model -> CompiledModel (flat arrays per element family, index maps, sparsity pattern)."""

from .compiled_model import CompiledModel
from .lower import compile_model

__all__ = ["CompiledModel", "compile_model"]
