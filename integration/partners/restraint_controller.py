"""Partner FMU: a restraint controller (crash sensing that fires a belt pretensioner), as an airbag-ECU supplier
would export it (FMI 2.0 co-simulation, pythonfmu, pure Python; independent of fmu-mbs).

Input ``a``: the vehicle's longitudinal acceleration at the sensor (m/s^2, negative when the car decelerates), held
over each communication step. The sensing rule is a moving-window velocity change, the window integral of the
pulse (the "moving window integral" family of crash-sensing algorithms; C.Y. Chan, *Fundamentals of Crash Sensing
in Automotive Air Bag Systems*, SAE, 2000): at the end t of every step

    dV_W(t) = - integral over [t - W, t] of a(tau) d tau      (the input as held: exact for a held signal)

and the controller fires once dV_W(t) >= ``dv_fire`` (m/s), latched: output ``fire`` is 0 before and 1 from that
communication point on, ``fire_time`` the point at which it first read 1 (s; -1 while not fired). A window
average is a streaming filter: unlike SAE J211's phaseless two-pass CFC filter it needs no future samples. Short
spikes (a pothole, a door slam) move dV_W little, a crash pulse moves it steadily. Parameters ``window`` W (s),
``dv_fire`` (m/s), ``enabled`` (0: never fires, for the run without the pretensioner). State save/restore covers
the window's samples and the latch.
"""

from __future__ import annotations

import math

from partner_base import KEEPALIVE, PartnerSlave
from pythonfmu.enums import Fmi2Status

KEEPALIVE.append(globals())


class RestraintController(PartnerSlave):
    """Moving-window velocity-change crash sensing that fires a pretensioner."""

    description = ("Restraint controller: fires a belt pretensioner when the velocity change over a moving window "
                   "of the vehicle pulse reaches a threshold (latched).")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.par = {"window": 0.010, "dv_fire": 0.8}
        self.flags = {"enabled": 1}
        self.u = {"a": 0.0}
        self.x = {"samples": [], "fired": 0, "fire_time": -1.0, "dv": 0.0, "t": 0.0}
        self.parameter("window", "s", "length W of the moving window", self.par)
        self.parameter("dv_fire", "m/s", "velocity change over the window that fires", self.par)
        self.integer_parameter("enabled", "1: sense and fire; 0: never fire", self.flags)
        self.input("a", "m/s2", "vehicle longitudinal acceleration at the sensor", self.u)
        self.output("fire", "1", "pretensioner fire signal (0, then 1 from the firing on)",
                    lambda: float(self.x["fired"]))
        self.output("fire_time", "s", "communication point at which fire first read 1 (-1: not fired)",
                    lambda: self.x["fire_time"])
        self.output("dv_window", "m/s", "velocity change over the last window, at the last step's end",
                    lambda: self.x["dv"])

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self.x["t"] = float(start_time)

    def exit_initialization_mode(self):
        try:
            self.failure = None
            self.check_finite(self.par, "parameter(s)")
            if not (self.par["window"] > 0.0 and self.par["dv_fire"] > 0.0):
                raise ValueError(f"need window > 0 and dv_fire > 0, got window = {self.par['window']} s, "
                                 f"dv_fire = {self.par['dv_fire']} m/s")
            self.x.update(samples=[], fired=0, fire_time=-1.0, dv=0.0)
        except Exception as exc:
            self.failure = f"initialization failed: {exc}"
            self.fail("initialization", exc)

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self.failure is not None:
            self.log(f"doStep(t = {current_time:.9g} s) refused: {self.failure}", Fmi2Status.error)
            return False
        try:
            t0, H = float(current_time), float(step_size)
            if not (math.isfinite(H) and H > 0.0):
                raise ValueError(f"the controller needs a positive communication step, got {H}")
            self.check_finite(self.u, "input(s)")
            x, W = self.x, self.par["window"]
            t1 = t0 + H
            # the held input over [t0, t1]; keep only the samples that still reach into the window
            samples = [s for s in x["samples"] if s[1] > t1 - W] + [(t0, t1, self.u["a"])]
            dv = -sum(a * (b - max(s, t1 - W)) for s, b, a in samples)
            fire_now = self.flags["enabled"] and not x["fired"] and dv >= self.par["dv_fire"]
            x.update(samples=samples, dv=dv, t=t1)
            if fire_now:
                x.update(fired=1, fire_time=t1)
            return True
        except Exception as exc:
            self.fail(f"doStep(t = {current_time:.9g} s, h = {step_size:.6g} s)", exc)
            return False

    def state_dict(self) -> dict:
        return {"x": {**self.x, "samples": list(self.x["samples"])}, "u": dict(self.u), "failure": self.failure}

    def load_state_dict(self, state: dict) -> None:
        self.x.update(state["x"])
        self.x["samples"] = list(state["x"]["samples"])
        self.u.update(state["u"])     # in place: the FMI setters hold this dict
        self.failure = state["failure"]
