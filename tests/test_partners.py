"""The partner FMUs (integration/partners): valid, and each against an independent solution written here."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import extract
from fmpy.fmi1 import FMICallException
from scipy.integrate import solve_ivp

from fmu_harness import LoggedSlave

INTEGRATION = Path(__file__).resolve().parents[1] / "integration"
sys.path.insert(0, str(INTEGRATION))

from build_partners import FMUS, build_partner  # noqa: E402

A1 = math.pi * 0.08 ** 2 / 4
A2 = A1 - math.pi * 0.035 ** 2 / 4


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    out = tmp_path_factory.mktemp("partners")
    return {name: build_partner(name, out) for name in FMUS}   # build_partner runs fmpy validate (raises)


class Partner(LoggedSlave):
    def __init__(self, path: Path, **start):
        super().__init__(extract(str(path)), path.stem)
        self.fmu.setupExperiment(startTime=0.0)
        for name, value in start.items():
            if isinstance(value, int):
                self.fmu.setInteger([self.vr[name]], [value])
            else:
                self.set(name, value)
        self.fmu.enterInitializationMode()
        self.fmu.exitInitializationMode()
        self.t = 0.0

    def get(self, *names):
        return np.array(self.fmu.getReal([self.vr[n] for n in names]))

    def step(self, h: float) -> None:
        self.fmu.doStep(currentCommunicationPoint=self.t, communicationStepSize=h)
        self.t += h


def test_every_partner_passes_fmpy_validate(fmus):
    from fmpy.validation import validate_fmu
    for name, path in fmus.items():
        assert list(validate_fmu(str(path))) == [], name


def test_cylinder_with_centred_valve_keeps_its_pressures(fmus):
    """No leakage: with U = 0 the valve passes no flow and a still rod compresses nothing, so dp/dt = 0."""
    cyl = Partner(fmus["HydraulicCylinder"], p1_start=4.0e6, p2_start=2.0e6, s=0.5, sd=0.0, Uref=0.0)
    for _ in range(400):
        cyl.step(5e-3)
    p1, p2, u, f = cyl.get("p1", "p2", "U", "F")
    assert (p1, p2, u) == (4.0e6, 2.0e6, 0.0)
    assert f == pytest.approx(4.0e6 * A1 - 2.0e6 * A2, rel=1e-15)
    cyl.close()


def reference_blocked_rod(t_end: float, uref: float, p1_0: float, p2_0: float, x: float):
    """The valve-step response of the blocked cylinder (sd = 0), written independently of the FMU from the
    equations of Rahikainen et al. 2020 / Chrono (module docstring of hydraulic_cylinder.py), by solve_ivp."""
    v_h1, v_h2, b_oil, b_hose, b_cyl = 3.14e-5, 7.85e-5, 1500e6, 150e6, 31500e6
    p_p, p_t, cv, dp_lam, tau = 7.6e6, 0.1e6, 2e-5 / math.sqrt(35e5), 2e5, 1 / (2 * math.pi * 35.0)
    vc1, vc2 = A1 * x, A2 * (0.442 - x)
    v1, v2 = v_h1 + vc1, v_h2 + vc2
    b1 = 1 / (1 / b_oil + vc1 / v1 / b_cyl + v_h1 / v1 / b_hose)
    b2 = 1 / (1 / b_oil + vc2 / v2 / b_cyl + v_h2 / v2 / b_hose)

    def g(dp):
        return math.copysign(math.sqrt(abs(dp)), dp) if abs(dp) >= dp_lam else dp / math.sqrt(dp_lam)

    def rhs(t, y):
        p1, p2, u = y
        if u >= 0:
            q1, q2 = cv * u * g(p_p - p1), cv * u * g(p2 - p_t)
        else:
            q1, q2 = cv * u * g(p1 - p_t), cv * u * g(p_p - p2)
        return [b1 / v1 * q1, -b2 / v2 * q2, (uref - u) / tau]

    return solve_ivp(rhs, (0, t_end), [p1_0, p2_0, 0.0], method="LSODA", rtol=1e-10, atol=[1e-3, 1e-3, 1e-12],
                     dense_output=True)


@pytest.mark.parametrize("uref", [0.5, -0.8])
def test_blocked_rod_valve_step_follows_the_compressibility_response(fmus, uref):
    """dp/dt = B_eff/V Q(p, U) with U a first-order lag of the step: FMU (trapezoidal, h = 1e-4 s) against
    solve_ivp (rtol 1e-10) over 0.2 s, sampled every 2 ms; the pressures cross the laminar limit on the way."""
    p1_0, p2_0, s = 3.0e6, 2.5e6, 0.5
    x = s - 0.279
    cyl = Partner(fmus["HydraulicCylinder"], p1_start=p1_0, p2_start=p2_0, s=s, sd=0.0, Uref=uref)
    ref = reference_blocked_rod(0.2, uref, p1_0, p2_0, x)
    worst = 0.0
    for _ in range(100):
        cyl.step(2e-3)
        p1, p2, u, f = cyl.get("p1", "p2", "U", "F")
        e1, e2, eu = ref.sol(cyl.t)
        worst = max(worst, abs(p1 - e1), abs(p2 - e2))
        # trapezoidal rule on the lag: largest relative error (h/tau)^2/12 e^-1 = 1.5e-5 (at t = tau)
        assert abs(u - eu) < 2e-5 * abs(uref)
        assert f == pytest.approx(p1 * A1 - p2 * A2, rel=1e-14, abs=1e-9)   # F = p1 A1 - p2 A2 (sd = 0)
    print(f"largest pressure difference {worst:.3g} Pa")
    assert worst < 20.0           # Pa (measured 0.8 and 1.1 Pa), of pressures moving by megapascals
    p1, p2 = cyl.get("p1", "p2")
    assert (p1 - p1_0) * uref > 5e5 and (p2 - p2_0) * uref < -5e5   # it really moved
    cyl.close()


def test_cylinder_rollback_is_bit_exact_and_bad_input_is_discarded(fmus):
    cyl = Partner(fmus["HydraulicCylinder"], s=0.5, sd=0.001, Uref=0.3)
    cyl.step(1e-3)
    state = cyl.fmu.getFMUstate()
    cyl.step(1e-3)
    after = cyl.get("p1", "p2", "U", "F")
    cyl.fmu.setFMUstate(state)
    cyl.t -= 1e-3
    cyl.step(1e-3)
    assert np.array_equal(cyl.get("p1", "p2", "U", "F"), after)
    cyl.set("sd", math.nan)
    with pytest.raises(FMICallException, match="discard"):
        cyl.step(1e-3)
    assert any("input(s) not finite: sd" in m for m in cyl.log)
    cyl.set("sd", 0.0)
    cyl.step(1e-3)            # the instance survives the failed step
    cyl.close()


def discrete_pid(errors, h, kp, ki, kd, tf, u_min, u_max):
    """The PID of pid_controller.py's docstring, evaluated here from its formulas."""
    integral, deriv, e_prev, out = 0.0, 0.0, None, []
    for e in errors:
        deriv = (tf * deriv + kd * (e - (e if e_prev is None else e_prev))) / (tf + h)
        v = kp * e + integral + deriv
        if not ((v > u_max and e > 0) or (v < u_min and e < 0)):
            integral += ki * h * e
        out.append(min(max(v, u_min), u_max))
        e_prev = e
    return out


