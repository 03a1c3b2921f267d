"""The ``fmu-mbs`` entry point: the study verbs (``sweep``, ``sweep-report``) go to fmu_mbs.studies, every other
verb to the adapters' command line. It sits above every layer, so the adapters never import the studies."""

from __future__ import annotations

import sys
from collections.abc import Sequence

STUDY_VERBS = ("sweep", "sweep-report")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fmu-mbs <verb> ...``; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    verb = next((a for a in args if not a.startswith("-")), None)
    if verb in STUDY_VERBS:
        from .studies.cli import main as study_main
        return study_main(args)
    from .adapters.cli import main as analysis_main
    return analysis_main(args)
