"""Where the seed-003 passive cylinder pays: cost of one ALF step of a boom lifted by a cylinder modelled as a
passive element (no coordinates; kernels/passive_cylinder.py) against the same cylinder as explicit cylinder and
rod bodies in a closed loop (universal, spherical and prismatic joints, an actuator between the parts), side by
side, with the boom-angle difference the passive element's one-step inertia lag costs.

Cases: the spatial boom (a 200 kg boom on a revolute pivot, a 30 kg cylinder and 15 kg rod whose base is off the
boom plane), the planar crane of models/crane.json (same part data) and an excavator-like spatial arm (boom, stick
and bucket on revolute joints, three cylinders with bases off the arm's plane, driven at 1.05 times the forces
that hold the arm at the start). Reported per case: coordinates and rows,
median wall and CPU time per step (one advance() call of ``--steps`` steps, ``--repeat`` runs), Newton
iterations per step, the loop / passive cost ratio, and the largest boom (arm: any link) angle difference over 1 s
at h = 1 ms.
Run on an otherwise idle machine (the CPU column is what a step costs when the core is not shared):

    OPENBLAS_NUM_THREADS=1 python bench/passive_cylinder.py --steps 2000 --repeat 5

The models are also used by tests/test_passive_cylinder.py.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from fmu_mbs.analyses.integrators.alf import ALFIntegrator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.model import ModelBuilder, load_model

CRANE = Path(__file__).resolve().parents[1] / "models" / "crane.json"
CRANE_P = np.array([0.8660254037844386, 0.0])                    # cylinder_base (ground)
CRANE_S = np.array([0.43301270189221935, 0.24999999999999997])    # boom_mount at the start
# cylinder 30 kg, CM 0.15 m from the base; rod 15 kg, CM 0.15 m from the boom end; inertias [transverse, axial]
CYL = dict(cylinder_mass=30.0, cylinder_cm=0.15, cylinder_inertia=(0.225, 0.01), rod_mass=15.0, rod_cm=0.15,
           rod_inertia=(0.1125, 0.005))
LIFT = 7600.0      # N: above the ~6.9 kN that holds the crane, the boom rises from 30 to 110 deg in 1 s


def crane_builder() -> ModelBuilder:
    b = ModelBuilder.from_model(load_model(CRANE))
    b.remove("cylinder")
    return b


def passive_crane(force=LIFT, stroke=None, parts=CYL) -> ModelBuilder:
    b = crane_builder()
    b.add_passive_cylinder("cyl", "cylinder_base", "boom_mount", **parts, force=0.0 if stroke else force,
                           stroke=stroke)
    return b


def loop_crane(force=LIFT, stroke=None, parts=CYL) -> ModelBuilder:
    """The crane with explicit cylinder and rod bodies in a closed loop (2 DOF, like the passive model)."""
    b = crane_builder()
    d = CRANE_S - CRANE_P
    u = d / np.linalg.norm(d)
    psi = math.atan2(u[1], u[0])
    cc, cr = parts["cylinder_cm"], parts["rod_cm"]
    b.add_planar_body("cyl_body", parts["cylinder_mass"], parts["cylinder_inertia"][0], tuple(CRANE_P + cc * u), psi)
    b.add_planar_body("rod_body", parts["rod_mass"], parts["rod_inertia"][0], tuple(CRANE_S - cr * u), psi)
    b.add_marker("cyl_P", "cyl_body", (-cc, 0.0))
    b.add_marker("rod_S", "rod_body", (cr, 0.0))
    b.add_joint("cyl_pin", "revolute", "cylinder_base", "cyl_P")
    b.add_joint("rod_pin", "revolute", "rod_S", "boom_mount")
    b.add_joint("slide", "prismatic", "cyl_P", "rod_S")
    if stroke is not None:
        b.add_driver("stroke", "slide", stroke)
    else:
        b.add_actuator("drive", "cyl_P", "rod_S", force)
    return b


# --- a spatial boom: revolute pivot about y, cylinder base off the boom plane (both U-joint angles move) -----------

BETA = math.radians(30.0)
SP_P = np.array([1.1, 0.35, -0.3])                               # cylinder base, ground
SP_S = 0.8 * np.array([math.cos(BETA), 0.0, math.sin(BETA)])      # mount on the boom, 0.8 m from the pivot
SP_U0 = (SP_S - SP_P) / np.linalg.norm(SP_S - SP_P)
SP_A = np.cross(SP_U0, [0.0, 0.0, 1.0]) / np.linalg.norm(np.cross(SP_U0, [0.0, 0.0, 1.0]))   # U-joint cross axis
SP_PARTS = dict(cylinder_mass=30.0, cylinder_cm=0.2, cylinder_inertia=(0.4, 0.02), rod_mass=15.0, rod_cm=0.25,
                rod_inertia=(0.3, 0.01))
SP_FORCE = 3000.0
Q_Y = (math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0)                 # a marker whose z is its body's y axis


def quat(R: np.ndarray) -> tuple[float, ...]:
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    return (w, x, y, z)


def add_boom(b: ModelBuilder) -> None:
    b.add_rigid_body("boom", 200.0, ((1.0, 0.0, 0.0), (0.0, 66.7, 0.0), (0.0, 0.0, 66.7)),
                     position=(math.cos(BETA), 0.0, math.sin(BETA)),
                     orientation=quat(Rotation.from_euler("y", -BETA).as_matrix()))
    b.add_marker("pivot", "ground", (0.0, 0.0, 0.0), orientation=Q_Y)
    b.add_marker("root", "boom", (-1.0, 0.0, 0.0), orientation=Q_Y)
    b.add_joint("hinge", "revolute", "pivot", "root")
    base_axes = np.column_stack([SP_U0, np.cross(SP_A, SP_U0), SP_A])          # z = the U-joint cross axis a
    b.add_marker("base", "ground", tuple(SP_P), orientation=quat(base_axes))
    b.add_marker("mount", "boom", (-0.2, 0.0, 0.0))


def passive_boom(force=SP_FORCE, parts=SP_PARTS) -> ModelBuilder:
    b = ModelBuilder("boom3d", 3, (0.0, 0.0, -9.81))
    add_boom(b)
    b.add_passive_cylinder("cyl", "base", "mount", **parts, force=force)
    return b


def loop_boom(force=SP_FORCE, parts=SP_PARTS) -> ModelBuilder:
    """Explicit bodies: universal joint with cross axes z_base = a and the cylinder's u x a, spherical joint at the
    mount, prismatic joint along the line, actuator between the parts."""
    b = ModelBuilder("boom3d_loop", 3, (0.0, 0.0, -9.81))
    add_boom(b)
    axes = quat(np.column_stack([SP_A, np.cross(SP_U0, SP_A), SP_U0]))    # body z along the line
    cc, cr = parts["cylinder_cm"], parts["rod_cm"]
    J = lambda j: ((j[0], 0.0, 0.0), (0.0, j[0], 0.0), (0.0, 0.0, j[1]))  # noqa: E731
    b.add_rigid_body("cyl_body", parts["cylinder_mass"], J(parts["cylinder_inertia"]), tuple(SP_P + cc * SP_U0), axes)
    b.add_rigid_body("rod_body", parts["rod_mass"], J(parts["rod_inertia"]), tuple(SP_S - cr * SP_U0), axes)
    b.add_marker("cyl_cross", "cyl_body", (0.0, 0.0, -cc), orientation=Q_Y)
    b.add_marker("cyl_P", "cyl_body", (0.0, 0.0, -cc))
    b.add_marker("rod_S", "rod_body", (0.0, 0.0, cr))
    b.add_joint("ujoint", "universal", "base", "cyl_cross")
    b.add_joint("sjoint", "spherical", "rod_S", "mount")
    b.add_joint("slide", "prismatic", "cyl_P", "rod_S")
    b.add_actuator("drive", "cyl_P", "rod_S", force)
    return b


def boom_angle(cm, traj) -> np.ndarray:
    """Rotation of the spatial boom about y (rad) from its Euler parameters."""
    e = traj.q[:, [cm.q_names.index(f"boom.e{k}") for k in range(4)]]
    return 2.0 * np.arctan2(-e[:, 2], e[:, 0])


# --- an excavator-like arm: boom, stick and bucket on revolute joints about y, three cylinders whose bases sit off
# the arm's plane (seed 003's use case: every cylinder closes a loop) ------------------------------------------------

ARM = (("boom", 2.0, 300.0, 45.0), ("stick", 1.5, 150.0, -50.0), ("bucket", 0.6, 100.0, -100.0))  # L m, kg, deg
ARM_CYLINDERS = (("c_boom", "ground", (0.7, 0.12, -0.25), "boom", 0.9),       # base (parent frame), mount on child
                 ("c_stick", "boom", (0.1, -0.1, 0.35), "stick", -0.5),        # at this distance from its pivot
                 ("c_bucket", "stick", (0.1, 0.1, 0.25), "bucket", -0.1))
ARM_PARTS = dict(cylinder_mass=25.0, cylinder_cm=0.25, cylinder_inertia=(0.5, 0.02), rod_mass=12.0, rod_cm=0.3,
                 rod_inertia=(0.4, 0.01))
ARM_LIFT = 1.05    # drive forces: this many times those that hold the arm still at the start


def _arm_poses() -> dict:
    """World (CM, rotation) of every arm body at the start, and the ground's."""
    poses = {"ground": (np.zeros(3), np.eye(3))}
    pivot = np.zeros(3)
    for name, length, _, deg in ARM:
        A = Rotation.from_euler("y", -math.radians(deg)).as_matrix()
        poses[name] = (pivot + A @ [length / 2, 0.0, 0.0], A)
        pivot = pivot + A @ [length, 0.0, 0.0]
    return poses


