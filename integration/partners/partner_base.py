"""Shared base of the partner FMUs (pythonfmu 0.7.0, numpy only, no fmu-mbs import).

The partner FMUs stand for exports of other tools, so they are independent of fmu-mbs: this module repeats the few
pythonfmu fixes fmu-mbs's own slave carries (fmu_mbs/adapters/fmu_slave.py):

- units on every Real and a ``<UnitDefinitions>`` block, ``<InitialUnknowns>`` (so ``fmpy validate`` is clean) and
  a GUID derived from the class source (deterministic builds);
- FMU state get/set as copies of a plain dict of floats, pickled for serialization;
- no method raises: pythonfmu turns an exception into fmi2Fatal and frees the instance, so a failure is logged at
  error level with its reason and the call returns False (fmi2Discard);
- ``KEEPALIVE``: pythonfmu 0.7.0 re-executes the entry script with the module's dict as globals at every
  instantiation and then calls Py_DECREF on that borrowed dict; the entry script appends ``globals()`` here once per
  execution so the dict outlives the call (the same fix as fmu_mbs/adapters/fmu_build.py).

build_partners.py ships this file under a content-hashed module name, so two versions never share one module in a
process.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import pickle
import traceback
import uuid
from xml.etree.ElementTree import Element, SubElement

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real
from pythonfmu.enums import Fmi2Status

KEEPALIVE: list = []

#: SI base-unit exponents of the units the partners use
UNITS = {"m": {"m": 1}, "m/s": {"m": 1, "s": -1}, "m/s2": {"m": 1, "s": -2}, "N": {"kg": 1, "m": 1, "s": -2},
         "Pa": {"kg": 1, "m": -1, "s": -2},
         "m3": {"m": 3}, "m3/s": {"m": 3, "s": -1}, "m2": {"m": 2}, "s": {"s": 1}, "Hz": {"s": -1},
         "N.s/m": {"kg": 1, "s": -1}, "N/m": {"kg": 1, "s": -2}, "kg": {"kg": 1},
         "J": {"kg": 1, "m": 2, "s": -2}, "1": {}, "rad": {"rad": 1}}


class UnitReal(Real):
    """A pythonfmu Real with a unit attribute."""

    def __init__(self, name: str, unit: str, **kwargs):
        super().__init__(name, **kwargs)
        self.unit = unit

    def to_xml(self) -> Element:
        el = super().to_xml()
        el.find("Real").set("unit", self.unit)
        return el


class PartnerSlave(Fmi2Slave):
    """Base class: registration helpers, state as a dict of floats, logging instead of raising."""

    author = "fmu-mbs partner FMUs"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        try:
            source = inspect.getsource(type(self))
        except (OSError, TypeError):    # no source file found: the name still gives a stable GUID
            source = type(self).__qualname__
        self.guid = uuid.uuid5(uuid.NAMESPACE_URL, "fmu-mbs-partner:" + hashlib.sha1(source.encode()).hexdigest())
        self._units: dict[str, str] = {}
        self.failure: str | None = None

    # --- registration -------------------------------------------------------------------------------------------
    def _real(self, name: str, unit: str, getter, setter=None, **kw) -> None:
        self._units[name] = unit
        self.register_variable(UnitReal(name, unit, getter=getter, setter=setter, **kw), nested=False)

    def parameter(self, name: str, unit: str, description: str, store: dict) -> None:
        """A fixed Real parameter kept in ``store[name]``."""
        self._real(name, unit, lambda: store[name], lambda v: store.__setitem__(name, float(v)),
                   causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed, description=description)

    def integer_parameter(self, name: str, description: str, store: dict) -> None:
        self.register_variable(Integer(name, getter=lambda: store[name],
                                       setter=lambda v: store.__setitem__(name, int(v)),
                                       causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed,
                                       description=description), nested=False)

    def input(self, name: str, unit: str, description: str, store: dict) -> None:
        self._real(name, unit, lambda: store[name], lambda v: store.__setitem__(name, float(v)),
                   causality=Fmi2Causality.input, variability=Fmi2Variability.continuous, description=description)

    def output(self, name: str, unit: str, description: str, getter) -> None:
        self._real(name, unit, getter, causality=Fmi2Causality.output, variability=Fmi2Variability.continuous,
                   description=description)

    # --- failures -----------------------------------------------------------------------------------------------
    def fail(self, where: str, exc: BaseException) -> None:
        self.log(f"{where} failed: {exc}\n{''.join(traceback.format_exception(exc))}", Fmi2Status.error)

    @staticmethod
    def check_finite(values: dict, what: str) -> None:
        bad = [k for k, v in values.items() if not math.isfinite(v)]
        if bad:
            raise ValueError(f"{what} not finite: {', '.join(bad)}")

    # --- state ----------------------------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        raise NotImplementedError

    def load_state_dict(self, state: dict) -> None:
        raise NotImplementedError

    def _get_fmu_state(self):
        return pickle.loads(pickle.dumps(self.state_dict()))     # a deep copy: pythonfmu keeps the object as is

    def _set_fmu_state(self, state) -> None:
        self.load_state_dict(pickle.loads(pickle.dumps(state)))

    @staticmethod
    def _fmu_state_to_bytes(state) -> bytes:
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def _fmu_state_from_bytes(data: bytes):
        return pickle.loads(data)

    # --- model description ----------------------------------------------------------------------------------------
    def to_xml(self, model_options=None) -> Element:
        """pythonfmu's description plus units, UnitDefinitions, InitialUnknowns and no timestamp."""
        root = super().to_xml(model_options or {})
        root.attrib.pop("generationDateAndTime", None)
        ud = Element("UnitDefinitions")
        for u in sorted(set(self._units.values())):
            SubElement(SubElement(ud, "Unit", {"name": u}), "BaseUnit", {k: str(v) for k, v in UNITS[u].items()})
        root.insert(list(root).index(root.find("CoSimulation")) + 1, ud)
        structure = root.find("ModelStructure")
        outputs = structure.find("Outputs")
        if outputs is not None:
            initial = SubElement(structure, "InitialUnknowns")
            for unknown in outputs:
                SubElement(initial, "Unknown", {"index": unknown.get("index")})
        return root


