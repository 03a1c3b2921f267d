"""Lowering table: every joint type as rows of basic constraints (seed 004 composition).

A row spec is (row type, axis of marker_i, axis of marker_j, world direction c); axes 0, 1, 2 = x, y, z.
A new joint type is a new entry here, not new kernel code.
"""

from __future__ import annotations

from ..kernels.model_arrays import ROW_ANGLE, ROW_CD, ROW_D, ROW_DP1, ROW_DP2

X, Y, Z = 0, 1, 2
EX, EY, EZ = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
NO = (0.0, 0.0, 0.0)

_SPHERICAL = [(ROW_CD, 0, 0, EX), (ROW_CD, 0, 0, EY), (ROW_CD, 0, 0, EZ)]
_Z_PARALLEL = [(ROW_DP1, X, Z, NO), (ROW_DP1, Y, Z, NO)]          # z_j parallel to z_i
_ON_Z_AXIS = [(ROW_DP2, X, 0, NO), (ROW_DP2, Y, 0, NO)]           # origin_j on the z axis of i
_NO_SPIN = [(ROW_DP1, X, Y, NO)]                                   # x_i perpendicular to y_j

JOINT_ROWS_3D = {
    "spherical": _SPHERICAL,
    "revolute": _SPHERICAL + _Z_PARALLEL,
    "universal": _SPHERICAL + [(ROW_DP1, Z, Z, NO)],
    "cylindrical": _Z_PARALLEL + _ON_Z_AXIS,
    "prismatic": _Z_PARALLEL + _ON_Z_AXIS + _NO_SPIN,
    "fixed": _SPHERICAL + _Z_PARALLEL + _NO_SPIN,
    "planar": _Z_PARALLEL + [(ROW_DP2, Z, 0, NO)],
    "distance": [(ROW_D, 0, 0, NO)],
    "point_on_line": _ON_Z_AXIS,
}

JOINT_ROWS_2D = {
    "revolute": [(ROW_CD, 0, 0, EX), (ROW_CD, 0, 0, EY)],
    "prismatic": [(ROW_DP2, Y, 0, NO), (ROW_ANGLE, 0, 0, NO)],     # slides along x_i
    "fixed": [(ROW_CD, 0, 0, EX), (ROW_CD, 0, 0, EY), (ROW_ANGLE, 0, 0, NO)],
    "distance": [(ROW_D, 0, 0, NO)],
    "point_on_line": [(ROW_DP2, Y, 0, NO)],                        # origin_j on the x axis of i
}

#: the row measuring each joint coordinate (drivers add it with f(t); outputs evaluate it)
COORDINATE_ROW_3D = {"rotation": (ROW_ANGLE, 0, 0, NO), "translation": (ROW_DP2, Z, 0, NO)}
COORDINATE_ROW_2D = {"rotation": (ROW_ANGLE, 0, 0, NO), "translation": (ROW_DP2, X, 0, NO)}


def joint_rows(joint_type: str, dimension: int) -> list[tuple]:
    """Row specs of a joint type in a model of the given dimension."""
    return (JOINT_ROWS_2D if dimension == 2 else JOINT_ROWS_3D)[joint_type]


def coordinate_row(kind: str, dimension: int) -> tuple:
    """Row spec measuring a joint coordinate ('rotation' or 'translation')."""
    return (COORDINATE_ROW_2D if dimension == 2 else COORDINATE_ROW_3D)[kind]
