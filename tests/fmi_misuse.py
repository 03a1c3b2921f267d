"""Misuse of an FMU's C API, one case per process (run by tests/test_fmu_misuse.py and bench/fmu_processes.py):

    python tests/fmi_misuse.py CASE UNZIPPED_FMU_DIR

The FMU binary is called through ctypes exactly as a C host would, without fmpy's checks. Each call's status and
every FMI log line are printed (``call <name> -> <status>``, ``log <status> <message>``); the process then exits
normally (exit handlers and library destructors run), so a crash or an abort at exit shows in the exit status.
"""

from __future__ import annotations

import ctypes as C
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

STATUS = ["fmi2OK", "fmi2Warning", "fmi2Discard", "fmi2Error", "fmi2Fatal", "fmi2Pending"]
LOGGER = C.CFUNCTYPE(None, C.c_void_p, C.c_char_p, C.c_int, C.c_char_p, C.c_char_p)
ALLOC = C.CFUNCTYPE(C.c_void_p, C.c_size_t, C.c_size_t)
FREE = C.CFUNCTYPE(None, C.c_void_p)


class Callbacks(C.Structure):
    _fields_ = [("logger", LOGGER), ("allocateMemory", ALLOC), ("freeMemory", FREE), ("stepFinished", C.c_void_p),
                ("componentEnvironment", C.c_void_p)]


def _log(env, instance, status, category, message):
    print(f"log {STATUS[status]} {message.decode('utf-8', 'replace')}", flush=True)


_libc = C.CDLL(None)
_libc.calloc.restype = C.c_void_p
_libc.calloc.argtypes = [C.c_size_t, C.c_size_t]
_libc.free.argtypes = [C.c_void_p]
CALLBACKS = Callbacks(LOGGER(_log), ALLOC(lambda n, s: _libc.calloc(n, s)), FREE(lambda p: _libc.free(p)), None,
                      None)


class Fmu:
    """The binary of an extracted FMU, its model description and one instance handle."""

    def __init__(self, folder: str):
        self.dir = Path(folder).resolve()
        root = ET.parse(self.dir / "modelDescription.xml").getroot()
        self.guid = root.get("guid")
        ident = root.find("CoSimulation").get("modelIdentifier")
        self.vr = {v.get("name"): int(v.get("valueReference")) for v in root.iter("ScalarVariable")}
        self.lib = C.CDLL(str(self.dir / "binaries" / "linux64" / f"{ident}.so"))
        self.lib.fmi2Instantiate.restype = C.c_void_p
        self.lib.fmi2Instantiate.argtypes = [C.c_char_p, C.c_int, C.c_char_p, C.c_char_p, C.POINTER(Callbacks),
                                             C.c_int, C.c_int]
        self.c = None

    def uri(self) -> str:
        return (self.dir / "resources").as_uri()

    def instantiate(self, name="misuse", kind=1, guid=None, uri=None, callbacks=True, logging=1):
        self.c = self.lib.fmi2Instantiate(name.encode() if name is not None else None, kind,
                                          (guid or self.guid).encode(), (uri or self.uri()).encode(),
                                          C.byref(CALLBACKS) if callbacks else None, 0, logging)
        print(f"call fmi2Instantiate -> {'instance' if self.c else 'NULL'}", flush=True)
        return self.c

    def call(self, name, *args, c="self"):
        f = getattr(self.lib, name)
        f.restype = C.c_int
        status = f(C.c_void_p(self.c if c == "self" else c), *args)
        print(f"call {name} -> {STATUS[status]}", flush=True)
        return status

    def refs(self, *names):
        return (C.c_uint * len(names))(*[self.vr[n] if isinstance(n, str) else n for n in names])

    def start(self, **values):
        self.instantiate()
        self.call("fmi2SetupExperiment", 0, C.c_double(0), C.c_double(0), 0, C.c_double(0))
        self.call("fmi2EnterInitializationMode")
        for name, value in values.items():
            self.set(name, value)
        return self.call("fmi2ExitInitializationMode")

    def set(self, name, value):
        if isinstance(value, int):
            return self.call("fmi2SetInteger", self.refs(name), C.c_size_t(1), (C.c_int * 1)(value))
        return self.call("fmi2SetReal", self.refs(name), C.c_size_t(1), (C.c_double * 1)(value))

    def get(self, *names):
        out = (C.c_double * len(names))()
        self.call("fmi2GetReal", self.refs(*names), C.c_size_t(len(names)), out)
        print(f"values {list(out)}", flush=True)
        return list(out)

    def step(self, t, h=0.01):
        return self.call("fmi2DoStep", C.c_double(t), C.c_double(h), 1)

    def free(self):
        self.lib.fmi2FreeInstance.argtypes = [C.c_void_p]
        self.lib.fmi2FreeInstance(self.c)
        print("call fmi2FreeInstance", flush=True)


