"""Lowering of the two-marker force elements and loads into their kernels' arrays (kernels/families/): spring-
dampers, rotational spring-dampers, bushings, point loads, actuators. Each ``lower_*`` takes the family's
elements (model order) and the LoweringContext, and returns the family's Arrays."""

from __future__ import annotations

import numpy as np

from ..kernels.families import actuator, bushing, point_load, rotational_spring_damper, spring_damper
from .lowering import LoweringContext


def _floats(items, attr: str) -> np.ndarray:
    return np.array([getattr(f, attr) for f in items], dtype=float)


def _vec3(items, attr: str) -> np.ndarray:
    return np.array([list(getattr(f, attr)) + [0.0] * (3 - len(getattr(f, attr))) for f in items],
                    dtype=float).reshape(len(items), 3)


def _curves(ctx: LoweringContext, items, attr: str) -> np.ndarray:
    return np.array([ctx.pool.add_curve(getattr(f, attr)) for f in items], dtype=np.int64).reshape(len(items), 2)


def _functions(ctx: LoweringContext, items, attr: str) -> np.ndarray:
    return np.array([ctx.pool.add(getattr(f, attr)) for f in items], dtype=np.int64)


def lower_spring_dampers(items, ctx: LoweringContext):
    return spring_damper.Arrays(
        mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"), k=_floats(items, "stiffness"),
        l0=_floats(items, "free_length"), c=_floats(items, "damping"), fn=_functions(ctx, items, "force"),
        spring=_curves(ctx, items, "spring_curve"), damper=_curves(ctx, items, "damper_curve"),
        out_adr=ctx.outputs(items))


def lower_rotational_spring_dampers(items, ctx: LoweringContext):
    z_adr = np.array([ctx.layout.states([f.free_angle], f.name) for f in items], dtype=np.int64)
    return rotational_spring_damper.Arrays(
        mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"), k=_floats(items, "stiffness"),
        theta0=_floats(items, "free_angle"), c=_floats(items, "damping"), fn=_functions(ctx, items, "torque"),
        spring=_curves(ctx, items, "spring_curve"), damper=_curves(ctx, items, "damper_curve"), z_adr=z_adr,
        out_adr=ctx.outputs(items))


def lower_bushings(items, ctx: LoweringContext):
    return bushing.Arrays(mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"),
                          k=_vec3(items, "stiffness"), c=_vec3(items, "damping"),
                          kr=_vec3(items, "rotational_stiffness"), cr=_vec3(items, "rotational_damping"),
                          out_adr=ctx.outputs(items))


def lower_point_loads(items, ctx: LoweringContext):
    fn = -np.ones((len(items), 6), dtype=np.int64)
    for k, ld in enumerate(items):
        comps = (list(ld.force) + [None]) if ctx.dim == 2 else list(ld.force)
        comps += ([None, None] + list(ld.torque)) if ctx.dim == 2 else list(ld.torque)
        for c, f in enumerate(comps):
            fn[k, c] = ctx.pool.add(f)
    return point_load.Arrays(marker=ctx.markers(items, "marker"), fn=fn,
                             frame=np.array([1 if f.frame == "marker" else 0 for f in items], dtype=np.int64))


def lower_actuators(items, ctx: LoweringContext):
    return actuator.Arrays(mi=ctx.markers(items, "marker_i"), mj=ctx.markers(items, "marker_j"),
                           fn=_functions(ctx, items, "force"),
                           input_adr=np.array([ctx.input(f) for f in items], dtype=np.int64),
                           out_adr=ctx.outputs(items))


def spring_damper_nonconservative(a) -> bool:
    """Dampers, damper curves or time functions: the energy split has work to do."""
    return bool(np.any(a.c) or np.any(a.damper[:, 1] > 0) or np.any(a.fn >= 0))


def bushing_nonconservative(a) -> bool:
    return bool(np.any(a.c) or np.any(a.cr))


def always(a) -> bool:
    """A family that always puts in or takes out work (power ports, loads, contact, friction) when it has elements."""
    return len(a.out_adr) > 0


def two_markers(a) -> list[tuple[int, int]]:
    """The marker pairs an element family couples (mi, mj)."""
    return list(zip(a.mi.tolist(), a.mj.tolist()))