def _add_arm(b: ModelBuilder, poses: dict) -> None:
    parent = "ground"
    b.add_marker("arm_pivot", "ground", (0.0, 0.0, 0.0), orientation=Q_Y)
    for name, length, mass, _ in ARM:
        r, A = poses[name]
        jt = mass * length ** 2 / 12.0
        b.add_rigid_body(name, mass, ((0.01 * jt, 0.0, 0.0), (0.0, jt, 0.0), (0.0, 0.0, jt)), tuple(r), quat(A))
        b.add_marker(f"{name}_root", name, (-length / 2, 0.0, 0.0), orientation=Q_Y)
        b.add_marker(f"{name}_tip", name, (length / 2, 0.0, 0.0), orientation=Q_Y)
        b.add_joint(f"{name}_hinge", "revolute", "arm_pivot" if parent == "ground" else f"{parent}_tip",
                    f"{name}_root")
        parent = name


def _add_arm_cylinder(b: ModelBuilder, poses: dict, name: str, parent: str, base, child: str, mount: float,
                      explicit: bool, force, stroke=None) -> None:
    """One cylinder of the arm: base point ``base`` in the parent's frame, mount on the child's axis at ``mount``
    from its CM; as a passive element or as explicit cylinder and rod bodies (as loop_boom)."""
    rp, Ap = poses[parent]
    rc, Ac = poses[child]
    P = rp + Ap @ np.asarray(base)
    S = rc + Ac @ np.array([mount, 0.0, 0.0])
    u0 = (S - P) / np.linalg.norm(S - P)
    a = np.cross(u0, [0.0, 1.0, 0.0])
    a /= np.linalg.norm(a)                      # cross axis: normal to the line, near the arm's plane
    base_axes = np.column_stack([u0, np.cross(a, u0), a])                       # z = the cross axis a
    b.add_marker(f"{name}_base", parent, tuple(base), orientation=quat(Ap.T @ base_axes))
    b.add_marker(f"{name}_mount", child, (mount, 0.0, 0.0))
    if not explicit:
        b.add_passive_cylinder(name, f"{name}_base", f"{name}_mount", **ARM_PARTS, force=force, stroke=stroke)
        return
    axes = quat(np.column_stack([a, np.cross(u0, a), u0]))
    cc, cr = ARM_PARTS["cylinder_cm"], ARM_PARTS["rod_cm"]
    J = lambda j: ((j[0], 0.0, 0.0), (0.0, j[0], 0.0), (0.0, 0.0, j[1]))  # noqa: E731
    b.add_rigid_body(f"{name}_cyl", ARM_PARTS["cylinder_mass"], J(ARM_PARTS["cylinder_inertia"]), tuple(P + cc * u0),
                     axes)
    b.add_rigid_body(f"{name}_rod", ARM_PARTS["rod_mass"], J(ARM_PARTS["rod_inertia"]), tuple(S - cr * u0), axes)
    b.add_marker(f"{name}_cross", f"{name}_cyl", (0.0, 0.0, -cc), orientation=Q_Y)
    b.add_marker(f"{name}_P", f"{name}_cyl", (0.0, 0.0, -cc))
    b.add_marker(f"{name}_S", f"{name}_rod", (0.0, 0.0, cr))
    b.add_joint(f"{name}_u", "universal", f"{name}_base", f"{name}_cross")
    b.add_joint(f"{name}_s", "spherical", f"{name}_S", f"{name}_mount")
    b.add_joint(f"{name}_slide", "prismatic", f"{name}_P", f"{name}_S")
    b.add_actuator(name, f"{name}_P", f"{name}_S", force)


