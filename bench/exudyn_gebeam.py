"""The flexible slider-crank with the rod as a geometrically exact beam, side by side with Exudyn's
ObjectBeamGeometricallyExact2D (issue 14, the beam row; the modal row is bench/exudyn_flexible.py).

Model: the mechanism of models/flexible_slider_crank.json (crank R = 0.15 m, 0.5 kg, driven from rest at
200 rad/s^2; slider 0.05 kg on a rail along x; gravity -9.81 m/s^2 in y) with the rod (L = 0.3 m, 6 mm round steel,
the catalogue's E, G, rho, A, I) as N_ELEMENTS two-node geometrically exact elements, revolute joints at its first
and last node, shear factor 0.886 (Cowper's, circle) and stiffness-proportional damping BETA (1 % of critical at the
rod's first pinned-pinned bending frequency, 132 Hz: the counterpart of the modal row's 1 % modal damping) in both.

Both elements are the same two-node Simo-Reissner element (linear interpolation, strains at the mid-point, where
Crisfield-Jelenic's mid-point rotation is the mean angle in the plane), with the same strain-rate damping. They
differ in the mass: fmu-mbs lumps it on the node bodies (rho A L_e / 2 and rho I L_e / 2 per element end), Exudyn
integrates the consistent mass of the linear shape functions. ``lumped=True`` gives Exudyn fmu-mbs's lumped mass
(massless elements, a RigidBody2D with the lumped mass on each node): the same discrete equations. fmu-mbs runs the
mechanism as a planar model (``planar_bench_model``: planar node bodies, the slider a point mass on a
point_on_line joint: 44 coordinates and 8 constraint rows, as Exudyn) and, as code "fmu-mbs spatial", as the
catalogue's spatial model (``bench_model``: 13 spatial node bodies, 105 coordinates and 36 rows; out-of-plane
motion free but not excited) with its fastest variant.

Exudyn's sensors are stored every OUTPUT s; where its step control has cut a step (its default ``adaptiveStep``)
the stored times leave the OUTPUT grid by part of a step, and at 1 ms spacing a linear interpolation back to the
grid would err by several % of the deflection (132 Hz). Such a run is repeated untimed with a sensor row every step
and interpolated from there (error below 1e-5 of the peak).

    OPENBLAS_NUM_THREADS=1 python bench/exudyn_gebeam.py [--t-end 0.3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import CompiledModel, compile_model
from fmu_mbs.model import ModelBuilder, load_model
from fmu_mbs.model.exact_beam import GeometricallyExactBeam, add_geometrically_exact_beam
from fmu_mbs.model.functions import Polynomial

sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench/: the other Exudyn comparisons' helpers
from exudyn_compare import simulation_settings  # noqa: E402
from exudyn_flexible import (  # noqa: E402
    EXUDYN_VARIANTS,
    LadderRows,
    deflection,
    difference,
    equal_accuracy,
    interleaved,
    solve_timed,
    tables,
)

MODEL = Path(__file__).resolve().parents[1] / "models" / "flexible_slider_crank.json"
R, L, ALPHA, SLIDER_MASS, CRANK_MASS = 0.15, 0.30, 200.0, 0.05, 0.5     # m, m, rad/s^2, kg, kg (the catalogue's)
G = (0.0, -9.81, 0.0)
OUTPUT = 1e-3                                           # s, output period of both codes
N_ELEMENTS = 12


def section() -> dict:
    """The catalogue rod's section and material (SI) and the shear factor of a circle (Cowper: 6 (1 + nu) /
    (7 + 6 nu), nu = E / 2G - 1 = 0.299: 0.886)."""
    rod = load_model(MODEL).bodies[1]
    nu = rod.E / (2.0 * rod.G) - 1.0
    return {"E": rod.E, "G": rod.G, "rho": rod.rho, "area": rod.area, "Iy": rod.Iy, "Iz": rod.Iz, "J": rod.J,
            "shear_factor": 6.0 * (1.0 + nu) / (7.0 + 6.0 * nu)}


def _beta() -> float:
    s = section()
    w1 = (math.pi / L) ** 2 * math.sqrt(s["E"] * s["Iz"] / (s["rho"] * s["area"]))   # rad/s, pinned-pinned
    return 2.0 * 0.01 / w1


BETA = _beta()       # s: stiffness-proportional damping, 1 % of critical at the first bending mode (2.41e-5 s)


def planar_bench_model(n: int = N_ELEMENTS, beta: float = BETA):
    """The same mechanism as a planar model, as Exudyn's is: crank (planar body), the beam on planar node bodies
    (rod_n0 .. rod_n<n>), the slider a point mass on the rail (point_on_line), the crank law on the pivot: 3 (13 + 1)
    + 2 = 44 coordinates and 8 constraint rows, Exudyn's count."""
    b = ModelBuilder("gebeam_slider_crank_planar", 2, gravity=G[:2])
    b.add_planar_body("crank", CRANK_MASS, CRANK_MASS * R * R / 12.0, position=(R / 2, 0.0))
    b.add_point_mass("slider", SLIDER_MASS, position=(R + L, 0.0))
    b.add_marker("O", "ground")
    b.add_marker("crank_O", "crank", position=(-R / 2, 0.0))
    b.add_marker("crank_A", "crank", position=(R / 2, 0.0))
    b.add_marker("slider_B", "slider")
    b.add_marker("rail", "ground")
    rod = GeometricallyExactBeam("rod", **section(), start=(R, 0.0), end=(R + L, 0.0), n_elements=n, damping=beta)
    nodes = add_geometrically_exact_beam(b, rod)
    b.add_joint("pivot", "revolute", "O", "crank_O")
    b.add_joint("crank_pin", "revolute", "crank_A", nodes[0])
    b.add_joint("wrist_pin", "revolute", nodes[-1], "slider_B")
    b.add_joint("guide", "point_on_line", "rail", "slider_B")
    b.add_driver("motor", "pivot", Polynomial((0.0, 0.0, ALPHA / 2.0)))
    return b.build()


