"""Partner FMU: a double-acting hydraulic cylinder fed by a 4/3 proportional directional valve, as a hydraulics
tool would export it (FMI 2.0 co-simulation, pythonfmu, numpy-free pure Python; independent of fmu-mbs).

Data: Rahikainen et al., "On the cosimulation of multibody systems and hydraulic dynamics", Multibody System
Dynamics 50:143-167 (2020), as used in Project Chrono's hydraulic-crane demo (ChHydraulicActuator2).

Inputs: ``s`` (m), the distance between the cylinder's mounting points as the mechanism reports it; ``sd`` (m/s)
its rate; ``Uref`` (1), the valve reference in [-1, 1] (clipped). Outputs: ``F`` (N, positive pushes the mounts
apart), ``p1``, ``p2`` (Pa), ``U`` (1, spool position), ``x`` (m, piston position), ``Q1``, ``Q2`` (m3/s).

Equations (states p1, p2, U):

- piston position x = s - s_retracted; chamber lengths l1 = x, l2 = stroke - x;
  volumes V1 = V_hose1 + A1 l1, V2 = V_hose2 + A2 l2, A1 = pi D^2/4, A2 = A1 - pi d^2/4;
- effective bulk modulus of oil, hose and cylinder wall in series, weighted by volume:
  1/B_i = 1/B_oil + (A_i l_i / V_i)/B_cyl + (V_hose_i / V_i)/B_hose;
- spool: dU/dt = (clip(Uref, -1, 1) - U)/tau with tau = 1/(2 pi f_45) (first order, -45 deg at f_45 = 35 Hz);
- valve flows (critical centre, meter-in and meter-out edges alike), Q1 into chamber 1 and Q2 out of chamber 2:
  U >= 0: Q1 = Cv U g(p_pump - p1), Q2 = Cv U g(p2 - p_tank); U < 0: Q1 = Cv U g(p1 - p_tank),
  Q2 = Cv U g(p_pump - p2); with the turbulent orifice law g(dp) = sign(dp) sqrt|dp| above the laminar limit
  dp_lam and the laminar g(dp) = dp / sqrt(dp_lam) below it (continuous at dp_lam). Cv U sqrt(dp) is the orifice
  law Cd A(U) sqrt(2 dp/rho) with an opening A linear in U; Cv = Q_nom / sqrt(dp_nom) (nominal flow at U = 1);
- pressures: dp1/dt = B_1/V_1 (Q1 - A1 sd), dp2/dt = B_2/V_2 (A2 sd - Q2) (no leakage);
- force F = p1 A1 - p2 A2 - c sd + F_end, where F_end is a stiff end stop (k_end, c_end) within l_end of either
  end (Chrono's values), applied from the first step on (in initialization mode F = p1 A1 - p2 A2 - c sd).

Integration: the trapezoidal rule in substeps of at most ``h_max``; the spool equation is linear and solved
exactly, then each pressure by Newton's method on its scalar trapezoidal residual with the analytic derivative
(the Jacobian of (p1, p2, U) is block triangular). Inputs between communication points: ``input_interpolation``
0 hold, 1 linear, 2 quadratic (see partner_base.InputHistory). Any failure is logged and returns fmi2Discard with
the state of the start of the step.
"""

from __future__ import annotations

import math

from partner_base import KEEPALIVE, InputHistory, PartnerSlave
from pythonfmu.enums import Fmi2Status

KEEPALIVE.append(globals())

INPUTS = ("s", "sd", "Uref")


def orifice(dp: float, dp_lam: float) -> tuple[float, float]:
    """g(dp) and dg/d(dp) of the laminar/turbulent orifice law (see the module docstring)."""
    if abs(dp) >= dp_lam:
        r = math.sqrt(abs(dp))
        return math.copysign(r, dp), 0.5 / r
    r = math.sqrt(dp_lam)
    return dp / r, 1.0 / r


