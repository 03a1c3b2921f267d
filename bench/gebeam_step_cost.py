"""Where fmu-mbs's time goes on the beam slider-crank of bench/exudyn_gebeam.py (12 elements, h = 0.1 ms).

Per step (thread CPU time, us) with the finite-difference tangent refreshed every 1, 20 and 100 steps, and from
these by least squares the cost of one Newton iteration and of one tangent refresh (step = refresh / every +
iterations x iteration); the kernels' own cost per call, timed in loops compiled here (no Python dispatch; the
first call compiles them, about a minute): frames + forces (12 beam elements) + body forces, the mass matrix, the
constraints; the iteration matrix's size (envelope entries) and the finite-difference colours; and the share of a
``simulate`` call spent outside the integrator kernel (cProfile).

    OPENBLAS_NUM_THREADS=1 python bench/gebeam_step_cost.py [--spatial]

Default: the planar model (planar node bodies, Exudyn's 44 coordinates); ``--spatial``: the spatial one (105).
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.evaluate import Evaluator
from fmu_mbs.analyses.integrators.alf import ALFIntegrator
from fmu_mbs.analyses.simulate import simulate
from fmu_mbs.compiler import compile_model
from fmu_mbs.kernels.bodies.dispatch import add_body_forces, eval_mass
from fmu_mbs.kernels.constraints import eval_constraint_rows
from fmu_mbs.kernels.outputs import eval_forces, eval_frames

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exudyn_gebeam import bench_model, planar_bench_model  # noqa: E402

H = 1e-4
STEPS = 1000


@njit
def _forces(n, m, fr, t, q, qd, u, h, zs, zn, mode, Q, out, cw):
    """(t, mode: arguments, not literals: a bound family kernel's call is typed for float64 and int64)"""
    for _ in range(n):
        eval_frames(m, q, qd, fr)
        Q[:] = 0.0
        eval_forces(m, fr, t, q, u, h, zs, zn, mode, Q, out, cw)
        add_body_forces(m, q, qd, Q)


@njit
def _mass(n, m, q, M):
    for _ in range(n):
        eval_mass(m, q, M)


@njit
def _constraints(n, m, fr, q, qd, phi, jac, nu, gamma, jtw):
    """The rows at frames evaluated once (as the integrator does: it evaluates the frames for the forces)."""
    eval_frames(m, q, qd, fr)
    for _ in range(n):
        eval_constraint_rows(m, 0.0, q, qd, fr.r, fr.o, fr.R, fr.vo, fr.wm, phi, jac, nu, gamma, jtw)


def per_step(cm, start) -> list[tuple[int, float, float]]:
    """(every, CPU us per step, Newton iterations per step) over STEPS steps from the assembled state."""
    rows = []
    for every in (1, 20, 100):
        ig = ALFIntegrator(cm, H, start, tangent_every=every, energy_balance=False)
        ig.advance(2)
        best = None
        for _ in range(3):
            ig = ALFIntegrator(cm, H, start, tangent_every=every, energy_balance=False)
            c0 = time.thread_time()
            rep = ig.advance(STEPS)
            us = (time.thread_time() - c0) / STEPS * 1e6
            if best is None or us < best[1]:
                best = (every, us, float(rep[:, 0].mean()))
        rows.append(best)
    return rows


def kernels(cm, start, n: int = 20000) -> dict:
    """CPU us per call of the force, mass and constraint kernels at the assembled state."""
    ev, m = Evaluator(cm), cm.arrays
    q, qd = start.q.copy(), start.qd.copy()
    f_args = (m, ev.ws.fr, 0.0, q, qd, ev.u, ev.h, ev.zs, ev.zn, 0, ev.Q, ev.out, ev.ws.cw)
    c_args = (m, ev.ws.fr, q, qd, ev.phi, ev.jac, ev.nu, ev.gamma, ev.jtw)
    out = {}
    for name, fn, args in (("forces", _forces, f_args), ("mass", _mass, (m, q, ev.M)),
                           ("constraints", _constraints, c_args)):
        fn(1, *args)                               # compile
        c0 = time.thread_time()
        fn(n, *args)
        out[name] = (time.thread_time() - c0) / n * 1e6
    return out


def main() -> None:
    cm = compile_model(bench_model() if "--spatial" in sys.argv[1:] else planar_bench_model())
    start = assemble(cm)
    rows = per_step(cm, start)
    A = np.array([[1.0 / e, it] for e, _, it in rows])
    (refresh, iteration), *_ = np.linalg.lstsq(A, np.array([us for _, us, _ in rows]), rcond=None)
    ig = ALFIntegrator(cm, H, start)
    print(f"coordinates {cm.n_q}, constraint rows {cm.n_rows}, iteration-matrix envelope {ig.pattern.size} entries, "
          f"finite-difference colours {len(set(ig.pattern.colors.tolist()))}")
    for every, us, it in rows:
        print(f"tangent refreshed every {every:3d} steps: {us:6.1f} us CPU per step, {it:.2f} Newton it/step")
    print(f"fit: one Newton iteration {iteration:.1f} us, one tangent refresh {refresh:.0f} us")
    k = kernels(cm, start)
    print("kernels per call (us): " + ", ".join(f"{name} {v:.2f}" for name, v in k.items())
          + f"; rest of an iteration (matrix assembly, envelope Cholesky, solves, projections) "
            f"{iteration - sum(k.values()):.1f}")
    pr = cProfile.Profile()
    pr.enable()
    simulate(cm, 0.3, H, initial=start, output_step=1e-3, tangent_every=20, energy_balance=False)
    pr.disable()
    st = pstats.Stats(pr)
    total = st.total_tt
    kernel = sum(v[2] for key, v in st.stats.items() if key[2] == "alf_advance")
    print(f"simulate 0.3 s (tangent kept 20): {total:.3f} s, of which the integrator kernel {kernel:.3f} s "
          f"({kernel / total * 100:.0f} %)")


if __name__ == "__main__":
    main()
