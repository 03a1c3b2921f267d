"""Build the crane FMU, compile the native C host (fmu_host.c) with gcc and run the crane through the FMI 2.0 C API
from a process without Python, as a Modelica tool's or Simulink's FMU import does.

    python integration/native_host/run.py [--out DIR] [--stop T] [--step H] [-- extra fmu_host options]

It prints the environment and the command it runs, so the run can be repeated by hand. The environment a non-Python
host needs (see docs/using-in-modelica-and-simulink.md, where each variable is explained):

- ``LD_PRELOAD``: the shared libpython of the Python that has numpy, scipy and numba. pythonfmu's binary leaves
  every Python C-API symbol undefined, and numpy's extension modules need them in the global symbol scope.
- ``PYTHONHOME``: that Python's installation prefix (``sys.base_prefix``). Without it the embedded interpreter
  guesses its prefix from the first ``python3`` on ``PATH``, which may be another Python.
- ``PYTHONPATH``: the site-packages folders of that Python (needed for a virtual environment, whose packages the
  embedded interpreter does not find from PYTHONHOME).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CFLAGS = ["-std=c11", "-O2", "-Wall", "-Wextra", "-ffp-contract=off"]


def libpython() -> Path:
    """The shared libpython of the running interpreter; RuntimeError if it is built without one."""
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
        if name and (name.endswith(".so") or ".so." in name):
            path = Path(libdir) / name
            if path.is_file():
                return path
    raise RuntimeError(f"this Python ({sys.executable}) has no shared libpython in '{libdir}'; a non-Python host "
                       "needs a Python built with --enable-shared (python.org, pyenv with "
                       "PYTHON_CONFIGURE_OPTS=--enable-shared, conda and distribution packages are)")


def site_packages() -> list[str]:
    """The site-packages folders of the running interpreter (a venv's own and, if enabled, the base ones)."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        dirs.append(site.getusersitepackages())
    return dirs


def host_environment() -> dict[str, str]:
    """The variables a non-Python process needs to run an fmu-mbs FMU with the Python running this script."""
    return {"LD_PRELOAD": str(libpython()), "PYTHONHOME": sys.base_prefix,
            "PYTHONPATH": os.pathsep.join(site_packages())}


def compile_host(dest: Path) -> Path:
    """gcc fmu_host.c -> dest/fmu_host (FMI headers: the vendored fmi2/ folder)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        raise RuntimeError("gcc not found")
    exe = dest / "fmu_host"
    subprocess.run([gcc, *CFLAGS, "-I", str(HERE / "fmi2"), str(HERE / "fmu_host.c"), "-o", str(exe), "-ldl", "-lm"],
                   check=True)
    return exe


def build_and_extract(dest: Path) -> Path:
    """Build the crane FMU into dest and extract it to dest/crane (a fixed folder, as a tool would)."""
    from fmu_mbs.adapters.fmu_build import build_fmu

    fmu = build_fmu(ROOT / "models" / "crane.json", dest)
    unzipped = dest / "crane"
    shutil.rmtree(unzipped, ignore_errors=True)
    with zipfile.ZipFile(fmu) as z:
        z.extractall(unzipped)
    return unzipped


def holding_force() -> float:
    """The PD demo's feed-forward: the static cylinder force at 30 deg (N), from integration/crane_pd_demo.py."""
    spec = importlib.util.spec_from_file_location("crane_pd_demo", ROOT / "integration" / "crane_pd_demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    return demo.holding_force(ROOT / "models" / "crane.json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/native_host", help="output folder (FMU, host, CSV)")
    parser.add_argument("--stop", type=float, default=6.0, help="stop time, s")
    parser.add_argument("--step", type=float, default=1e-3, help="communication step, s")
    parser.add_argument("extra", nargs="*", help="more fmu_host options (after --)")
    args = parser.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    unzipped = build_and_extract(out)
    exe = compile_host(out)
    cmd = [str(exe), str(unzipped), "--out", str(out / "crane_native_host.csv"), "--stop", repr(args.stop),
           "--step", repr(args.step), "--f0", repr(holding_force()), *args.extra]
    env = host_environment()
    print("environment:\n" + "".join(f"  {k}={shlex.quote(v)}\n" for k, v in env.items())
          + "command:\n  " + shlex.join(cmd), flush=True)
    return subprocess.run(cmd, env={**os.environ, **env}).returncode


if __name__ == "__main__":
    sys.exit(main())
