"""The catalogue's FMUs under fmpy: valid, identical to the library, bit-exact rollback, clean failures."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from scipy.integrate import solve_ivp

from fmu_mbs.adapters.fmu_build import build_fmu, validate_fmu
from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.channels import ChannelEvaluator
from fmu_mbs.analyses.integrators.alf import ALFIntegrator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import load_model
from fmu_mbs.model.names import channel_names

from fmu_harness import Slave, replays_from_saved_state

MODELS = Path(__file__).resolve().parents[1] / "models"
CATALOGUE = sorted(p.stem for p in MODELS.glob("*.json"))


@pytest.fixture(scope="module")
def fmus(catalogue_fmu):
    return {name: catalogue_fmu(name) for name in CATALOGUE}


@pytest.mark.parametrize("name", CATALOGUE)
def test_catalogue_fmus_pass_fmpy_validate(fmus, name):
    assert validate_fmu(fmus[name]) == []


@pytest.mark.parametrize("name", CATALOGUE)
def test_marker_inputs_only_at_declared_ports_and_fmpy_sees_no_missing_input(fmus, name, capsys):
    """Marker forces and torques are FMU inputs only at markers with "port": true in the model file; fmpy,
    given a signal for every declared input, warns about no missing one."""
    data = json.loads((MODELS / f"{name}.json").read_text())
    ports = {m["name"] for m in data["markers"] if m.get("port")}
    markers = {m["name"] for m in data["markers"]}
    md = read_model_description(str(fmus[name]))
    inputs = [v.name for v in md.modelVariables if v.causality == "input"]
    marker_inputs = {n for n in inputs if n.split(".")[0] in markers}
    assert marker_inputs == {f"{m}.{q}[{k}]" for m in ports for q in "FT" for k in (1, 2, 3)}
    signals = np.zeros(2, dtype=[("time", float)] + [(n, float) for n in inputs])
    signals["time"] = (0.0, 0.02)
    simulate_fmu(str(fmus[name]), stop_time=0.02, step_size=0.01, input=signals)
    assert "missing input" not in capsys.readouterr().out


def test_model_description_is_deterministic_with_units(fmus, tmp_path):
    again = build_fmu(MODELS / "pendulum.json", tmp_path)
    xml = [zipfile.ZipFile(p).read("modelDescription.xml") for p in (fmus["pendulum"], again)]
    assert xml[0] == xml[1]
    md = read_model_description(str(again))
    units = {v.name: v.unit for v in md.modelVariables}
    assert units["P1.r[1]"] == "m" and units["P1.v[2]"] == "m/s" and units["rod.F[1]"] == "N"
    assert units["energy.total"] == "J" and units["solver.h"] == "s"
    assert {u.name for u in md.unitDefinitions} >= {"m", "m/s", "N", "J"}
    outputs = [v for v in md.modelVariables if v.causality == "output"]
    # the declared interface (docs/model-format.md): the default set, P1 is a port marker, plus "rod.F"; planar
    # markers have x-y vectors, the frame angle phi and the scalar w, planar joint reactions x-y forces; the energy
    # split includes the integrator's dissipated and input work
    vec = lambda name, q, n: [f"{name}.{q}[{k}]" for k in range(1, n + 1)]   # noqa: E731
    assert [v.name for v in outputs] == (vec("pivot", "r", 2) + vec("pivot", "v", 2) + vec("P1", "r", 2)
                                         + vec("P1", "v", 2) + ["P1.phi", "P1.w"]
                                         + vec("rod", "F", 2) + ["energy.kinetic", "energy.potential",
                                                                 "energy.total", "energy.dissipated",
                                                                 "energy.input"])
    assert len(outputs) < len(channel_names(load_model(MODELS / "pendulum.json")))
    assert len(md.initialUnknowns) == len(outputs)
    # no output changes before a doStep: no direct feedthrough from any input (an empty dependency list)
    assert all(u.dependencies == [] for u in md.outputs) and len(md.outputs) == len(outputs)
    ex = md.defaultExperiment
    assert (float(ex.startTime), float(ex.stopTime), float(ex.stepSize)) == (0.0, 10.0, 0.01)
    switches = {v.name: v for v in md.modelVariables if v.type == "Enumeration"}
    assert set(switches) == {"solver.integrator", "solver.scheme", "solver.input_interpolation"}
    items = {t.name: [(i.name, int(i.value)) for i in t.items] for t in md.typeDefinitions}
    assert items[switches["solver.integrator"].declaredType.name] == [("alf", 0), ("galpha", 1), ("explicit", 2),
                                                                     ("variable", 3), ("alf_variable", 4)]
    rho = next(v for v in md.modelVariables if v.name == "solver.rho_inf")
    assert (float(rho.min), float(rho.max)) == (0.0, 1.0)


def test_animate_reads_an_fmu_result_csv(fmus, tmp_path):
    """fmpy's result CSV (quoted names, every output) is a result 'fmu-mbs animate' shows: same channel names."""
    from fmpy.util import write_csv

    from fmu_mbs.adapters.cli import main
    from fmu_mbs.adapters.viewer import marker_poses, read_result
    res = simulate_fmu(str(fmus["pendulum"]), stop_time=0.3, step_size=0.01, output_interval=0.01)
    write_csv(tmp_path / "fmu.csv", res)
    assert main(["animate", str(MODELS / "pendulum.json"), str(tmp_path / "fmu.csv"), "--out",
                 str(tmp_path / "fmu.html")]) == 0
    pose = marker_poses(load_model(MODELS / "pendulum.json"), read_result(tmp_path / "fmu.csv"), ["P1"])["P1"]
    assert np.array_equal(pose[0][:, 1], res["P1.r[2]"])


