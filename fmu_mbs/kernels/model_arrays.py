"""ModelArrays: the compiled model as one namedtuple of flat arrays (structure of arrays per element
family), the only model object kernels see. Built by fmu_mbs.compiler; read-only.

Naming: core arrays ``<table>_<quantity>`` (bodies, markers, rows, functions, shapes; ``flex`` the flexible bodies'
tables, kernels/bodies/flexible.FlexArrays); each element family's
arrays sit in its own named tuple ``m.<family key>`` (kernels/families/, compiler/families.py); marker and body
indices are -1 for ground; ``fn`` fields index the time-function table (-1 = none); ``*_adr``/``*_len`` address
the float pools; ``out_adr`` the element's block of the output vector (``n_out`` values in all). ``row_cols`` is
(rows, 2 x the largest body's coordinate count): body i's coordinates, then body j's, -1 = unused.

Element states: a family's ``z_adr`` (-1 = none) address a flat state vector z (initial values ``z0``) that
the solver carries between steps: force kernels read the committed states ``zs`` of the step start and write
the candidate states ``zn`` at the evaluated (t, q, qd); an integrator copies zn -> zs on step acceptance.

Contact (kernels/contact.py): ``shape_*`` per shape (kind and params as in the narrow-phase contract, marker,
broad-phase group/mask bits and the CSR list of shapes it never collides with, body, contact signature, Hertz
compliance (1 - nu^2)/E and curvature 1/R), mesh pools, ``sig_contact`` / ``sig_swap`` per pair of signatures
(contact element or -1; 1 if the second shape is the a side) and ``cont_state`` ([z address, records] of the
contact state table); the contact elements' laws are the ``contact`` family's arrays.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

# body kinds (one module each in kernels/bodies/, dispatched by kernels/bodies/dispatch.py)
POINT_MASS = 0
PLANAR = 1
RIGID = 2
FLEXIBLE = 3
MODAL = 4

# basic constraint row types (seed 004 GCons plus ANGLE and the Euler-parameter normalisation)
ROW_CD = 0      # c . (o_j - o_i) - f(t)
ROW_DP1 = 1     # a_i . a_j - f(t)
ROW_DP2 = 2     # a_i . (o_j - o_i) - f(t)
ROW_D = 3       # ((o_j - o_i) . (o_j - o_i) - f(t)) / 2
ROW_ANGLE = 4   # wrap(angle from x_i to x_j about z_i - f(t))
ROW_NORM = 5    # (p . p - 1) / 2 for a rigid body's Euler parameters

# time-function kinds
FN_CONSTANT = 0     # [value]
FN_LINEAR = 1       # [initial, rate]
FN_POLYNOMIAL = 2   # [c0, c1, ...]
FN_SMOOTH_RAMP = 3  # [t_start, t_end, start_value, end_value]
FN_HARMONIC = 4     # [amplitude, omega, phase, offset]
FN_TABLE_LINEAR = 5  # [t_0..t_n-1, v_0..v_n-1], len = 2n
FN_TABLE_CUBIC = 6   # [t_0..t_n-1, c (4 x (n-1)) descending powers], len = n + 4(n-1)

# force-evaluation modes (the energy split evaluates the forces three times, switching terms off by mode).
# numpy integers, not Python ints: numba types a Python int constant passed as an argument as Literal[int](value)
# and compiles the callee, and every kernel it calls, once per literal; an int64 constant gives every force kernel
# one signature (a quarter of the force tree's cold compile, docs/performance.md "Where a cold compile goes")
MODE_FULL = np.int64(0)          # every force: springs, dampers, friction, time functions, inputs, power ports
MODE_DAMPED = np.int64(1)        # no inputs, time functions, power ports (actuators, hydraulics, passive cylinders)
MODE_CONSERVATIVE = np.int64(2)  # gravity and springs only (no dampers, no friction)
# flags passed to kernels, for the same reason (a Python bool constant is Literal[bool](value): one compile per value
# and one for a flag variable; a numpy bool is typed bool)
TRUE = np.bool_(True)
FALSE = np.bool_(False)
ZERO = np.int64(0)

#: fields of ModelArrays shared by every family: bodies, markers, constraint rows, function pools, initial element
#: states, contact shapes and signatures (the contact state table's [address, records] included); the families'
#: own arrays follow, one named tuple per family (compiler/families.py builds the type from its registry)
CORE_FIELDS = (
    "dim", "gravity",
    "body_kind", "body_q_adr", "body_q_num", "body_mass", "body_inertia", "flex",
    "marker_body", "marker_pos", "marker_rot", "marker_input_adr",
    "row_type", "row_mi", "row_mj", "row_axis_i", "row_axis_j", "row_c", "row_fn",
    "row_body_i", "row_body_j", "row_cols",
    "fn_type", "fn_adr", "fn_len", "fn_par",
    "curve_par", "z0",
    "shape_kind", "shape_marker", "shape_par", "shape_group", "shape_mask", "shape_excl_ptr", "shape_excl_idx",
    "mesh_ptr", "mesh_verts", "mesh_tri_ptr", "mesh_tris",
    "shape_body", "shape_sig", "shape_compliance", "shape_inv_radius", "sig_contact", "sig_swap", "cont_state",
)


def arrays_type(name: str, fields, module: str, attr: str | None = None):
    """A named tuple type for numba kernels whose type name carries this library copy's package name: numba types a
    named tuple by its class name and fields, so two copies of this library in one process (the installed one and
    an FMU's vendored ``fmu_mbs_<hash>``) would otherwise share one numba type, and the second copy's dispatchers
    would fall back to their slow path (measured 17x slower FMU steps after a library run in the same process).
    ``module`` and ``attr`` (the name it is bound to there; default ``name``) let pickle find the type."""
    cls = namedtuple(f"{name}_{__name__.split('.')[0]}", fields, module=module)
    cls.__qualname__ = attr or name
    return cls
