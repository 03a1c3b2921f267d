"""The geometrically exact beam element (one two-node Simo-Reissner element between two node markers; the law is in
kernels/families/gebeam.py) and its section, as a model element."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .fields import param
from .interface import Interface, Signal

#: the section stiffness fields, in the kernel's order (axial, shear y, shear z, torsion, bending y, bending z)
SECTION_FIELDS = ("EA", "GA_y", "GA_z", "GJ", "EI_y", "EI_z")


@dataclass(frozen=True)
class BeamElement(Interface):
    """A two-node geometrically exact (Simo-Reissner) beam element between the node markers ``marker_i`` and
    ``marker_j``: large displacements and rotations, small strains; linear interpolation with one-point (reduced)
    integration, strains objective through the mid-point rotation (Crisfield & Jelenic 1999). Each marker's x axis
    runs along the beam, its y and z axes are the section's principal axes. The configuration at the start is
    stress free (a curved or twisted beam keeps its initial strains as reference). Usually made by
    ``GeometricallyExactBeam`` (model/exact_beam.py), which adds the node bodies and markers. Outputs: section
    force N (axial, shear y, shear z; N) and moment M (torsion, bending y, bending z; N m), mid-point axes."""

    OUTPUTS = (Signal("N", "N", 3, doc="section force: axial, shear y, shear z (mid-point axes)"),
               Signal("M", "N.m", 3, doc="section moment: torsion, bending about y, about z (mid-point axes)"))

    name: str
    marker_i: str
    marker_j: str
    EA: float = param("N", "axial stiffness")
    GA_y: float = param("N", "shear stiffness along the section's y axis (shear factor included)")
    GA_z: float = param("N", "shear stiffness along the section's z axis (shear factor included)")
    GJ: float = param("N*m^2", "torsional stiffness")
    EI_y: float = param("N*m^2", "bending stiffness about the section's y axis")
    EI_z: float = param("N*m^2", "bending stiffness about the section's z axis")
    length: float = param("m", "reference length L0; 0 = the initial distance of the markers", 0.0)
    damping: float = param("s", "stiffness-proportional damping beta (section forces beta C strain rate)", 0.0)

    def problems(self, where: str) -> list[str]:
        """What is wrong with the element's own fields (the model validation calls this)."""
        p = []
        for name in SECTION_FIELDS:
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0.0):
                p.append(f"{where}: '{name}' must be finite and > 0, got {v}")
        for name in ("length", "damping"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0.0):
                p.append(f"{where}: '{name}' must be finite and >= 0, got {v}")
        if self.marker_i == self.marker_j:
            p.append(f"{where}: 'marker_i' and 'marker_j' must differ (both '{self.marker_i}')")
        return p
