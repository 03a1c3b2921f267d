"""Linear finite-element data for flexible bodies: a 3D beam element, modal reduction (Craig-Bampton, free-interface,
static correction), modal damping, the FFRF inertia invariants, geometric stiffening, section-force (stress) modes
and importers of FE data (MBDyn .fem, Matrix Market).

A leaf package: it imports only numpy, scipy and fmu_mbs.errors. See docs/flexible-bodies.md."""

from .abaqus_mtx import read_abaqus_matrices
from .beam import BeamSection
from .beam_body import BeamMesh, beam_body, straight_beam
from .body import FEBody
from .craig_bampton import craig_bampton
from .damping import modal_damping, rayleigh, rayleigh_coefficients
from .eigen import Modes, canonical_modes, natural_modes, static_solve
from .flexible_kind import flexible_body_fields, reduced_flexible_body_fields
from .free_modes import free_interface_modes, static_modes, static_response, with_static_correction
from .interfaces import Interface
from .invariants import Invariants, compute_invariants, invariants
from .matrix_market import ImportedBody, read_matrix_market
from .mbdyn_fem import FemData, read_fem, write_fem
from .modeset import ModeSet, orthogonalize
from .recovery import normal_stress, section_force_modes, section_forces
from .stiffening import ModalGeometricStiffness, geometric_stiffness, modal_geometric_stiffness
from .truss import truss_body

__all__ = ["BeamMesh", "BeamSection", "FEBody", "FemData", "ImportedBody", "Interface", "Invariants",
           "ModalGeometricStiffness", "ModeSet", "Modes", "beam_body", "canonical_modes",
           "compute_invariants", "craig_bampton",
           "flexible_body_fields", "free_interface_modes", "geometric_stiffness", "invariants", "modal_damping",
           "modal_geometric_stiffness", "natural_modes", "normal_stress", "orthogonalize", "rayleigh",
           "rayleigh_coefficients", "read_abaqus_matrices", "read_fem", "read_matrix_market",
           "reduced_flexible_body_fields", "section_force_modes", "section_forces", "static_modes",
           "static_response", "static_solve", "straight_beam", "truss_body", "with_static_correction", "write_fem"]
