"""Body kinds, one module each, behind one dispatcher (kernels/bodies/dispatch.py).

A body kind says how its coordinates move its markers and how loads at its markers reach its coordinates:

- ``point_mass``: q = (x, y[, z]); ``planar``: q = (x, y, theta); ``rigid``: q = (r, p), p Euler parameters;
  these three carry their markers rigidly (kernels/bodies/lever.py: origin o = r + A s, lever s = o - r);
- ``flexible``: a linear (small-displacement) finite-element substructure fixed in the world frame, q = u its
  nodal displacements and rotations; a marker sits at a node and moves with that node's DOFs;
- ``modal``: a floating modal body, q = (r, p, eta): a frame moving like a rigid body (r its origin) plus modal
  coordinates of the small deformation in it; a marker sits at an FE node and moves with the frame and the modes.

The kind codes are in kernels/model_arrays.py (POINT_MASS, PLANAR, RIGID, FLEXIBLE, MODAL).
"""
