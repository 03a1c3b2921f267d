"""ModelArrays: the compiled model as one namedtuple of flat arrays (structure of arrays per element
family), the only model object kernels see. Built by fmu_mbs.compiler; read-only.

Naming: ``<family>_<quantity>``; marker and body indices are -1 for ground; ``*_fn`` index the
time-function table (-1 = none); ``*_adr``/``*_len`` address the float pools.

Element states: ``<family>_z_adr`` (-1 = none) address a flat state vector z (initial values ``z0``) that
the solver carries between steps: force kernels read the committed states ``zs`` of the step start and write
the candidate states ``zn`` at the evaluated (t, q, qd); an integrator copies zn -> zs on step acceptance.

Contact (kernels/contact.py): ``shape_*`` per shape (kind and params as in the narrow-phase contract, marker,
broad-phase group/mask bits and the CSR list of shapes it never collides with, body, contact signature, Hertz
compliance (1 - nu^2)/E and curvature 1/R), mesh pools, ``sig_contact`` / ``sig_swap`` per pair of signatures
(contact element or -1; 1 if the second shape is the a side), ``cont_*`` per contact element (law, parameters,
friction model, curve addresses), ``cont_state`` ([z address, records] of the contact state table) and
``cont_dissipative`` ([1]; 0 in the energy split's conservative variant).

Passive cylinders (kernels/passive_cylinder.py): ``pc_*`` per element: markers, part data (PC_* layout),
drive function and input slot, the address of its 12 states (previous-step end accelerations) and its
stroke constraint row (-1: force-driven).
Joint friction (kernels/joint_friction.py): ``jf_*`` per friction element: joint type (JF_REVOLUTE or
JF_PRISMATIC), the joint's markers, its constraint rows (-1 padded), friction law and CP_* parameters
(kernels.contact), geometry (JG_* columns), bristle state address (3 values, -1 = none) and ``jf_dissipative``
([1]; 0 in the conservative variant).
"""

from __future__ import annotations

from collections import namedtuple

# body kinds
POINT_MASS = 0
PLANAR = 1
RIGID = 2

# basic constraint row types (seed 004 GCons plus ANGLE and the Euler-parameter normalisation)
ROW_CD = 0      # c . (o_j - o_i) - f(t)
ROW_DP1 = 1     # a_i . a_j - f(t)
ROW_DP2 = 2     # a_i . (o_j - o_i) - f(t)
ROW_D = 3       # ((o_j - o_i) . (o_j - o_i) - f(t)) / 2
ROW_ANGLE = 4   # wrap(angle from x_i to x_j about z_i - f(t))
ROW_NORM = 5    # (p . p - 1) / 2 for a rigid body's Euler parameters

MAX_ROW_COLS = 14  # two rigid bodies of 7 coordinates

# time-function kinds
FN_CONSTANT = 0     # [value]
FN_LINEAR = 1       # [initial, rate]
FN_POLYNOMIAL = 2   # [c0, c1, ...]
FN_SMOOTH_RAMP = 3  # [t_start, t_end, start_value, end_value]
FN_HARMONIC = 4     # [amplitude, omega, phase, offset]
FN_TABLE_LINEAR = 5  # [t_0..t_n-1, v_0..v_n-1], len = 2n
FN_TABLE_CUBIC = 6   # [t_0..t_n-1, c (4 x (n-1)) descending powers], len = n + 4(n-1)

# The type name carries the package name: numba types a namedtuple by its class name and fields, so two copies
# of this library in one process (the installed one and an FMU's vendored ``fmu_mbs_<hash>``) would otherwise
# share one numba type, and the second copy's dispatchers would fall back to their slow path (measured 17x
# slower FMU steps after a library run in the same process).
ModelArrays = namedtuple("ModelArrays_" + __name__.split(".")[0], [
    "dim", "gravity",
    "body_kind", "body_q_adr", "body_q_num", "body_mass", "body_inertia",
    "marker_body", "marker_pos", "marker_rot", "marker_input_adr",
    "row_type", "row_mi", "row_mj", "row_axis_i", "row_axis_j", "row_c", "row_fn",
    "row_body_i", "row_body_j", "row_cols",
    "fn_type", "fn_adr", "fn_len", "fn_par",
    "curve_par",
    "tsda_mi", "tsda_mj", "tsda_k", "tsda_l0", "tsda_c", "tsda_fn", "tsda_spring", "tsda_damper",
    "rsda_mi", "rsda_mj", "rsda_k", "rsda_theta0", "rsda_c", "rsda_fn", "rsda_spring", "rsda_damper",
    "bush_mi", "bush_mj", "bush_k", "bush_c", "bush_kr", "bush_cr",
    "load_marker", "load_fn", "load_frame",
    "act_mi", "act_mj", "act_fn", "act_input_adr",
    "rsda_z_adr", "z0",
    "hyd_mi", "hyd_mj", "hyd_par", "hyd_fn", "hyd_input_adr", "hyd_z_adr",
    "shape_kind", "shape_marker", "shape_par", "shape_group", "shape_mask", "shape_excl_ptr", "shape_excl_idx",
    "mesh_ptr", "mesh_verts", "mesh_tri_ptr", "mesh_tris",
    "shape_body", "shape_sig", "shape_compliance", "shape_inv_radius", "sig_contact", "sig_swap", "cont_state",
    "cont_law", "cont_par", "cont_friction", "cont_curves", "cont_dissipative",
    "pc_mi", "pc_mj", "pc_par", "pc_fn", "pc_input_adr", "pc_z_adr", "pc_row",
    "jf_type", "jf_mi", "jf_mj", "jf_rows", "jf_model", "jf_par", "jf_geo", "jf_z_adr", "jf_dissipative",
])
ModelArrays.__qualname__ = "ModelArrays"     # pickle and repr find it under its module-level name