def test_pendulum_fmu_matches_library_and_the_pendulum_ode(fmus):
    names = ["P1.r[1]", "P1.r[2]"]
    res = simulate_fmu(str(fmus["pendulum"]), stop_time=10.0, step_size=0.01, output_interval=0.01, output=names)
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    lib = simulate(cm, 10.0, 1e-3, output_step=0.01)
    chan = ChannelEvaluator(cm)
    ref = np.array([chan(t, q, qd, qdd, lam)[[chan.names.index(n) for n in names]]
                    for t, q, qd, qdd, lam in zip(lib.t, lib.q, lib.qd, lib.qdd, lib.lam)])
    fmu = np.column_stack([res[n] for n in names])
    assert np.allclose(res["time"], lib.t, rtol=0, atol=1e-12)
    # same integrator, same substeps (solver.h = 1e-3): equal to round-off
    assert np.abs(fmu - ref).max() < 1e-11
    # IFToMM simple pendulum: theta'' = -(g/L) cos(theta), released horizontally; criterion 1e-3 m
    sol = solve_ivp(lambda t, y: [y[1], -9.81 * math.cos(y[0])], (0.0, 10.0), [0.0, 0.0], t_eval=res["time"],
                    rtol=1e-12, atol=1e-12, method="DOP853")
    exact = np.column_stack([np.cos(sol.y[0]), np.sin(sol.y[0])])
    assert np.abs(fmu - exact).max() < 1e-3


def _torque(t: float) -> float:
    return 39.75 + 20.0 * math.sin(2.0 * math.pi * t)


def test_fourbar_fmu_with_a_torque_history_matches_the_library(fmus):
    """Inputs held over each communication step in both; outputs equal to round-off at every point."""
    cm = compile_model(load_model(MODELS / "fourbar.json"))
    k = cm.input_names.index("crank.T[3]")
    integ = ALFIntegrator(cm, 1e-3, assemble(cm))
    chan = ChannelEvaluator(cm)
    s = Slave(fmus["fourbar"], "history").start()
    watch = ["pin_O2.s", "pin_O2.sd", "B_coupler.r[1]", "pin_O4.F[2]"]
    H = 0.02
    for _ in range(75):
        integ.u[k] = _torque(s.t)
        s.set("crank.T[3]", _torque(s.t))
        integ.advance_to(s.t + H)
        s.step(H)
        lib = chan(integ.t, integ.q, integ.qd, integ.qdd, integ.lam, u=integ.u)
        assert np.abs(s.get(*watch) - lib[[chan.names.index(n) for n in watch]]).max() < 1e-9
    s.close()


