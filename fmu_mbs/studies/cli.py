"""``fmu-mbs sweep STUDY.toml`` and ``fmu-mbs sweep-report FOLDER`` (dispatched by fmu_mbs.cli, above the
adapters' command line, because studies sit above the adapters and the co-simulation master)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import FmuMbsError

SWEEP_EXAMPLE = """example:
  fmu-mbs sweep examples/studies/bouncing_ball.toml --workers 2
      3 x 3 factorial of the bouncing ball (restitution x drop height) on a local cluster of 2 processes;
      results in bouncing_ball.sweep/ (results.parquet, histories/); run it again to resume
  fmu-mbs sweep study.toml --scheduler tcp://scheduler-host:8786
      the same on an existing dask cluster"""

REPORT_EXAMPLE = """example:
  fmu-mbs sweep-report bouncing_ball.sweep --scalar rebound --x ball.position[3]
      counts, the failed runs (failures.csv) and bouncing_ball.sweep/response_rebound.png"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fmu-mbs", description="fmu-mbs studies")
    parser.add_argument("--traceback", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="verb", required=True)
    raw = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("sweep", help="run a design of experiments on a dask cluster", epilog=SWEEP_EXAMPLE,
                       description="Run the study STUDY.toml (docs/studies.md) on a dask.distributed cluster; "
                       "finished runs are kept, so running it again resumes.", formatter_class=raw)
    p.add_argument("study", metavar="STUDY.toml")
    p.add_argument("--out", help="results folder (default: <study name>.sweep in the current folder)")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: one per CPU)")
    p.add_argument("--scheduler", help="address of an existing dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--restart", action="store_true", help="discard earlier results of this folder and run all")
    p.add_argument("--retry-failed", action="store_true", help="run the failed runs of an earlier call again")
    p.add_argument("--no-progress", action="store_true", help="no progress line")
    p.set_defaults(func=cmd_sweep)
    r = sub.add_parser("sweep-report", help="summary, failure table and response plot of a study's results",
                       epilog=REPORT_EXAMPLE, formatter_class=raw)
    r.add_argument("folder", metavar="FOLDER", help="results folder of 'fmu-mbs sweep'")
    r.add_argument("--scalar", help="scalar to plot (default: the study's first)")
    r.add_argument("--x", help="parameter on the horizontal axis (default: the first)")
    r.add_argument("--y", help="second parameter: one line per level, or the colour (default: the next)")
    r.add_argument("--plot", help="PNG file (default: FOLDER/response_<scalar>.png)")
    r.add_argument("--no-plot", action="store_true", help="only the summary and the failure table")
    r.set_defaults(func=cmd_report)
    return parser


def cmd_sweep(args) -> int:
    from .engine import run_study
    from .study import load_study

    if args.workers is not None and args.workers < 1:
        raise FmuMbsError(f"--workers must be at least 1, got {args.workers}")
    study = load_study(args.study)
    out = Path(args.out or f"{study.name}.sweep")
    s = run_study(study, out, workers=args.workers, scheduler=args.scheduler, restart=args.restart,
                  retry_failed=args.retry_failed, progress=not args.no_progress)
    print(f"{study.name}: {s.ok} ok, {s.failed} failed of {s.total} runs ({s.ran} run now, {s.skipped} recorded "
          f"before, {s.retried} retried) on {s.workers} workers in {s.wall_time:.1f} s; table {s.table}")
    return 0 if s.ok + s.failed == s.total else 1


def cmd_report(args) -> int:
    from .report import response_plot, summary_text

    print(summary_text(args.folder))
    if not args.no_plot:
        print(f"response plot: {response_plot(args.folder, args.scalar, args.x, args.y, args.plot)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one study verb; returns the exit status (130 after Ctrl-C, with the results folder consistent)."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("fmu-mbs: interrupted; the finished runs are recorded, run the same command again to resume",
              file=sys.stderr)
        return 130
    except (FmuMbsError, OSError, ImportError, ValueError) as exc:
        if args.traceback:
            raise
        print(f"fmu-mbs: error: {exc}", file=sys.stderr)
        return 1