def bench_model(n: int = N_ELEMENTS, beta: float = BETA):
    """The catalogue slider-crank (spatial) with its modal rod replaced by the beam (nodes rod_n0 .. rod_n<n>)."""
    b = ModelBuilder.from_model(load_model(MODEL), "gebeam_slider_crank")
    for name in ("rod", "rod_A", "rod_mid", "rod_B", "rod_1", "rod_2"):
        b.remove(name)
    rod = GeometricallyExactBeam("rod", **section(), start=(R, 0.0, 0.0), end=(R + L, 0.0, 0.0), n_elements=n,
                                 damping=beta)
    nodes = add_geometrically_exact_beam(b, rod)
    b.set_value("crank_pin", "marker_j", nodes[0])
    b.set_value("wrist_pin", "marker_i", nodes[-1])
    return b.build()


# --- fmu-mbs --------------------------------------------------------------------------------------------------------

#: fmu-mbs's variants: ALF defaults (trapezoidal, finite-difference force tangent refreshed every step, energy split);
#: the tangent kept 20 or 100 steps (refreshed earlier when Newton stalls: the counterpart of Exudyn's modified
#: Newton) without the energy split, which Exudyn does not compute either; and generalized-alpha at Exudyn's spectral
#: radius 0.9 with the tangent kept 20 steps, and that with Newton's tolerance 1e-7 m instead of 1e-9 (|dq|; the
#: counterpart of Exudyn's looser tolerances: it moves the deflection by 1e-4 of its peak at h = 0.2 ms), and with
#: ``accept_first`` (a first Newton correction below tol ends the step: one evaluation per step where the predictor
#: is within tol), with the tangent kept 20 or 2 steps or refreshed at every step (the planar model's closed-form
#: beam tangent costs about one force evaluation; the spatial model's finite-difference one about 60; at h = 0.2 ms
#: every 2nd step: 1.07 Newton iterations per step against 1.03, 9 % less time), and that without the acceleration
#: projection (generalized-alpha as Exudyn runs it: no end-state evaluation, the accelerations and multipliers of
#: the scheme; the deflection is a position)
FMU_MBS_SETTINGS = {"default": {}, "tangent kept 20": {"tangent_every": 20, "energy_balance": False},
                    "tangent kept 100": {"tangent_every": 100, "energy_balance": False},
                    "g-alpha 0.9, kept 20": {"integrator": "galpha", "rho_inf": 0.9, "tangent_every": 20,
                                             "energy_balance": False},
                    "g-alpha 0.9, kept 20, tol 1e-7": {"integrator": "galpha", "rho_inf": 0.9, "tangent_every": 20,
                                                       "energy_balance": False, "tol": 1e-7},
                    "g-alpha 0.9, kept 20, tol 1e-7, first": {"integrator": "galpha", "rho_inf": 0.9,
                                                              "tangent_every": 20, "energy_balance": False,
                                                              "tol": 1e-7, "accept_first": True},
                    "g-alpha 0.9, tol 1e-7, first": {"integrator": "galpha", "rho_inf": 0.9, "energy_balance": False,
                                                     "tol": 1e-7, "accept_first": True},
                    "g-alpha 0.9, tol 1e-6, first": {"integrator": "galpha", "rho_inf": 0.9, "energy_balance": False,
                                                     "tol": 1e-6, "accept_first": True},
                    "g-alpha 0.9, kept 2, tol 1e-6, first": {"integrator": "galpha", "rho_inf": 0.9,
                                                             "tangent_every": 2, "energy_balance": False, "tol": 1e-6,
                                                             "accept_first": True},
                    "g-alpha 0.9, kept 2, tol 1e-6, first, no acc. projection": {
                        "integrator": "galpha", "rho_inf": 0.9, "tangent_every": 2, "energy_balance": False,
                        "tol": 1e-6, "accept_first": True, "project_accelerations": False}}