def test_rollback_and_serialized_state_replay_bit_for_bit(fmus):
    s = Slave(fmus["fourbar"], "rollback").start()
    watch = ["pin_O2.s", "pin_O2.sd", "A_coupler.a[2]", "pin_A.F[1]", "energy.total"]
    for _ in range(30):
        s.set("crank.T[3]", _torque(s.t))
        s.step(0.01)
    first, second, third = replays_from_saved_state(
        s, watch, 10, 0.01, before_step=lambda s: s.set("crank.T[3]", _torque(s.t) + 3.0))
    s.close()
    assert np.array_equal(first, second) and np.array_equal(first, third)


def test_nan_input_is_discarded_with_a_log_line_and_the_run_continues(fmus):
    s = Slave(fmus["fourbar"], "nan").start()
    s.step(0.01)
    before = s.get("pin_O2.s")
    s.set("crank.T[3]", float("nan"))
    with pytest.raises(FMICallException, match="status 2"):
        s.fmu.doStep(currentCommunicationPoint=s.t, communicationStepSize=0.01)
    assert any("crank.T[3]" in m and "not finite" in m for m in s.log)
    assert np.array_equal(s.get("pin_O2.s"), before)          # state back at the start of the step
    s.set("crank.T[3]", 39.75)
    s.step(0.01)                                                # the same instance goes on
    s.close()
    fresh = Slave(fmus["fourbar"], "after_nan").start()        # and a new one works
    fresh.step(0.01)
    fresh.close()


def _failed_start(s: Slave, **values) -> Slave:
    """Initialization that the FMU refuses: fmi2Error (status 3) from fmi2ExitInitializationMode."""
    with pytest.raises(FMICallException, match="fmi2ExitInitializationMode failed with status 3"):
        s.start(**values)
    return s


def test_bad_parameter_is_reported_not_fatal(fmus):
    s = _failed_start(Slave(fmus["pendulum"], "bad_h"), **{"solver.h": -1.0})
    assert any("solver.h must be a positive step" in m for m in s.log)
    with pytest.raises(FMICallException, match="status 3"):       # the error mode refuses steps
        s.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    assert any("fmi2DoStep: not allowed in the error mode" in m for m in s.log)
    s.close()


def test_diverging_step_is_discarded_with_the_reason(fmus):
    s = Slave(fmus["pendulum"], "diverge").start()
    s.step(0.01)
    s.set("P1.F[2]", 1e300)   # overflows the Newton iteration
    with pytest.raises(FMICallException, match="status 2"):
        s.fmu.doStep(currentCommunicationPoint=s.t, communicationStepSize=0.01)
    assert any("ALF integrator failed at t =" in m and "Traceback" in m for m in s.log)
    s.close()


def test_instances_of_the_same_and_different_fmus_side_by_side(fmus):
    a = Slave(fmus["pendulum"], "a").start()
    b = Slave(fmus["pendulum"], "b").start()
    c = Slave(fmus["fourbar"], "c").start()
    b.set("P1.F[2]", -5.0)   # a heavier pull on b only
    for _ in range(20):
        for s in (a, b, c):
            s.step(0.01)
    alone = Slave(fmus["pendulum"], "alone").start()
    for _ in range(20):
        alone.step(0.01)
    assert np.array_equal(a.get("P1.r[1]", "P1.r[2]"), alone.get("P1.r[1]", "P1.r[2]"))
    assert not np.allclose(a.get("P1.r[2]"), b.get("P1.r[2]"))
    assert c.get("pin_O2.s")[0] != pytest.approx(math.pi / 3, abs=1e-6)
    for s in (a, b, c, alone):
        s.close()


