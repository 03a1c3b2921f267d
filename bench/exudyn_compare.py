"""fmu-mbs side by side with Exudyn: the same model, final time and step, wall time and accuracy, one run.

Every case builds its mechanism once with fmu-mbs's ModelBuilder; the Exudyn model is translated from that
model (bodies, markers, joints, gravity, loads) and starts from fmu-mbs's assembled initial state, so both
integrate the same equations from the same state. Both are measured against the same independent reference
(a minimal-coordinate ODE written here and integrated by scipy at rtol 1e-12, the library's index-1 reference
integrator at rtol 1e-10, or a conservation law), from states recorded every ``OUTPUT`` seconds.

Timing is CPU and wall time per simulated second of one whole run (fmu-mbs: ``simulate`` from the assembled state,
recording every step, kernels already compiled, the compile time of a cold first call reported apart; Exudyn:
``SolveDynamic`` after ``Assemble``). Exudyn settings (its fastest appropriate ones, chosen by measurement on
these cases): the ``exudynCPPfast`` module (no range checks, AVX2), generalized-alpha at the same step h (spectral
radius 0.9, index 3, its default and recommended setting: with spectral radius 1 its Newton stalls on the chains),
modified Newton (its default, Jacobian reused over steps), solution file off, sensors stored internally at the
output period only, one thread, EigenSparse above 40 coordinates and EXUdense below (measured faster there). Per
case: Bricard (redundant constraint) EigenDense with ``ignoreSingularJacobian`` (EXUdense and EigenSparse stop);
E7.2 index-2 constraints with Newmark (the index-3 default stops at 100 rad/s, h = 1 ms). Bodies: Euler-parameter
rigid bodies (as fmu-mbs), RigidBody2D, MassPoint2D. fmu-mbs: ALF defaults (tol 1e-9); E7.2 with the
energy-consistent trapezoid (``scheme="energy"``, the ALF's option for fast rotations of quadratic rows) and
``max_iter=30``. The last column: fmu-mbs's error-controlled path (integrator 'variable', Dormand-Prince 5(4) in
numba) at the loosest rtol of VARIABLE_RTOLS whose measured accuracy reaches 1e-8, and its CPU time against Exudyn's
at h (issue 16's criterion: 1e-8 for no more CPU time than Exudyn's fixed-step run needs for 1e-3 to 1e-4).

    OPENBLAS_NUM_THREADS=1 python bench/exudyn_compare.py [--case NAME ...] [--quick] [--json out.json]

``ratio`` = Exudyn time / fmu-mbs time (> 1: fmu-mbs faster), on CPU time (process time: robust when other jobs
share the cores; wall time in brackets). The ratio at equal accuracy compares Exudyn at h with fmu-mbs at the
largest step in [h/8, 8h] whose measured accuracy is at least Exudyn's, found for every case by the same search
(``equal_accuracy_step``: a bracket of met / missed steps narrowed by up to 5 further runs at the step where a power
law through the bracket's ends, of the measured order, reaches Exudyn's accuracy; to 10 %). The order is measured,
not assumed: an error that is not second order in h (E7.2's energy error: 100x from 1 to 2 ms, 6-8x per doubling
above) would make a second-order estimate wrong. Needs ``pip install .[bench]`` (exudyn).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

from fmu_mbs.analyses.assembly import AssemblyResult, assemble
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.integrators import integrate_reference
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import CompiledModel, compile_model
from fmu_mbs.kernels.model_arrays import PLANAR, POINT_MASS
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.elements import PlanarBody, PointLoad, RigidBody

MODELS = Path(__file__).resolve().parents[1] / "models"
G = 9.81
OUTPUT = 0.01          # s, output (sensor) period of both codes


# --- body states: what both codes report, and what the accuracy measures read ---------------------------------------

@dataclass
class States:
    """Per output time t (s) and body: CM position r (m), velocity v (m/s), angular velocity w (rad/s, world),
    body rotation A (3x3) and, for planar bodies, the unwrapped angle (rad)."""

    t: np.ndarray
    r: np.ndarray          # (nt, nb, 3)
    v: np.ndarray
    w: np.ndarray
    A: np.ndarray          # (nt, nb, 3, 3)
    angle: np.ndarray      # (nt, nb), zero for non-planar bodies
    extra: dict = field(default_factory=dict)


def _quat_matrix(p: np.ndarray) -> np.ndarray:
    e0, e1, e2, e3 = p / np.linalg.norm(p)
    return np.array([[2 * (e0 * e0 + e1 * e1) - 1, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                     [2 * (e1 * e2 + e0 * e3), 2 * (e0 * e0 + e2 * e2) - 1, 2 * (e2 * e3 - e0 * e1)],
                     [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 2 * (e0 * e0 + e3 * e3) - 1]])


def states_from_q(cm: CompiledModel, t: np.ndarray, q: np.ndarray, qd: np.ndarray) -> States:
    m = cm.arrays
    nb, nt = len(cm.body_names), len(t)
    r, v, w = (np.zeros((nt, nb, 3)) for _ in range(3))
    A = np.tile(np.eye(3), (nt, nb, 1, 1))
    angle = np.zeros((nt, nb))
    for b in range(nb):
        a, kind, n = int(m.body_q_adr[b]), int(m.body_kind[b]), int(m.body_q_num[b])
        if kind == POINT_MASS:
            r[:, b, :n], v[:, b, :n] = q[:, a:a + n], qd[:, a:a + n]
        elif kind == PLANAR:
            r[:, b, :2], v[:, b, :2] = q[:, a:a + 2], qd[:, a:a + 2]
            angle[:, b], w[:, b, 2] = q[:, a + 2], qd[:, a + 2]
            c, s = np.cos(q[:, a + 2]), np.sin(q[:, a + 2])
            A[:, b, 0, 0], A[:, b, 0, 1], A[:, b, 1, 0], A[:, b, 1, 1] = c, -s, s, c
        else:
            r[:, b], v[:, b] = q[:, a:a + 3], qd[:, a:a + 3]
            for i in range(nt):
                e0, e1, e2, e3 = q[i, a + 3:a + 7]
                E = np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])
                w[i, b] = 2.0 * E @ qd[i, a + 3:a + 7]
                A[i, b] = _quat_matrix(q[i, a + 3:a + 7])
    return States(t, r, v, w, A, angle)


def energy(model, st: States) -> np.ndarray:
    """Kinetic + gravity potential energy (J) of every output row."""
    g = np.zeros(3)
    g[:len(model.gravity)] = model.gravity
    E = np.zeros(len(st.t))
    for b, body in enumerate(model.bodies):
        E += 0.5 * body.mass * np.sum(st.v[:, b] ** 2, axis=1) - body.mass * st.r[:, b] @ g
        if isinstance(body, PlanarBody):
            E += 0.5 * body.inertia * st.w[:, b, 2] ** 2
        elif isinstance(body, RigidBody):
            wb = np.einsum("tji,tj->ti", st.A[:, b], st.w[:, b])          # body axes
            E += 0.5 * np.einsum("ti,ij,tj->t", wb, np.asarray(body.inertia, dtype=float), wb)
    return E


# --- fmu-mbs side ----------------------------------------------------------------------------------------------------

def run_fmu_mbs(cm: CompiledModel, start: AssemblyResult, t_end: float, h: float, **options) -> tuple[States, dict]:
    t0 = time.perf_counter()
    simulate(cm, 2 * h, h, initial=start, **options)                   # compile or load the kernels
    first = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    tr = simulate(cm, t_end, h, initial=start, **options)      # every step recorded, in chunks of 4096 steps
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rows = slice(None, None, max(1, round(OUTPUT / h)))
    st = states_from_q(cm, tr.t[rows], tr.q[rows], tr.qd[rows])
    st.extra["iterations"] = float(np.sum(tr.info["iterations"][1:]) / round(t_end / h))
    return st, {"wall_per_s": wall / t_end, "cpu_per_s": cpu / t_end, "first_call_s": first,
                "newton_per_step": st.extra["iterations"]}


#: accuracy the error-controlled path is asked to reach (issue 16), and the tolerances tried for it, loosest first
VARIABLE_TARGET = 1e-8
VARIABLE_RTOLS = (1e-7, 1e-8, 1e-9, 1e-10, 1e-11)


def run_variable(cm: CompiledModel, start: AssemblyResult, t_end: float, rtol: float) -> tuple[States, dict]:
    """fmu-mbs's error-controlled Dormand-Prince path at ``rtol`` (atol = rtol), output every OUTPUT s."""
    simulate(cm, 2 * OUTPUT, OUTPUT, integrator="variable", initial=start, rtol=rtol)     # compile or load
    t0, c0 = time.perf_counter(), time.process_time()
    tr = simulate(cm, t_end, OUTPUT, integrator="variable", initial=start, rtol=rtol)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = states_from_q(cm, tr.t, tr.q, tr.qd)
    return st, {"wall_per_s": wall / t_end, "cpu_per_s": cpu / t_end, "rtol": rtol,
                "evaluations": float(np.sum(tr.info["iterations"][1:]))}