@pytest.mark.parametrize("gains", [dict(kp=2.0, ki=5.0, kd=0.1, Tf=0.02, u_min=-10.0, u_max=10.0),
                                   dict(kp=2.0, ki=5.0, kd=0.0, Tf=0.0, u_min=-1.0, u_max=1.0)],
                         ids=["unsaturated", "saturating"])
def test_pid_matches_the_discrete_formula(fmus, gains):
    """A reference step at t = 0.1 s and back at 1 s against a still plant (y = 0); in the saturating case the
    integrator must stop at the limit (anti-windup) so the output leaves it as soon as the error reverses."""
    h = 0.01
    pid = Partner(fmus["PidController"], **gains)
    refs = [0.0 if k < 10 else (1.0 if k < 100 else -0.2) for k in range(200)]
    out = []
    for r in refs:
        pid.set("r", r)
        pid.set("y", 0.0)
        pid.step(h)
        out.append(pid.get("u")[0])
    expected = discrete_pid(refs, h, gains["kp"], gains["ki"], gains["kd"], gains["Tf"], gains["u_min"],
                            gains["u_max"])
    assert np.allclose(out, expected, rtol=1e-13, atol=1e-13)
    if gains["u_max"] == 1.0:
        assert max(out) == 1.0 and pid.get("I")[0] < 1.0     # clamped, not wound up to ki * 0.9 s = 4.5
        assert out[100] < 0.0                                  # leaves saturation at once when the error reverses
    pid.close()


def test_signal_source_gives_the_valve_profile(fmus):
    src = Partner(fmus["SignalSource"])
    expected = {0.25: 0.0, 1.25: 0.3, 2.0: 0.6, 5.0: 0.6, 8.0: -0.2, 9.5: -0.5, 10.5: 0.0, 11.25: 0.3, 23.0: 0.6}
    values = {}
    for _ in range(2400):
        src.step(0.01)
        values[round(src.t, 6)] = src.get("y")[0]
    for t, y in expected.items():
        assert values[t] == pytest.approx(y, abs=1e-12), t
    src.close()


def test_restraint_controller_fires_on_the_window_velocity_change_not_on_a_spike(fmus):
    """A 2 ms spike of -300 m/s^2 (0.6 m/s in any 10 ms window, below dv_fire = 0.755 m/s) must not fire; a
    steady -100 m/s^2 from 30 ms gives dV_W = 100 (t - 0.030) m/s, which reaches 0.755 m/s at 37.55 ms, so the
    controller fires at the end of the step that holds that instant (37.6 ms at H = 0.1 ms); latched, and a restored
    state replays it."""
    h = 1e-4
    ctl = Partner(fmus["RestraintController"], window=0.010, dv_fire=0.755)

    def pulse(t):
        return -300.0 if 0.005 <= t < 0.007 - 1e-12 else (-100.0 if t >= 0.030 - 1e-12 and t < 0.045 else 0.0)

    saved, out = None, []
    for k in range(600):
        if k == 300:
            saved, t_saved = ctl.fmu.getFMUstate(), ctl.t
        ctl.set("a", pulse(k * h))
        ctl.step(h)
        out.append(tuple(ctl.get("fire", "fire_time", "dv_window")))
    fire = np.array([o[0] for o in out])
    assert max(o[2] for o in out[:300]) == pytest.approx(0.6, rel=1e-9)       # the spike, seen whole
    assert np.all(fire[:375] == 0.0) and np.all(fire[375:] == 1.0)          # fired at step 376's end, latched
    assert out[-1][1] == pytest.approx(0.0376, abs=1e-12)
    ctl.fmu.setFMUstate(saved)
    ctl.t = t_saved
    for k in range(300, 400):
        ctl.set("a", pulse(k * h))
        ctl.step(h)
    assert ctl.get("fire_time")[0] == out[-1][1]
    ctl.close()
