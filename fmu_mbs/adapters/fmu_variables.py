"""The FMU's variable kinds beyond pythonfmu's: Reals with a unit and a range, Integers declared as FMI
enumerations (the integer switches of adapters/fmu_slave.py, ``ENUMERATIONS``)."""

from __future__ import annotations

from xml.etree.ElementTree import Element

from pythonfmu import Integer, Real

#: the integer switches, declared as FMI enumerations: type name -> ((value, item name, description), ...)
ENUMERATIONS = {
    "Integrator": ((0, "alf", "index-3 augmented Lagrangian, trapezoidal rule"),
                   (1, "galpha", "the same on the generalized-alpha scheme"),
                   (2, "explicit", "explicit midpoint (contact scenes; h below the stability limit)"),
                   (3, "variable", "error-controlled Dormand-Prince 5(4) steps (solver.rtol, solver.atol; smooth "
                                   "models without element states)"),
                   (4, "alf_variable", "error-controlled trapezoidal ALI3-P steps (solver.rtol, solver.atol; stiff "
                                       "models and fast rotations)")),
    "TrapezoidalScheme": ((0, "ali3p", "ALI3-P with projections"),
                          (1, "energy", "energy-consistent (no energy loss on fast rotations)")),
    "InputInterpolation": ((0, "hold", "inputs held over a communication step"),
                           (1, "linear", "inputs ramped linearly from the previous communication point")),
}



class UnitReal(Real):
    """A pythonfmu Real with a unit attribute and an optional range (``min``, ``max``)."""

    def __init__(self, name: str, unit: str | None = None, min: float | None = None, max: float | None = None,
                 **kwargs):
        super().__init__(name, **kwargs)
        self.unit, self.min, self.max = unit, min, max

    def to_xml(self) -> Element:
        el = super().to_xml()
        real = el.find("Real")
        if self.unit:
            real.set("unit", self.unit)
        for key in ("min", "max"):
            if getattr(self, key) is not None:
                real.set(key, repr(float(getattr(self, key))))
        return el


class EnumInteger(Integer):
    """An Integer accessed with fmi2Get/SetInteger, declared as an Enumeration of ``ENUMERATIONS[declared_type]``."""

    def __init__(self, name: str, declared_type: str, **kwargs):
        super().__init__(name, **kwargs)
        self.declared_type = declared_type
        values = [v for v, _, _ in ENUMERATIONS[declared_type]]
        self.min, self.max, self.allowed = min(values), max(values), frozenset(values)

    def to_xml(self) -> Element:
        el = super().to_xml()
        node = el.find("Integer")
        node.tag = "Enumeration"
        node.set("declaredType", self.declared_type)
        return el
