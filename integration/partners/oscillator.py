"""Partner FMU for master tests: a linear mass-spring-damper, optionally pulled by a coupling spring-damper towards
an input position (pure Python, independent of fmu-mbs).

    m x'' = -k x - d x' + F - Fc,   Fc = kc delta + dc (v - v_in)

with the coupling deflection delta = x - x_in (``coupling`` = 0, position input) or integrated from the velocity
input, delta' = v - v_in from ``delta_start`` (``coupling`` = 1: then the coupling exchanges power F v only through
the bond (Fc, v_in), and the energy of this FMU, ``energy`` = m v^2/2 + k x^2/2 + kc delta^2/2, changes by exactly
the power it takes in, F v - Fc v_in, minus damping).

Inputs ``F`` (N), ``x_in`` (m), ``v_in`` (m/s); outputs ``x``, ``v``, ``Fc`` (the force of the coupling element on the
body at x_in; direct feedthrough of x_in, v_in), ``delta`` and ``energy``. Two instances make
a two-mass oscillator split at the coupling: one with kc = dc = 0 driven by F, one with the coupling element fed
with the first one's x and v, whose Fc goes back to the first one's F. Integration: classical RK4 in substeps of at
most ``h_max`` (default 1e-4 s), inputs reconstructed between communication points by ``input_interpolation``
(0 hold, 1 linear, 2 quadratic; partner_base.InputHistory).
"""

from __future__ import annotations

import math

from partner_base import KEEPALIVE, InputHistory, PartnerSlave
from pythonfmu.enums import Fmi2Status

KEEPALIVE.append(globals())

INPUTS = ("F", "x_in", "v_in")