def test_a_freed_or_reset_instance_and_its_successor_step_alike(fmus):
    """The one-call step reaches its arrays through a table of raw addresses (kernels/packed_args.py), held by the
    instance: an instance freed and a new one instantiated in its place (the freed memory reused by other
    allocations), and an instance reset with fmi2Reset and initialized again, step exactly like the first one."""
    def run(s):
        out = []
        for _ in range(40):
            s.set("P1.F[1]", 0.5 * math.sin(2.0 * math.pi * s.t))
            s.step(0.01)
            out.append(s.get("P1.r[1]", "P1.r[2]", "P1.v[1]", "energy.total"))
        return np.array(out)

    first = Slave(fmus["pendulum"], "first").start()
    reference = run(first)
    first.close()
    churn = [np.full(n, float(n)) for n in range(1, 400)]       # allocations that may take the freed memory
    second = Slave(fmus["pendulum"], "second").start()
    again = run(second)
    second.fmu.reset()
    second.t = 0.0
    second.start()
    after_reset = run(second)
    second.close()
    assert len(churn) == 399
    assert np.array_equal(again, reference) and np.array_equal(after_reset, reference)


def test_crane_fmu_holds_still_under_the_static_cylinder_force(fmus):
    """Moment balance about the pivot (boom CM at 0.5 m, payload below the tip at 1.0 m, boom at 30 deg, cylinder
    from (sqrt(3)/2, 0) to the boom CM: lever 0.5 sin(60 deg) = 0.433 m) gives the holding force; with it the
    crane is in equilibrium, with 10 % more the boom rises and the cylinder extends."""
    g, a = 9.81, math.pi / 6
    torque = 500.0 * g * 0.5 * math.cos(a) + 100.0 * g * math.cos(a)
    lever = 0.5 * math.sin(2 * a)
    f0 = torque / lever
    s = Slave(fmus["crane"], "crane").start(**{"cylinder.f": f0})
    length0 = s.get("cylinder.length")[0]
    assert length0 == pytest.approx(0.5, abs=1e-12)          # |(0.433, 0.25) - (0.866, 0)| = 0.5 m
    for _ in range(100):
        s.step(0.01)
    assert s.get("boom_hinge.s")[0] == pytest.approx(a, abs=1e-8)
    assert s.get("cylinder.force")[0] == pytest.approx(f0, rel=1e-12)
    s.set("cylinder.f", 1.1 * f0)
    for _ in range(20):
        s.step(0.01)
    assert s.get("boom_hinge.s")[0] > a + 1e-3 and s.get("cylinder.length")[0] > length0
    assert s.get("cylinder.speed")[0] > 0.0
    s.close()


def test_exposed_parameters_change_the_model_and_bad_values_are_named(fmus):
    md = read_model_description(str(fmus["crane"]))
    params = {v.name: v for v in md.modelVariables if v.causality == "parameter"}
    assert params["boom_hinge.s_start"].unit == "rad" and params["payload.mass"].unit == "kg"
    assert float(params["boom_hinge.s_start"].start) == pytest.approx(math.pi / 6, abs=1e-12)
    assert float(params["boom.inertia"].start) == pytest.approx(500.0 / 12.0)
    # a lighter payload: the holding force from the moment balance at 30 deg keeps the crane still
    g, m_payload = 9.81, 50.0
    f0 = (500.0 * g * 0.5 + m_payload * g) * math.cos(math.pi / 6) / (0.5 * math.sin(math.pi / 3))
    s = Slave(fmus["crane"], "lighter").start(**{"payload.mass": m_payload, "cylinder.f": f0})
    for _ in range(50):
        s.step(0.01)
    assert s.get("boom_hinge.s")[0] == pytest.approx(math.pi / 6, abs=1e-8)
    s.close()
    # the boom started at 0.4 rad: initial joint coordinate and cylinder length follow the geometry
    a = 0.4
    mount = 0.5 * np.array([math.cos(a), math.sin(a)])
    s = Slave(fmus["crane"], "s_start").start(**{"boom_hinge.s_start": a})
    assert s.get("boom_hinge.s")[0] == pytest.approx(a, abs=1e-10)
    assert s.get("cylinder.length")[0] == pytest.approx(np.linalg.norm(mount - [math.sqrt(3.0) / 2.0, 0.0]),
                                                        abs=1e-10)
    s.close()
    bad = _failed_start(Slave(fmus["crane"], "bad_mass"), **{"payload.mass": -1.0})
    assert any("body 'payload': 'mass' must be positive" in m for m in bad.log)
    bad.close()


