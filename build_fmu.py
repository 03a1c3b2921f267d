"""Build FMUs from models: ``python build_fmu.py`` builds every model in models/ into dist/<name>.fmu;
``python build_fmu.py models/X.json [...] [-o DIR]`` builds the given ones. Same as ``fmu-mbs build``."""

import sys

from fmu_mbs.adapters.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", *sys.argv[1:]]))