class HydraulicCylinder(PartnerSlave):
    """Double-acting hydraulic cylinder and 4/3 proportional valve (Rahikainen et al. 2020 data)."""

    description = ("Double-acting hydraulic cylinder (piston 0.08 m, rod 0.035 m) with a 4/3 proportional valve, "
                   "first-order spool (35 Hz), two hoses; data of Rahikainen et al. (2020). Inputs s, sd, Uref; "
                   "outputs F, p1, p2, U.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.par = {
            "piston_diameter": 0.08, "rod_diameter": 0.035, "stroke": 0.442, "s_retracted": 0.279,
            "V_hose1": 3.14e-5, "V_hose2": 7.85e-5, "p_pump": 7.6e6, "p_tank": 0.1e6,
            "B_oil": 1500e6, "B_hose": 150e6, "B_cyl": 31500e6, "Q_nom": 2e-5, "dp_nom": 35e5, "dp_lam": 2e5,
            "f_45": 35.0, "c": 1e5, "k_end": 1e7, "c_end": 5e3, "l_end": 0.008,
            "p1_start": 3.57e6, "p2_start": 2.73e6, "U_start": 0.0, "h_max": 1e-4}
        self.ipar = {"input_interpolation": 0}
        self.u = {"s": 0.5, "sd": 0.0, "Uref": 0.0}
        self.x = {"p1": self.par["p1_start"], "p2": self.par["p2_start"], "U": 0.0}
        self.t = 0.0
        self.started = False
        self.y = {"F": 0.0, "Q1": 0.0, "Q2": 0.0}
        self.history = InputHistory(list(INPUTS))
        p = self.par
        doc = {
            "piston_diameter": ("m", "piston (bore) diameter D"), "rod_diameter": ("m", "rod diameter d"),
            "stroke": ("m", "stroke length: chamber 1 length at full extension"),
            "s_retracted": ("m", "input s at which the piston is fully retracted (x = s - s_retracted)"),
            "V_hose1": ("m3", "hose volume, valve to chamber 1 (piston side)"),
            "V_hose2": ("m3", "hose volume, valve to chamber 2 (rod side)"),
            "p_pump": ("Pa", "pump (supply) pressure"), "p_tank": ("Pa", "tank (return) pressure"),
            "B_oil": ("Pa", "bulk modulus of the oil"), "B_hose": ("Pa", "bulk modulus of the hoses"),
            "B_cyl": ("Pa", "bulk modulus of the cylinder"),
            "Q_nom": ("m3/s", "valve flow at U = 1 and pressure drop dp_nom over one edge"),
            "dp_nom": ("Pa", "pressure drop of the nominal flow"),
            "dp_lam": ("Pa", "laminar limit of the orifice law"),
            "f_45": ("Hz", "spool bandwidth: -45 deg phase frequency of the first-order spool"),
            "c": ("N.s/m", "viscous friction of the cylinder"), "k_end": ("N/m", "end-stop stiffness"),
            "c_end": ("N.s/m", "end-stop damping"), "l_end": ("m", "end-stop length at either end"),
            "p1_start": ("Pa", "initial pressure of chamber 1"), "p2_start": ("Pa", "initial pressure of chamber 2"),
            "U_start": ("1", "initial spool position"), "h_max": ("s", "largest internal step")}
        for name in p:
            unit, text = doc[name]
            self.parameter(name, unit, text, p)
        self.integer_parameter("input_interpolation", "inputs between communication points: 0 hold, 1 linear, "
                                                      "2 quadratic", self.ipar)
        self.input("s", "m", "distance between the mounting points", self.u)
        self.input("sd", "m/s", "rate of s (extension positive)", self.u)
        self.input("Uref", "1", "valve reference in [-1, 1]; positive extends", self.u)
        self.output("F", "N", "cylinder force, positive pushes the mounts apart", lambda: self._force_output())
        self.output("p1", "Pa", "pressure of chamber 1 (piston side)", lambda: self._state("p1"))
        self.output("p2", "Pa", "pressure of chamber 2 (rod side)", lambda: self._state("p2"))
        self.output("U", "1", "spool position", lambda: self._state("U"))
        self.output("x", "m", "piston position s - s_retracted", lambda: self.u["s"] - self.par["s_retracted"])
        self.output("Q1", "m3/s", "valve flow into chamber 1", lambda: self.y["Q1"])
        self.output("Q2", "m3/s", "valve flow out of chamber 2", lambda: self.y["Q2"])

    # --- derived constants ----------------------------------------------------------------------------------------
    def _constants(self) -> None:
        p = self.par
        self.A1 = math.pi * p["piston_diameter"] ** 2 / 4
        self.A2 = self.A1 - math.pi * p["rod_diameter"] ** 2 / 4
        self.Cv = p["Q_nom"] / math.sqrt(p["dp_nom"])
        self.tau = 1.0 / (2.0 * math.pi * p["f_45"])

    def _state(self, name: str) -> float:
        return self.x[name] if self.started else self.par[f"{name}_start"]

    def _force_output(self) -> float:
        if self.started:
            return self.y["F"]
        self._constants()
        return self.par["p1_start"] * self.A1 - self.par["p2_start"] * self.A2 - self.par["c"] * self.u["sd"]

    # --- model ----------------------------------------------------------------------------------------------------
    def chambers(self, s: float) -> tuple[float, float, float, float]:
        """(V1, V2, B1, B2) at input s."""
        p = self.par
        x = s - p["s_retracted"]
        l1, l2 = x, p["stroke"] - x
        vc1, vc2 = self.A1 * max(l1, 0.0), self.A2 * max(l2, 0.0)
        v1, v2 = p["V_hose1"] + vc1, p["V_hose2"] + vc2
        b1 = 1.0 / (1.0 / p["B_oil"] + vc1 / v1 / p["B_cyl"] + p["V_hose1"] / v1 / p["B_hose"])
        b2 = 1.0 / (1.0 / p["B_oil"] + vc2 / v2 / p["B_cyl"] + p["V_hose2"] / v2 / p["B_hose"])
        return v1, v2, b1, b2

    def flows(self, p1: float, p2: float, U: float) -> tuple[float, float, float, float, float, float]:
        """(Q1, dQ1/dp1, dQ1/dU, Q2, dQ2/dp2, dQ2/dU) of the valve (see the module docstring)."""
        p, cv = self.par, self.Cv
        if U >= 0.0:
            g1, d1 = orifice(p["p_pump"] - p1, p["dp_lam"])
            g2, d2 = orifice(p2 - p["p_tank"], p["dp_lam"])
            return cv * U * g1, -cv * U * d1, cv * g1, cv * U * g2, cv * U * d2, cv * g2
        g1, d1 = orifice(p1 - p["p_tank"], p["dp_lam"])
        g2, d2 = orifice(p["p_pump"] - p2, p["dp_lam"])
        return cv * U * g1, cv * U * d1, cv * g1, cv * U * g2, -cv * U * d2, cv * g2

    def rates(self, p1: float, p2: float, U: float, u: dict) -> tuple[float, float, float]:
        v1, v2, b1, b2 = self.chambers(u["s"])
        q1, _, _, q2, _, _ = self.flows(p1, p2, U)
        uref = min(1.0, max(-1.0, u["Uref"]))
        return b1 / v1 * (q1 - self.A1 * u["sd"]), b2 / v2 * (self.A2 * u["sd"] - q2), (uref - U) / self.tau

    def force(self, p1: float, p2: float, s: float, sd: float) -> float:
        p = self.par
        x = s - p["s_retracted"]
        f = p1 * self.A1 - p2 * self.A2 - p["c"] * sd
        if x <= p["l_end"]:
            f += p["k_end"] * (p["l_end"] - x) - p["c_end"] * sd
        elif p["stroke"] - x <= p["l_end"]:
            f -= p["k_end"] * (p["l_end"] - (p["stroke"] - x)) + p["c_end"] * sd
        return f

    def trapezoidal_step(self, h: float, ua: dict, ub: dict) -> None:
        """One trapezoidal step of length h from inputs ua (start) to ub (end); updates self.x."""
        p1, p2, U = self.x["p1"], self.x["p2"], self.x["U"]
        f1, f2, f3 = self.rates(p1, p2, U, ua)
        uref = min(1.0, max(-1.0, ub["Uref"]))
        U1 = (U + 0.5 * h * (f3 + uref / self.tau)) / (1.0 + 0.5 * h / self.tau)
        v1, v2, b1, b2 = self.chambers(ub["s"])
        k1, k2 = b1 / v1, b2 / v2
        scale = max(self.par["p_pump"], 1.0)
        x1, x2 = p1 + h * f1, p2 + h * f2                  # explicit Euler predictor
        for _ in range(30):
            q1, dq1, _, q2, dq2, _ = self.flows(x1, x2, U1)
            r1 = x1 - p1 - 0.5 * h * (f1 + k1 * (q1 - self.A1 * ub["sd"]))
            r2 = x2 - p2 - 0.5 * h * (f2 + k2 * (self.A2 * ub["sd"] - q2))
            d1 = r1 / (1.0 - 0.5 * h * k1 * dq1)
            d2 = r2 / (1.0 + 0.5 * h * k2 * dq2)
            x1 -= d1
            x2 -= d2
            if abs(d1) <= 1e-10 * scale and abs(d2) <= 1e-10 * scale:
                break
        else:
            raise ArithmeticError(f"Newton did not converge in the trapezoidal step (h = {h:.3g} s): "
                                  f"p1 = {x1:.6g} Pa, p2 = {x2:.6g} Pa, U = {U1:.6g}")
        self.x.update(p1=x1, p2=x2, U=U1)

    def _outputs(self, u: dict) -> None:
        q1, _, _, q2, _, _ = self.flows(self.x["p1"], self.x["p2"], self.x["U"])
        self.y.update(F=self.force(self.x["p1"], self.x["p2"], u["s"], u["sd"]), Q1=q1, Q2=q2)

    # --- FMI calls ------------------------------------------------------------------------------------------------
    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self.t = float(start_time)

    def exit_initialization_mode(self):
        try:
            self.failure = None
            p = self.par
            self.check_finite(p, "parameter(s)")
            if not (p["h_max"] > 0 and p["f_45"] > 0 and p["stroke"] > 0 and p["dp_lam"] > 0 and p["Q_nom"] >= 0):
                raise ValueError("h_max, f_45, stroke and dp_lam must be positive and Q_nom >= 0")
            if p["rod_diameter"] >= p["piston_diameter"] or p["rod_diameter"] < 0:
                raise ValueError(f"rod diameter {p['rod_diameter']} m must be in [0, piston diameter "
                                 f"{p['piston_diameter']} m)")
            if self.ipar["input_interpolation"] not in (0, 1, 2):
                raise ValueError(f"input_interpolation must be 0, 1 or 2, got {self.ipar['input_interpolation']}")
            self._constants()
            self.x = {"p1": p["p1_start"], "p2": p["p2_start"], "U": p["U_start"]}
            self.history = InputHistory(list(INPUTS))
            self.started = True
            q1, _, _, q2, _, _ = self.flows(self.x["p1"], self.x["p2"], self.x["U"])
            self.y.update(F=self.x["p1"] * self.A1 - self.x["p2"] * self.A2 - p["c"] * self.u["sd"], Q1=q1, Q2=q2)
        except Exception as exc:
            self.failure = f"initialization failed: {exc}"
            self.fail("initialization", exc)

    def do_step(self, current_time: float, step_size: float) -> bool:
        if self.failure is not None or not self.started:
            self.log(f"doStep(t = {current_time:.9g} s) refused: {self.failure or 'not initialized'}",
                     Fmi2Status.error)
            return False
        saved = self.state_dict()
        try:
            t, H = float(current_time), float(step_size)
            if abs(t - self.t) > 1e-9 * max(1.0, abs(t)):
                raise ValueError(f"doStep at t = {t:.12g} s, but the FMU is at t = {self.t:.12g} s")
            if not (math.isfinite(H) and H >= 0.0):
                raise ValueError(f"communication step must be >= 0, got {H}")
            self.check_finite(self.u, "input(s)")
            signal = self.history.start_step(t, H, self.u, self.ipar["input_interpolation"])
            n = max(1, math.ceil(H / self.par["h_max"] * (1.0 - 1e-12)))
            h = H / n
            ua = signal(t)
            for k in range(1, n + 1):
                ub = signal(t + k * h)
                if H > 0.0:
                    self.trapezoidal_step(h, ua, ub)
                ua = ub
            self.check_finite(self.x, "state(s)")
            self.t = t + H
            self.history.end_step(self.t, self.u)
            self._outputs(ua)
            return True
        except Exception as exc:
            self.load_state_dict(saved)
            self.fail(f"doStep(t = {current_time:.9g} s, h = {step_size:.6g} s)", exc)
            return False

    # --- state ------------------------------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        return {"x": dict(self.x), "u": dict(self.u), "y": dict(self.y), "t": self.t, "started": self.started,
                "points": [(tk, dict(v)) for tk, v in self.history.points], "failure": self.failure}

    def load_state_dict(self, state: dict) -> None:
        self.x.update(state["x"])
        self.u.update(state["u"])     # in place: the FMI setters hold this dict
        self.y.update(state["y"])
        self.t, self.started, self.failure = state["t"], state["started"], state["failure"]
        self.history.points = [(tk, dict(v)) for tk, v in state["points"]]
