"""Studies (top layer): designs of experiments over a model file, an FMU or a coupled system of FMUs, run on a
dask.distributed cluster with results in one Parquet table (``fmu-mbs sweep``, ``fmu-mbs sweep-report``)."""

from .engine import StudySummary, local_cluster, run_study
from .store import read_history, read_table
from .study import Scalar, Study, StudyError, load_study

__all__ = ["Scalar", "Study", "StudyError", "StudySummary", "load_study", "local_cluster", "read_history",
           "read_table", "run_study"]