SPATIAL_VARIANT = "g-alpha 0.9, kept 20, tol 1e-7"    # the spatial model's row in the ladder (its fastest)


def run_fmu_mbs(cm: CompiledModel, t_end: float, h: float, options: dict | None = None,
                n: int = N_ELEMENTS) -> tuple[dict, dict]:
    """fmu-mbs at step h (s) from the assembled state, histories every OUTPUT; kernels compiled (or loaded) by a short
    first call. ``options``: simulate's keywords (``integrator`` among them)."""
    start = assemble(cm)
    options = dict(options or {})
    integrator = options.pop("integrator", "alf")
    simulate(cm, 2 * h, h, initial=start, integrator=integrator, **options)
    t0, c0 = time.perf_counter(), time.process_time()
    tr = simulate(cm, t_end, h, initial=start, output_step=OUTPUT, integrator=integrator, **options)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    pts = [np.column_stack([tr[f"rod_n{k}.r[1]"], tr[f"rod_n{k}.r[2]"]]) for k in (0, n // 2, n)]
    hist = {"t": tr.t, "slider_x": tr["slider_B.r[1]"], "deflection": deflection(*pts)}
    return hist, {"cpu_per_s": cpu / t_end, "wall_per_s": wall / t_end, "h": h, "completed": True,
                  "newton_per_step": float(np.sum(tr.info["iterations"][1:]) / round(t_end / h)),
                  "n_coordinates": cm.n_q, "n_constraints": cm.n_rows, "settings": {"integrator": integrator,
                                                                                   **options}}


# --- Exudyn ---------------------------------------------------------------------------------------------------------

def _exudyn():
    sys.exudynFast = True          # the module without range checks (AVX2), Exudyn's fastest
    import exudyn
    return exudyn


def exudyn_system(exu, n: int, beta: float, lumped: bool):
    """The slider-crank in Exudyn, planar: RigidBody2D crank, ObjectBeamGeometricallyExact2D rod on NodeRigidBody2D
    nodes, MassPoint2D slider, RevoluteJoint2D pins, the rail and the crank law (a symbolic user function, evaluated
    in C++) as CoordinateConstraints. Returns the system, its node numbers (A, mid, B, slider) and the user function,
    which must live as long as the system."""
    from exudyn.advancedUtilities import CreateSymbolicUserFunction
    from exudyn.itemInterface import (
        CoordinateConstraint,
        LoadMassProportional,
        MarkerBodyMass,
        MarkerBodyPosition,
        MarkerNodeCoordinate,
        MarkerNodePosition,
        NodePoint2D,
        NodePointGround,
        NodeRigidBody2D,
        ObjectBeamGeometricallyExact2D,
        ObjectGround,
        ObjectMassPoint2D,
        ObjectRigidBody2D,
        RevoluteJoint2D,
    )
    s = section()
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    g_node = mbs.AddNode(NodePointGround())

    def weight(body):
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=body)),
                                         loadVector=list(G)))
    n_crank = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[R / 2, 0, 0]))
    crank = mbs.AddObject(ObjectRigidBody2D(nodeNumber=n_crank, mass=CRANK_MASS,
                                            inertia=CRANK_MASS * R * R / 12.0))
    weight(crank)
    le = L / n
    rho_a, rho_i, ei = s["rho"] * s["area"], s["rho"] * s["Iz"], s["E"] * s["Iz"]
    ea, ga = s["E"] * s["area"], s["shear_factor"] * s["G"] * s["area"]
    nodes = [mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[R + k * le, 0, 0])) for k in range(n + 1)]
    for k in range(n):
        rod = mbs.AddObject(ObjectBeamGeometricallyExact2D(
            nodeNumbers=[nodes[k], nodes[k + 1]], length=le, massPerLength=0.0 if lumped else rho_a,
            crossSectionInertia=0.0 if lumped else rho_i, bendingStiffness=ei, axialStiffness=ea,
            shearStiffness=ga, bendingDamping=beta * ei, axialDamping=beta * ea, shearDamping=beta * ga))
        if not lumped:
            weight(rod)
    for k, node in enumerate(nodes if lumped else ()):
        half = 0.5 if k in (0, n) else 1.0
        weight(mbs.AddObject(ObjectRigidBody2D(nodeNumber=node, mass=half * rho_a * le,
                                               inertia=half * rho_i * le)))
    n_slider = mbs.AddNode(NodePoint2D(referenceCoordinates=[R + L, 0]))
    weight(mbs.AddObject(ObjectMassPoint2D(nodeNumber=n_slider, mass=SLIDER_MASS)))

    def at(body, x):
        return mbs.AddMarker(MarkerBodyPosition(bodyNumber=body, localPosition=[x, 0, 0]))

    def node(nd):
        return mbs.AddMarker(MarkerNodePosition(nodeNumber=nd))

    def coord(nd, k):
        return mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nd, coordinate=k))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(ground, 0.0), at(crank, -R / 2)]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[at(crank, R / 2), node(nodes[0])]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[node(nodes[-1]), node(n_slider)]))
    mbs.AddObject(CoordinateConstraint(markerNumbers=[coord(g_node, 0), coord(n_slider, 1)]))
    drive = mbs.AddObject(CoordinateConstraint(markerNumbers=[coord(g_node, 0), coord(n_crank, 2)]))

    def offset(mbs, t, itemNumber, lOffset):
        return 0.5 * ALPHA * t * t
    keep = CreateSymbolicUserFunction(mbs, offset, "offsetUserFunction", drive)
    mbs.SetObjectParameter(drive, "offsetUserFunction", keep)
    return SC, mbs, {"A": nodes[0], "mid": nodes[n // 2], "B": nodes[-1], "slider": n_slider}, keep


def _on_grid(t: np.ndarray, t_end: float) -> bool:
    grid = np.arange(len(t)) * OUTPUT
    return len(t) == round(t_end / OUTPUT) + 1 and bool(np.all(np.abs(t - grid) < 1e-9))


def run_exudyn(t_end: float, h: float, settings: dict | None = None, n: int = N_ELEMENTS, beta: float = BETA,
               lumped: bool = False, every_step: bool = False) -> tuple[dict, dict]:
    """Exudyn's run with step h (s) to t_end (s) and ``settings`` (SimulationSettings paths and values over
    EXUDYN_SETTINGS); histories on the OUTPUT grid (module docstring: ``every_step`` stores a sensor row every step
    and interpolates, done untimed when the stored times leave the grid)."""
    exu = _exudyn()
    from exudyn.itemInterface import SensorNode
    SC, mbs, nodes, keep = exudyn_system(exu, n, beta, lumped)
    sensors = {k: mbs.AddSensor(SensorNode(nodeNumber=nd, outputVariableType=exu.OutputVariableType.Position,
                                           storeInternal=True, writeToFile=False)) for k, nd in nodes.items()}
    mbs.Assemble()
    data, info = solve_timed(exu, mbs, simulation_settings(exu, t_end, h, 0.5 * h if every_step else OUTPUT),
                             settings, sensors, t_end, h)
    t = data["slider"][:, 0]
    info["on_grid"] = _on_grid(t, t_end)
    del keep, SC
    if not info["on_grid"] and not every_step:
        hist, _ = run_exudyn(t_end, h, settings, n, beta, lumped, every_step=True)
        return hist, info
    grid = np.arange(round(t_end / OUTPUT) + 1) * OUTPUT
    pos = {k: np.column_stack([np.interp(grid, t, v[:, 1]), np.interp(grid, t, v[:, 2])]) for k, v in data.items()}
    return {"t": grid, "slider_x": pos["slider"][:, 0], "deflection": deflection(pos["A"], pos["mid"], pos["B"])}, info


# --- comparison ------------------------------------------------------------------------------------------------------

#: Exudyn's settings for the agreement runs: Newton's relative tolerance 1e-5; at its default 1e-8 Exudyn cuts the
#: step over and over on the 24-element rod (2e5 Jacobians in 0.3 s, a minute per run; 4 with 1e-5)
AGREEMENT_SETTINGS = EXUDYN_VARIANTS["Newton tol 1e-5"]


def agreement(t_end: float, h_ref: float, meshes: tuple[int, ...] = (N_ELEMENTS,)) -> dict:
    """Converged runs (step h_ref, s) of fmu-mbs, Exudyn's element and Exudyn with the lumped mass, per mesh: the
    differences of the Exudyn runs from fmu-mbs's and from each other (difference(): deflection m and / peak,
    slider m)."""
    out = {}
    for n in meshes:
        ours, _ = run_fmu_mbs(compile_model(planar_bench_model(n)), t_end, h_ref, n=n)
        cons, _ = run_exudyn(t_end, h_ref, AGREEMENT_SETTINGS, n=n, every_step=True)
        lump, _ = run_exudyn(t_end, h_ref, AGREEMENT_SETTINGS, n=n, lumped=True, every_step=True)
        out[n] = {"consistent": difference(cons, ours), "lumped": difference(lump, ours),
                  "consistent_vs_lumped": difference(cons, lump), "histories": (ours, cons, lump)}
    return out


def ladder(t_end: float, steps: tuple[float, ...], h_ref: float, repeats: int = 2) -> tuple[dict, dict]:
    """Both codes at every step and variant, each against its own run at h_ref (the integration error); Exudyn with
    its element (code "Exudyn") and with the lumped mass ("Exudyn lumped", fmu-mbs's discrete equations); fmu-mbs's
    planar model (code "fmu-mbs") and its spatial one ("fmu-mbs spatial", SPATIAL_VARIANT only)."""
    cm = compile_model(planar_bench_model())
    cm3 = compile_model(bench_model())
    refs = {"fmu-mbs": run_fmu_mbs(cm, t_end, h_ref)[0], "fmu-mbs spatial": run_fmu_mbs(cm3, t_end, h_ref)[0],
            "Exudyn": run_exudyn(t_end, h_ref, every_step=True)[0],
            "Exudyn lumped": run_exudyn(t_end, h_ref, lumped=True, every_step=True)[0]}
    lad = LadderRows(repeats)

    def add(code, name, run):
        lad.add(code, name, h, run, refs[code])
    for h in steps:
        for name, options in FMU_MBS_SETTINGS.items():
            add("fmu-mbs", name, lambda h=h, o=options: run_fmu_mbs(cm, t_end, h, o))
        add("fmu-mbs spatial", SPATIAL_VARIANT,
            lambda h=h: run_fmu_mbs(cm3, t_end, h, FMU_MBS_SETTINGS[SPATIAL_VARIANT]))
        for name, settings in EXUDYN_VARIANTS.items():
            add("Exudyn", name, lambda h=h, s=settings: run_exudyn(t_end, h, s))
        for name in ("default", "Newton tol 1e-4", "Newton tol 5e-4"):
            add("Exudyn lumped", name, lambda h=h, s=EXUDYN_VARIANTS[name]: run_exudyn(t_end, h, s, lumped=True))
    return {"t_end": t_end, "h_ref": h_ref, "rows": lad.rows, "model_difference": difference(refs["Exudyn"],
                                                                                         refs["fmu-mbs"]),
            "lumped_difference": difference(refs["Exudyn lumped"], refs["fmu-mbs"]),
            "fmu_mbs_coordinates": (cm.n_q, cm.n_rows),
            "fmu_mbs_spatial_coordinates": (cm3.n_q, cm3.n_rows)}, lad.runners


def _pct(d: dict) -> str:
    return (f"{d['deflection_rel'] * 100:.3g} % of the {d['peak_deflection'] * 1e3:.4g} mm peak, slider "
            f"{d['slider']:.2g} m")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--t-end", type=float, default=0.3, help="simulated time (s)")
    ap.add_argument("--steps", type=float, nargs="+", default=[5e-5, 1e-4, 2e-4, 5e-4, 1e-3])
    ap.add_argument("--h-ref", type=float, default=1.25e-5, help="step of the converged runs (s)")
    ap.add_argument("--meshes", type=int, nargs="+", default=[N_ELEMENTS, 2 * N_ELEMENTS],
                    help="element counts of the agreement check")
    ap.add_argument("--rounds", type=int, default=5, help="alternate re-timings of each equal-accuracy pair")
    ap.add_argument("--json", help="write the results as JSON to this file")
    args = ap.parse_args()
    agree = agreement(args.t_end, args.h_ref, tuple(args.meshes))
    for n, a in agree.items():
        print(f"{n} elements, converged runs (h = {args.h_ref:g} s), Exudyn minus fmu-mbs: its element "
              f"{_pct(a['consistent'])}; with the lumped mass {_pct(a['lumped'])}")
    res, runners = ladder(args.t_end, tuple(args.steps), args.h_ref)
    print(f"coordinates (ODE2, constraints): fmu-mbs {res['fmu_mbs_coordinates']} (spatial model "
          f"{res['fmu_mbs_spatial_coordinates']}), Exudyn "
          f"{(res['rows'][-1]['n_coordinates'], res['rows'][-1]['n_constraints'])}")
    print()
    eq = equal_accuracy([r for r in res["rows"] if r["code"] in ("fmu-mbs", "Exudyn")], (1e-2, 1e-3))
    interleaved(eq, runners, args.rounds)
    eq_l = equal_accuracy([{**r, "code": "Exudyn"} if r["code"] == "Exudyn lumped" else r for r in res["rows"]
                           if r["code"] in ("fmu-mbs", "Exudyn lumped")], (1e-2, 1e-3))
    eq_s = equal_accuracy([{**r, "code": "fmu-mbs"} if r["code"] == "fmu-mbs spatial" else r for r in res["rows"]
                           if r["code"] in ("fmu-mbs spatial", "Exudyn")], (1e-2, 1e-3))
    print(tables(res, eq))
    print()
    print("Exudyn with the lumped mass (fmu-mbs's discrete equations):")
    print("\n".join(tables({"rows": []}, eq_l).splitlines()[3:]))
    print()
    print("fmu-mbs's spatial model (105 coordinates) against Exudyn:")
    print("\n".join(tables({"rows": []}, eq_s).splitlines()[3:]))
    if args.json:
        for a in agree.values():
            a.pop("histories")
        Path(args.json).write_text(json.dumps({"agreement": agree, **res, "equal_accuracy": eq,
                                               "equal_accuracy_lumped": eq_l, "equal_accuracy_spatial": eq_s},
                                              indent=1,
                                              default=lambda x: x.item() if hasattr(x, "item") else str(x)))


if __name__ == "__main__":
    main()
