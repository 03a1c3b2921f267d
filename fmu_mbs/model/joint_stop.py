"""The joint stop element (occupant joints): a tabulated, hysteretic joint characteristic with a stiff stop at the
range-of-motion limits, about z_i between two markers (kernels/families/joint_stop.py has the law)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .fields import Curve, param
from .interface import Interface, Signal


@dataclass(frozen=True)
class JointStop(Interface):
    """Resisting torque T = T_h(phi) + k_s e + c phi' about z_i, phi = theta - theta0 with theta the angle from x_i
    to x_j about z_i (turns counted), e the excursion past [lower, upper]; T reduces theta on marker_j's body and
    acts oppositely on marker_i's (the RSDA convention). T_h follows ``loading_curve`` [[phi, T], ...] (through
    [0, 0], non-decreasing, both signs allowed; linear past its ends) while |phi| grows past the largest excursion
    on its side, and unloads and reloads below it along ``unloading_stiffness`` down to zero at that side's
    permanent set (0: elastic). Outputs: angle phi (rad), speed (rad/s), T (N m)."""

    OUTPUTS = (Signal("angle", "rad", doc="phi = theta - theta0"), Signal("speed", "rad/s", doc="phi'"),
               Signal("T", "N.m", doc="resisting torque"))

    name: str
    marker_i: str
    marker_j: str
    loading_curve: Curve = param("rad, N*m", "[[phi, T], ...] through [0, 0], non-decreasing")
    free_angle: float = param("rad", "theta0", 0.0)
    unloading_stiffness: float = param("N*m/rad", "slope of unloading and reloading (0: elastic table)", 0.0)
    lower: float = param("rad", "lower range-of-motion limit of phi", -math.pi)
    upper: float = param("rad", "upper range-of-motion limit of phi", math.pi)
    stop_stiffness: float = param("N*m/rad", "stiffness of the stop past the limits", 0.0)
    damping: float = param("N*m*s/rad", "c", 0.0)

    def problems(self, where: str) -> list[str]:
        """What is wrong with the element's own fields (the model validation calls this)."""
        p = []
        curve = self.loading_curve or ()
        xs = [float(x[0]) for x in curve]
        ts = [float(x[1]) for x in curve]
        if len(curve) < 2 or not all(math.isfinite(v) for v in xs + ts):
            p.append(f"{where}: 'loading_curve' needs at least 2 finite points [phi, T]")
        elif any(b <= a for a, b in zip(xs, xs[1:])) or any(b < a for a, b in zip(ts, ts[1:])):
            p.append(f"{where}: 'loading_curve' needs strictly increasing phi and non-decreasing T")
        elif 0.0 not in xs or ts[xs.index(0.0)] != 0.0:
            p.append(f"{where}: 'loading_curve' must pass through [0, 0]")
        elif self.unloading_stiffness > 0.0:
            steepest = max((t1 - t0) / (x1 - x0) for x0, x1, t0, t1 in zip(xs, xs[1:], ts, ts[1:]))
            if self.unloading_stiffness < steepest:
                p.append(f"{where}: 'unloading_stiffness' must be 0 (elastic) or at least the steepest loading "
                         f"slope ({steepest:.6g} N m/rad), got {self.unloading_stiffness}")
        for name in ("unloading_stiffness", "stop_stiffness", "damping"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0.0):
                p.append(f"{where}: '{name}' must be finite and >= 0, got {v}")
        if not (self.lower <= 0.0 <= self.upper):
            p.append(f"{where}: the range [lower, upper] = [{self.lower}, {self.upper}] must contain 0")
        return p
