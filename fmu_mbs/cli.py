"""The ``fmu-mbs`` entry point: the study verbs (``sweep``, ``sweep-report``) go to fmu_mbs.studies, every other
verb to the adapters' command line. It sits above every layer, so the adapters never import the studies."""

from __future__ import annotations

import sys
from collections.abc import Sequence

STUDY_VERBS = ("sweep", "sweep-report")
STUDY_HELP = """
studies (the 'study' extra; run 'fmu-mbs sweep --help'):
  fmu-mbs sweep STUDY.toml [--workers N | --scheduler tcp://host:8786]
      a design of experiments of a model, an FMU or a coupled system on a dask cluster
  fmu-mbs sweep-report FOLDER
      counts, failed runs and a response plot of a study's results"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fmu-mbs <verb> ...``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    verb = next((a for a in args if not a.startswith("-")), None)
    if verb in STUDY_VERBS:
        try:
            from .studies.cli import main as study_main
        except ModuleNotFoundError as exc:
            if exc.name not in ("dask", "distributed", "pyarrow"):
                raise
            print(f"fmu-mbs: error: '{verb}' needs {exc.name}: pip install 'fmu-mbs[study]'", file=sys.stderr)
            return 1
        return study_main(args)
    from .adapters.cli import main as analysis_main
    if verb is None and ("-h" in args or "--help" in args):
        try:
            analysis_main(args)
        finally:
            print(STUDY_HELP)
    return analysis_main(args)