def variable_to_target(case) -> dict:
    """The loosest rtol of VARIABLE_RTOLS whose measured accuracy reaches VARIABLE_TARGET, with its CPU time."""
    tried = []
    for rtol in VARIABLE_RTOLS:
        try:
            st, info = run_variable(case.cm, case.start, case.t_end, rtol)
            acc = case.accuracy(st)
        except Exception as exc:                # noqa: BLE001 - reported, e.g. a model with element states
            return {"error": f"{type(exc).__name__}: {exc}", "tried": tried}
        tried.append((rtol, acc))
        if acc <= VARIABLE_TARGET:
            return {**info, "accuracy": acc, "tried": tried}
    return {"error": f"accuracy {VARIABLE_TARGET:g} not reached down to rtol {VARIABLE_RTOLS[-1]:g}", "tried": tried}


# --- Exudyn side: the same model, translated -------------------------------------------------------------------------

def _exudyn():
    sys.exudynFast = True          # the module without range checks (AVX2), Exudyn's fastest
    import exudyn
    return exudyn


def simulation_settings(exu, t_end: float, h: float, output: float):
    """Exudyn settings for a fixed-step run to ``t_end`` with step ``h`` (s): quiet, no solution file, sensors
    stored every ``output`` (s), one thread."""
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / h))
    ti.endTime = t_end
    ti.verboseMode = 0
    s.solution.file.write = False
    s.solution.sensors.writePeriod = output
    s.parallel.numberOfThreads = 1
    return s


def apply_settings(exu, s, settings: dict) -> None:
    """Set Exudyn simulation settings ``s`` by dotted path ("timeIntegration.newton.relativeTolerance": value); a
    path ending in solverType takes the name of an ``exu.LinearSolverType``."""
    for path, value in settings.items():
        obj = s
        for part in path.split(".")[:-1]:
            obj = getattr(obj, part)
        setattr(obj, path.split(".")[-1], getattr(exu.LinearSolverType, value) if path.endswith("solverType")
                else value)


