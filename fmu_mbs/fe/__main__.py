"""``python -m fmu_mbs.fe``: natural frequencies of imported FE data.

    python -m fmu_mbs.fe beam.fem                                  # the reduced data of an MBDyn .fem file
    python -m fmu_mbs.fe M.mtx K.mtx dofs.map nodes.txt [-n 10]    # full Matrix Market data: modes and
                                                                   # effective masses, absent DOFs held
"""

from __future__ import annotations

import argparse
import sys

from ..errors import FmuMbsError
from .eigen import natural_modes
from .matrix_market import read_matrix_market
from .mbdyn_fem import read_fem
from .report import mode_table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fmu_mbs.fe", description=__doc__.split("\n")[0])
    p.add_argument("files", nargs="+", help="a .fem file, or mass, stiffness, DOF map and node files")
    p.add_argument("-n", type=int, default=10, help="number of modes (full data)")
    a = p.parse_args(argv)
    try:
        if len(a.files) == 1:
            fem = read_fem(a.files[0])
            print(f"{a.files[0]}: {len(fem.node_ids)} nodes, {fem.n_modes} modes")
            for k, f in enumerate(fem.frequencies()):
                print(f"{k + 1:>5} {f:>14.6g} Hz")
        elif len(a.files) == 4:
            imp = read_matrix_market(*a.files)
            modes = natural_modes(imp.body.K, imp.body.M, a.n, fixed=imp.absent)
            print(mode_table(imp.body, modes, imp.absent))
        else:
            p.error("give one .fem file or four files (mass, stiffness, DOF map, nodes)")
    except (FmuMbsError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
