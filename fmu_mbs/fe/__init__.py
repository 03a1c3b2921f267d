"""Linear finite-element data for flexible bodies: a 3D beam element, modal reduction (Craig-Bampton, free-interface,
static correction), modal damping, the FFRF inertia invariants and importers of FE data (MBDyn .fem, Matrix Market).

A leaf package: it imports only numpy, scipy and fmu_mbs.errors. See docs/flexible-bodies.md."""

from .beam import BeamSection
from .beam_body import beam_body, straight_beam
from .body import FEBody
from .craig_bampton import craig_bampton
from .damping import modal_damping, rayleigh, rayleigh_coefficients
from .eigen import Modes, natural_modes, static_solve
from .free_modes import free_interface_modes, static_modes, with_static_correction
from .interfaces import Interface
from .invariants import Invariants, compute_invariants, invariants
from .matrix_market import ImportedBody, read_matrix_market
from .mbdyn_fem import FemData, read_fem, write_fem
from .modeset import ModeSet, orthogonalize

__all__ = ["BeamSection", "FEBody", "FemData", "ImportedBody", "Interface", "Invariants", "ModeSet", "Modes",
           "beam_body", "compute_invariants", "craig_bampton", "free_interface_modes", "invariants", "modal_damping",
           "natural_modes", "orthogonalize", "rayleigh", "rayleigh_coefficients", "read_fem", "read_matrix_market",
           "static_modes", "static_solve", "straight_beam", "with_static_correction", "write_fem"]
