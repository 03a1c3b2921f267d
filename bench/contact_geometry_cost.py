"""Cost of one narrow-phase ``collide`` call per shape pair, called from Python.

Each pair is posed in moderate contact (the scenes of tests/test_contact_geometry.py). The time per call
includes the Python-to-numba dispatch of 13 arguments; the row "dispatch" (a sphere pair far apart, which returns
after one distance) measures that floor, and the last column subtracts it, an estimate of the kernel's own cost
when the contact kernel calls ``collide`` from inside numba. CPU time, best of ``--repeat`` runs.

    python bench/contact_geometry_cost.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from fmu_mbs.kernels.contact_geometry import MAX_POINTS, SHAPE_SPHERE, collide

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_contact_geometry import MESHES, SCENES, shape  # noqa: E402


def per_call(a, b, calls: int, repeat: int) -> tuple[float, int]:
    out = np.zeros((MAX_POINTS, 7))
    args = (a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], *MESHES, out)
    n = collide(*args)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(calls):
            collide(*args)
        best = min(best, (time.process_time() - t0) / calls)
    return best * 1e6, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    floor, _ = per_call(shape(SHAPE_SPHERE, [0.1], (0, 0, 0)), shape(SHAPE_SPHERE, [0.1], (5, 0, 0)),
                        args.calls, args.repeat)
    print("| pair | contact points | µs per call from Python | minus dispatch (µs) |")
    print("|---|---|---|---|")
    print(f"| dispatch (spheres far apart) | 0 | {floor:.2f} | - |")
    for name, (a, b) in SCENES.items():
        t, n = per_call(a, b, args.calls, args.repeat)
        print(f"| {name} | {n} | {t:.2f} | {t - floor:.2f} |")


if __name__ == "__main__":
    main()