def arm_holding_forces() -> list[float]:
    """Drive forces (N) that hold the arm still at the start: from the stroke rows' multipliers of the arm with its
    three passive cylinders at constant strokes (a static, fully driven state; ROW_D force on marker_j = -lam d)."""
    from fmu_mbs.analyses.assembly import assemble

    poses = _arm_poses()
    b = ModelBuilder("arm_hold", 3, (0.0, 0.0, -9.81))
    _add_arm(b, poses)
    lengths = []
    for name, parent, base, child, mount in ARM_CYLINDERS:
        rp, Ap = poses[parent]
        rc, Ac = poses[child]
        lengths.append(float(np.linalg.norm(rc + Ac @ np.array([mount, 0.0, 0.0]) - rp - Ap @ np.asarray(base))))
        _add_arm_cylinder(b, poses, name, parent, base, child, mount, False, 0.0, stroke=lengths[-1])
    cm = compile_model(b.build())
    lam = assemble(cm).lam
    return [-float(lam[row]) * length for row, length in zip(cm.arrays.pc_row, lengths)]


def arm(explicit: bool) -> ModelBuilder:
    poses = _arm_poses()
    b = ModelBuilder("arm_loop" if explicit else "arm", 3, (0.0, 0.0, -9.81))
    _add_arm(b, poses)
    for (name, parent, base, child, mount), hold in zip(ARM_CYLINDERS, arm_holding_forces()):
        _add_arm_cylinder(b, poses, name, parent, base, child, mount, explicit, ARM_LIFT * hold)
    return b


