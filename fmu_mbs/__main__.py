"""``python -m fmu_mbs``: the same command line as ``fmu-mbs``."""

import sys

from .cli import main

sys.exit(main())
