"""Partner FMU for master tests: a linear mass-spring-damper, optionally pulled by a coupling spring-damper towards
an input position (pure Python, independent of fmu-mbs).

    m x'' = -k x - d x' + F + kc (x_in - x) + dc (v_in - x')

Inputs ``F`` (N), ``x_in`` (m), ``v_in`` (m/s); outputs ``x``, ``v`` and ``Fc`` = kc (x - x_in) + dc (v - v_in), the
force the coupling spring-damper exerts on the body at x_in (direct feedthrough of x_in, v_in). Two instances make
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
                    "h_max": 1e-4}
        self.ipar = {"input_interpolation": 0}
        self.u = {"F": 0.0, "x_in": 0.0, "v_in": 0.0}
        self.x = {"x": 0.0, "v": 0.0, "t": 0.0}
        self.started = False
        self.history = InputHistory(list(INPUTS))
        doc = {"m": ("kg", "mass"), "k": ("N/m", "spring to ground"), "d": ("N.s/m", "damper to ground"),
               "kc": ("N/m", "coupling spring to x_in"), "dc": ("N.s/m", "coupling damper to v_in"),
               "x_start": ("m", "initial position"), "v_start": ("m/s", "initial velocity"),
               "h_max": ("s", "largest RK4 substep")}
        for name, (unit, text) in doc.items():
            self.parameter(name, unit, text, self.par)
        self.integer_parameter("input_interpolation", "inputs between communication points: 0 hold, 1 linear, "
                                                      "2 quadratic", self.ipar)
        self.input("F", "N", "external force", self.u)
        self.input("x_in", "m", "position the coupling spring pulls towards", self.u)
        self.input("v_in", "m/s", "velocity of x_in", self.u)
        self.output("x", "m", "position", lambda: self.x["x"] if self.started else self.par["x_start"])
        self.output("v", "m/s", "velocity", lambda: self.x["v"] if self.started else self.par["v_start"])
        self.output("Fc", "N", "force of the coupling element on the body at x_in", lambda: self.coupling_force(
            self.u) if self.started else self.par["kc"] * (self.par["x_start"] - self.u["x_in"])
            + self.par["dc"] * (self.par["v_start"] - self.u["v_in"]))

    def coupling_force(self, u: dict) -> float:
        p = self.par
        return p["kc"] * (self.x["x"] - u["x_in"]) + p["dc"] * (self.x["v"] - u["v_in"])

    def acceleration(self, x: float, v: float, u: dict) -> float:
        p = self.par
        return (-p["k"] * x - p["d"] * v + u["F"] + p["kc"] * (u["x_in"] - x) + p["dc"] * (u["v_in"] - v)) / p["m"]

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
            self.x.update(x=self.par["x_start"], v=self.par["v_start"])
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
            x, v = self.x["x"], self.x["v"]
            acc = self.acceleration
            for i in range(n):
                ta = t + i * h
                ua, um, ub = signal(ta), signal(ta + 0.5 * h), signal(ta + h)
                k1x, k1v = v, acc(x, v, ua)
                k2x, k2v = v + 0.5 * h * k1v, acc(x + 0.5 * h * k1x, v + 0.5 * h * k1v, um)
                k3x, k3v = v + 0.5 * h * k2v, acc(x + 0.5 * h * k2x, v + 0.5 * h * k2v, um)
                k4x, k4v = v + h * k3v, acc(x + h * k3x, v + h * k3v, ub)
                x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
                v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            self.x.update(x=x, v=v, t=t + H)
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
