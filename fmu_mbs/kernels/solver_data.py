"""The solver's named data (the MuJoCo model/data split): the mutable half that the kernels read and write, as
named tuples of arrays built once per evaluator or integrator by analyses/workspace.py. The model half is
ModelArrays (kernels/model_arrays.py, compiler/families.py). Fields are read by name in the kernels; each comment
gives the shape (n = coordinates, nr = constraint rows, nb = bodies, nm = markers, nz = element states, n_out =
element outputs), the unit and the stage that writes it.
"""

from __future__ import annotations

from .model_arrays import arrays_type

#: body and marker frames, world axes (written by system.eval_frames_ws)
Frames = arrays_type("Frames", [
    "r",     # (nb, 3) m        body CM positions
    "A",     # (nb, 3, 3)       body rotation matrices
    "v",     # (nb, 3) m/s      body CM velocities
    "w",     # (nb, 3) rad/s    body angular velocities
    "o",     # (nm, 3) m        marker origins
    "R",     # (nm, 3, 3)       marker axes (columns x, y, z)
    "vo",    # (nm, 3) m/s      marker origin velocities
    "wm",    # (nm, 3) rad/s    marker angular velocities
], __name__)

#: constraint rows at one state (written by constraints.eval_constraint_rows)
Rows = arrays_type("Rows", [
    "phi",    # (nr,)             Phi (m, rad or 1)
    "jac",    # (nr, ncol)        Phi_q in the column order of ModelArrays.row_cols (ncol = its width)
    "nu",     # (nr,)             velocity right side: Phi_q qd = nu
    "gamma",  # (nr,)             acceleration right side: Phi_q qdd = gamma
    "jtw",    # (nr, 12)          twist-space rows [v_i, w_i, v_j, w_j] about the bodies' reference points (reactions)
], __name__)

#: the complete integration state: saving and restoring it replays a run bit for bit (FMU rollback)
State = arrays_type("State", [
    "sc",        # (N_SC,)  scalars SC_* of kernels.integrate_alf: time s, work J, step count, powers W, flags
    "q",         # (n,)     coordinates
    "qd",        # (n,)     coordinate rates
    "qdd",       # (n,)     coordinate accelerations
    "lam",       # (nr,)    multipliers (N, N m)
    "u",         # (n_u,)   inputs (set by the caller between calls)
    "zs",        # (nz,)    committed element states
    "u_last",    # (n_u,)   inputs of the powers kept in sc
    "lam_star",  # (nr,)    augmented Lagrangian multipliers lam*
    "acc",       # (n,)     generalized-alpha pseudo-accelerations a
    "vt",        # (n,)     energy-consistent scheme: the trapezoid's velocity
    "at",        # (n,)     ... its acceleration
    "gc",        # (n,)     ... its end-point constraint force Q - M at (N)
], __name__)

#: integrator options (floats; integrate_alf documents each)
Options = arrays_type("Options", [
    "c",               # kg      penalty c = penalty x largest mass-matrix diagonal
    "tol",             # m, rad  Newton convergence: max |dq| <= tol
    "accept_tol",      # m, rad  accept after max_iter if max |dq| <= accept_tol
    "max_iter",        # 1       Newton iterations per step
    "use_fd",          # 0/1     add the finite-difference force tangent to W
    "noncons",         # 0/1     the model has non-conservative elements (energy split needs the modes)
    "pivot",           # 1       relative pivot tolerance of the Cholesky factorisation
    "fd_eps",          # 1       relative finite-difference step
    "rho",             # 1       spectral radius at infinity of the generalized-alpha scheme (1: trapezoidal)
    "energy",          # 0/1     energy-consistent trapezoid
    "dyn_colors",      # 0/1     finite-difference colours from the contact pairs at each tangent refresh
    "fd_every",        # 1       refresh the finite-difference tangent at every k-th step's predictor
    "energy_balance",  # 0/1     per-step energy split (W_diss, W_in); 0: they are NaN
    "accept_first",    # 0/1     accept a first correction below tol without evaluating after it (not "energy")
    "analytic_tangent",  # 0/1   the force tangent from the families' closed forms, not finite differences
    "project_acc",     # 0/1     project the accelerations onto the constraints at each step's end (ALI3-P)
], __name__)

#: sparsity of the iteration matrix (analyses/integrators/pattern.py builds it)
PatternArrays = arrays_type("PatternArrays", [
    "pos",      # (n,)     envelope position of each coordinate
    "first",    # (n,)     first column of each envelope row
    "ptr",      # (n + 1,) start of each envelope row in the value array
    "colors",   # (nb,)    finite-difference colour of each body
    "adj_ptr",  # (nb + 1,) force-element neighbourhood of each body (itself included), CSR
    "adj_idx",
    "jp_ptr",   # lower-triangle products (c2, value index) of each (row, c1), CSR
    "jp",
    "midx",     # (nb, nq, nq) value index of each mass-block entry, -1 above the diagonal (nq: largest body)
    "adj_rev",  # adjacency entry (b2 -> b) of each entry (b -> b2)
], __name__)

#: workspace of the force and integrator kernels, allocated once
Work = arrays_type("Work", [
    "fr",        # Frames at the last evaluated state
    "out",       # (n_out,) element outputs of the last force evaluation (each element's block: model/interface)
    "cw",        # ContactWork (kernels/contact.py)
    "zn",        # (nz,)    candidate element states of the last force evaluation
    "rows",      # Rows at the Newton iterate / stage
    "rows_end",  # Rows at the accepted end state (residuals, gamma of the projection)
    "Q",         # (n,) N   generalized forces of the iterate
    "Qa",        # (n,) N   scratch forces (energy split, finite differences)
    "Qb",        # (n,) N   scratch forces
    "mb",        # (nb, nq, nq) per-body mass blocks (kg, kg m^2; nq: the largest body's coordinate count)
    "q0",        # (n,)     step start: coordinates
    "qd0",       # (n,)     ... rates (the trapezoid's own velocity in the energy scheme)
    "qdd0",      # (n,)     ... accelerations
    "lam0",      # (nr,)    ... AL multipliers
    "y",         # (nr,)    scratch per row
    "res",       # (n,)     Newton residual
    "dq",        # (n,)     Newton correction
    "rhs",       # (n,)     scratch (the previous correction in Newton)
    "work",      # (n,)     solve scratch
    "val",       # (envelope,) values of the factorised iteration matrix
    "base",      # (envelope,) its part without the constraints, M + Wx, while both are kept (constant_mass models)
    "Wx",        # (n_adj, nq, nq) finite-difference tangent blocks
    "dlt",       # (nb,)    finite-difference scratch
    "jk",        # (nr, ncol) chord Jacobian of the energy scheme
    "y2",        # (nr,)    scratch per row
    "dq2",       # (n,)     scratch
    "pqd0",      # (n,)     energy scheme: projected start velocities
    "pqdd0",     # (n,)     energy scheme: projected start accelerations
    "z0",        # (nz,)    explicit integrator: committed element states of the step start
], __name__)

#: the bodies' arrays that the per-iteration mass kernels need (not the whole model)
BodyView = arrays_type("BodyView", ["kind", "q_adr", "q_num", "mass", "inertia", "flex"], __name__)