#: a joint frame whose y axis is the marker's z axis (x kept, z = x cross y = -y of the marker): Exudyn's universal
#: joint (GenericJoint with one locked rotation) keeps t_y0 perpendicular to t_z1
_Y_TO_Z = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def run_exudyn(cm: CompiledModel, start: AssemblyResult, t_end: float, h: float, settings: dict | None = None
               ) -> tuple[States, dict]:
    """Translate the fmu-mbs model (point masses, planar and rigid bodies; revolute, spherical, universal, prismatic,
    distance and point_on_line joints; gravity; constant point loads) into Exudyn, start it from ``start`` and
    integrate to t_end."""
    exu = _exudyn()
    from exudyn.itemInterface import (
        DistanceConstraint,
        GenericJoint,
        LoadTorqueVector,
        MarkerBodyPosition,
        MarkerBodyRigid,
        RevoluteJoint2D,
        SensorBody,
        SphericalJoint,
    )
    from exudyn.utilities import RigidBodyInertia

    model, m = cm.model, cm.arrays
    planar = model.dimension == 2
    gravity = list(model.gravity) + ([0.0] if planar else [])
    st0 = states_from_q(cm, np.zeros(1), start.q[None, :], start.qd[None, :])
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.CreateGround(show=False)
    objects, n_coords = {}, 0
    for b, body in enumerate(model.bodies):
        r0, v0, w0 = (list(x[0, b]) for x in (st0.r, st0.v, st0.w))
        if int(m.body_kind[b]) == POINT_MASS:
            objects[body.name] = mbs.CreateMassPoint(referencePosition=r0, initialVelocity=v0, physicsMass=body.mass,
                                                     gravity=gravity, create2D=planar, show=False)
            n_coords += 2 if planar else 3
        elif isinstance(body, PlanarBody):
            inertia = RigidBodyInertia(mass=body.mass, inertiaTensor=np.diag([1.0, 1.0, max(body.inertia, 0.0)]),
                                       inertiaTensorAtCOM=True)
            objects[body.name] = mbs.CreateRigidBody(inertia=inertia, referencePosition=r0,
                                                     referenceRotationMatrix=st0.A[0, b], initialVelocity=v0,
                                                     initialAngularVelocity=w0, gravity=gravity, create2D=True,
                                                     show=False)
            n_coords += 3
        else:
            inertia = RigidBodyInertia(mass=body.mass, inertiaTensor=np.asarray(body.inertia, dtype=float),
                                       inertiaTensorAtCOM=True)
            objects[body.name] = mbs.CreateRigidBody(inertia=inertia, referencePosition=r0,
                                                     referenceRotationMatrix=st0.A[0, b], initialVelocity=v0,
                                                     initialAngularVelocity=w0, gravity=gravity, show=False)
            n_coords += 8                                   # 7 coordinates + the Euler-parameter constraint
    markers = {mk.name: mk for mk in model.markers}

    def body_of(marker):
        return ground if marker.body == "ground" else objects[marker.body]

    def local(marker):                              # marker origin in its body's frame (ground: world), 3D
        return list(marker.position) + [0.0] * (3 - len(marker.position))

    def rotation(marker):
        if planar:
            return _rot_z(marker.angle)
        return _quat_matrix(np.asarray(marker.orientation, dtype=float))

    def position_marker(marker):
        return mbs.AddMarker(MarkerBodyPosition(bodyNumber=body_of(marker), localPosition=local(marker)))

    def rigid_marker(marker):
        return mbs.AddMarker(MarkerBodyRigid(bodyNumber=body_of(marker), localPosition=local(marker)))

    for j in model.joints:
        mi, mj = markers[j.marker_i], markers[j.marker_j]
        if j.type == "revolute" and planar:
            mbs.AddObject(RevoluteJoint2D(markerNumbers=[position_marker(mi), position_marker(mj)]))
        elif j.type == "revolute":
            mbs.AddObject(GenericJoint(markerNumbers=[rigid_marker(mi), rigid_marker(mj)],
                                       constrainedAxes=[1, 1, 1, 1, 1, 0], rotationMarker0=rotation(mi),
                                       rotationMarker1=rotation(mj)))
        elif j.type == "spherical" and not planar:
            mbs.AddObject(SphericalJoint(markerNumbers=[position_marker(mi), position_marker(mj)]))
        elif j.type == "universal":     # z_i perpendicular to z_j; Exudyn's one locked rotation is t_y0 . t_z1 = 0
            mbs.AddObject(GenericJoint(markerNumbers=[rigid_marker(mi), rigid_marker(mj)],
                                       constrainedAxes=[1, 1, 1, 1, 0, 0], rotationMarker0=rotation(mi) @ _Y_TO_Z,
                                       rotationMarker1=rotation(mj)))
        elif j.type == "prismatic" and not planar:      # translation along z_i, no relative rotation
            mbs.AddObject(GenericJoint(markerNumbers=[rigid_marker(mi), rigid_marker(mj)],
                                       constrainedAxes=[1, 1, 0, 1, 1, 1], rotationMarker0=rotation(mi),
                                       rotationMarker1=rotation(mj)))
        elif j.type == "distance":
            mbs.AddObject(DistanceConstraint(markerNumbers=[position_marker(mi), position_marker(mj)],
                                             distance=j.length))
        elif j.type == "point_on_line":                 # origin_j on the x axis of marker_i: its y offset is 0
            mbs.AddObject(GenericJoint(markerNumbers=[rigid_marker(mi), rigid_marker(mj)],
                                       constrainedAxes=[0, 1, 0, 0, 0, 0], rotationMarker0=rotation(mi),
                                       rotationMarker1=rotation(mj)))
        else:
            raise ValueError(f"bench translator: joint type {j.type!r} not translated")
    for f in model.forces:
        if isinstance(f, PointLoad) and planar and not any(getattr(x, "value", 0.0) for x in f.force):
            torque = [0.0, 0.0, f.torque[0].value]
            mbs.AddLoad(LoadTorqueVector(markerNumber=rigid_marker(markers[f.marker]), loadVector=torque))
        else:
            raise ValueError(f"bench translator: force element {f.name!r} not translated")

    sensors = {}
    for body in model.bodies:
        for out in ("Position", "Velocity", "AngularVelocity", "RotationMatrix"):
            if out in ("AngularVelocity", "RotationMatrix") and int(m.body_kind[cm.body_names.index(body.name)]) \
                    == POINT_MASS:
                continue
            sensors[body.name, out] = mbs.AddSensor(SensorBody(
                bodyNumber=objects[body.name], outputVariableType=getattr(exu.OutputVariableType, out),
                storeInternal=True, writeToFile=False))
    mbs.Assemble()

    s = simulation_settings(exu, t_end, h, OUTPUT)
    ti = s.timeIntegration
    ti.generalizedAlpha.spectralRadius = 0.9
    ti.newton.useModifiedNewton = True
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse if n_coords > 40 else exu.LinearSolverType.EXUdense
    apply_settings(exu, s, settings or {})                 # per-case overrides, e.g. "linearSolver.solverType"
    t0, c0 = time.perf_counter(), time.process_time()
    ok = mbs.SolveDynamic(s)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    it = mbs.sys["dynamicSolver"].it
    steps = max(1, int(it.currentStepIndex))

    data = {k: mbs.GetSensorStoredData(v) for k, v in sensors.items()}
    t = data[model.bodies[0].name, "Position"][:, 0]
    nb = len(model.bodies)
    r, v, w = (np.zeros((len(t), nb, 3)) for _ in range(3))
    A = np.tile(np.eye(3), (len(t), nb, 1, 1))
    angle = np.zeros((len(t), nb))
    for b, body in enumerate(model.bodies):
        r[:, b] = data[body.name, "Position"][:, 1:4]
        v[:, b] = data[body.name, "Velocity"][:, 1:4]
        if (body.name, "AngularVelocity") in data:
            w[:, b] = data[body.name, "AngularVelocity"][:, 1:4]
            A[:, b] = data[body.name, "RotationMatrix"][:, 1:10].reshape(-1, 3, 3)
        if isinstance(body, PlanarBody):
            angle[:, b] = np.unwrap(np.arctan2(A[:, b, 1, 0], A[:, b, 0, 0]))
            angle[:, b] += 2 * math.pi * round((st0.angle[0, b] - angle[0, b]) / (2 * math.pi))
    info = {"wall_per_s": wall / t_end, "cpu_per_s": cpu / t_end, "newton_per_step": it.newtonStepsCount / steps,
            "jacobians": int(it.newtonJacobiCount), "completed": bool(ok) and bool(abs(t[-1] - t_end) < 1e-9),
            "solver": str(s.linearSolver.solverType).split(".")[-1]}
    return States(t, r, v, w, A, angle), info


