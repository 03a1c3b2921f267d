"""Event signatures of the variable-step integrator (kernels/integrate_dopri.py): a hash of the discrete regime of a
model after a force evaluation. A step whose stages see another signature than its start holds a state event, and
the integrator brackets it by bisection (Hairer, Norsett & Wanner, Solving ODEs I, II.6: a Runge-Kutta step across
a kink of the right-hand side loses its order). Per element, the regime code is:

- contact: touching (depth > 0) or not;
- hydraulic cylinder: piston free, in the retracted or in the extended end stop (within l_end of the end);
- crush spring (compression d, committed largest compression d_m): no compression (d <= 0); loading (d >= d_m,
  d' > 0) with the interval of the loading curve that holds d (its knots are kinks of the force); unloading or
  reloading along k_u (d >= d_m with d' <= 0: the turning point, or d < d_m with force left); below its permanent
  set (d < d_m, no force). So the turning point, the return to the permanent set and the reloading end steps;
- joint friction with the elasto-plastic bristle law: stick or slip (k_t |s| >= mu(v) N within 1e-6, s the
  evaluation's bristle deflection: in slip the law holds it at mu N / k_t exactly, so a state committed in slip and
  evaluated again statically stays in slip);
- belt: each segment taut or slack, and the load limiter paying out (F_0 >= L within 1e-9) or not.

Bristle friction of contact points is not an event source (its regime is per contact point, in the contact state
table, and the element's outputs do not tell it).
"""

from __future__ import annotations

import math

from numba import njit

from .contact import CP_KT, CP_MU, CP_MU_STATIC, CP_STRIBECK_SPEED, FRICTION_BRISTLE
from .families.crush_spring import Z_D_MAX, Z_F_MAX
from .functions import _interval
from .hydraulics import HP_L_END, HP_L_RETRACTED, HP_STROKE
from .inner import inner_kernel
from .marker_loads import line

SIG_PRIME = 1125899906842597   # signatures are hashed modulo this prime (< 2^50: exact as a float)
SLIP_REL = 1e-6                # bristle: slip when k_t |s| >= (1 - SLIP_REL) mu N
LIMIT_REL = 1e-9               # belt: the limiter pays out when F_0 >= (1 - LIMIT_REL) L


@njit(cache=True, _nrt=False, inline="always")
def _mix(sig, code):
    return (sig * 1009 + code) % SIG_PRIME


@inner_kernel(_nrt=False)
def crush_code(sv, a, k, zs, out):
    """Regime code of crush spring k (module docstring) from its outputs and the committed history zs."""
    d = out[a.out_adr[k]]
    if d <= 0.0:
        return 1
    z = a.z_adr[k]
    d_max = zs[z + Z_D_MAX]
    _, _, ld = line(sv, a.mi[k], a.mj[k])
    if d >= d_max:
        if -ld > 0.0:          # loading: which piece of the curve
            adr, n = a.curve[k, 0], a.curve[k, 1]
            piece = 0
            if n > 1 and d > sv.curve_par[adr]:
                piece = n if d >= sv.curve_par[adr + n - 1] else _interval(sv.curve_par, adr, n, d) + 1
            return 4 + piece
        return 2               # at the largest compression, turning back: unloading starts
    if zs[z + Z_F_MAX] - a.k_unload[k] * (d_max - d) > 0.0:
        return 2               # on the unloading / reloading line
    return 3                   # below the permanent set


@inner_kernel(_nrt=False)
def bristle_code(a, k, zn, out):
    """1 stick, 2 slip of joint friction element k (bristle law), from its outputs and deflection zn."""
    par = a.par[k]
    o = a.out_adr[k]
    v = out[o + 1]
    load = out[o + 2]
    mu = par[CP_MU]
    vs = par[CP_STRIBECK_SPEED]
    if vs > 0.0:
        mu += (par[CP_MU_STATIC] - mu) * math.exp(-(v / vs) * (v / vs))
    lim = mu * load
    if lim > 0.0 and par[CP_KT] * abs(zn[a.z_adr[k]]) >= (1.0 - SLIP_REL) * lim:
        return 2
    return 1


@inner_kernel(_nrt=False)
def event_signature(m, sv, zs, zn, out):
    """Hash of the discrete regime (module docstring) after a force evaluation: its frames in ``sv``, element
    outputs ``out``, the committed states ``zs`` it started from and its candidates ``zn``. Equal regimes give
    equal signatures."""
    sig = 0
    a = m.contact
    for c in range(a.law.shape[0]):
        sig = _mix(sig, 2 if out[a.out_adr[c] + 4] > 0.0 else 1)
    hy = m.hyd
    for k in range(hy.mi.shape[0]):
        par = hy.par[k]
        x = out[hy.out_adr[k]] - par[HP_L_RETRACTED]
        code = 1
        if x <= par[HP_L_END]:
            code = 2
        elif par[HP_STROKE] - x <= par[HP_L_END]:
            code = 3
        sig = _mix(sig, code)
    cr = m.crush
    for k in range(cr.mi.shape[0]):
        sig = _mix(sig, crush_code(sv, cr, k, zs, out))
    jf = m.jf
    for k in range(jf.mi.shape[0]):
        if jf.model[k] == FRICTION_BRISTLE:
            sig = _mix(sig, bristle_code(jf, k, zn, out))
    bt = m.belt
    for k in range(bt.n_seg.shape[0]):
        o = bt.out_adr[k]
        for i in range(bt.n_seg[k]):
            sig = _mix(sig, 2 if out[o + i] > 0.0 else 1)
        if bt.limit[k] > 0.0:
            sig = _mix(sig, 2 if out[o] >= (1.0 - LIMIT_REL) * bt.limit[k] else 1)
    return float(sig)


__all__ = ["event_signature"]
