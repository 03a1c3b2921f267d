"""The ``fmu-mbs modes MODEL`` verb: natural frequencies of a mechanism about its static equilibrium
(analyses/modes.py), printed as a table with each body's share of the mode's kinetic energy (participation), and
optionally written as CSV and plotted (matplotlib, the ``plot`` extra): frequencies and participation bars."""

from __future__ import annotations

import csv
import sys

import numpy as np

from ..analyses.evaluate import Evaluator
from ..analyses.modes import Modes, mechanism_modes
from ..compiler import CompiledModel


def participation(cm: CompiledModel, modes: Modes) -> np.ndarray:
    """(k, n_bodies): each body's share of mode k's kinetic energy, x_b^T M_bb x_b / x^T M x (the mass matrix is
    block-diagonal by body), 1 per row."""
    M = Evaluator(cm).mass(modes.q)
    adr, num = cm.arrays.body_q_adr, cm.arrays.body_q_num
    X = modes.shapes
    out = np.zeros((X.shape[1], len(cm.body_names)))
    for b in range(len(cm.body_names)):
        s = slice(int(adr[b]), int(adr[b]) + int(num[b]))
        out[:, b] = np.einsum("ik,ij,jk->k", X[s], M[s, s], X[s])
    total = out.sum(axis=1, keepdims=True)
    return out / np.where(total > 0.0, total, 1.0)


def table(cm: CompiledModel, modes: Modes, count: int) -> list[list]:
    """Rows [mode, f (Hz), omega (rad/s), body shares...] of the first ``count`` modes (nan f: unstable)."""
    share = participation(cm, modes)
    rows = []
    for k in range(min(count, len(modes.omega2))):
        rows.append([k + 1, float(modes.frequencies[k]), float(np.sqrt(max(modes.omega2[k], 0.0))), *share[k]])
    return rows


def plot_modes(path: str, cm: CompiledModel, rows: list[list]) -> None:
    """Frequencies (log scale) above stacked participation bars, one per mode."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    k = np.array([r[0] for r in rows])
    f = np.array([r[1] for r in rows])
    share = np.array([r[3:] for r in rows]).reshape(len(rows), -1)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    ax1.semilogy(k, f, "o-")
    ax1.set_ylabel("natural frequency (Hz)")
    ax1.set_title(f"{cm.model.name}: modes about the static equilibrium")
    bottom = np.zeros(len(rows))
    for b, name in enumerate(cm.body_names):
        if share[:, b].max() > 0.01:
            ax2.bar(k, share[:, b], bottom=bottom, label=name)
            bottom += share[:, b]
    ax2.set_ylabel("share of kinetic energy")
    ax2.set_xlabel("mode")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def cmd_modes(args) -> int:
    from .cli import _load
    cm = _load(args)
    modes = mechanism_modes(cm, t=args.time, q=args.q0)
    rows = table(cm, modes, args.count)
    names = [n for b, n in enumerate(cm.body_names)]
    print(f"modes of {cm.model.name} about its static equilibrium at t = {args.time:g} s "
          f"({len(modes.omega2)} degree(s) of freedom; share: each body's part of the mode's kinetic energy)")
    print(f"{'mode':>4}  {'f (Hz)':>12}  {'omega (rad/s)':>13}  share")
    for r in rows:
        shares = ", ".join(f"{n} {s:.2f}" for n, s in zip(names, r[3:], strict=True) if s >= 0.005)
        f = "unstable" if np.isnan(r[1]) else f"{r[1]:.6g}"
        print(f"{r[0]:>4}  {f:>12}  {r[2]:>13.6g}  {shares}")
    if args.out:
        with open(args.out, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["mode", "f", "omega", *[f"share.{n}" for n in names]])
            w.writerows(rows)
        print(f"table -> {args.out}")
    if args.plot:
        plot_modes(args.plot, cm, rows)
        print(f"plot -> {args.plot}", file=sys.stdout)
    return 0


def add_parser(verb) -> None:
    """The ``modes`` subcommand, made by the adapters' parser's ``verb`` helper (model argument, --set)."""
    p = verb("modes", cmd_modes, "natural frequencies and mode participation about the static equilibrium")
    p.add_argument("--time", type=float, default=0.0, metavar="T", help="time of the equilibrium (s), default 0")
    p.add_argument("--count", type=int, default=12, metavar="N", help="number of modes listed, default 12")
    p.add_argument("--out", metavar="F.csv", help="also write the table as CSV")
    p.add_argument("--plot", metavar="F.png", help="plot frequencies and participation (matplotlib)")


__all__ = ["participation", "table", "plot_modes", "cmd_modes", "add_parser"]
