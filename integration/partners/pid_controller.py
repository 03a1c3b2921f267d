"""Partner FMU: a discrete PID controller with output limits and anti-windup, as a controls tool would export it
(FMI 2.0 co-simulation, pythonfmu, pure Python; independent of fmu-mbs).

Inputs ``r`` (reference) and ``y`` (measurement); output ``u``. At every doStep(t_k, H) it samples e_k = r - y
(the inputs set for that step) and computes, with the step H as sample time,

    P_k = kp e_k
    D_k = (Tf D_{k-1} + kd (e_k - e_{k-1})) / (Tf + H)        (backward-Euler filtered derivative; D_0 = 0)
    v_k = u_bias + P_k + I_k + D_k,   u_k = min(max(v_k, u_min), u_max)
    I_{k+1} = I_k + ki H e_k   unless the output saturates and e_k drives it further (v_k > u_max and e_k > 0,
                               or v_k < u_min and e_k < 0): conditional integration (clamping) anti-windup

with I_0 = 0. The output ``u`` after the step is u_k (a sampled controller: it acts on the plant from the next
step on); in initialization mode and before the first step u = clip(u_bias). Failures are logged and return
fmi2Discard; state save/restore covers I, D and e_{k-1}.
"""

from __future__ import annotations

import math

from partner_base import KEEPALIVE, PartnerSlave
from pythonfmu.enums import Fmi2Status

KEEPALIVE.append(globals())


class PidController(PartnerSlave):
    """Discrete PID with output limits and clamping anti-windup."""

    description = "Discrete PID controller (sample time = communication step) with output limits and anti-windup."

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.par = {"kp": 1.0, "ki": 0.0, "kd": 0.0, "Tf": 0.0, "u_min": -1.0, "u_max": 1.0, "u_bias": 0.0}
        self.u = {"r": 0.0, "y": 0.0}
        self.x = {"I": 0.0, "D": 0.0, "e_prev": 0.0, "k": 0, "u": 0.0, "t": 0.0}
        units = {"kp": "1", "ki": "Hz", "kd": "s", "Tf": "s", "u_min": "1", "u_max": "1", "u_bias": "1"}
        text = {"kp": "proportional gain (output units per measurement unit)", "ki": "integral gain (1/s)",
                "kd": "derivative gain (s)", "Tf": "derivative filter time constant (0: none)",
                "u_min": "lower output limit", "u_max": "upper output limit", "u_bias": "constant output offset"}
        for name in self.par:
            self.parameter(name, units[name], text[name], self.par)
        self.input("r", "1", "reference", self.u)
        self.input("y", "1", "measurement", self.u)
        self.output("u", "1", "controller output (limited)", lambda: self.x["u"] if self.x["k"] else self._clip(
            self.par["u_bias"]))
        self.output("I", "1", "integrator state", lambda: self.x["I"])
        self.output("e", "1", "control error r - y of the last sample", lambda: self.x["e_prev"])

    def _clip(self, v: float) -> float:
        return min(max(v, self.par["u_min"]), self.par["u_max"])

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self.x["t"] = float(start_time)

    def exit_initialization_mode(self):
        try:
            self.failure = None
            self.check_finite(self.par, "parameter(s)")
            p = self.par
            if p["u_min"] > p["u_max"] or p["Tf"] < 0:
                raise ValueError(f"need u_min <= u_max and Tf >= 0, got u_min = {p['u_min']}, u_max = {p['u_max']}, "
                                 f"Tf = {p['Tf']}")
            self.x.update(I=0.0, D=0.0, e_prev=0.0, k=0, u=self._clip(p["u_bias"]))
        except Exception as exc:
            self.failure = f"initialization failed: {exc}"
            self.fail("initialization", exc)

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self.failure is not None:
            self.log(f"doStep(t = {current_time:.9g} s) refused: {self.failure}", Fmi2Status.error)
            return False
        try:
            H = float(step_size)
            if not (math.isfinite(H) and H > 0.0):
                raise ValueError(f"the PID needs a positive communication step (its sample time), got {H}")
            self.check_finite(self.u, "input(s)")
            p, x = self.par, self.x
            e = self.u["r"] - self.u["y"]
            e_prev = e if x["k"] == 0 else x["e_prev"]
            D = (p["Tf"] * x["D"] + p["kd"] * (e - e_prev)) / (p["Tf"] + H)
            v = p["u_bias"] + p["kp"] * e + x["I"] + D
            windup = (v > p["u_max"] and e > 0.0) or (v < p["u_min"] and e < 0.0)
            x.update(I=x["I"] if windup else x["I"] + p["ki"] * H * e, D=D, e_prev=e, k=x["k"] + 1, u=self._clip(v),
                     t=float(current_time) + H)
            return True
        except Exception as exc:
            self.fail(f"doStep(t = {current_time:.9g} s, h = {step_size:.6g} s)", exc)
            return False

    def state_dict(self) -> dict:
        return {"x": dict(self.x), "u": dict(self.u), "failure": self.failure}

    def load_state_dict(self, state: dict) -> None:
        self.x.update(state["x"])
        self.u.update(state["u"])     # in place: the FMI setters hold this dict
        self.failure = state["failure"]
