"""The element-family registry: the one list of the force-element families, in the order of FORCE_KINDS (the order
in which they get their states, inputs and outputs), and the ModelArrays type built from it.

A family is one registered unit: its model class (model/force_elements.py, with its declared outputs and inputs),
its kernel module (kernels/families/: Arrays, kernel, hooks, called from the stage list kernels/forces.py), its
lowering (``lower(elements, ctx) -> Arrays``; addresses from ctx.layout) and what the solvers need to know of it,
as data: whether it does non-conservative work (the energy split), which markers it couples (the sparsity of the
iteration matrix and the finite-difference colouring), whether it has stiffness or damping worth a tangent and
whether its kernel gives that tangent in closed form, and an optional ``rows`` hook that adds constraint rows.
docs/adding-an-element.md walks through adding one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..kernels.families import (
    actuator,
    belt,
    bushing,
    contact,
    crush_spring,
    gebeam,
    hydraulic_cylinder,
    joint_friction,
    joint_stop,
    passive_cylinder,
    point_load,
    rotational_spring_damper,
    spring_damper,
)
from ..kernels.model_arrays import CORE_FIELDS, FLEXIBLE, MODAL, PLANAR, POINT_MASS, arrays_type
from ..model.elements import FORCE_KINDS
from . import belt as belt_lowering
from . import contacts, force_elements, hydraulics
from . import crush_spring as crush_spring_lowering
from . import gebeam as gebeam_lowering
from . import joint_friction as joint_friction_lowering
from . import joint_stop as joint_stop_lowering
from . import passive_cylinder as passive_cylinder_lowering


def _never(arrays) -> bool:
    return False


def _none(arrays) -> list[tuple[int, int]]:
    return []


@dataclass(frozen=True)
class Family:
    """One element family. ``key`` names its field in ModelArrays (the kernels' vocabulary)."""

    key: str
    element: type
    kernel: object                                   # the kernel module (kernels/families/<name>.py)
    lower: Callable                                  # (elements, LoweringContext) -> kernel.Arrays
    nonconservative: Callable = _never               # (arrays) -> True if its work is not all elastic
    coupled_markers: Callable = _none                # (arrays) -> marker pairs whose bodies it couples
    stiffness: bool = False                          # contributes stiffness or damping to the force tangent
    rows: Callable | None = None                     # (elements, ctx, rows) -> adds its constraint rows
    after_step: bool = False                         # keeps something of each accepted step (forces.after_step)
    multipliers: bool = False                        # loaded by the constraint multipliers (add_multiplier_forces)
    analytic_tangent: bool = False                   # its force tangent in closed form on planar node bodies
    #                                                  (forces.add_analytic_tangents), not by finite differences

    @property
    def tag(self) -> str:
        """The model file's ``type`` of the family's elements."""
        return next(tag for tag, cls in FORCE_KINDS.items() if cls is self.element)


FAMILIES: tuple[Family, ...] = (
    Family("tsda", FORCE_KINDS["spring_damper"], spring_damper, force_elements.lower_spring_dampers,
           force_elements.spring_damper_nonconservative, force_elements.two_markers, stiffness=True),
    Family("rsda", FORCE_KINDS["rotational_spring_damper"], rotational_spring_damper,
           force_elements.lower_rotational_spring_dampers, force_elements.spring_damper_nonconservative,
           force_elements.two_markers, stiffness=True),
    Family("bush", FORCE_KINDS["bushing"], bushing, force_elements.lower_bushings,
           force_elements.bushing_nonconservative, force_elements.two_markers, stiffness=True),
    Family("load", FORCE_KINDS["point_load"], point_load, force_elements.lower_point_loads,
           lambda a: bool((a.fn >= 0).any())),
    Family("act", FORCE_KINDS["actuator"], actuator, force_elements.lower_actuators, force_elements.always,
           force_elements.two_markers),
    Family("hyd", FORCE_KINDS["hydraulic_cylinder"], hydraulic_cylinder, hydraulics.lower, force_elements.always,
           force_elements.two_markers, stiffness=True),
    Family("contact", FORCE_KINDS["contact"], contact, contacts.lower, force_elements.always, stiffness=True),
    Family("pc", FORCE_KINDS["passive_cylinder"], passive_cylinder, passive_cylinder_lowering.lower,
           force_elements.always, force_elements.two_markers, rows=passive_cylinder_lowering.add_stroke_rows,
           after_step=True),
    Family("jf", FORCE_KINDS["joint_friction"], joint_friction, joint_friction_lowering.lower, force_elements.always,
           joint_friction_lowering.coupled_markers, stiffness=True, multipliers=True),
    Family("crush", FORCE_KINDS["crush_spring"], crush_spring, crush_spring_lowering.lower, force_elements.always,
           force_elements.two_markers, stiffness=True),
    Family("belt", FORCE_KINDS["belt"], belt, belt_lowering.lower, force_elements.always,
           belt_lowering.coupled_markers, stiffness=True),
    Family("jstop", FORCE_KINDS["joint_stop"], joint_stop, joint_stop_lowering.lower, force_elements.always,
           force_elements.two_markers, stiffness=True),
    Family("gebeam", FORCE_KINDS["beam_element"], gebeam, gebeam_lowering.lower, gebeam_lowering.damped,
           force_elements.two_markers, stiffness=True, analytic_tangent=True),
)

if [f.element for f in FAMILIES] != list(FORCE_KINDS.values()):     # pragma: no cover - registry invariant
    raise ImportError("compiler.families.FAMILIES must list every FORCE_KINDS class, in that order")

#: the compiled model: the core fields and one field per family (its kernel's Arrays)
ModelArrays = arrays_type("ModelArrays", CORE_FIELDS + tuple(f.key for f in FAMILIES), __name__)
_SHORT_KEYS = {"cont": "contact"}


def _family_field(self, name: str):
    """``m.pc_row`` reads ``m.pc.row``: the flat ``<family>_<field>`` names of the arrays before the registry, for
    Python callers (the kernels read the nested fields)."""
    key, _, field = name.partition("_")
    key = _SHORT_KEYS.get(key, key)
    if field and key in type(self)._fields:
        fam = tuple.__getitem__(self, type(self)._fields.index(key))
        if field in getattr(fam, "_fields", ()):
            return getattr(fam, field)
    raise AttributeError(f"ModelArrays has no field '{name}'")


ModelArrays.__getattr__ = _family_field


def elements_of(model, family: Family) -> list:
    """The model's elements of one family, in model order."""
    return [f for f in model.forces if type(f) is family.element]


def has_elements(arrays, family: Family) -> bool:
    """True if the compiled model ``arrays`` holds elements of ``family``."""
    fam = getattr(arrays, family.key)
    return len(getattr(fam, fam._fields[0])) > 0          # every family's first array has one row per element


def needs_after_step(arrays) -> bool:
    """True if some family of the model has an after-step hook with elements (analyses call Evaluator.after_step)."""
    return any(f.after_step and has_elements(arrays, f) for f in FAMILIES)


def needs_multipliers(arrays) -> bool:
    """True if some family of the model is loaded by the constraint multipliers (joint friction)."""
    return any(f.multipliers and has_elements(arrays, f) for f in FAMILIES)


def has_stiff_elements(arrays) -> bool:
    """True if some element with stiffness or damping (a family's ``stiffness`` flag) or a body with internal
    forces (a flexible or modal body) is in the model: the force tangent pays off (the ALF's tangent="auto")."""
    kinds = np.asarray(arrays.body_kind)
    return any(f.stiffness and has_elements(arrays, f) for f in FAMILIES) \
        or bool(np.any((kinds == FLEXIBLE) | (kinds == MODAL)))


def analytic_tangent_covers(arrays) -> bool:
    """True if the closed-form tangents (families with ``analytic_tangent``) are the whole force tangent of the model:
    a planar model of planar bodies and point masses whose every element family has one, its markers on planar
    bodies or the ground (gravity is constant there; no contact, no other element). Marker inputs stay out of it
    (a Newton tangent: they only slow convergence)."""
    kinds = np.asarray(arrays.body_kind)
    present = [f for f in FAMILIES if has_elements(arrays, f)]
    return (int(arrays.dim) == 2 and bool(present) and all(f.analytic_tangent for f in present)
            and bool(np.all((kinds == PLANAR) | (kinds == POINT_MASS)))
            and all(arrays.marker_body[k] < 0 or int(kinds[arrays.marker_body[k]]) == PLANAR for f in present
                    for pair in f.coupled_markers(getattr(arrays, f.key)) for k in pair))