class Oscillator(PartnerSlave):
    """Mass-spring-damper with a coupling spring-damper to an input position."""

    description = "Linear mass-spring-damper with a coupling spring-damper to an input position (test partner)."

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.par = {"m": 1.0, "k": 1.0, "d": 0.0, "kc": 0.0, "dc": 0.0, "x_start": 0.0, "v_start": 0.0,
                    "delta_start": 0.0, "h_max": 1e-4}
        self.ipar = {"input_interpolation": 0, "coupling": 0}
        self.u = {"F": 0.0, "x_in": 0.0, "v_in": 0.0}
        self.x = {"x": 0.0, "v": 0.0, "delta": 0.0, "t": 0.0}
        self.started = False
        self.history = InputHistory(list(INPUTS))
        doc = {"m": ("kg", "mass"), "k": ("N/m", "spring to ground"), "d": ("N.s/m", "damper to ground"),
               "kc": ("N/m", "coupling spring to x_in"), "dc": ("N.s/m", "coupling damper to v_in"),
               "x_start": ("m", "initial position"), "v_start": ("m/s", "initial velocity"),
               "delta_start": ("m", "initial coupling deflection (coupling = 1)"),
               "h_max": ("s", "largest RK4 substep")}
        for name, (unit, text) in doc.items():
            self.parameter(name, unit, text, self.par)
        self.integer_parameter("input_interpolation", "inputs between communication points: 0 hold, 1 linear, "
                                                      "2 quadratic", self.ipar)
        self.integer_parameter("coupling", "coupling deflection: 0 = x - x_in, 1 = integral of v - v_in", self.ipar)
        self.input("F", "N", "external force", self.u)
        self.input("x_in", "m", "position the coupling spring pulls towards", self.u)
        self.input("v_in", "m/s", "velocity of x_in", self.u)
        self.output("x", "m", "position", lambda: self.x["x"] if self.started else self.par["x_start"])
        self.output("v", "m/s", "velocity", lambda: self.x["v"] if self.started else self.par["v_start"])
        self.output("Fc", "N", "force of the coupling element on the body at x_in", lambda: self.coupling_force(
            *self._now(), self.u))
        self.output("delta", "m", "coupling deflection", lambda: self.deflection(self._now()[0], self._now()[2],
                                                                                 self.u))
        self.output("energy", "J", "kinetic + spring energy, coupling spring included", lambda: self.energy())

    def _now(self) -> tuple[float, float, float]:
        if self.started:
            return self.x["x"], self.x["v"], self.x["delta"]
        return self.par["x_start"], self.par["v_start"], self.par["delta_start"]

    def deflection(self, x: float, delta: float, u: dict) -> float:
        return delta if self.ipar["coupling"] else x - u["x_in"]

    def coupling_force(self, x: float, v: float, delta: float, u: dict) -> float:
        p = self.par
        return p["kc"] * self.deflection(x, delta, u) + p["dc"] * (v - u["v_in"])

    def energy(self) -> float:
        x, v, delta = self._now()
        p = self.par
        return 0.5 * (p["m"] * v * v + p["k"] * x * x + p["kc"] * self.deflection(x, delta, self.u) ** 2)

    def rates(self, x: float, v: float, delta: float, u: dict) -> tuple[float, float, float]:
        p = self.par
        a = (-p["k"] * x - p["d"] * v + u["F"] - self.coupling_force(x, v, delta, u)) / p["m"]
        return v, a, v - u["v_in"]

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self.x["t"] = float(start_time)

    def exit_initialization_mode(self):
        try:
            self.failure = None
            self.check_finite(self.par, "parameter(s)")
            if not (self.par["m"] > 0 and self.par["h_max"] > 0):
                raise ValueError(f"m and h_max must be positive, got m = {self.par['m']}, h_max = {self.par['h_max']}")
            if self.ipar["input_interpolation"] not in (0, 1, 2):
                raise ValueError(f"input_interpolation must be 0, 1 or 2, got {self.ipar['input_interpolation']}")
            if self.ipar["coupling"] not in (0, 1):
                raise ValueError(f"coupling must be 0 or 1, got {self.ipar['coupling']}")
            self.x.update(x=self.par["x_start"], v=self.par["v_start"], delta=self.par["delta_start"])
            self.history = InputHistory(list(INPUTS))
            self.started = True
        except Exception as exc:
            self.failure = f"initialization failed: {exc}"
            self.fail("initialization", exc)

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self.failure is not None or not self.started:
            self.log(f"doStep refused: {self.failure or 'not initialized'}", Fmi2Status.error)
            return False
        try:
            t, H = float(current_time), float(step_size)
            if abs(t - self.x["t"]) > 1e-9 * max(1.0, abs(t)):
                raise ValueError(f"doStep at t = {t:.12g} s, but the FMU is at t = {self.x['t']:.12g} s")
            self.check_finite(self.u, "input(s)")
            signal = self.history.start_step(t, H, self.u, self.ipar["input_interpolation"])
            n = max(1, math.ceil(H / self.par["h_max"] * (1.0 - 1e-12)))
            h = H / n
            y = (self.x["x"], self.x["v"], self.x["delta"])
            f = self.rates
            for i in range(n):
                ta = t + i * h
                ua, um, ub = signal(ta), signal(ta + 0.5 * h), signal(ta + h)
                k1 = f(*y, ua)
                k2 = f(*(yi + 0.5 * h * ki for yi, ki in zip(y, k1)), um)
                k3 = f(*(yi + 0.5 * h * ki for yi, ki in zip(y, k2)), um)
                k4 = f(*(yi + h * ki for yi, ki in zip(y, k3)), ub)
                y = tuple(yi + h / 6 * (a + 2 * b + 2 * c + d) for yi, a, b, c, d in zip(y, k1, k2, k3, k4))
            self.x.update(x=y[0], v=y[1], delta=y[2], t=t + H)
            self.history.end_step(t + H, self.u)   # every mode reproduces the set values at t + H (Fc uses them)
            return True
        except Exception as exc:
            self.fail(f"doStep(t = {current_time:.9g} s, h = {step_size:.6g} s)", exc)
            return False

    def state_dict(self) -> dict:
        return {"x": dict(self.x), "u": dict(self.u), "started": self.started, "failure": self.failure,
                "points": [(tk, dict(v)) for tk, v in self.history.points]}

    def load_state_dict(self, state: dict) -> None:
        self.x.update(state["x"])
        self.u.update(state["u"])     # in place: the FMI setters hold this dict
        self.started, self.failure = state["started"], state["failure"]
        self.history.points = [(tk, dict(v)) for tk, v in state["points"]]
