"""Layer 1: what the user describes (elements, builder, JSON, validation). Plain Python, no numba."""

from .builder import ModelBuilder
from .elements import Model
from .json_io import load_model, model_from_dict, model_to_dict, save_model

__all__ = ["Model", "ModelBuilder", "load_model", "save_model", "model_to_dict", "model_from_dict"]
