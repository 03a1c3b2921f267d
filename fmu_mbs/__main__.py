"""``python -m fmu_mbs``: the same command line as ``fmu-mbs``."""

import sys

from .adapters.cli import main

sys.exit(main())
