"""Narrow-phase contact geometry (one module per group of pairs: planes, convex, ellipsoids, mesh; ``collide``
in dispatch): penetration depth, normal and point of two convex shapes (or a mesh).

``collide(kind_a, par_a, o_a, R_a, kind_b, par_b, o_b, R_b, mesh_ptr, mesh_verts, mesh_tri_ptr, mesh_tris, out)``
returns the number of contact points n and fills ``out[:n] = (depth, nx, ny, nz, px, py, pz)``: depth > 0 (m),
the unit normal pointing from b towards a (a moves along +n to separate; the normal force on a is +fn n), and
the world point midway between the deepest points of the two surfaces along n. Pairs stored in the reverse of
the implemented order are swapped and their normals flipped; an unsupported pair returns -1. Nothing here
allocates. A shape's pose is its marker frame: origin o (m) and rotation R (columns = shape axes in world).

Methods (P is the plane point o_b, m its normal R_b[:, 2]; "deepest point" is along the contact normal):

- sphere-plane, capsule-plane: signed distance of the centre / each segment end to the plane, depth = r - d
  (capsule: up to two points, the segment ends, so a capsule lying flat rests on a line).
- sphere-sphere, sphere-capsule, capsule-capsule: distance between the centres / the closest points of the
  segments (Ericson, Real-Time Collision Detection, 2005, sec. 5.1.9): one point. Depth and normal are
  continuous; the point is not always: for two axes at a small angle the closest points sit where the axes cross
  in projection, which runs along the overlap as the angle goes through zero (a single-point contact cannot do
  better). Exactly parallel segments (sin^2 of the angle < 1e-10) take the middle of the overlap of their
  projections, the limit when they turn about that point. Intersecting axes (depth = r_a + r_b) take the
  common normal of the two axes, or a fixed normal to a's axis if they are parallel; coincident sphere centres
  take world +z.
- sphere-box: Arvo's clamp of the centre to the box (Ericson 5.1.3); a centre inside the box is pushed out
  through the face of least penetration (the only jump, at the box's medial planes, is forced by the geometry).
- box-plane, mesh-plane: every vertex below the plane is a point (box: up to 8; mesh: the 8 deepest).
- cylinder-plane: rim support points. On each end cap, the deepest rim point e + r u (u the unit component of
  -m normal to the axis) and the three rim points at 90, 180 and 270 degrees from it; each point below the plane is
  a contact. A cylinder on its side rests on the two deepest rim points (a line); standing on a cap, it rests on
  four. At the exact upright pose u is undefined and taken along the shape x axis; there all four points of the
  cap have equal depth, so the resultant does not jump.
- ellipsoid-plane: exact support point of E = diag(a, b, c) in direction -m (shape frame):
  x = -E^2 m / |E m|, depth = -m . (x_world - P) (the support function of an ellipsoid, h(d) = |E d|).
- ellipsoid-ellipsoid and ellipsoid-sphere (a sphere is an ellipsoid with a = b = c = r): the penetration depth
  is the minimum translation distance, i.e. the minimum over unit n of the support function of the Minkowski
  difference, f(n) = h_A(-n) + h_B(n) = (c_b - c_a) . n + sqrt(n' M_a n) + sqrt(n' M_b n), M = R E^2 R'
  (van den Bergen, Collision Detection in Interactive 3D Environments, 2003, ch. 4; f > 0 at every n iff the
  ellipsoids overlap). Its stationary points on the unit sphere are the common-normal points: grad f =
  x_b - x_a, the vector between the support points x_a = c_a - M_a n / |..| and x_b = c_b + M_b n / |..|,
  parallel to n. Steps:
  1. reject at once if f(n_c) <= 0 for the centre direction n_c;
  2. Perram-Wertheim contact function (J. Comput. Phys. 58, 1985): S(l) = l (1 - l) r' G(l)^-1 r,
     G(l) = (1 - l) M_a + l M_b, r = c_b - c_a, is concave on (0, 1); its maximum S* < 1 iff they overlap
     (exact test, safeguarded Newton on S', <= 40 iterations). At the maximiser the scaled ellipsoids touch with
     the common normal z = G^-1 r, a continuous initial normal n0 = -z/|z| that becomes exact as depth -> 0;
  3. Riemannian Newton on the unit sphere (tangent-plane coordinates, Hessian P H P - f I since f is
     positively homogeneous of degree 1; shifted to positive definite where it is not), Armijo back-tracking,
     <= 40 iterations, stop at |P grad f| <= 1e-13 L (L the scene size): quadratic convergence to the local
     minimum nearest the Perram-Wertheim normal, 4-5 iterations for depth below the smallest semi-axis.
  The result is the exact minimum translation distance (to round-off) as long as that local minimum is the
  global one. Measured against a scipy minimisation on 120 random pairs (semi-axes 0.1-1 m): relative error
  <= 3e-13 in all 81 cases with depth up to twice the smallest semi-axis; deeper, 2 of 26 cases ended in
  another local minimum (up to 8 % deeper): f can have several minima there, as any penetration depth can
  (think of an interior point of a box), and the one continued from the Perram-Wertheim normal is returned.
  Never NaN: concentric centres fall back to the world axis of least f.
- sphere-mesh: the closest point of every triangle to the centre (Ericson 5.1.5, with its Voronoi feature:
  vertex, edge or face); triangles are one-sided (counter-clockwise seen from outside, the centre must be in
  front of the triangle's plane). Rule against double counting at shared edges and vertices: candidates are
  ranked by distance (ties within 1e-9 r: face-interior points first, then the lower triangle index). A point
  on an edge or vertex of triangle T is dropped if a candidate of a triangle sharing a vertex with that edge or
  vertex ranks before it; a face-interior point is dropped only if a better-ranked neighbour found the same
  point. On a flat or convex patch this leaves exactly the point of the feature nearest to the centre (the
  deepest contact of the patch) and hands over continuously across edges and vertices; in a concave corner
  each touched face gives its own point.
  At most the 8 deepest points are kept. Valid while the centre stays outside the mesh (depth < r). Cost:
  a bounding-box reject per triangle, O(triangles) per call (no hierarchy inside a mesh; the broad phase
  bounds the mesh as a whole), plus a scan of the triangles for each edge or vertex point.

Planar models (shapes in the marker's x-y plane, world z = 0): a circle is a sphere; a line is the half-plane
y < 0 of its marker (the plane kernels with m = R_b[:, 1]); a planar capsule lies along its marker's x axis (the
capsule kernels with that axis); a convex polygon is stored as mesh vertices (counter-clockwise, z = 0): against a
line every vertex below it is a point (as mesh-plane), against a circle one point (planar.py: the closest boundary
point, or out through the edge of least penetration when the centre is inside).
"""

from __future__ import annotations

from .dispatch import collide, sphere_plane, sphere_sphere
from .shapes import (
    MAX_POINTS,
    N_SHAPE_KINDS,
    N_SHAPE_PARAMS,
    SHAPE_BOX,
    SHAPE_CAPSULE,
    SHAPE_CYLINDER,
    SHAPE_ELLIPSOID,
    SHAPE_LINE,
    SHAPE_MESH,
    SHAPE_PLANAR_CAPSULE,
    SHAPE_PLANE,
    SHAPE_POLYGON,
    SHAPE_SPHERE,
    SUPPORTED_PAIRS,
    pair_supported,
)

__all__ = ["MAX_POINTS", "N_SHAPE_KINDS", "N_SHAPE_PARAMS", "SHAPE_BOX", "SHAPE_CAPSULE", "SHAPE_CYLINDER",
           "SHAPE_ELLIPSOID", "SHAPE_LINE", "SHAPE_MESH", "SHAPE_PLANAR_CAPSULE", "SHAPE_PLANE", "SHAPE_POLYGON",
           "SHAPE_SPHERE", "SUPPORTED_PAIRS", "collide",
           "pair_supported", "sphere_plane", "sphere_sphere"]