def test_driver_taking_its_coordinate_rate_and_acceleration_as_inputs(tmp_path):
    """The crank of the four-bar driven through FMU inputs at a constant speed: the joint follows the inputs and
    the driver torque equals the library's inverse dynamics of the same motion."""
    from fmu_mbs.analyses.inverse import inverse_dynamics
    from fmu_mbs.model import ModelBuilder
    from fmu_mbs.model.functions import External, Linear

    w = 2.0
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.add_driver("motor", "pin_O2", External(math.pi / 3))
    fmu_path = build_fmu(b.build(), tmp_path)
    s = Slave(fmu_path, "driven").start(**{"motor.s": math.pi / 3, "motor.sd": w})
    H, torques = 0.01, []
    for _ in range(100):
        s.set("motor.s", math.pi / 3 + w * s.t)
        s.set("motor.sd", w)
        s.set("motor.sdd", 0.0)
        s.step(H)
        assert s.get("pin_O2.s")[0] == pytest.approx(math.pi / 3 + w * s.t, abs=1e-9)
        torques.append(s.get("motor.f")[0])
    s.close()
    ref = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    ref.add_driver("motor", "pin_O2", Linear(math.pi / 3, w))
    cm = compile_model(ref.build())
    traj = inverse_dynamics(cm, 1.0, H)
    lib = -traj.lam[1:, cm.driver_rows["motor"]]
    # ALF (index 3, penalty 1e7, Newton tolerance 1e-10) against kinematics + exact multipliers: the torque
    # (tens of N m) agrees to the integrator's constraint accuracy
    assert np.allclose(torques, lib, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", CATALOGUE)
def test_every_catalogue_fmu_reproduces_the_library_run(fmus, name):
    """simulate_fmu (10 ms communication steps, solver.h = 1 ms) against the library's simulate at the same
    substeps: every output the FMU declares at every communication point, to round-off."""
    from fmu_mbs.model.fmu_interface import fmu_outputs

    cm = compile_model(load_model(MODELS / f"{name}.json"))
    declared = fmu_outputs(cm.model)
    names = [channel_names(cm.model)[k] for k in declared]
    res = simulate_fmu(str(fmus[name]), stop_time=0.5, step_size=0.01, output_interval=0.01, output=names)
    lib = simulate(cm, 0.5, 1e-3, output_step=0.01)
    chan = ChannelEvaluator(cm)
    z = lib.z if lib.z is not None else [None] * len(lib.t)     # committed element states (contact models)
    sums = zip(lib.info["energy_dissipated"], lib.info["energy_input"], strict=True)   # energy.dissipated, .input
    ref = np.array([chan(t, q, qd, qdd, lam, z=zk, dissipated=d, energy_input=w) for t, q, qd, qdd, lam, zk, (d, w)
                    in zip(lib.t, lib.q, lib.qd, lib.qdd, lib.lam, z, sums, strict=True)])[:, declared]
    got = np.column_stack([res[n] for n in names])
    scale = np.maximum(1.0, np.abs(ref).max(axis=0))
    # solver.iterations/residual may differ: the library sums iterations over an output interval
    keep = [k for k, n in enumerate(names) if not n.startswith("solver.")]
    assert np.max(np.abs(got[:, keep] - ref[:, keep]) / scale[keep]) < 1e-9


def test_contact_fmus_expose_their_parameters_and_output_contact_forces(fmus):
    """bouncing_ball with e = 0.5 set through the FMU equals the library model with e = 0.5 built in; the block on
    the 20 deg incline slides with g (sin a - mu cos a) once mu = 0.2 is set (it sticks with the default 0.5)."""
    from fmu_mbs.model import ModelBuilder

    names = ["centre.r[3]", "impact.fn", "impact.ft[1]", "impact.depth"]
    b = ModelBuilder.from_model(load_model(MODELS / "bouncing_ball.json"))
    b.set_value("impact", "restitution", 0.5)
    cm = compile_model(b.build())
    lib = simulate(cm, 1.0, 1e-3, output_step=0.01)
    chan = ChannelEvaluator(cm)
    ref = np.array([chan(t, q, qd, qdd, lam, z=z)[[chan.names.index(n) for n in names]]
                    for t, q, qd, qdd, lam, z in zip(lib.t, lib.q, lib.qd, lib.qdd, lib.lam, lib.z)])
    s = Slave(fmus["bouncing_ball"], "e05").start(**{"impact.restitution": 0.5})
    got = [s.get(*names)]
    for _ in range(100):
        s.step(0.01)
        got.append(s.get(*names))
    s.close()
    assert np.abs(np.array(got) - ref).max() < 1e-9 * max(1.0, np.abs(ref).max())
    assert ref[:, 1].max() > 100.0 and ref[:, 3].max() > 0.0            # it hit the floor within the second

    a, mu = math.radians(20.0), 0.2
    s = Slave(fmus["block_on_incline"], "slide").start(**{"sliding.mu": mu})
    v = []
    for _ in range(50):
        s.step(0.01)
        v.append(s.get("cm.v[1]")[0])
    s.close()
    assert (v[-1] - v[19]) / 0.3 == pytest.approx(9.81 * (math.sin(a) - mu * math.cos(a)), rel=2e-3)
    stuck = Slave(fmus["block_on_incline"], "stick").start()
    for _ in range(50):
        stuck.step(0.01)
    assert abs(stuck.get("cm.v[1]")[0]) < 1e-6
    assert stuck.get("sliding.fn")[0] == pytest.approx(9.81 * math.cos(a), rel=1e-4)
    stuck.close()


def test_deserializing_a_thousand_bad_byte_strings_gives_fmi2_error(fmus):
    """fmi2DeSerializeFMUstate on 1,000 byte strings (random, truncated or damaged pendulum states, states of the
    four-bar and the crane): each returns fmi2Error with the reason in the log; the instance then still replays a
    good state bit for bit."""
    others = []
    for name in ("fourbar", "crane"):
        o = Slave(fmus[name], f"other_{name}").start()
        o.step(0.01)
        state = o.fmu.getFMUstate()
        others.append(bytes(o.fmu.serializeFMUstate(state)))
        o.fmu.freeFMUstate(state)
        o.close()
    s = Slave(fmus["pendulum"], "fuzz").start()
    s.step(0.01)
    state = s.fmu.getFMUstate()
    good = bytes(s.fmu.serializeFMUstate(state))
    rng = np.random.default_rng(3)
    failures = 0
    for k in range(1000):
        kind = k % 4
        if kind == 0:
            data = rng.bytes(int(rng.integers(1, 2 * len(good))))
        elif kind == 1:
            data = good[:int(rng.integers(1, len(good)))]
        elif kind == 2:
            damaged = bytearray(good)
            damaged[int(rng.integers(0, len(good)))] ^= 1 << int(rng.integers(0, 8))
            data = bytes(damaged)
        else:
            data = others[k % 2]
        with pytest.raises(FMICallException, match="status 3"):
            s.fmu.deSerializeFMUstate(data)
        failures += 1
    assert failures == 1000
    reasons = [m for m in s.log if m.startswith("fmi2DeSerializeFMUstate: FMU state")]
    assert len(reasons) == 1000 and sum("another model" in m for m in reasons) >= 250   # + flips in the id
    watch = ["P1.r[1]", "P1.v[2]"]
    s.step(0.01)
    after = s.get(*watch)
    restored = s.fmu.deSerializeFMUstate(good)
    s.fmu.setFMUstate(restored)
    s.t = 0.01
    s.step(0.01)
    assert np.array_equal(s.get(*watch), after)
    s.fmu.freeFMUstate(restored)
    s.fmu.freeFMUstate(state)
    s.close()