def arm_angles(cm, traj) -> np.ndarray:
    """Rotations of boom, stick and bucket about y (rad), one column each."""
    cols = []
    for name, *_ in ARM:
        e = traj.q[:, [cm.q_names.index(f"{name}.e{k}") for k in range(4)]]
        cols.append(2.0 * np.arctan2(-e[:, 2], e[:, 0]))
    return np.column_stack(cols)


CASES = {"spatial boom": (passive_boom, loop_boom, boom_angle),
         "planar crane": (passive_crane, loop_crane, lambda cm, tr: tr.q[:, cm.q_names.index("boom.theta")]),
         "spatial arm": (lambda: arm(False), lambda: arm(True), arm_angles)}


def step_cost(cm, steps: int, repeat: int, h: float = 1e-3) -> dict:
    ig = ALFIntegrator(cm, h)
    ig.advance(2)                                   # compile / load the kernel
    wall, cpu, iters = [], [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.thread_time()
        rep = ig.advance(steps)
        wall.append((time.perf_counter() - t0) / steps * 1e6)
        cpu.append((time.thread_time() - c0) / steps * 1e6)
        iters.append(rep[:, 0].mean())
    return {"n_q": cm.n_q, "rows": cm.n_rows, "wall": statistics.median(wall), "cpu": statistics.median(cpu),
            "iterations": statistics.mean(iters)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'case':>13} {'model':>8} {'n_q':>4} {'rows':>4} {'it/step':>7} {'wall us':>8} {'CPU us':>7} "
          f"{'loop/passive':>12} {'max |d angle| rad':>17}")
    for case, (passive, loop, angle) in CASES.items():
        cp, cl = compile_model(passive().build()), compile_model(loop().build())
        rp, rl = step_cost(cp, args.steps, args.repeat), step_cost(cl, args.steps, args.repeat)
        diff = float(np.max(np.abs(angle(cp, simulate(cp, 1.0, 1e-3)) - angle(cl, simulate(cl, 1.0, 1e-3)))))
        for name, r in (("passive", rp), ("loop", rl)):
            ratio = f"{rl['cpu'] / rp['cpu']:12.2f}" if name == "passive" else " " * 12
            d = f"{diff:17.2e}" if name == "passive" else ""
            print(f"{case:>13} {name:>8} {r['n_q']:4d} {r['rows']:4d} {r['iterations']:7.2f} {r['wall']:8.1f} "
                  f"{r['cpu']:7.1f} {ratio} {d}")


if __name__ == "__main__":
    main()