def case_normal_run(f: Fmu):
    f.start()
    for k in range(3):
        f.step(0.01 * k)
    f.call("fmi2Terminate")
    f.free()


def case_uri_not_resolving(f: Fmu):
    f.instantiate(uri=(f.dir / "no_such_folder").as_uri())


def case_uri_malformed(f: Fmu):
    f.instantiate(uri="file:///tmp/%zz/resources")


def case_uri_not_file(f: Fmu):
    f.instantiate(uri="http://example.invalid/resources")


def case_wrong_guid(f: Fmu):
    f.instantiate(guid="{00000000-0000-0000-0000-000000000000}")


def case_model_exchange(f: Fmu):
    f.instantiate(kind=0)


def case_empty_instance_name(f: Fmu):
    f.instantiate(name="")


def case_no_callbacks(f: Fmu):
    f.instantiate(callbacks=False)
    if f.c:
        f.free()


def case_unknown_value_reference(f: Fmu):
    f.start()
    f.get(10 ** 6)
    f.step(0.0)          # the instance goes on
    f.free()


def case_wrong_type(f: Fmu):
    f.start()
    out = (C.c_int * 1)()
    f.call("fmi2GetInteger", f.refs("g[1]"), C.c_size_t(1), out)
    f.call("fmi2SetReal", f.refs("solver.integrator"), C.c_size_t(1), (C.c_double * 1)(1.0))
    f.free()


def case_set_output(f: Fmu):
    f.start()
    output = next(n for n in f.vr if n.startswith("energy.total"))
    f.set(output, 1.0)
    f.free()


def case_fixed_parameter_after_init(f: Fmu):
    f.start()
    f.set("solver.h", 1e-4)
    f.get("solver.h")
    f.free()


def case_enumeration_out_of_range(f: Fmu):
    f.instantiate()
    f.call("fmi2EnterInitializationMode")
    f.set("solver.integrator", 7)
    f.free()


def case_step_before_initialization(f: Fmu):
    f.instantiate()
    f.step(0.0)
    f.free()


def case_calls_in_wrong_order(f: Fmu):
    f.instantiate()
    f.call("fmi2ExitInitializationMode")
    f.get("solver.h")
    f.call("fmi2Terminate")
    f.free()


def case_null_arrays(f: Fmu):
    f.start()
    f.call("fmi2GetReal", None, C.c_size_t(2), None)
    f.call("fmi2SetReal", f.refs("solver.h"), C.c_size_t(1), None)
    f.free()


def case_null_and_freed_instance(f: Fmu):
    f.call("fmi2DoStep", C.c_double(0), C.c_double(0.01), 1, c=None)
    f.start()
    dead = f.c
    f.free()
    f.call("fmi2DoStep", C.c_double(0), C.c_double(0.01), 1, c=dead)
    f.call("fmi2GetReal", f.refs("solver.h"), C.c_size_t(1), (C.c_double * 1)(), c=dead)
    f.free()             # twice: ignored


def case_bad_states(f: Fmu):
    f.start()
    state = C.c_void_p()
    f.call("fmi2GetFMUstate", C.byref(state))
    f.call("fmi2SetFMUstate", C.c_void_p(12345))
    f.call("fmi2FreeFMUstate", C.byref(state))
    f.call("fmi2SetFMUstate", state)                      # NULL after the free
    stale = C.c_void_p(state.value or 1)
    f.call("fmi2FreeFMUstate", C.byref(stale))
    blob = b"\x80\x04" + b"garbage" * 10                     # a pickle header, then nothing valid
    out = C.c_void_p()
    f.call("fmi2DeSerializeFMUstate", C.c_char_p(blob), C.c_size_t(len(blob)), C.byref(out))
    f.call("fmi2DeSerializeFMUstate", None, C.c_size_t(10), C.byref(out))
    f.free()


def case_initial_unknowns(f: Fmu):
    f.instantiate()
    f.call("fmi2EnterInitializationMode")
    f.get("cylinder.length", "boom_hinge.s")
    f.set("boom_hinge.s_start", 0.4)
    f.get("cylinder.length", "boom_hinge.s")
    f.call("fmi2ExitInitializationMode")
    f.free()


def case_bad_parameter(f: Fmu):
    f.start(**{"payload.mass": -1.0})
    f.step(0.0)
    f.call("fmi2Terminate")
    f.free()


def case_not_provided(f: Fmu):
    f.start()
    f.call("fmi2CancelStep")
    f.call("fmi2GetDirectionalDerivative", None, C.c_size_t(0), None, C.c_size_t(0), None, None)
    value = C.c_double()
    f.call("fmi2GetRealStatus", 2, C.byref(value))       # fmi2LastSuccessfulTime
    print(f"values [{value.value}]")
    f.free()


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    CASES[sys.argv[1]](Fmu(sys.argv[2]))
    print("end of case", flush=True)