# --- cases -----------------------------------------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    what: str              # the accuracy measure
    cm: CompiledModel
    start: AssemblyResult
    t_end: float
    h: float
    accuracy: object       # States -> float
    options: dict = field(default_factory=dict)      # fmu-mbs integrator options
    exudyn: dict = field(default_factory=dict)       # Exudyn settings that differ from run_exudyn's defaults


def _ode(f, t_end, y0):
    sol = solve_ivp(f, (0.0, t_end), y0, method="DOP853", rtol=1e-12, atol=1e-12, dense_output=True)
    assert sol.success
    return sol.sol


def case_pendulum(quick: bool) -> Case:
    """IFToMM A01 simple pendulum: 1 kg on a 1 m massless link, released horizontally; error = max distance to
    the pendulum ODE theta'' = -g cos(theta) (IFToMM high-precision criterion 1e-3 m)."""
    cm = compile_model(load_model(MODELS / "pendulum.json"))
    t_end = 2.0 if quick else 10.0
    theta = _ode(lambda t, y: [y[1], -G * math.cos(y[0])], t_end, [0.0, 0.0])

    def err(st):
        th = theta(st.t)[0]
        return float(np.max(np.hypot(st.r[:, 0, 0] - np.cos(th), st.r[:, 0, 1] - np.sin(th))))
    return Case("pendulum", "max position error (m) vs pendulum ODE", cm, assemble(cm), t_end, 1e-3, err)


def nfourbar_model(n: int):
    """IFToMM N-four-bar: N+1 cranks and N couplers, 1 m, 1 kg; cranks vertical, couplers at 1 m/s."""
    b = ModelBuilder(f"nfourbar{n}", 2, (0.0, -G))
    for k in range(n + 1):
        b.add_planar_body(f"crank{k}", 1.0, 1.0 / 12.0, position=(float(k), 0.5), angle=math.pi / 2,
                          velocity=(0.5, 0.0), angular_velocity=-1.0)
        b.add_marker(f"g{k}", "ground", (float(k), 0.0))
        b.add_marker(f"c{k}_base", f"crank{k}", (-0.5, 0.0))
        b.add_marker(f"c{k}_tip", f"crank{k}", (0.5, 0.0))
        b.add_joint(f"pivot{k}", "revolute", f"g{k}", f"c{k}_base")
    for k in range(1, n + 1):
        b.add_planar_body(f"coupler{k}", 1.0, 1.0 / 12.0, position=(k - 0.5, 1.0), velocity=(1.0, 0.0))
        b.add_marker(f"k{k}_left", f"coupler{k}", (-0.5, 0.0))
        b.add_marker(f"k{k}_right", f"coupler{k}", (0.5, 0.0))
        b.add_joint(f"left{k}", "revolute", f"c{k - 1}_tip", f"k{k}_left")
        b.add_joint(f"right{k}", "revolute", f"c{k}_tip", f"k{k}_right")
    return b.build()


def _case_nfourbar(n: int, quick: bool) -> Case:
    """Error = max |theta - theta_ref| of crank 0, reference: the exact parallelogram reduced model
    ((N+1)/3 + N) theta'' = -g ((N+1)/2 + N) cos(theta); it passes the singular horizontal position."""
    cm = compile_model(nfourbar_model(n))
    t_end = 2.0 if quick else 10.0
    m_eff, k_eff = (n + 1) / 3.0 + n, G * ((n + 1) / 2.0 + n)
    ref = _ode(lambda t, y: [y[1], -k_eff / m_eff * math.cos(y[0])], t_end, [math.pi / 2, -1.0])
    return Case(f"nfourbar{n}", "max crank angle error (rad) vs reduced model", cm, assemble(cm), t_end, 1e-3,
                lambda st: float(np.max(np.abs(st.angle[:, 0] - ref(st.t)[0]))))


