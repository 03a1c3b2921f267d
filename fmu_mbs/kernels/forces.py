"""The force stages, read top to bottom: every applied force of a model, family by family, in one place.

A family's kernel (kernels/families/) is called here and nowhere else; the integrators and analyses call only
these stages:

- ``add_element_forces``: gravity, the element families, the marker loads of the input vector;
- ``add_contact_forces``: the contact family (it owns a workspace, and its pair buffer may overflow);
- ``add_multiplier_forces``: families loaded by the constraint multipliers (joint friction);
- ``after_step``: families that keep something of the accepted step (passive cylinders' end accelerations);
- ``multiplier_outputs``: outputs that follow from the multipliers (a stroke-driven passive cylinder's force).

The thin stages are inlined (``inline="always"``): a call that is not inlined copies the whole ModelArrays (~120
arrays, about 1 us), so a wrapper would cost more than what it wraps. ``mode`` (kernels.model_arrays MODE_*)
switches terms off for the energy split; every family decides which of its
terms are dissipative or input. Sign conventions: TSDA force positive in tension (seed 004, Haug p. 445), Q = -f
dl/dq; actuator f > 0 extends; RSDA torque n enters Q = -n dtheta/dq (Haug p. 448). A new family: one line in the
stage that fits its need (docs/adding-an-element.md).

The families' force kernels are called through the bound-call table (kernels/bound_calls.py), not linked into
the stages: each is compiled once, and only when a model has elements of its family (``bind_families``, called
when a solver workspace is built: analyses/workspace.py). A family so called has a slot (``bound_family``), a
kernel returning float64, and parameters named from ``ARGUMENTS``' vocabulary (``a``: its own arrays).
"""

from __future__ import annotations

import inspect

import numpy as np
from numba import njit, typeof, types

from .bodies.dispatch import add_gravity
from .bound_calls import bind, bound_call, canonical, declare, fingerprint, is_bound
from .contact import new_contact_workspace
from .families import (
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
from .inner import inner_kernel
from .marker_loads import System, add_point_wrench
from .model_arrays import MODE_FULL

#: ModelArrays field of the family -> (slot, kernel) of the kernels called through the bound-call table
BOUND_FAMILIES: dict[str, tuple[int, object]] = {}


def bound_family(slot: int, key: str, kernel) -> int:
    """Give family ``key``'s force kernel the bound-call ``slot`` (named module.kernel in messages); returns it."""
    f = getattr(kernel, "py_func", kernel)
    BOUND_FAMILIES[key] = (declare(slot, f"{f.__module__.rsplit('.', 1)[-1]}.{f.__name__}"), kernel)
    return slot


SPRING_DAMPER = bound_family(0, "tsda", spring_damper.add_forces)
ROTATIONAL_SPRING_DAMPER = bound_family(1, "rsda", rotational_spring_damper.add_forces)
BUSHING = bound_family(2, "bush", bushing.add_forces)
POINT_LOAD = bound_family(3, "load", point_load.add_forces)
ACTUATOR = bound_family(4, "act", actuator.add_forces)
HYDRAULIC_CYLINDER = bound_family(5, "hyd", hydraulic_cylinder.add_forces)
PASSIVE_CYLINDER = bound_family(6, "pc", passive_cylinder.add_forces)
CRUSH_SPRING = bound_family(7, "crush", crush_spring.add_forces)
BELT = bound_family(8, "belt", belt.add_forces)
JOINT_STOP = bound_family(9, "jstop", joint_stop.add_forces)
GEBEAM = bound_family(10, "gebeam", gebeam.add_forces)
CONTACT = bound_family(11, "contact", contact.add_forces)


def argument_types(m) -> dict[str, types.Type]:
    """numba types of the stage arguments a bound family kernel may take, by parameter name, for ModelArrays ``m``
    (the types the stages pass: contiguous float64 vectors, the System view over contiguous frames)."""
    vec = types.float64[::1]
    frames = [np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3, 3)), np.zeros((1, 3)), np.zeros((1, 3))]
    sv = System(m.dim, m.gravity, m.marker_body, m.body_kind, m.body_q_adr, m.flex, m.fn_type, m.fn_adr, m.fn_len,
                m.fn_par, m.curve_par, *frames)
    return {"m": typeof(m), "sv": typeof(sv), "t": types.float64, "h": types.float64, "mode": types.int64,
            "q": vec, "u": vec, "zs": vec, "zn": vec, "Q": vec, "out": vec,
            "cw": typeof(new_contact_workspace(m, pair_capacity=1))}


