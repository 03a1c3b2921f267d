"""The FMU's Linux binary: adapters/native/fmi2_shim.c compiled at build time with the system C compiler.

``compile_binary`` writes ``fmu_config.h`` (the FMU's GUID, entry module and the Python to bring up) and compiles
the shim into a shared library. The Python recorded is the one running the build: its shared libpython, home,
standard library and site folders (``python_installation``, the same code the shim runs, as ``QUERY``, on a
Python named by $FMU_MBS_PYTHON or a ``fmu-mbs-python.txt`` file at run time).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

NATIVE_DIR = Path(__file__).resolve().parent / "native"
CFLAGS = ["-std=gnu11", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]

#: prints the facts about a Python installation that the shim needs, one "key<TAB>value" per line (stdlib only)
QUERY = r'''
import os, site, sys, sysconfig
def _libpython():
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
        if name and (name.endswith(".so") or ".so." in name) and os.path.isfile(os.path.join(libdir, name)):
            return os.path.join(libdir, name)
    return ""
_dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
    _dirs.append(site.getusersitepackages())
_home = sys.base_prefix if sys.base_prefix == sys.base_exec_prefix else sys.base_prefix + ":" + sys.base_exec_prefix
print("version\t%d.%d" % sys.version_info[:2])
print("libpython\t" + _libpython())
print("home\t" + _home)
print("stdlib\t" + sysconfig.get_path("stdlib"))
for _d in _dirs:
    print("sitedir\t" + _d)
'''

#: run once in an interpreter the shim started: the Python's identity and site folders (a venv's, with .pth files)
BOOTSTRAP = r'''
def boot(executable, sitedirs):
    import site, sys
    sys.executable = executable
    if not getattr(sys, "argv", None):
        sys.argv = [""]
    before = list(sys.path)
    for d in sitedirs.split("\n"):
        if d and d not in sys.path:
            site.addsitedir(d)
    added = [p for p in sys.path if p not in before]
    first = next((i for i, p in enumerate(before) if p.rstrip("/").endswith("-packages")), len(before))
    sys.path[:] = before[:first] + added + before[first:]   # the recorded folders first (a venv's)
'''

#: per instantiation: import the FMU's entry module from its resources and make the bridge instance
LOADER = r'''
import importlib, sys, traceback
def load(resources, module, name, visible, logging_on, log):
    try:
        entry = sys.modules.get(module)
        if entry is None:
            sys.path.insert(0, resources)
            try:
                entry = importlib.import_module(module)
            finally:
                if resources in sys.path:
                    sys.path.remove(resources)
        return entry.fmi2_instantiate(resources, name, bool(visible), bool(logging_on), log)
    except BaseException as exc:
        text = "fmi2Instantiate: %s: %s" % (type(exc).__name__, exc)
        if not isinstance(exc, ImportError):
            text += "\n" + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        log(3, b"logStatusError", text.encode("utf-8", "backslashreplace").replace(b"\0", b"?"))
        return None
'''


def python_installation() -> dict[str, object]:
    """What QUERY prints for the running Python: version, libpython ('' without a shared one), home, stdlib,
    sitedir (a list) and executable."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(QUERY, "<fmu-mbs query>", "exec"), {})   # our own constant code, not outside input
    info: dict[str, object] = {"sitedir": [], "executable": sys.executable}
    for line in out.getvalue().splitlines():
        key, _, value = line.partition("\t")
        if key == "sitedir":
            info["sitedir"].append(value)
        else:
            info[key] = value
    return info


def c_string(text: str) -> str:
    """A C string literal with the UTF-8 bytes of ``text`` (octal escapes for anything unusual)."""
    out = []
    for b in text.encode("utf-8", "surrogateescape"):
        ch = chr(b)
        if ch == "\n":
            out.append("\\n\" \\\n    \"")
        elif 32 <= b < 127 and ch not in '"\\?':
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def compiler() -> str | None:
    """The C compiler: $CC, else gcc or cc on PATH (None if there is none)."""
    cc = os.environ.get("CC")
    return shutil.which(cc) if cc else shutil.which("gcc") or shutil.which("cc")


def compile_binary(dest: Path, guid: str, entry_module: str, model_identifier: str) -> Path:
    """Compile the shim for one FMU into ``dest`` (a .so path); RuntimeError with the compiler's message."""
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler found (set CC, or install gcc)")
    info = python_installation()
    config = {
        "FMU_GUID": guid, "FMU_ENTRY_MODULE": entry_module, "FMU_MODEL_IDENTIFIER": model_identifier,
        "PY_EXECUTABLE": str(info["executable"]), "PY_LIBPYTHON": str(info.get("libpython", "")),
        "PY_HOME": str(info.get("home", "")), "PY_STDLIB": str(info.get("stdlib", "")),
        "PY_VERSION": str(info.get("version", "")), "PY_SITEDIRS": "\n".join(info["sitedir"]),
        "PY_QUERY": QUERY, "PY_BOOTSTRAP": BOOTSTRAP, "PY_LOADER": LOADER,
    }
    with tempfile.TemporaryDirectory(prefix="fmu_mbs_cc_") as tmp:
        header = Path(tmp) / "fmu_config.h"
        header.write_text("/* generated by fmu_mbs/adapters/fmu_native.py */\n"
                          + "".join(f"#define {k} {c_string(v)}\n" for k, v in config.items()), encoding="ascii")
        cmd = [cc, *CFLAGS, "-I", str(NATIVE_DIR / "fmi2"), "-I", tmp, str(NATIVE_DIR / "fmi2_shim.c"),
               "-o", str(dest), "-ldl", "-lpthread"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"compiling the FMU binary failed ({' '.join(cmd[:1])}):\n{proc.stderr}")
    return dest
