"""What an element family's lowering receives: the model, the pools and tables built so far, and the layout
allocator (compiler/layout.py). One LoweringContext per compile_model call."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model.elements import Model
from .functions import FunctionPool
from .layout import Layout


@dataclass
class LoweringContext:
    """Shared state of one compilation, handed to every family's ``rows`` and ``lower`` hooks."""

    model: Model
    pool: FunctionPool                    # time functions and curves (addresses into fn_par, curve_par)
    layout: Layout                        # element states, inputs, outputs
    midx: dict[str, int]                  # marker index by name
    bidx: dict[str, int]                  # body index by name ('ground': -1)
    q0: list[float]                       # initial coordinates (from the model, not yet assembled)
    marker_pos: np.ndarray                # (nm, 3) marker origins in their body frames (m)
    marker_rot: np.ndarray                # (nm, 3, 3) marker axes in their body frames
    joint_rows: dict[str, list[int]]      # constraint rows of each joint
    options: dict = field(default_factory=dict)   # compile options (contact_state_capacity)
    core: dict = field(default_factory=dict)      # core ModelArrays fields a family supplies (contact shapes)

    @property
    def dim(self) -> int:
        return self.model.dimension

    def markers(self, elements, attr: str) -> np.ndarray:
        """Marker indices of ``getattr(e, attr)`` for every element (int64)."""
        return np.array([self.midx[getattr(e, attr)] for e in elements], dtype=np.int64)

    def outputs(self, elements) -> np.ndarray:
        """The output block address of every element (its declared outputs, model/interface.py)."""
        return np.array([self.layout.outputs(e.name, e.outputs(self.model)) for e in elements], dtype=np.int64)

    def input(self, element) -> int:
        """Address of the first declared input of ``element`` (-1 if it declares none)."""
        adrs = self.layout.inputs(element.name, element.inputs())
        return adrs[0] if adrs else -1
