"""CompiledModel: the read-only flat arrays of a model plus the name maps that adapters need."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model.elements import Model


@dataclass
class CompiledModel:
    """Output of ``compile_model``. ``arrays`` feeds every kernel; ``measure`` holds one row per joint
    coordinate (evaluated with the constraint kernel, f = 0) so outputs reuse the constraint code."""

    model: Model
    arrays: tuple                       # ModelArrays (compiler/families.py): core fields and one field per family
    measure: tuple                      # the same with the joint-coordinate measure rows
    n_q: int
    n_rows: int
    n_inputs: int
    q0: np.ndarray                      # initial coordinates from the model (not yet assembled)
    qd0: np.ndarray                     # initial coordinate rates from the model
    body_names: list[str]
    marker_names: list[str]
    row_owner: list[str]                # element name per constraint row (joint, driver or body)
    row_label: list[str]                # human description per row, for error messages
    joint_rows: dict[str, list[int]]    # constraint rows of each joint
    driver_rows: dict[str, int]         # the constraint row of each driver
    coordinate_rows: dict[str, list[int]] = field(default_factory=dict)  # measure rows of each joint
    input_names: list[str] = field(default_factory=list)
    external_drivers: dict[str, int] = field(default_factory=dict)   # driver -> address of its 3 fn_par entries
    q_names: list[str] = field(default_factory=list)
    n_out: int = 0                      # length of the element output vector (compiler/layout.py)
    output_slots: dict[str, int] = field(default_factory=dict)   # element output channel -> index in that vector
    derived: dict = field(default_factory=dict, repr=False, compare=False)   # analyses' memo of structure-only data

    @property
    def dimension(self) -> int:
        return self.model.dimension

    def index(self, kind: str, name: str) -> int:
        """Index of a body or marker by name."""
        names = self.body_names if kind == "body" else self.marker_names
        return names.index(name)