class InputHistory:
    """Reconstruction of an input signal between communication points, from the values a master sets.

    mode 0 (hold): the value set before doStep(t, H) holds over [t, t + H].
    mode 1 (linear): that value is the input at t + H; the input ramps from the value set for the previous step
    (its value at t) to it. mode 2 (quadratic): the parabola through the values set for the two previous steps and
    this one (at t - H_prev, t, t + H). Modes 1 and 2 fall back to the lower orders while too few values are known
    (the first step holds).
    """

    def __init__(self, names: list[str]):
        self.names = names
        self.points: list[tuple[float, dict]] = []     # (time, values) of earlier steps' ends, newest last

    def start_step(self, t: float, H: float, values: dict, mode: int):
        """Return u(tau) for tau in [t, t + H]: a function of the time giving a dict of values."""
        t1 = t + H
        known = [(tk, v) for tk, v in self.points if tk <= t + 1e-12 * max(1.0, abs(t))][-2:] if mode else []
        known = known[-mode:] if mode else []
        pts = known + [(t1, dict(values))]
        if len(pts) == 1 or H == 0.0:
            return lambda tau: values
        if len(pts) == 2:
            (ta, va), (tb, vb) = pts

            def linear(tau):
                w = (tau - ta) / (tb - ta)
                return {n: va[n] + (vb[n] - va[n]) * w for n in self.names}
            return linear
        (ta, va), (tb, vb), (tc, vc) = pts

        def quadratic(tau):
            la = (tau - tb) * (tau - tc) / ((ta - tb) * (ta - tc))
            lb = (tau - ta) * (tau - tc) / ((tb - ta) * (tb - tc))
            lc = (tau - ta) * (tau - tb) / ((tc - ta) * (tc - tb))
            return {n: va[n] * la + vb[n] * lb + vc[n] * lc for n in self.names}
        return quadratic

    def end_step(self, t1: float, values: dict) -> None:
        self.points = (self.points + [(t1, dict(values))])[-2:]