def case_nfourbar2(quick: bool) -> Case:
    return _case_nfourbar(2, quick)


def case_nfourbar40(quick: bool) -> Case:
    return _case_nfourbar(40, quick)


S2 = math.sqrt(0.5)
CUBE = np.array([(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)], dtype=float)
BRICARD_AXES = "yzxyzx"                    # joint k at CUBE[k], normal to both rods that meet there
Z_ALONG = {"x": (S2, 0.0, S2, 0.0), "y": (S2, -S2, 0.0, 0.0), "z": (1.0, 0.0, 0.0, 0.0)}   # marker z -> world axis


def bricard_model():
    """IFToMM A04 Bricard: five 1 m, 1 kg rods (0.1 m square section) along cube edges, ground the sixth edge,
    six revolute joints; one redundant constraint row. Released from rest under gravity."""
    b = ModelBuilder("bricard", dimension=3, gravity=(0.0, -G, 0.0))
    mid = [(CUBE[k] + CUBE[k + 1]) / 2 for k in range(5)]
    for k in range(5):
        axial = np.abs(CUBE[k + 1] - CUBE[k]) > 0.5
        inertia = [0.1 ** 2 / 6 if a else 1.0 / 12 + 0.1 ** 2 / 12 for a in axial]
        b.add_rigid_body(f"rod{k + 1}", 1.0, inertia, position=tuple(mid[k]))
    for k in range(6):
        body_i, body_j = ("ground" if k == 0 else f"rod{k}"), ("ground" if k == 5 else f"rod{k + 1}")
        ci = np.zeros(3) if k == 0 else mid[k - 1]
        cj = np.zeros(3) if k == 5 else mid[k]
        b.add_marker(f"J{k}i", body_i, tuple(CUBE[k] - ci), orientation=Z_ALONG[BRICARD_AXES[k]])
        b.add_marker(f"J{k}j", body_j, tuple(CUBE[k] - cj), orientation=Z_ALONG[BRICARD_AXES[k]])
        b.add_joint(f"R{k}", "revolute", f"J{k}i", f"J{k}j")
    return b.build()


def case_bricard(quick: bool) -> Case:
    """Error = max |E - E0| (J) over the run (no dissipation: energy must stay constant)."""
    model = bricard_model()
    cm = compile_model(model)

    def err(st):
        E = energy(model, st)
        st.extra["kinetic_peak"] = float(np.max(E - energy_potential_only(model, st)))
        return float(np.max(np.abs(E - E[0])))
    return Case("bricard", "max |E - E0| (J)", cm, assemble(cm), 2.0 if quick else 10.0, 1e-3, err,
                exudyn={"linearSolver.solverType": "EigenDense", "linearSolver.ignoreSingularJacobian": True})


def energy_potential_only(model, st: States) -> np.ndarray:
    g = np.zeros(3)
    g[:len(model.gravity)] = model.gravity
    return -sum(body.mass * st.r[:, b] @ g for b, body in enumerate(model.bodies))


def e72_model():
    """Seed 000 E7.2 double pendulum without springs (first row of Table 7.4): two 1 kg point masses on 1 m
    massless links (distance joints), no gravity; both joint rates 100 rad/s (masses at 100 and 300 m/s)."""
    b = ModelBuilder("e72", dimension=2, gravity=(0.0, 0.0))
    b.add_point_mass("P1", 1.0, position=(1.0, 0.0), velocity=(0.0, 100.0))
    b.add_point_mass("P2", 1.0, position=(2.0, 0.0), velocity=(0.0, 300.0))
    b.add_marker("pivot", "ground")
    b.add_marker("p1", "P1")
    b.add_marker("p2", "P2")
    b.add_joint("link1", "distance", "pivot", "p1", length=1.0)
    b.add_joint("link2", "distance", "p1", "p2", length=1.0)
    return b.build()


def case_e72(quick: bool) -> Case:
    """Error = |E(t_end) - E0| / E0 after 20 s (Table 7.4's measure; the book's joint-coordinate trapezoid
    gives 4.6e-4 at h = 1 ms)."""
    model = e72_model()
    cm = compile_model(model)

    def err(st):
        E = energy(model, st)
        return float(abs(E[-1] - E[0]) / E[0])
    return Case("e72_double_pendulum", "|E(t_end) - E0| / E0", cm, assemble(cm), 4.0 if quick else 20.0, 1e-3, err,
                options={"max_iter": 30, "scheme": "energy"},
                exudyn={"timeIntegration.generalizedAlpha.useIndex2Constraints": True,
                        "timeIntegration.generalizedAlpha.useNewmark": True})


def case_e72_positions(quick: bool) -> Case:
    """E7.2 as case_e72, measured as issue 16 asks: the position error of both masses at the end time relative to
    the motion, |r - r_ref|(t_end) / 2 m (the outer mass's radius); reference: the double pendulum's equations in
    the absolute link angles (m = 1 kg, l = 1 m, no gravity: [2, c; c, 1] [a1; a2] = [-w2^2 s; w1^2 s],
    c, s = cos, sin(th1 - th2)) from th1 = th2 = 0, w1 = 100, w2 = 200 rad/s, DOP853 at rtol 1e-13."""
    model = e72_model()
    cm = compile_model(model)
    t_end = 4.0 if quick else 20.0

    def f(t, y):
        th1, th2, w1, w2 = y
        c, s = math.cos(th1 - th2), math.sin(th1 - th2)
        a1, a2 = np.linalg.solve([[2.0, c], [c, 1.0]], [-w2 * w2 * s, w1 * w1 * s])
        return [w1, w2, a1, a2]
    ref = solve_ivp(f, (0.0, t_end), [0.0, 0.0, 100.0, 200.0], method="DOP853", rtol=1e-13, atol=1e-13)
    assert ref.success
    th1, th2 = ref.y[0, -1], ref.y[1, -1]
    p1 = np.array([math.cos(th1), math.sin(th1)])
    p2 = p1 + np.array([math.cos(th2), math.sin(th2)])

    def err(st):
        if abs(st.t[-1] - t_end) > 1e-9:
            raise ValueError(f"the run ended at t = {st.t[-1]}, not {t_end}")
        return float(max(np.linalg.norm(st.r[-1, 0, :2] - p1), np.linalg.norm(st.r[-1, 1, :2] - p2)) / 2.0)
    return Case("e72_positions", "|r - r_ref|(t_end) / 2 m", cm, assemble(cm), t_end, 1e-3, err,
                options={"max_iter": 30, "scheme": "energy"},
                exudyn={"timeIntegration.generalizedAlpha.useIndex2Constraints": True,
                        "timeIntegration.generalizedAlpha.useNewmark": True})


