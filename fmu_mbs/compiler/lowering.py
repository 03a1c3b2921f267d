"""What an element family's lowering receives: the model, the pools and tables built so far, and the layout
allocator (compiler/layout.py). One LoweringContext per compile_model call."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model.elements import Model, PlanarBody, RigidBody
from ..model.rotations import quat_matrix
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


def initial_body_rotation(body) -> np.ndarray:
    """Rotation matrix (3 x 3, body axes as columns, world) of ``body`` in the model's initial pose: a rigid body's
    unit quaternion [w, x, y, z], a planar body's angle about z; identity for kinds without rotation."""
    if isinstance(body, RigidBody):
        return quat_matrix(body.orientation)
    if isinstance(body, PlanarBody):
        c, s = np.cos(body.angle), np.sin(body.angle)
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return np.eye(3)


def initial_body_position(body) -> np.ndarray:
    """Reference point (m, world, 3 components; a planar body's [x, y] padded with z = 0) of ``body`` in the
    model's initial pose."""
    position = np.zeros(3)
    position[:len(body.position)] = body.position
    return position
