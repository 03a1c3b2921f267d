"""Entry points for callers outside numba (the Python-level analyses): frames, force stages and hooks of one state,
each a single call into numba on the solver's named data (kernels/solver_data.py); none allocates, so none counts
references (``_nrt=False``)."""

from __future__ import annotations

from numba import njit

from .forces import add_contact_forces, add_element_forces, add_multiplier_forces, after_step
from .marker_loads import system_view
from .system import eval_frames_ws


@njit(cache=True, _nrt=False)
def eval_frames(m, q, qd, fr):
    """Body and marker frames (Frames ``fr``), world axes."""
    eval_frames_ws(m, q, qd, fr)


@njit(cache=True, _nrt=False)
def eval_forces(m, fr, t, q, u, h, zs, zn, mode, Q, out, cw):
    """Q += applied forces in ``mode`` (kernels.model_arrays MODE_*) at the frames ``fr`` already evaluated; returns
    the spring and contact potential energy (J). Element states: zs committed (read), zn candidates (written)."""
    sv = system_view(m, fr)
    V = add_element_forces(m, sv, t, q, u, h, zs, zn, mode, Q, out)
    return V + add_contact_forces(m, sv, q, h, zs, zn, mode, Q, out, cw)


@njit(cache=True, _nrt=False)
def eval_multiplier_forces(m, fr, q, jtw, lam, h, zs, zn, mode, Q, out):
    """Q += the forces loaded by the multipliers ``lam`` (joint friction) at the frames ``fr`` and twist rows jtw."""
    add_multiplier_forces(m, system_view(m, fr), q, jtw, lam, h, zs, zn, mode, Q, out)


@njit(cache=True, _nrt=False)
def eval_after_step(m, fr, q, qdd, zs):
    """The families' after-step hooks (passive cylinders store their end accelerations in zs) at the frames fr."""
    after_step(m, system_view(m, fr), q, qdd, zs)