def slider_crank_model():
    """Seed 000 E10.5/10.6: crank and coupler 1 m, uniform 1 kg bars, massless slider (point_on_line)."""
    th = math.pi / 4
    c, s = math.cos(th), math.sin(th)
    b = ModelBuilder("slider_crank_e106", dimension=2, gravity=(0.0, -G))
    b.add_planar_body("crank", 1.0, 1.0 / 12.0, position=(0.5 * c, 0.5 * s), angle=th)
    b.add_planar_body("rod", 1.0, 1.0 / 12.0, position=(1.5 * c, 0.5 * s), angle=-th)
    b.add_marker("O", "ground")
    b.add_marker("crank_O", "crank", (-0.5, 0.0))
    b.add_marker("crank_A", "crank", (0.5, 0.0))
    b.add_marker("rod_A", "rod", (-0.5, 0.0))
    b.add_marker("rod_B", "rod", (0.5, 0.0))
    b.add_joint("pivot", "revolute", "O", "crank_O")
    b.add_joint("pin", "revolute", "crank_A", "rod_A")
    b.add_joint("slider", "point_on_line", "O", "rod_B")
    return b.build()


def case_slider_crank(quick: bool) -> Case:
    """Through 11 singular positions in 10 s; error = max |theta - theta_ref| of the crank, reference
    theta'' (2/3 + 2 sin^2) + 2 sin cos theta'^2 = -g cos theta (digest §11.2)."""
    cm = compile_model(slider_crank_model())
    th, w = math.pi / 4, 2.0 * math.sqrt(2.0)
    s, c = math.sin(th), math.cos(th)
    start = assemble(cm, qd=np.array([-0.5 * s * w, 0.5 * c * w, w, -1.5 * s * w, 0.5 * c * w, -w]))
    t_end = 2.0 if quick else 10.0

    def f(t, y):
        s, c = math.sin(y[0]), math.cos(y[0])
        return [y[1], (-G * c - 2.0 * s * c * y[1] ** 2) / (2.0 / 3.0 + 2.0 * s * s)]
    ref = _ode(f, t_end, [th, w])
    return Case("slider_crank_e105", "max crank angle error (rad) vs reduced model", cm, start, t_end, 1e-3,
                lambda st: float(np.max(np.abs(st.angle[:, 0] - ref(st.t)[0]))))


def case_fourbar(quick: bool) -> Case:
    """Seed 002 four-bar (models/fourbar.json) with 39.75 N m on the crank, from 3 rad/s (it turns over);
    error = max |theta2 - theta2_ref|, reference: the library's index-1 integrator (DOP853, rtol 1e-10)."""
    b = ModelBuilder.from_model(load_model(MODELS / "fourbar.json"))
    b.add_point_load("T_in", "crank", torque=39.75)
    cm = compile_model(b.build())
    a0 = assemble(cm)
    ev = Evaluator(cm)
    ev.constraints(0.0, a0.q)
    k = cm.q_names.index("crank_link.theta")
    sel = np.zeros(cm.n_q)
    sel[k] = 1.0
    qd = np.linalg.lstsq(np.vstack([ev.J, sel]), np.concatenate([np.zeros(cm.n_rows), [3.0]]), rcond=None)[0]
    start = assemble(cm, q=a0.q, qd=qd)
    t_end = 1.0 if quick else 3.0
    body = cm.body_names.index("crank_link")

    def err(st):
        ref = integrate_reference(cm, st.t, start, rtol=1e-10, atol=1e-10)      # at exactly the output times
        return float(np.max(np.abs(st.angle[:, body] - ref.q[:, k])))
    return Case("fourbar_seed002", "max crank angle error (rad) vs index-1 reference", cm, start, t_end, 1e-3, err)


def chain_model(n: int, L: float = 0.5, mass: float = 1.0):
    """Spatial chain of n rigid links (0.5 m, 1 kg, inertia diag(1e-3, mL^2/12, mL^2/12)), revolute joints
    about z, released horizontally along x (as bench/chain_step_cost.py)."""
    b = ModelBuilder(f"chain{n}_3d", dimension=3, gravity=(0.0, -G, 0.0))
    inertia = mass * L * L / 12.0
    for k in range(n):
        b.add_rigid_body(f"link{k}", mass, (1e-3, inertia, inertia), position=(L / 2 + k * L, 0.0, 0.0))
        b.add_marker(f"a{k}", f"link{k}", (-L / 2, 0.0, 0.0))
        b.add_marker(f"b{k}", f"link{k}", (L / 2, 0.0, 0.0))
    b.add_marker("pivot", "ground")
    for k in range(n):
        b.add_joint(f"j{k}", "revolute", "pivot" if k == 0 else f"b{k - 1}", f"a{k}")
    return b.build()