#: bind_families' memo: the last ModelArrays objects bound, each with its (slot, kernel, canonical types, fingerprint)
_BOUND: list[tuple[object, list[tuple[int, object, tuple, int]]]] = []
_BOUND_KEPT = 8


def _family_bindings(m) -> list[tuple[int, object, tuple, int]]:
    """(slot, kernel, canonical argument types, fingerprint) of every family ModelArrays ``m`` has elements of."""
    out = []
    known = None
    for key, (slot, kernel) in BOUND_FAMILIES.items():
        family = getattr(m, key)
        if family[0].shape[0] == 0:
            continue
        known = known or argument_types(m)
        names = list(inspect.signature(kernel.py_func).parameters)
        argtys = tuple(canonical(typeof(family) if name == "a" else known[name]) for name in names)
        out.append((slot, kernel, argtys, fingerprint(argtys)))
    return out


def bind_families(m) -> None:
    """Bind (compile or load) the force kernel of every family ModelArrays ``m`` has elements of. The types are
    worked out once per ModelArrays object (numba's typeof over its ~700 arrays took ~10 ms, paid by every solver
    workspace: three per ``simulate``, one per FMU instance); a later call only checks the table and binds again
    the slots another model bound to other types."""
    bindings = next((b for known_m, b in _BOUND if known_m is m), None)
    if bindings is None:
        bindings = _family_bindings(m)
        _BOUND.insert(0, (m, bindings))
        del _BOUND[_BOUND_KEPT:]
    for slot, kernel, argtys, fp in bindings:
        if not is_bound(slot, fp):
            bind(slot, kernel, argtys)


@njit(cache=True, inline="always")
def add_marker_inputs(m, sv, q, u, Q):
    """Q += the marker loads of the input vector (force u[adr:adr+3] at the marker origin and torque u[adr+3:adr+6],
    world axes), skipping markers whose inputs are all zero."""
    o = sv.o
    for k in range(m.marker_body.shape[0]):
        adr = m.marker_input_adr[k]
        if adr < 0 or m.marker_body[k] < 0:
            continue
        F0, F1, F2 = u[adr], u[adr + 1], u[adr + 2]
        T0, T1, T2 = u[adr + 3], u[adr + 4], u[adr + 5]
        if F0 == 0.0 and F1 == 0.0 and F2 == 0.0 and T0 == 0.0 and T1 == 0.0 and T2 == 0.0:
            continue
        add_point_wrench(sv, q, k, o[k, 0], o[k, 1], o[k, 2], F0, F1, F2, T0, T1, T2, 1.0, Q)


