"""fmu_mbs.fe is a leaf package: numpy, scipy and fmu_mbs.errors only (no numba, no other fmu_mbs layer), so the
model, compiler and analyses layers can all use it; each file stays under 500 lines."""

from __future__ import annotations

import ast
from pathlib import Path

FE = Path(__file__).resolve().parents[1] / "fmu_mbs" / "fe"
# numpy, scipy and the standard-library modules in use
ALLOWED = {"numpy", "scipy", "__future__", "argparse", "collections", "dataclasses", "functools", "pathlib", "re",
           "sys", "typing"}


def test_fe_imports_only_numpy_scipy_and_errors():
    bad = []
    for path in FE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 2 and node.module == "errors":    # ..errors: fmu_mbs.errors, relative so
                    continue                                        # that an FMU's vendored copy uses its own
                if node.level == 1:     # relative: inside fe
                    continue
                if node.level:
                    bad.append(f"{path.name}: {'.' * node.level}{node.module}")
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                if name != "fmu_mbs.errors" and name.split(".")[0] not in ALLOWED:
                    bad.append(f"{path.name}: {name}")
    assert not bad, bad


def test_fe_files_are_short():
    assert all(len(p.read_text().splitlines()) < 500 for p in FE.glob("*.py"))
