"""Shape kind codes, the contact row width and the pairs ``collide`` implements (compiler and kernels)."""

from __future__ import annotations

SHAPE_SPHERE = 0
SHAPE_PLANE = 1
SHAPE_BOX = 2
SHAPE_CAPSULE = 3
SHAPE_CYLINDER = 4
SHAPE_ELLIPSOID = 5
SHAPE_MESH = 6
# planar kinds (shapes of planar models, in the marker's x-y plane)
SHAPE_LINE = 7          # half-plane y < 0 of the marker frame, normal +y (the plane kernels with m = R[:, 1])
SHAPE_PLANAR_CAPSULE = 8  # capsule along the marker's x axis: [radius, half length]
SHAPE_POLYGON = 9       # convex polygon, vertices counter-clockwise in the marker's x-y plane (mesh storage)
N_SHAPE_KINDS = 10
N_SHAPE_PARAMS = 4
MAX_POINTS = 8

# the pairs collide() implements, as (smaller kind, larger kind); either order is accepted
SUPPORTED_PAIRS = frozenset([
    (SHAPE_SPHERE, SHAPE_SPHERE), (SHAPE_SPHERE, SHAPE_PLANE), (SHAPE_SPHERE, SHAPE_BOX),
    (SHAPE_SPHERE, SHAPE_CAPSULE), (SHAPE_SPHERE, SHAPE_ELLIPSOID), (SHAPE_SPHERE, SHAPE_MESH),
    (SHAPE_PLANE, SHAPE_BOX), (SHAPE_PLANE, SHAPE_CAPSULE), (SHAPE_PLANE, SHAPE_CYLINDER),
    (SHAPE_PLANE, SHAPE_ELLIPSOID), (SHAPE_PLANE, SHAPE_MESH),
    (SHAPE_CAPSULE, SHAPE_CAPSULE), (SHAPE_ELLIPSOID, SHAPE_ELLIPSOID),
    (SHAPE_SPHERE, SHAPE_LINE), (SHAPE_SPHERE, SHAPE_PLANAR_CAPSULE), (SHAPE_SPHERE, SHAPE_POLYGON),
    (SHAPE_LINE, SHAPE_PLANAR_CAPSULE), (SHAPE_LINE, SHAPE_POLYGON), (SHAPE_PLANAR_CAPSULE, SHAPE_PLANAR_CAPSULE),
])


def pair_supported(kind_a: int, kind_b: int) -> bool:
    """True if ``collide`` implements the pair of shape kinds (in either order); for the compiler's check."""
    return (min(kind_a, kind_b), max(kind_a, kind_b)) in SUPPORTED_PAIRS

_PARALLEL_EPS = 1e-10     # sin^2 of the angle below which two segments count as parallel
_NEWTON_ITERS = 40
_PW_ITERS = 40