def chain_reference(n: int, t_end: float, L: float = 0.5, mass: float = 1.0):
    """Minimal coordinates: absolute link angles theta_k from x; CM of link k: sum_{j<k} L e(theta_j) +
    L/2 e(theta_k). Lagrange: sum_j m C_ij cos(th_i - th_j) th_j'' + I th_i'' + sum_j m C_ij sin(th_i - th_j)
    th_j'^2 + m g b_i cos(th_i) = 0 with C = a^T a, b_i = sum_k a_ki (a_kj = L for j < k, L/2 for j = k)."""
    a = np.tril(np.full((n, n), L), -1) + np.diag(np.full(n, L / 2))
    C, bsum, inertia = a.T @ a, a.sum(axis=0), mass * L * L / 12.0

    def f(t, y):
        th, om = y[:n], y[n:]
        d = th[:, None] - th[None, :]
        M = mass * C * np.cos(d) + inertia * np.eye(n)
        rhs = -mass * (C * np.sin(d)) @ (om * om) - mass * G * bsum * np.cos(th)
        return np.concatenate([om, np.linalg.solve(M, rhs)])
    sol = solve_ivp(f, (0.0, t_end), np.zeros(2 * n), method="DOP853", rtol=1e-11, atol=1e-11, dense_output=True)
    assert sol.success
    return sol.sol, a


def _case_chain(n: int, quick: bool) -> Case:
    """Error = max CM position error (m) of the last link over the first second (the chain is chaotic: later
    errors of any integrator grow to the chain's size), reference: minimal-coordinate ODE; the run lasts 10 s."""
    model = chain_model(n)
    cm = compile_model(model)
    t_cmp = 1.0
    ref, a = chain_reference(n, t_cmp)

    def err(st):
        sel = st.t <= t_cmp + 1e-9
        th = ref(st.t[sel])[:n]
        x, y = a @ np.cos(th), a @ np.sin(th)
        E = energy(model, st)
        st.extra["energy_drift_J"] = float(np.max(np.abs(E - E[0])))
        return float(np.max(np.hypot(st.r[sel, n - 1, 0] - x[-1], st.r[sel, n - 1, 1] - y[-1])))
    return Case(f"chain{n}_3d", "max tip-link CM error (m), t <= 1 s, vs joint-angle ODE", cm, assemble(cm),
                2.0 if quick else 10.0, 1e-3, err)


def case_chain10(quick: bool) -> Case:
    return _case_chain(10, quick)


def case_chain50(quick: bool) -> Case:
    return _case_chain(50, quick)


CASES = {"pendulum": case_pendulum, "nfourbar2": case_nfourbar2, "nfourbar40": case_nfourbar40,
         "bricard": case_bricard, "e72": case_e72, "e72_positions": case_e72_positions,
         "slider_crank": case_slider_crank, "fourbar": case_fourbar,
         "chain10": case_chain10, "chain50": case_chain50}


def equal_accuracy_step(case: Case, acc_e: float, acc_f: float, info_f: dict, runs: int = 5
                        ) -> tuple[float, float, dict | None, list]:
    """The largest step in [h/8, 8h] (h: the case's step, t_end a whole number of steps) at which fmu-mbs's
    accuracy is at least Exudyn's ``acc_e``, searched on the measured accuracy: a bracket [h_ok, h_bad] (accuracy
    met / not met; a failed run counts as not met) narrowed by at most ``runs`` further runs, each at the step
    where the power law acc = a h^p through the bracket's two ends reaches acc_e (the order p measured, not
    assumed; while an end is still open, p = 2 from the one point, a factor 8 / 1/8 at most), moved to the
    bracket's geometric middle when that lands in the bracket's upper tenth (in log h); stops when the bracket is
    within 10 % or the power law puts the answer at the met end. Returns (h, accuracy, run info of that step,
    every (h, accuracy) tried); info is None if no tried step met the accuracy."""
    h0, lo_lim, hi_lim = case.h, case.h / 8.0, case.h * 8.0
    ok = (h0, acc_f, info_f) if acc_f <= acc_e else None       # largest step meeting acc_e so far
    bad = None if acc_f <= acc_e else (h0, acc_f)              # smallest step missing it so far
    tried = [(h0, acc_f)]

    def whole(h: float) -> float:
        return case.t_end / math.ceil(case.t_end / h * (1.0 - 1e-9))

    for _ in range(runs):
        if ok is not None and bad is not None and bad[0] <= 1.1 * ok[0]:
            break
        if ok is None and bad[0] <= lo_lim * 1.001 or bad is None and ok[0] >= hi_lim * 0.999:
            break
        if ok is not None and bad is not None:
            (h1, a1), (h2, a2) = (ok[0], ok[1]), bad
            p = math.log(a2 / a1) / math.log(h2 / h1) if a1 > 0.0 and math.isfinite(a2) and a2 > a1 else 0.0
            lo, hi = math.log(h1), math.log(h2)
            x = lo + math.log(acc_e / a1) / p if p > 0.0 else 0.5 * (lo + hi)
            if x < lo + 0.05 * (hi - lo):     # the met end is (within 5 %) where the power law reaches acc_e
                break
            if x > hi - 0.1 * (hi - lo):
                x = 0.5 * (lo + hi)
            h = math.exp(max(x, lo + 0.1 * (hi - lo)))
        else:
            h_ref, a_ref = (ok[0], ok[1]) if ok is not None else bad
            h = h_ref * min(8.0, max(0.125, math.sqrt(acc_e / a_ref) if a_ref > 0.0 else 8.0))
            h = min(hi_lim, max(lo_lim, h))
            if ok is not None and h < 1.1 * ok[0]:   # met at (or within 10 % of) the estimated step already
                break
        h = whole(h)
        try:
            st, info = run_fmu_mbs(case.cm, case.start, case.t_end, h, **case.options)
            acc = case.accuracy(st)
        except Exception:                      # noqa: BLE001 - a step too large for the integrator: not met
            acc, info = math.inf, None
        tried.append((h, acc))
        if acc <= acc_e and (ok is None or h > ok[0]):
            ok = (h, acc, info)
        elif acc > acc_e and (bad is None or h < bad[0]):
            bad = (h, acc)
    if ok is None:
        return math.nan, math.nan, None, tried
    return ok[0], ok[1], ok[2], tried


