"""N spheres falling into an open box: time per step against N, fmu-mbs side by side with Exudyn's GeneralContact.

Scene (the same on both sides): N rigid spheres (radius 0.05 m, 1 kg, solid-sphere inertia, so friction spins
them) on a jittered cubic lattice (spacing 0.12 m, jitter +-0.01 m, seeded), side n = ceil(N^(1/3)) spheres, the
lowest layer 0.1 m above the floor, dropped at rest into an open box: a floor and four walls 0.02 m outside the
lattice. Contact: linear spring k = 1e5 N/m with a dashpot c = 100 N s/m (compression only, no pull) and Coulomb
friction mu = 0.3, regularised linearly below 0.05 m/s, between spheres and between spheres and the box.

- fmu-mbs: Contact elements (linear law, damping ramp depth 1e-4 m, coulomb), box faces as planes. Integrator
  ``--integrator``: ``explicit`` (default: the explicit midpoint rule on index-1 accelerations with projections,
  two force evaluations per step, like for like with Exudyn's ExplicitMidpoint) or ``alf`` (implicit trapezoidal
  index-3 augmented Lagrangian, the library's default, Newton tolerance ``--tol``, default 1e-6 m, 1 % of the static
  sphere compression; iteration matrix M + c Phi_q^T Phi_q with ``--tangent constraints``: contact enters Newton
  through the residual only, or ``--tangent auto``: block-diagonal finite-difference contact tangent, colours
  recomputed from the contact pairs, refreshed every 10th step). The per-step energy split (dissipated and input
  work, four more force evaluations per step) is off, as Exudyn has none (``--energy-balance`` turns it on).
- Exudyn 1.13: rigid bodies with rotation-vector Lie-group nodes, GeneralContact spheres (AddSphereWithMarker)
  and the box as static triangles (AddTrianglesRigidBodyBased); per item k_i = 2k, c_i = c/2 (GeneralContact
  puts the stiffnesses of two items in series and their dampers in parallel), friction pairing mu, proportional
  zone 0.05 m/s, ``keepContactWhilePenetrating = False`` (no pull, as fmu-mbs); search tree box over the scene
  with about one cell per sphere; sparse linear solver and the mass matrix inverted per body (Exudyn's advice: its
  dense default costs O(n^2) per step); no solution file. Solver: explicit (``--exudyn-solver``; default
  ExplicitMidpoint, second order like the trapezoidal rule; GeneralContact is made for explicit solvers) at the
  same step h, one thread.

Reported per N: CPU time per step of each code (process time, the run after a 0.01 s warm-up that compiles /
allocates; best of ``--repeat``), over the fall and settling (0 ... t_end) and over a further 0.2 s of the settled
pile (no impacts: the cost of the contact machinery itself), the ratio Exudyn / fmu-mbs (> 1: fmu-mbs faster),
and a physical check at t_end: the mean sphere height and the kinetic energy (both codes must settle to the same
pile). The growth exponent is the least-squares slope of log(time per step) over log(N).

    OPENBLAS_NUM_THREADS=1 python bench/spheres_in_box.py --counts 125 250 500 1000 [--t-end 1.5] [--h 2e-4]
        [--integrator explicit|alf] [--energy-balance]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from fmu_mbs.analyses.integrators import REPORT_KEYS, STEPPERS
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder

RADIUS = 0.05
MASS = 1.0
SPACING = 0.12
JITTER = 0.01
K = 1e5
C = 100.0
MU = 0.3
V_REG = 0.05
G = 9.81
SETTLED = 0.2          # s, timed window after t_end (the settled pile)


def scene(n: int, seed: int = 1):
    """Sphere centres (n, 3) and the box half width (m)."""
    side = math.ceil(n ** (1.0 / 3.0) - 1e-9)
    rng = np.random.default_rng(seed)
    idx = np.array([(i % side, (i // side) % side, i // (side * side)) for i in range(n)], dtype=float)
    centres = (idx - 0.5 * (side - 1)) * SPACING
    centres[:, 2] = 0.1 + RADIUS + idx[:, 2] * SPACING
    centres += rng.uniform(-JITTER, JITTER, (n, 3))
    half = 0.5 * (side - 1) * SPACING + RADIUS + JITTER + 0.02
    return centres, half


def fmu_model(n: int):
    centres, half = scene(n)
    b = ModelBuilder(f"spheres_{n}", gravity=(0.0, 0.0, -G))
    names = []
    for i, c in enumerate(centres):
        b.add_rigid_body(f"b{i}", MASS, [0.4 * MASS * RADIUS ** 2] * 3, position=tuple(c))
        b.add_marker(f"m{i}", f"b{i}")
        b.add_shape(f"s{i}", f"m{i}", "sphere", [RADIUS])
        names.append(f"s{i}")
    s45 = math.sqrt(0.5)
    walls = {"floor": ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)),
             "x_lo": ((-half, 0.0, 0.0), (s45, 0.0, s45, 0.0)), "x_hi": ((half, 0.0, 0.0), (s45, 0.0, -s45, 0.0)),
             "y_lo": ((0.0, -half, 0.0), (s45, -s45, 0.0, 0.0)), "y_hi": ((0.0, half, 0.0), (s45, s45, 0.0, 0.0))}
    for name, (pos, quat) in walls.items():
        b.add_marker(f"g_{name}", "ground", position=pos, orientation=quat)
        b.add_shape(name, f"g_{name}", "plane", [])
    law = dict(law="linear", stiffness=K, damping=C, damping_depth=1e-4, friction="coulomb", mu=MU,
               velocity_threshold=V_REG)
    b.add_contact("spheres", names, names, **law)
    b.add_contact("box", names, list(walls), **law)
    return b.build()


def run_fmu(n: int, t_end: float, h: float, tangent: str, repeat: int, tol: float = 1e-9, integrator: str = "alf",
            energy_balance: bool = True) -> dict:
    t0 = time.process_time()
    cm = compile_model(fmu_model(n))
    compile_s = time.process_time() - t0
    best = math.inf
    options = dict(tangent=tangent, tol=tol) if integrator == "alf" else {}
    for _ in range(repeat):
        integ = STEPPERS[integrator](cm, h, energy_balance=energy_balance, **options)
        integ.advance(int(round(0.01 / h)))                  # warm-up: kernels loaded, buffers grown
        steps = int(round(t_end / h))
        t0 = time.process_time()
        rep = integ.advance(steps)
        best = min(best, (time.process_time() - t0) / steps)
    z = integ.q.reshape(n, 7)[:, 2].copy()
    it = rep[:, REPORT_KEYS.index("iterations")]
    steps = int(round(SETTLED / h))                          # the settled pile: no impacts, no rejected steps
    t0 = time.process_time()
    rep2 = integ.advance(steps)
    settled = (time.process_time() - t0) / steps
    return dict(step=best, height=float(z.mean()), kinetic=float(rep[-1, REPORT_KEYS.index("energy_kinetic")]),
                iterations=float(it.mean()), compile=compile_s, zmin=float(z.min()),
                rejected=int(rep[:, REPORT_KEYS.index("rejected")].sum()), settled=settled,
                settled_iterations=float(rep2[:, REPORT_KEYS.index("iterations")].mean()))


def exudyn_system(n: int):
    import exudyn as exu
    from exudyn.rigidBodyUtilities import InertiaSphere
    from exudyn.utilities import MarkerBodyRigid, MarkerNodeRigid, ObjectGround

    centres, half = scene(n)
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    mg = mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground))
    gc = mbs.AddGeneralContact()
    gc.SetFrictionPairings(MU * np.eye(1))
    gc.frictionProportionalZone = V_REG
    gc.keepContactWhilePenetrating = False
    top = float(centres[:, 2].max()) + 0.5
    # box: floor and four walls as static triangles, normals into the box
    H = top
    p = [[-half, -half, 0.0], [half, -half, 0.0], [half, half, 0.0], [-half, half, 0.0],
         [-half, -half, H], [half, -half, H], [half, half, H], [-half, half, H]]
    quads = [(0, 1, 2, 3),            # floor, normal +z
             (0, 4, 5, 1),            # y = -half, normal +y
             (1, 5, 6, 2),            # x = +half, normal -x
             (2, 6, 7, 3),            # y = +half, normal -y
             (3, 7, 4, 0)]            # x = -half, normal +x
    trigs = []
    for a, b_, c, d in quads:
        trigs += [[a, b_, c], [a, c, d]]
    pts = np.array(p)
    for t in trigs:
        nrm = np.cross(pts[t[1]] - pts[t[0]], pts[t[2]] - pts[t[0]])
        inward = -pts[t].mean(axis=0) + np.array([0.0, 0.0, 0.5 * H])
        assert nrm @ inward > 0.0, "triangle normals must point into the box"
    gc.AddTrianglesRigidBodyBased(rigidBodyMarkerIndex=mg, contactStiffness=2 * K, contactDamping=0.5 * C,
                                  frictionMaterialIndex=0, pointList=p, triangleList=trigs, staticTriangles=True)
    nodes = []
    for c in centres:
        d = mbs.CreateRigidBody(inertia=InertiaSphere(MASS, RADIUS), referencePosition=list(c),
                                gravity=[0.0, 0.0, -G], nodeType=exu.NodeType.RotationRotationVector,
                                returnDict=True)
        nodes.append(d["nodeNumber"])
        mk = mbs.AddMarker(MarkerNodeRigid(nodeNumber=d["nodeNumber"]))
        gc.AddSphereWithMarker(mk, radius=RADIUS, contactStiffness=2 * K, contactDamping=0.5 * C,
                               frictionMaterialIndex=0)
    cells = max(1, round(n ** (1.0 / 3.0)))
    gc.SetSearchTreeCellSize(numberOfCells=[cells, cells, cells])
    gc.SetSearchTreeBox(pMin=[-half - 0.1, -half - 0.1, -0.1], pMax=[half + 0.1, half + 0.1, top + 0.1])
    mbs.Assemble()
    return exu, SC, mbs, nodes


def run_exudyn(n: int, t_end: float, h: float, solver: str, repeat: int) -> dict:
    best = math.inf
    for _ in range(repeat):
        exu, SC, mbs, nodes = exudyn_system(n)
        s = exu.SimulationSettings()
        s.solution.file.write = False
        s.solution.sensors.writePeriod = 1e9
        s.parallel.numberOfThreads = 1
        s.timeIntegration.verboseMode = 0
        s.linearSolver.solverType = exu.LinearSolverType.EigenSparse      # its advice above 1000 coordinates
        s.timeIntegration.explicitIntegration.computeMassMatrixInversePerBody = True   # O(n), not dense O(n^2)
        s.timeIntegration.explicitIntegration.computeEndOfStepAccelerations = False
        s.timeIntegration.endTime = 0.01
        s.timeIntegration.numberOfSteps = int(round(0.01 / h))
        kind = getattr(exu.DynamicSolverType, solver)
        mbs.SolveDynamic(s, solverType=kind)                 # warm-up
        s.timeIntegration.startTime = 0.01
        s.timeIntegration.endTime = 0.01 + t_end
        steps = int(round(t_end / h))
        s.timeIntegration.numberOfSteps = steps
        mbs.systemData.SetODE2Coordinates(mbs.systemData.GetODE2Coordinates(exu.ConfigurationType.Current),
                                          exu.ConfigurationType.Initial)
        mbs.systemData.SetODE2Coordinates_t(mbs.systemData.GetODE2Coordinates_t(exu.ConfigurationType.Current),
                                            exu.ConfigurationType.Initial)
        t0 = time.process_time()
        mbs.SolveDynamic(s, solverType=kind)
        best = min(best, (time.process_time() - t0) / steps)
    z = np.array([mbs.GetNodeOutput(k, exu.OutputVariableType.Position)[2] for k in nodes])
    v = np.array([mbs.GetNodeOutput(k, exu.OutputVariableType.Velocity) for k in nodes])
    w = np.array([mbs.GetNodeOutput(k, exu.OutputVariableType.AngularVelocity) for k in nodes])
    kin = 0.5 * MASS * float(np.sum(v * v)) + 0.5 * 0.4 * MASS * RADIUS ** 2 * float(np.sum(w * w))
    # the settled pile (same window as fmu-mbs)
    s.timeIntegration.startTime = 0.01 + t_end
    s.timeIntegration.endTime = 0.01 + t_end + SETTLED
    steps = int(round(SETTLED / h))
    s.timeIntegration.numberOfSteps = steps
    for cfg in (exu.ConfigurationType.Current,):
        mbs.systemData.SetODE2Coordinates(mbs.systemData.GetODE2Coordinates(cfg), exu.ConfigurationType.Initial)
        mbs.systemData.SetODE2Coordinates_t(mbs.systemData.GetODE2Coordinates_t(cfg), exu.ConfigurationType.Initial)
    t0 = time.process_time()
    mbs.SolveDynamic(s, solverType=kind)
    settled = (time.process_time() - t0) / steps
    return dict(step=best, height=float(z.mean()), kinetic=kin, zmin=float(z.min()), settled=settled)


def slope(ns, ts) -> float:
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", type=int, nargs="+", default=[125, 250, 500, 1000])
    ap.add_argument("--t-end", type=float, default=1.5)
    ap.add_argument("--h", type=float, default=2e-4)
    ap.add_argument("--tangent", default="constraints", choices=["constraints", "auto"])
    ap.add_argument("--exudyn-solver", default="ExplicitMidpoint")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--tol", type=float, default=1e-6, help="fmu-mbs Newton tolerance (m)")
    ap.add_argument("--integrator", default="explicit", choices=["explicit", "alf"],
                    help="fmu-mbs integrator: explicit (explicit midpoint, default) or alf (implicit trapezoidal)")
    ap.add_argument("--energy-balance", action="store_true",
                    help="fmu-mbs: also split dissipated and input work every step (Exudyn has no such split)")
    ap.add_argument("--no-exudyn", action="store_true")
    a = ap.parse_args()
    rows = []
    for n in a.counts:
        f = run_fmu(n, a.t_end, a.h, a.tangent, a.repeat, a.tol, a.integrator, a.energy_balance)
        e = None if a.no_exudyn else run_exudyn(n, a.t_end, a.h, a.exudyn_solver, a.repeat)
        rows.append((n, f, e))
        line = (f"N={n:5d}  fmu-mbs {1e6 * f['step']:9.1f} us/step ({f['iterations']:.2f} it/step, compile "
                f"{f['compile']:.2f} s, {f['rejected']} rejected)  mean z {f['height']:.4f} m  "
                f"Ekin {f['kinetic']:.3g} J")
        if e is not None:
            line += (f" | Exudyn {1e6 * e['step']:9.1f} us/step  mean z {e['height']:.4f} m  Ekin {e['kinetic']:.3g} J"
                     f" | Exudyn/fmu-mbs {e['step'] / f['step']:.2f}")
        line += (f"\n          settled pile: fmu-mbs {1e6 * f['settled']:9.1f} us/step "
                 f"({f['settled_iterations']:.2f} it/step)")
        if e is not None:
            line += f" | Exudyn {1e6 * e['settled']:9.1f} us/step | Exudyn/fmu-mbs {e['settled'] / f['settled']:.2f}"
        print(line, flush=True)
    ns = [r[0] for r in rows]
    if len(ns) > 1:
        for key in ("step", "settled"):
            print(f"growth exponent ({key}): fmu-mbs {slope(ns, [r[1][key] for r in rows]):.2f}", end="")
            if not a.no_exudyn:
                print(f", Exudyn {slope(ns, [r[2][key] for r in rows]):.2f}", end="")
            print()


if __name__ == "__main__":
    main()