@inner_kernel(_nrt=False)
def add_element_forces(m, sv, t, q, u, h, zs, zn, mode, Q, out):
    """Q += gravity, every element family but contact and the multiplier-loaded ones, and (MODE_FULL) the marker
    inputs, at the frames of the System view ``sv``; returns the elastic energy of the springs (J). Element states:
    ``zs`` committed at the step start (read), ``zn`` the candidates at this (t, q, qd) (written), ``h`` the step
    (s; 0 = static evaluation); ``out``: the element output vector."""
    add_gravity(m, q, Q)
    V = 0.0
    if m.tsda.mi.shape[0] > 0:
        V += bound_call(SPRING_DAMPER, m.tsda, sv, t, q, mode, Q, out)
    if m.rsda.mi.shape[0] > 0:
        V += bound_call(ROTATIONAL_SPRING_DAMPER, m.rsda, sv, t, q, zs, zn, mode, Q, out)
    if m.bush.mi.shape[0] > 0:
        V += bound_call(BUSHING, m.bush, sv, q, mode, Q, out)
    if m.load.marker.shape[0] > 0:
        bound_call(POINT_LOAD, m.load, sv, t, q, mode, Q)
    if m.act.mi.shape[0] > 0:
        bound_call(ACTUATOR, m.act, sv, t, q, u, mode, Q, out)
    if m.hyd.mi.shape[0] > 0:
        bound_call(HYDRAULIC_CYLINDER, m.hyd, sv, t, q, u, h, zs, zn, mode, Q, out)
    if m.pc.mi.shape[0] > 0:
        bound_call(PASSIVE_CYLINDER, m.pc, sv, t, q, u, zs, zn, mode, Q, out)
    if m.crush.mi.shape[0] > 0:
        V += bound_call(CRUSH_SPRING, m.crush, sv, q, zs, zn, mode, Q, out)
    if m.belt.p_start.shape[0] > 0:
        V += bound_call(BELT, m.belt, sv, t, q, u, zs, zn, mode, Q, out)
    if m.jstop.mi.shape[0] > 0:
        V += bound_call(JOINT_STOP, m.jstop, sv, q, zs, zn, mode, Q, out)
    if m.gebeam.mi.shape[0] > 0:
        V += bound_call(GEBEAM, m.gebeam, sv, q, mode, Q, out)
    if mode == MODE_FULL and u.shape[0] > 0:
        add_marker_inputs(m, sv, q, u, Q)
    return V


@njit(cache=True, inline="always")
def add_analytic_tangents(m, sv, kq, kv, adj_ptr, adj_idx, Wx):
    """Wx += kq K + kv C (K = -dQ/dq, C = -dQ/dqd, fd_force_jacobian's block layout) of the families whose kernels
    give their force tangent in closed form (the registry's ``analytic_tangent=True``: the planar geometrically exact
    beam), at the frames of sv; returns the number of blocks outside the adjacency (0 unless the pattern is wrong)."""
    lost = 0
    if m.gebeam.mi.shape[0] > 0:
        lost += gebeam.add_planar_tangent(m.gebeam, sv, kq, kv, adj_ptr, adj_idx, Wx)
    return lost


@njit(cache=True, inline="always")
def add_contact_forces(m, sv, q, h, zs, zn, mode, Q, out, cw):
    """Q += the contact forces (kernels/families/contact.py); returns their elastic energy (J)."""
    if m.contact.law.shape[0] == 0:
        return 0.0
    return bound_call(CONTACT, m, sv, q, h, zs, zn, mode, Q, out, cw)


@njit(cache=True, inline="always")
def add_multiplier_forces(m, sv, q, jtw, lam, h, zs, zn, mode, Q, out):
    """Q += the forces loaded by the constraint multipliers ``lam`` through the twist rows ``jtw``: joint friction."""
    if m.jf.type.shape[0] > 0:
        joint_friction.add_friction(m.jf, sv, q, jtw, lam, h, zs, zn, mode, Q, out)


@njit(cache=True, inline="always")
def has_multiplier_forces(m):
    """True if add_multiplier_forces has anything to do."""
    return m.jf.type.shape[0] > 0


@njit(cache=True, inline="always")
def after_step(m, sv, q, qdd, zs):
    """After an accepted step at the frames of sv: the families that keep the step's accelerations in their states."""
    if m.pc.mi.shape[0] > 0:
        passive_cylinder.after_step(m.pc, sv, q, qdd, zs)


@njit(cache=True, inline="always")
def multiplier_outputs(m, sv, lam, out):
    """Outputs that follow from the multipliers (after a force evaluation at the same state)."""
    if m.pc.mi.shape[0] > 0:
        passive_cylinder.stroke_outputs(m.pc, sv, lam, out)