def run_case(name: str, quick: bool) -> dict:
    case = CASES[name](quick)
    st_f, info_f = run_fmu_mbs(case.cm, case.start, case.t_end, case.h, **case.options)
    acc_f = case.accuracy(st_f)
    out = {"case": name, "measure": case.what, "t_end": case.t_end, "h": case.h, "n_q": case.cm.n_q,
           "fmu_mbs": {**info_f, "accuracy": acc_f, **st_f.extra}}
    out["fmu_mbs_variable"] = variable_to_target(case)
    try:
        st_e, info_e = run_exudyn(case.cm, case.start, case.t_end, case.h, case.exudyn)
        acc_e = case.accuracy(st_e) if info_e["completed"] else float("nan")
        out["exudyn"] = {**info_e, "accuracy": acc_e, **st_e.extra}
        out["ratio"] = info_e["cpu_per_s"] / info_f["cpu_per_s"]
        out["ratio_wall"] = info_e["wall_per_s"] / info_f["wall_per_s"]
        if math.isfinite(acc_e) and acc_e > 0.0 and acc_f > 0.0:
            # fmu-mbs again at the largest step that reaches Exudyn's accuracy (searched on h/8 ... 8h)
            h_eq, acc_q, info_q, tried = equal_accuracy_step(case, acc_e, acc_f, info_f)
            if info_q is not None:
                out["fmu_mbs_equal_accuracy"] = {**info_q, "h": h_eq, "accuracy": acc_q}
                out["ratio_equal_accuracy"] = info_e["cpu_per_s"] / info_q["cpu_per_s"]
            out["equal_accuracy_search"] = tried
    except Exception as exc:                                       # report, do not hide, a failed peer run
        out["exudyn"] = {"error": f"{type(exc).__name__}: {exc}"}
        out["ratio"] = out["ratio_wall"] = float("nan")
    return out


def _equal(r: dict) -> str:
    q = r.get("fmu_mbs_equal_accuracy")
    if q is None:
        return "—"
    return f"{q['h'] * 1e3:.3g}, {q['accuracy']:.2e}, {r['ratio_equal_accuracy']:.2f}"


def _variable(r: dict) -> str:
    v = r.get("fmu_mbs_variable")
    if v is None or "error" in v:
        return "—" if v is None else v["error"][:60]
    e = r.get("exudyn", {})
    ratio = f", {e['cpu_per_s'] / v['cpu_per_s']:.2f}" if "cpu_per_s" in e else ""
    return f"{v['rtol']:.0e}, {v['accuracy']:.2e}, {v['cpu_per_s'] * 1e3:.1f}{ratio}"


def table(rows: list[dict]) -> str:
    head = ("| case | h (ms) | t_end (s) | fmu-mbs CPU (wall) ms per sim. s | Exudyn CPU (wall) ms per sim. s | "
            "ratio CPU (wall) | Newton it/step (fmu-mbs / Exudyn) | accuracy measure | fmu-mbs | Exudyn | "
            "fmu-mbs at Exudyn's accuracy: h (ms), accuracy, ratio CPU | fmu-mbs variable step to "
            f"{VARIABLE_TARGET:g}: rtol, accuracy, CPU ms per sim. s, ratio CPU (Exudyn / it) |")
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        f, e = r["fmu_mbs"], r["exudyn"]
        if "error" in e:
            ex = ("failed", "—", "—", e["error"][:60])
        else:
            ex = (f"{e['cpu_per_s'] * 1e3:.1f} ({e['wall_per_s'] * 1e3:.1f})",
                  f"{r['ratio']:.2f} ({r['ratio_wall']:.2f})", f"{e['newton_per_step']:.2f}", f"{e['accuracy']:.2e}")
        lines.append(f"| {r['case']} | {r['h'] * 1e3:g} | {r['t_end']:g} | {f['cpu_per_s'] * 1e3:.1f} "
                     f"({f['wall_per_s'] * 1e3:.1f}) | {ex[0]} | "
                     f"{ex[1]} | {f['newton_per_step']:.2f} / {ex[2]} | {r['measure'].replace('|', chr(92) + '|')} | "
                     f"{f['accuracy']:.2e} | "
                     f"{ex[3]} | {_equal(r)} | {_variable(r)} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", nargs="+", choices=list(CASES), default=list(CASES))
    ap.add_argument("--quick", action="store_true", help="shorter runs (2 s; four-bar 1 s, E7.2 4 s)")
    ap.add_argument("--json", help="write the results as JSON to this file")
    ap.add_argument("--markdown", help="write the table as markdown to this file")
    args = ap.parse_args()
    rows = []
    for name in args.case:
        r = run_case(name, args.quick)
        rows.append(r)
        f, e = r["fmu_mbs"], r["exudyn"]
        print(f"{name}: fmu-mbs {f['cpu_per_s'] * 1e3:.1f} ms CPU / {f['wall_per_s'] * 1e3:.1f} ms wall per simulated "
              f"s (first call {f['first_call_s']:.2f} s, {1.0 / f['wall_per_s']:.1f}x real time), accuracy "
              f"{f['accuracy']:.3g}; Exudyn " + (f"{e['cpu_per_s'] * 1e3:.1f} ms CPU / {e['wall_per_s'] * 1e3:.1f} ms "
                                                 f"wall, accuracy {e['accuracy']:.3g}, ratio {r['ratio']:.2f} CPU, "
                                                 f"{r['ratio_wall']:.2f} wall" if "error" not in e else e["error"])
              + (f"; fmu-mbs at h = {r['fmu_mbs_equal_accuracy']['h'] * 1e3:.3g} ms: accuracy "
                 f"{r['fmu_mbs_equal_accuracy']['accuracy']:.3g}, ratio {r['ratio_equal_accuracy']:.2f} CPU"
                 if "fmu_mbs_equal_accuracy" in r else ""), flush=True)
    print()
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=lambda x: x.item() if hasattr(x, "item")
                                              else str(x)))
    if args.markdown:
        Path(args.markdown).write_text(table(rows) + "\n")


if __name__ == "__main__":
    main()
