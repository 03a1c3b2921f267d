"""Functions of time used by drivers, actuators and loads (SI units of the quantity they drive).

Each kind is a frozen dataclass; ``function_from_dict`` / ``function_to_dict`` give the JSON form
``{"type": "<kind>", ...fields}``. A bare number in JSON means ``Constant``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, is_dataclass


@dataclass(frozen=True)
class Constant:
    """f(t) = value."""

    value: float = 0.0


@dataclass(frozen=True)
class Linear:
    """Constant speed: f(t) = initial + rate * t."""

    initial: float = 0.0
    rate: float = 0.0


@dataclass(frozen=True)
class Polynomial:
    """f(t) = sum_k coefficients[k] * t**k."""

    coefficients: tuple[float, ...] = (0.0,)


@dataclass(frozen=True)
class SmoothRamp:
    """Quintic step from ``start_value`` at ``t_start`` to ``end_value`` at ``t_end``; C2 continuous,
    constant outside the interval (zero velocity and acceleration at both ends)."""

    t_start: float = 0.0
    t_end: float = 1.0
    start_value: float = 0.0
    end_value: float = 1.0


@dataclass(frozen=True)
class Harmonic:
    """f(t) = offset + amplitude * sin(omega * t + phase); omega in rad/s."""

    amplitude: float = 1.0
    omega: float = 1.0
    phase: float = 0.0
    offset: float = 0.0


@dataclass(frozen=True)
class Table:
    """Interpolated table f(t_k) = values[k]; ``interpolation`` is "cubic" (not-a-knot spline) or "linear".
    Outside [t_0, t_end] the end value is held."""

    t: tuple[float, ...] = (0.0, 1.0)
    values: tuple[float, ...] = (0.0, 0.0)
    interpolation: str = "cubic"


@dataclass(frozen=True)
class External:
    """Prescribed from outside: in an FMU, a driver with this function takes its coordinate, rate and
    acceleration as the inputs ``<driver>.s``, ``<driver>.sd``, ``<driver>.sdd`` and follows their Taylor
    polynomial over each communication step; in library analyses it holds ``initial``."""

    initial: float = 0.0


TimeFunction = Constant | Linear | Polynomial | SmoothRamp | Harmonic | Table | External

FUNCTION_KINDS: dict[str, type] = {
    "constant": Constant,
    "linear": Linear,
    "polynomial": Polynomial,
    "smooth_ramp": SmoothRamp,
    "harmonic": Harmonic,
    "table": Table,
    "external": External,
}
_KIND_OF = {cls: kind for kind, cls in FUNCTION_KINDS.items()}


def function_from_dict(data: object, where: str) -> TimeFunction:
    """Parse a JSON time function (a number or ``{"type": ...}``); ``where`` names the owner for errors."""
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return Constant(float(data))
    if not isinstance(data, dict) or "type" not in data:
        raise ValueError(f"{where}: a time function is a number or an object with a 'type' field, got {data!r}")
    kind = data["type"]
    cls = FUNCTION_KINDS.get(kind)
    if cls is None:
        raise ValueError(f"{where}: unknown time function type {kind!r} (known: {', '.join(FUNCTION_KINDS)})")
    known = {f.name for f in fields(cls)}
    unknown = set(data) - known - {"type"}
    if unknown:
        raise ValueError(f"{where}: time function '{kind}' has unknown field(s) {sorted(unknown)}")
    kwargs = {}
    for name, value in data.items():
        if name == "type":
            continue
        kwargs[name] = tuple(float(v) for v in value) if isinstance(value, list) else value
    return cls(**kwargs)


def function_to_dict(fn: TimeFunction) -> dict | float:
    """JSON form of a time function; a Constant is written as a bare number."""
    if isinstance(fn, Constant):
        return fn.value
    out: dict = {"type": _KIND_OF[type(fn)]}
    for f in fields(fn):
        value = getattr(fn, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def function_problems(fn: TimeFunction, where: str) -> list[str]:
    """Every problem with a time function's parameters, each naming ``where``."""
    if not is_dataclass(fn) or type(fn) not in _KIND_OF:
        return [f"{where}: expected a time function (e.g. Constant({fn!r}) for a number), got {type(fn).__name__}"]
    problems = []
    numbers: list[float] = []
    for f in fields(fn):
        value = getattr(fn, f.name)
        if isinstance(value, tuple):
            numbers.extend(value)
        elif isinstance(value, (int, float)):
            numbers.append(value)
    if not all(math.isfinite(float(v)) for v in numbers):
        problems.append(f"{where}: time function has a non-finite parameter")
    if isinstance(fn, Polynomial) and len(fn.coefficients) == 0:
        problems.append(f"{where}: polynomial needs at least one coefficient")
    if isinstance(fn, SmoothRamp) and not fn.t_end > fn.t_start:
        problems.append(f"{where}: smooth_ramp needs t_end > t_start (got {fn.t_start}, {fn.t_end})")
    if isinstance(fn, Table):
        if len(fn.t) != len(fn.values):
            problems.append(f"{where}: table has {len(fn.t)} times but {len(fn.values)} values")
        elif len(fn.t) < 2:
            problems.append(f"{where}: table needs at least 2 points")
        elif any(b <= a for a, b in zip(fn.t, fn.t[1:])):
            problems.append(f"{where}: table times must be strictly increasing")
        if fn.interpolation not in ("cubic", "linear"):
            problems.append(f"{where}: table interpolation must be 'cubic' or 'linear', got {fn.interpolation!r}")
    return problems
