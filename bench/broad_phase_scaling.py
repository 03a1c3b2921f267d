"""Broad phase scaling: sweep-and-prune ``candidate_pairs`` time per call against the shape count, next to the
brute-force all-pairs AABB test (numpy, vectorised in blocks) as the peer.

Scene: n spheres (radius 0.1-0.5 m) uniform in a cube whose side grows as n^(1/3) (constant density, about 1.3
candidate pairs per sphere), plus one ground plane (unbounded AABB); all group/mask bits set, no exclusions.
Between calls every sphere moves by a random 5 mm step (coherent motion), so the kept order is only re-sorted.
Reported: CPU time per call (µs; best and median of ``--repeat`` runs of ``--calls`` calls; process CPU time,
so a busy machine inflates it less than wall time), per shape (ns, best), the pair count, and brute force /
sweep-and-prune (best over best). The first call per size (sort from scratch, compile) is not timed.

    OPENBLAS_NUM_THREADS=1 python bench/broad_phase_scaling.py --counts 250 500 1000 2000 4000
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from fmu_mbs.kernels.broad_phase import UNBOUNDED, candidate_pairs


def scene(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    side = (n / 1000) ** (1 / 3) * 10.0
    c = rng.uniform(0.0, side, (n, 3))
    r = rng.uniform(0.1, 0.5, n)
    lo = c - r[:, None]
    hi = c + r[:, None]
    lo[0] = -UNBOUNDED
    hi[0] = (UNBOUNDED, UNBOUNDED, 0.5)
    return lo, hi, rng


def brute_force_count(lo: np.ndarray, hi: np.ndarray, block: int = 256) -> int:
    n = len(lo)
    count = 0
    for a in range(0, n, block):
        ov = np.all((lo[a:a + block, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[a:a + block, None, :]), axis=2)
        rows = np.arange(a, min(a + block, n))[:, None]
        count += int(np.count_nonzero(ov & (np.arange(n)[None, :] > rows)))
    return count


def measure(n: int, calls: int, repeat: int) -> dict:
    lo, hi, rng = scene(n)
    group = np.full(n, 1, dtype=np.int64)
    mask = np.full(n, 1, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    idx = np.zeros(0, dtype=np.int64)
    order = np.full(n, -1, dtype=np.int64)
    pairs = np.zeros((8 * n, 2), dtype=np.int64)
    count = candidate_pairs(lo, hi, group, mask, ptr, idx, order, pairs)
    assert count == brute_force_count(lo, hi), "sweep and prune disagrees with brute force"
    steps = [rng.normal(0.0, 0.005, (n, 3)) for _ in range(calls)]
    for s in steps:
        s[0] = 0.0
    times = []
    for _ in range(repeat):
        t_total = 0.0
        for s in steps:
            lo += s
            hi += s
            t0 = time.process_time()
            count = candidate_pairs(lo, hi, group, mask, ptr, idx, order, pairs)
            t_total += time.process_time() - t0
        times.append(t_total / calls)
    brute = []
    for _ in range(3):
        t0 = time.process_time()
        brute_force_count(lo, hi)
        brute.append(time.process_time() - t0)
    sap = min(times)
    return {"n": n, "pairs": count, "sap_us": sap * 1e6, "median_us": statistics.median(times) * 1e6,
            "per_shape_ns": sap / n * 1e9, "brute_us": min(brute) * 1e6, "ratio": min(brute) / sap}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", type=int, nargs="+", default=[250, 500, 1000, 2000, 4000])
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print("| shapes | candidate pairs | sweep and prune, µs per call (best / median) | ns per shape "
          "| brute force (numpy), µs | brute / SAP |")
    print("|---|---|---|---|---|---|")
    for n in args.counts:
        r = measure(n, args.calls, args.repeat)
        print(f"| {r['n']} | {r['pairs']} | {r['sap_us']:.0f} / {r['median_us']:.0f} | {r['per_shape_ns']:.0f} "
              f"| {r['brute_us']:.0f} | {r['ratio']:.0f} |")


if __name__ == "__main__":
    main()
