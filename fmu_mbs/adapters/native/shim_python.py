"""Python run by the FMU binary (fmi2_shim.c), compiled into it as text; standard library only, any Python 3.

- ``query()`` prints what the shim needs to know about a Python installation, one ``key<TAB>value`` per line (the
  shim runs ``python -c "<this file>; query()"`` on a Python named by $FMU_MBS_PYTHON or fmu-mbs-python.txt; the
  build records the building Python's answers).
- ``boot(executable, sitedirs)`` runs once in an interpreter the shim started: that Python's identity and its site
  folders (a virtual environment's, with .pth files), and only those.
- ``load(...)`` runs per fmi2Instantiate: imports the FMU's entry module from its resources and makes the instance.

This folder is not part of the library copy inside FMUs, nor of its content hash.
"""

import os
import site
import sys
import sysconfig
import traceback


def _libpython():
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
        if name and (name.endswith(".so") or ".so." in name) and os.path.isfile(os.path.join(libdir, name)):
            return os.path.join(libdir, name)
    return ""


def query():
    dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        dirs.append(site.getusersitepackages())
    home = sys.base_prefix if sys.base_prefix == sys.base_exec_prefix else sys.base_prefix + ":" + sys.base_exec_prefix
    print(f"version\t{sys.version_info[0]}.{sys.version_info[1]}")
    print("libpython\t" + _libpython())
    print("home\t" + home)
    print("stdlib\t" + sysconfig.get_path("stdlib"))
    for d in dirs:
        print("sitedir\t" + d)


def boot(executable, sitedirs):
    """The interpreter started with the installation's home sees the installation's own site folders; a virtual
    environment sees its own instead (and the installation's only if it was made with system site packages)."""
    wanted = [d for d in sitedirs.split("\n") if d]
    own = set(site.getsitepackages()) if hasattr(site, "getsitepackages") else set()
    if site.ENABLE_USER_SITE:
        own.add(site.getusersitepackages())
    sys.path[:] = [p for p in sys.path if p in wanted or p not in own]
    sys.executable = executable
    if not getattr(sys, "argv", None):
        sys.argv = [""]
    before = list(sys.path)
    for d in wanted:
        if d not in sys.path:
            site.addsitedir(d)
    added = [p for p in sys.path if p not in before]
    first = next((i for i, p in enumerate(before) if p.rstrip("/").endswith("-packages")), len(before))
    sys.path[:] = before[:first] + added + before[first:]


def load(resources, module, name, visible, logging_on, log):
    """The bridge instance for one fmi2Instantiate, or None (the reason is logged)."""
    import importlib

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
    except BaseException as exc:  # noqa: BLE001 - reported through the FMI log, never raised into C
        text = f"fmi2Instantiate: {type(exc).__name__}: {exc}"
        if not isinstance(exc, ImportError):
            text += "\n" + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        log(3, b"logStatusError", text.encode("utf-8", "backslashreplace").replace(b"\0", b"?"))
        return None
