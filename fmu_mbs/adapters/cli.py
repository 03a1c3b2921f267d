"""The ``fmu-mbs`` command line: ``fmu-mbs <verb> MODEL.json [options]``.

Verbs: check, assemble, kinematics, statics, inverse, simulate. Each analysis writes a CSV recording
(``<model name>_<verb>.csv`` in the current folder unless ``--out``), with a ``time`` column and one
column per channel (model/names.py), SI units. Errors print one message and exit with status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import FmuMbsError

_EXAMPLES = {   # verb: (command, what it does)
    "check": ("fmu-mbs check models/fourbar.json",
              "validate, compile and assemble the model; print its size, degrees of freedom and redundant rows"),
    "channels": ("fmu-mbs channels models/pendulum.json",
                 "every CSV column / FMU output with unit and meaning, the inputs and the values --set takes"),
    "assemble": ("fmu-mbs assemble models/fourbar.json --out fourbar_t0.csv",
                 "one CSV row: positions, velocities, accelerations, reactions and energies of the assembled state"),
    "kinematics": ("fmu-mbs kinematics models/fourbar_driven.json --t-end 2 --step 0.01 --plot pin_O4.s "
                   "'B_coupler.r[*]'",
                   "kinematics of a fully driven model (models/fourbar.json plus a driver 'motor' on joint pin_O2);\n"
                   "writes fourbar_driven_kinematics.csv and, with --plot, fourbar_driven_kinematics.png"),
    "statics": ("fmu-mbs statics models/fourbar_driven.json --out fourbar_static.csv",
                "static equilibrium under gravity and the applied loads; '<driver>.f' columns hold the efforts"),
    "inverse": ("fmu-mbs inverse models/fourbar_driven.json --t-end 2 --step 0.01 --plot motor.f",
                "inverse dynamics of a fully driven model: driver efforts '<driver>.f', reactions '<joint>.F[k]'"),
    "simulate": ("fmu-mbs simulate models/pendulum.json --t-end 10 --step 0.001 --plot 'P1.r[*]' energy.total",
                 "forward dynamics from the assembled initial state with the default integrator (alf)"),
    "animate": ("fmu-mbs animate models/pendulum.json pendulum_simulate.csv --trace P1",
                "write pendulum_simulate.html: a 3D viewer of the result (orbit, play, time slider) that needs no\n"
                "network; --gif/--mp4 also render a movie through matplotlib"),
    "build": ("fmu-mbs build models/pendulum.json -o dist",
              "build FMI 2.0 co-simulation FMUs (dist/<name>.fmu); without a model, every models/*.json"),
    "modes": ("fmu-mbs modes models/pendulum.json --plot pendulum_modes.png",
              "natural frequencies about the static equilibrium, each body's share of every mode, and a chart"),
    "crash-report": ("fmu-mbs crash-report frontal_crash_simulate.csv",
                     "filtered pulse, ASI, THIV, crush, energy (and HIC, 3 ms clip, VC of occupant channels) of a "
                     "result CSV;\nwrites frontal_crash_simulate_crash.json and a one-page PNG"),
}


def _example(verb: str) -> str:
    command, what = _EXAMPLES[verb]
    return "example:\n  " + command + "\n      " + what.replace("\n", "\n      ")


class CliError(Exception):
    """A user error found by the command line itself (unknown channel, bad option value)."""


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0.0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def _load(args):
    """Load, validate and compile the model file ``args.model`` with the ``--set`` values applied (kept in
    ``args.settings``; ``args.q0``: positions assembled with the joints of ``<joint>.s_start`` held, or None)."""
    from ..compiler import compile_model
    from ..model import load_model
    from .overrides import apply_settings, held_positions
    args.settings = apply_settings(load_model(args.model), getattr(args, "set", None))
    if args.settings.solver and args.verb != "simulate":
        raise CliError(f"--set solver.*: solver options apply to 'simulate', not '{args.verb}'")
    if args.settings.holds and args.verb in ("kinematics", "inverse"):
        raise CliError(f"--set <joint>.s_start: '{args.verb}' drives every coordinate; set the drivers instead")
    args.q0 = held_positions(args.settings.model, args.settings.holds, getattr(args, "time", 0.0))
    return compile_model(args.settings.model)


def _echo(args, text: str) -> None:
    """Messages go to stdout, or to stderr when the CSV itself goes to stdout."""
    print(text, file=sys.stderr if args.out == "-" else sys.stdout)


def _count(n: int, word: str) -> str:
    plural = word[:-1] + "ies" if word.endswith("y") else word + "s"
    return f"{n} {word if n == 1 else plural}"


# --- verbs ----------------------------------------------------------------------------------------

def cmd_build(args) -> int:
    from .fmu_build import build_all, build_fmu
    if not args.set:
        for path in build_all(args.models, args.out, precompile=not args.no_precompile):
            print(f"built {path}")
        return 0
    from pathlib import Path

    from ..model import load_model
    from .overrides import apply_settings
    for model_path in args.models or sorted(Path("models").glob("*.json")):
        settings = apply_settings(load_model(model_path), args.set)
        if settings.holds or settings.solver:
            raise CliError("--set with build: model values and gravity are built into the FMU; <joint>.s_start "
                           "and solver.* are FMU parameters, set them when the FMU runs")
        print(f"built {build_fmu(settings.model, args.out, precompile=not args.no_precompile)}")
    return 0


def cmd_channels(args) -> int:
    from ..model.names import channels, driver_input_channels, input_channels
    from .overrides import settable
    cm = _load(args)
    model = cm.model
    sections = [("output channels: CSV columns and FMU outputs", [(c.name, c.unit, c.description)
                                                                  for c in channels(model)]),
                ("inputs (FMU)", [(c.name, c.unit, c.description)
                                  for c in input_channels(model) + driver_input_channels(model)]),
                ("values for --set NAME=VALUE (FMU parameters where the model exposes them)",
                 [(n, *what) for n, what in settable(model).items()])]
    width = max(len(row[0]) for _, rows in sections for row in rows)
    for k, (title, rows) in enumerate(sections):
        print(("\n" if k else "") + f"{title} ({len(rows)}):")
        for name, unit, meaning in rows:
            print(f"  {name:<{width}}  {unit or '-':<9}  {meaning}")
    return 0


def cmd_animate(args) -> int:
    from pathlib import Path

    from ..model import load_model
    from .viewer import read_result, write_viewer
    model = load_model(args.model)
    res = read_result(args.result)
    out = args.out or str(Path(args.result).with_suffix(".html"))
    data = write_viewer(out, model, res, forces=not args.no_forces, traces=args.trace or (),
                        max_frames=args.max_frames, base=Path(args.model).resolve().parent)
    print(f"animate: {data['n']} frames, {len(data['graphics'])} graphics, {len(data['vectors'])} force vectors "
          f"-> {out}")
    for kind, path in (("gif", args.gif), ("mp4", args.mp4)):
        if path:
            from .movie import write_movie
            n = write_movie(path, data, fps=args.fps, speed=args.speed, kind=kind)
            print(f"animate: {n} movie frames -> {path}")
    return 0


def cmd_check(args) -> int:
    from ..analyses.assembly import assemble
    from ..model.names import channels, input_channels
    cm = _load(args)
    model = cm.model
    res = assemble(cm, q=args.q0)
    counts = ", ".join(_count(len(group), word) for group, word in (
        (model.bodies, "body"), (model.markers, "marker"), (model.joints, "joint"), (model.drivers, "driver"),
        (model.forces, "force element")))
    print(f"model '{model.name}' ({'planar' if model.planar else 'spatial'}): {counts}")
    print(f"  coordinates n_q = {cm.n_q}, constraint rows = {cm.n_rows}, degrees of freedom = {res.dof}, "
          f"redundant rows = {len(res.redundant)}")
    for label in res.redundant:
        print(f"    redundant: {label}")
    print(f"  assembled at t = 0 s in {res.iterations} Newton iterations, max |Phi| = {res.residual:.3g}")
    print(f"  interface: {len(channels(model))} output channels, {len(input_channels(model))} inputs")
    from ..model.validate_contact import contact_warnings
    for w in contact_warnings(model):
        print(f"  warning: {w}")
    print("ok")
    return 0


def cmd_assemble(args) -> int:
    from ..analyses.assembly import assemble
    from ..analyses.trajectory import Trajectory
    cm = _load(args)
    res = assemble(cm, t=args.time, q=args.q0)
    traj = Trajectory.single(res.t, res.q, res.qd, res.qdd, res.lam, analysis="assembly",
                             iterations=res.iterations, residual=res.residual)
    _record(args, cm, traj, "assemble", [])
    return 0


def cmd_statics(args) -> int:
    from ..analyses.statics import statics
    cm = _load(args)
    traj = statics(cm, t=args.time, q=args.q0)
    _record(args, cm, traj, "statics", [])
    return 0


def _history(verb: str, run: Callable) -> Callable:
    """A verb that runs a time-history analysis ``run(cm, args, progress)`` with a progress bar."""
    def cmd(args) -> int:
        t_start = getattr(args, "t_start", 0.0)
        if not args.t_end > t_start:
            raise CliError(f"--t-end ({args.t_end:g} s) must be after the start time ({t_start:g} s)")
        cm = _load(args)
        plotted = _plot_selection(args, cm)
        from .progress import ProgressBar
        bar = ProgressBar(verb, force=args.progress == "always", enabled=args.progress != "never")
        with bar:
            traj = run(cm, args, bar)
        _record(args, cm, traj, verb, plotted)
        return 0
    return cmd


def _run_kinematics(cm, args, progress):
    from ..analyses.kinematics import kinematics
    return kinematics(cm, args.t_end, args.step, t_start=args.t_start, progress=progress)


def _run_inverse(cm, args, progress):
    from ..analyses.inverse import inverse_dynamics
    return inverse_dynamics(cm, args.t_end, args.step, t_start=args.t_start, progress=progress)


def _run_simulate(cm, args, progress):
    from ..analyses.assembly import assemble
    from ..analyses.simulate import simulate
    extra = {} if args.output_step is None else {"output_step": args.output_step}
    solver = dict(args.settings.solver)
    args.integrator = solver.pop("integrator", args.integrator)
    if solver.get("scheme") is not None:
        args.scheme = solver.pop("scheme")
    if solver.get("rho_inf") is not None:
        args.rho_inf = solver.pop("rho_inf")
    if "rtol" in solver and args.integrator == "alf" and "integrator" not in args.settings.solver:
        args.integrator = "variable"                # solver.rtol: the error-controlled integrator
    extra.update(solver)
    if args.q0 is not None:
        extra["initial"] = assemble(cm, q=args.q0)
    if args.rho_inf is not None:
        if args.integrator != "galpha":
            raise CliError(f"--rho-inf applies to --integrator galpha, not '{args.integrator}'")
        extra["rho_inf"] = args.rho_inf
    if args.scheme is not None:
        if args.integrator != "alf":
            raise CliError(f"--scheme applies to --integrator alf, not '{args.integrator}'")
        extra["scheme"] = args.scheme
    if args.rtol is not None:
        if args.integrator == "alf" and "integrator" not in args.settings.solver:
            args.integrator = "variable"            # a tolerance, not a step: the error-controlled integrator
        if args.integrator not in ("variable", "alf-variable", "reference"):
            raise CliError(f"--rtol applies to --integrator variable, alf-variable or reference, not "
                           f"'{args.integrator}'")
        extra["rtol"] = args.rtol
        extra["atol"] = args.rtol if args.atol is None else args.atol
    elif args.atol is not None:
        raise CliError("--atol needs --rtol")
    if args.no_energy_balance:
        if args.integrator == "reference":
            raise CliError("--no-energy-balance applies to the fixed-step integrators, not 'reference'")
        extra["energy_balance"] = False
    traj = simulate(cm, args.t_end, args.step, integrator=args.integrator, progress=progress, **extra)
    if args.error_estimate:       # a second run (h/2, or rtol/100) estimates the error this one achieved
        from ..analyses.accuracy import estimate_error
        again = {k: v for k, v in extra.items() if k not in ("output_step", "initial")}
        est = estimate_error(cm, traj, args.step, args.integrator, initial=extra.get("initial"), **again)
        print(f"fmu-mbs simulate: {est.summary()}", file=sys.stderr, flush=True)
    return traj


def _spectral_radius(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


# --- output ---------------------------------------------------------------------------------------

def _plot_selection(args, cm) -> list[str]:
    """Channels asked for by --plot, checked before a long run (and matplotlib found)."""
    if not getattr(args, "plot", None):
        return []
    from ..model.names import channel_names
    from .plot import _figure_classes, select_channels
    try:
        chosen = select_channels(args.plot, channel_names(cm.model))
    except ValueError as exc:
        raise CliError(str(exc)) from None
    _figure_classes()
    return chosen


def _record(args, cm, traj, verb: str, plotted: Sequence[str]) -> None:
    from ..model.names import channels
    from .recording import write_trajectory
    stem = f"{cm.model.name}_{verb}"
    out = args.out or f"{stem}.csv"
    values = write_trajectory(out, cm, traj, units=args.units)
    t = np.asarray(traj.t)
    span = f"t = {t[0]:g} s" if len(t) == 1 else f"t = {t[0]:g} .. {t[-1]:g} s"
    _echo(args, f"{verb}: {_count(len(t), 'row')}, {span}, {values.shape[1]} channels -> "
                f"{'standard output' if out == '-' else out}")
    for note in getattr(traj, "notes", ()):
        print(f"{verb}: note: {note}", file=sys.stderr)
    if plotted:
        from .plot import plot_channels
        chans = channels(cm.model)
        index = {c.name: k for k, c in enumerate(chans)}
        png = args.plot_file or f"{stem}.png"
        plot_channels(png, t, {n: values[:, index[n]] for n in plotted}, {c.name: c.unit for c in chans},
                      title=f"{cm.model.name}: {verb}")
        _echo(args, f"plot: {_count(len(plotted), 'channel')} -> {png}")


# --- parser ---------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fmu-mbs", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Multibody analyses of fmu-mbs model files (JSON). Results are CSV recordings in SI units.",
        epilog="examples:\n" + "\n".join(f"  {cmd}" for cmd, _ in _EXAMPLES.values())
        + "\n\nrun 'fmu-mbs VERB --help' for the options and a worked example of one verb")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--traceback", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    def verb(name: str, func: Callable, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=_example(name),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("model", metavar="MODEL", help="model file (JSON)")
        p.add_argument("--set", action="extend", nargs="+", metavar="NAME=VALUE", help="change a value before the "
                       "analysis (SI units): <element>.<field> (e.g. bob.mass=2), g[k], <joint>.s_start, "
                       "solver.<option>; 'fmu-mbs channels MODEL' lists them")
        p.set_defaults(func=func)
        return p

    def output(p: argparse.ArgumentParser, history: bool) -> None:
        p.add_argument("--out", metavar="F.csv", help="CSV file to write ('-' = standard output); "
                       "default <model name>_<verb>.csv in the current folder")
        p.add_argument("--units", action="store_true", help="write a second header row with the unit of every "
                       "column")
        if history:
            p.add_argument("--t-end", type=float, required=True, metavar="T", help="end time (s)")
            p.add_argument("--step", type=_positive, required=True, metavar="H", help="time step (s)")
            p.add_argument("--plot", nargs="+", metavar="CH", help="channels to plot against time "
                           "(exact names or wildcards, e.g. 'crank.r[*]')")
            p.add_argument("--plot-file", metavar="F.png", help="PNG file; default <model name>_<verb>.png")
            p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                           help="progress bar on stderr: auto (only on a terminal), always or never")

    verb("check", cmd_check, "validate, compile and assemble a model; print its size and degrees of freedom")
    verb("channels", cmd_channels, "list every output channel, input and --set value of a model, with unit and "
         "meaning")
    p = verb("assemble", cmd_assemble, "assemble the model and write the state as a one-row CSV")
    p.add_argument("--time", type=float, default=0.0, metavar="T", help="time of the assembly (s), default 0")
    output(p, history=False)
    p = verb("kinematics", _history("kinematics", _run_kinematics), "kinematic analysis of a fully driven model")
    output(p, history=True)
    p.add_argument("--t-start", type=float, default=0.0, metavar="T", help="start time (s), default 0")
    p = verb("statics", cmd_statics, "static equilibrium; one-row CSV")
    p.add_argument("--time", type=float, default=0.0, metavar="T", help="time of the equilibrium (s), default 0")
    output(p, history=False)
    p = verb("inverse", _history("inverse", _run_inverse), "inverse dynamics of a fully driven model")
    output(p, history=True)
    p.add_argument("--t-start", type=float, default=0.0, metavar="T", help="start time (s), default 0")
    p = verb("simulate", _history("simulate", _run_simulate), "forward dynamics (time integration)")
    output(p, history=True)
    p.add_argument("--integrator", default="alf",
                   choices=("alf", "galpha", "explicit", "variable", "alf-variable", "reference"),
                   help="alf (trapezoidal rule, default), galpha (generalized-alpha, numerical damping), explicit "
                        "(explicit midpoint, for contact scenes), variable (error-controlled Dormand-Prince "
                        "steps, --rtol; --step is then the output interval), alf-variable (error-controlled "
                        "trapezoidal ALF steps, --rtol, for stiff models) or reference (scipy, slow)")
    p.add_argument("--rtol", type=_positive, metavar="R", help="relative tolerance on positions and velocities: "
                   "selects the error-controlled integrator 'variable' (unless --integrator alf-variable or reference)")
    p.add_argument("--atol", type=_positive, metavar="A", help="absolute tolerance (SI units), default --rtol")
    p.add_argument("--rho-inf", type=_spectral_radius, metavar="R", help="galpha: spectral radius at infinite "
                   "frequency in [0, 1] (1 = no numerical damping), default 0.8")
    p.add_argument("--scheme", choices=("ali3p", "energy"), help="alf: ali3p (projections, default) or energy "
                   "(energy-consistent trapezoid: no loss on fast rotations)")
    p.add_argument("--output-step", type=_positive, metavar="H", help="interval between CSV rows (s); "
                   "default every step")
    p.add_argument("--no-energy-balance", action="store_true", help="skip the per-step split of dissipated and "
                   "input work (up to four force evaluations per step on models with dampers, contact or inputs); "
                   "energy.dissipated and energy.input are then NaN")
    p.add_argument("--error-estimate", action="store_true", help="also estimate the error the run achieved "
                   "(a second run with half the step, or with rtol/100 for variable steps) and print it")
    p = sub.add_parser("animate", help="write an HTML viewer (and optionally a movie) of a result CSV",
                       description="3D viewer of a result: the model's graphics placed by the marker poses in the "
                       "CSV (a CSV of fmu-mbs, of write_csv in Python or of an FMU run under fmpy)",
                       epilog=_example("animate"), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", metavar="MODEL", help="model file (JSON)")
    p.add_argument("result", metavar="RESULT.csv", help="result CSV with the marker channels <m>.r[k], <m>.q[k]")
    p.add_argument("--out", metavar="F.html", help="HTML file; default RESULT.html")
    p.add_argument("--trace", nargs="+", metavar="MARKER", help="draw the paths of these markers")
    p.add_argument("--no-forces", action="store_true", help="leave out joint reaction and contact force arrows")
    p.add_argument("--max-frames", type=int, default=2000, metavar="N", help="at most N frames (rows are "
                   "thinned evenly), default 2000")
    p.add_argument("--gif", metavar="F.gif", help="also write an animated GIF (matplotlib)")
    p.add_argument("--mp4", metavar="F.mp4", help="also write an MP4 movie (matplotlib and ffmpeg)")
    p.add_argument("--fps", type=_positive, default=25.0, help="movie frames per second, default 25")
    p.add_argument("--speed", type=_positive, default=1.0, help="movie seconds per simulated second (<1: slow "
                   "motion), default 1")
    p.set_defaults(func=cmd_animate)
    p = sub.add_parser("build", help=_EXAMPLES["build"][1], description=_EXAMPLES["build"][1],
                       epilog=_example("build"), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="*", metavar="MODEL", help="model files (JSON); default models/*.json")
    p.add_argument("-o", "--out", default="dist", metavar="DIR", help="output folder, default dist")
    p.add_argument("--set", action="extend", nargs="+", metavar="NAME=VALUE", help="build these model values "
                   "(<element>.<field>, g[k]; SI units) into the FMUs")
    p.add_argument("--no-precompile", action="store_true", help="do not ship kernels compiled for this "
                   "architecture's generic CPU (smaller FMUs, faster first build; the FMU compiles on first run)")
    p.set_defaults(func=cmd_build)
    from .modes_report import add_parser as add_modes
    add_modes(verb)
    from .crash_report import add_parser as add_crash_report
    add_crash_report(sub)
    return parser


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("fmu-mbs")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``fmu-mbs`` and ``python -m fmu_mbs``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ModuleNotFoundError as exc:
        if args.traceback or not (exc.name or "").startswith("fmu_mbs"):
            raise
        print(f"fmu-mbs: error: '{args.verb}' needs module {exc.name}, which this installation lacks",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("fmu-mbs: interrupted", file=sys.stderr)
        return 130
    except (FmuMbsError, CliError, ImportError, ValueError, RuntimeError, np.linalg.LinAlgError) as exc:
        if args.traceback:
            raise
        print(f"fmu-mbs: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:                  # e.g. 'fmu-mbs ... --out - | head': stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        if args.traceback:
            raise
        where = f"'{exc.filename}': " if exc.filename else ""
        print(f"fmu-mbs: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "build_parser", "CliError"]
