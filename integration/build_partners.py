"""Build the partner FMUs (hydraulic cylinder + valve, PID controller, signal source, oscillator, restraint
controller) into a folder and check them with fmpy validate.

    python integration/build_partners.py [OUT_DIR]       # default: dist

Each FMU ships its entry script and partner_base.py under module names that carry a hash of both files' content,
so FMUs built from different versions never share a module in one process (pythonfmu 0.7.0 would silently run the
first one's code), while equal builds give equal names.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

PARTNERS = Path(__file__).resolve().parent / "partners"
#: FMU file stem (= class name = modelIdentifier) -> entry script
FMUS = {"HydraulicCylinder": "hydraulic_cylinder", "PidController": "pid_controller", "SignalSource": "signal_source",
        "Oscillator": "oscillator", "RestraintController": "restraint_controller"}


def _hash(*texts: str) -> str:
    h = hashlib.sha1()
    for text in texts:
        h.update(text.encode())
    return h.hexdigest()[:10]


def build_partner(name: str, dest: str | Path = "dist", validate: bool = True) -> Path:
    """Build ``dest/<name>.fmu`` (name: a key of FMUS); raise RuntimeError if fmpy validate finds a problem."""
    from pythonfmu import FmuBuilder

    script_text = (PARTNERS / f"{FMUS[name]}.py").read_text(encoding="utf-8")
    base_text = (PARTNERS / "partner_base.py").read_text(encoding="utf-8")
    digest = _hash(script_text, base_text)
    base_module = f"partner_base_{_hash(base_text)}"
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    fmu_path = dest / f"{name}.fmu"
    with tempfile.TemporaryDirectory(prefix="partner_build_") as tmp:
        stage = Path(tmp)
        (stage / f"{base_module}.py").write_text(base_text, encoding="utf-8")
        script = stage / f"{FMUS[name]}_{digest}.py"
        script.write_text(script_text.replace("from partner_base import", f"from {base_module} import"),
                          encoding="utf-8")
        (stage / "requirements.txt").write_text("pythonfmu==0.7.0\n", encoding="utf-8")
        old_path = list(sys.path)
        try:
            FmuBuilder.build_FMU(script, dest=fmu_path, project_files=[stage / f"{base_module}.py",
                                                                       stage / "requirements.txt"],
                                 canGetAndSetFMUstate=True, canSerializeFMUstate=True,
                                 canHandleVariableCommunicationStepSize=True)
        finally:
            sys.path[:] = old_path
            sys.modules.pop(script.stem, None)
    if validate:
        from fmpy.validation import validate_fmu

        problems = list(validate_fmu(str(fmu_path)))
        if problems:
            raise RuntimeError(f"FMU '{fmu_path}' failed fmpy validate:\n  " + "\n  ".join(problems))
    return fmu_path


def build_partners(dest: str | Path = "dist") -> dict[str, Path]:
    """Build every partner FMU into dest; returns {name: path}."""
    return {name: build_partner(name, dest) for name in FMUS}


if __name__ == "__main__":
    for path in build_partners(sys.argv[1] if len(sys.argv) > 1 else "dist").values():
        print(f"built {path} (fmpy validate: no problems)")
