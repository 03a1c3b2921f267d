"""Raw output values of one consistent state in a single kernel call (the FMU evaluates them after every
communication step, so the Python-level evaluation, ~40 numpy and kernel calls, dominated a step).

``channel_values`` fills the flat vector that analyses.channels.ChannelEvaluator gathers its channels from:
marker block (16 per marker: r, v, a, quaternion [w, x, y, z], w; world axes), joint coordinates s (angles
unwrapped against ``prev_s``) and rates sd of the measure rows, joint reactions (F, T on marker_j's body about
marker_j's origin; on ground: minus the reaction on marker_i's body), driver efforts -lam, the element output
vector (every element's declared block, the multiplier-loaded ones included), energies (kinetic, potential,
total) and the two solver values.

Marker acceleration and orientation from the body kind (kernels/bodies/dispatch.py); joint reaction from the
multipliers (M qdd + Phi_q^T lam = Q convention): wrench w = -(jtw_rows^T lam_rows) about the body's reference
point r (the CM of a rigid kind), then T = n - s x F, s = o_j - r.

``channel_rows`` evaluates a whole recorded history (many rows) in one call, row by row with the same memory
(unwrapped angles, element states) as one call per row.
"""

from __future__ import annotations

import math

from numba import njit

from .bodies.dispatch import body_potential, kinetic_energy, marker_acceleration, marker_angle, marker_quaternion
from .constraints import eval_constraint_rows
from .contact import ST_PAIR_OVERFLOW, ST_STATE_OVERFLOW
from .forces import add_contact_forces, add_element_forces, add_multiplier_forces, multiplier_outputs
from .inner import inner_kernel
from .marker_loads import system_view
from .model_arrays import MODE_FULL
from .system import eval_frames_ws, eval_rows_ws

MARKER_VALUES = 16


@inner_kernel(_nrt=False)
def _marker_block(m, q, qdd, fr, q_local, angle_local, planar, raw, off):
    o, vo, wm = fr.o, fr.vo, fr.wm
    for k in range(m.marker_body.shape[0]):
        base = off + MARKER_VALUES * k
        acc, _ = marker_acceleration(m, fr.r, o, wm, q, qdd, k)
        for i in range(3):
            raw[base + i] = o[k, i]
            raw[base + 3 + i] = vo[k, i]
            raw[base + 6 + i] = acc[i]
            raw[base + 13 + i] = wm[k, i]
        if planar:
            angle = marker_angle(m, q, k, angle_local[k])
            raw[base + 9] = math.cos(0.5 * angle)
            raw[base + 10] = 0.0
            raw[base + 11] = 0.0
            raw[base + 12] = math.sin(0.5 * angle)
        else:
            x = marker_quaternion(m, q, k, q_local[k, 0], q_local[k, 1], q_local[k, 2], q_local[k, 3])
            for i in range(4):
                raw[base + 9 + i] = x[i]


@inner_kernel(_nrt=False)
def _coordinates(ms, t, q, qd, fr, mrows, is_angle, prev_s, has_prev, raw, off_s, off_sd):
    """Joint coordinates and rates of the measure rows ``ms`` (the model's bodies and markers with other rows) at
    the frames ``fr`` evaluated at (q, qd)."""
    phi, jac = mrows.phi, mrows.jac
    n = phi.shape[0]
    if n == 0:
        return
    eval_constraint_rows(ms, t, q, qd, fr.r, fr.o, fr.R, fr.vo, fr.wm, phi, jac, mrows.nu, mrows.gamma, mrows.jtw)
    for k in range(n):
        sd = 0.0
        for c in range(jac.shape[1]):
            col = ms.row_cols[k, c]
            if col >= 0:
                sd += jac[k, c] * qd[col]
        s = phi[k]
        if has_prev and is_angle[k]:
            jump = s - prev_s[k]
            s = prev_s[k] + math.atan2(math.sin(jump), math.cos(jump))
        prev_s[k] = s
        raw[off_s + k] = s
        raw[off_sd + k] = sd


@inner_kernel(_nrt=False)
def _reactions(m, jtw, lam, o, r, joint_mi, joint_mj, rows_ptr, rows_idx, raw, off):
    for j in range(joint_mi.shape[0]):
        mi = joint_mi[j]
        mj = joint_mj[j]
        bj = m.marker_body[mj]
        side = 6 if bj >= 0 else 0
        body = bj if bj >= 0 else m.marker_body[mi]
        F0 = F1 = F2 = n0 = n1 = n2 = 0.0       # wrench -(jtw_rows^T lam_rows) about the body's reference point
        for e in range(rows_ptr[j], rows_ptr[j + 1]):
            k = rows_idx[e]
            F0 -= jtw[k, side] * lam[k]
            F1 -= jtw[k, side + 1] * lam[k]
            F2 -= jtw[k, side + 2] * lam[k]
            n0 -= jtw[k, side + 3] * lam[k]
            n1 -= jtw[k, side + 4] * lam[k]
            n2 -= jtw[k, side + 5] * lam[k]
        s0, s1, s2 = o[mj, 0] - r[body, 0], o[mj, 1] - r[body, 1], o[mj, 2] - r[body, 2]
        T0 = n0 - (s1 * F2 - s2 * F1)
        T1 = n1 - (s2 * F0 - s0 * F2)
        T2 = n2 - (s0 * F1 - s1 * F0)
        sign = 1.0 if bj >= 0 else -1.0
        base = off + 6 * j
        raw[base] = sign * F0
        raw[base + 1] = sign * F1
        raw[base + 2] = sign * F2
        raw[base + 3] = sign * T0
        raw[base + 4] = sign * T1
        raw[base + 5] = sign * T2


@njit(cache=True, _nrt=False)
def channel_values(m, ms, t, q, qd, qdd, lam, u, zs, zn, Q, fr, rows, mrows, out, cw, plan, q_local, angle_local,
                   planar, is_angle, prev_s, has_prev, iterations, residual, raw, off):
    """Fill ``raw`` (layout: module docstring) at the state (t, q, qd, qdd, lam) with inputs u and committed
    element states zs (candidate states go to zn; forces evaluated with h = 0; Q: scratch, n_q); returns the
    elastic energy (J).

    m: model arrays; ms: measure rows (CompiledModel.measure); fr: Frames; rows and mrows: Rows for m's and ms's
    rows; out: the element output vector; cw: the contact workspace; plan = (joint_mi, joint_mj, joint_rows_ptr,
    joint_rows_idx, driver_rows); off: int64 offsets of the blocks [marker, s, sd, reaction, driver, out, energy,
    solver]; prev_s: the previous coordinates for unwrapping (updated)."""
    eval_frames_ws(m, q, qd, fr)
    eval_rows_ws(m, t, q, qd, fr, rows)
    sv = system_view(m, fr)
    for i in range(Q.shape[0]):
        Q[i] = 0.0
    V = add_element_forces(m, sv, t, q, u, 0.0, zs, zn, MODE_FULL, Q, out)
    V += add_contact_forces(m, sv, q, 0.0, zs, zn, MODE_FULL, Q, out, cw)
    add_multiplier_forces(m, sv, q, rows.jtw, lam, 0.0, zs, zn, MODE_FULL, Q, out)
    multiplier_outputs(m, sv, lam, out)
    _marker_block(m, q, qdd, fr, q_local, angle_local, planar, raw, off[0])
    _coordinates(ms, t, q, qd, fr, mrows, is_angle, prev_s, has_prev, raw, off[1], off[2])
    joint_mi, joint_mj, rows_ptr, rows_idx, driver_rows = plan
    _reactions(m, rows.jtw, lam, fr.o, fr.r, joint_mi, joint_mj, rows_ptr, rows_idx, raw, off[3])
    for d in range(driver_rows.shape[0]):
        raw[off[4] + d] = -lam[driver_rows[d]]
    for i in range(out.shape[0]):
        raw[off[5] + i] = out[i]
    kin = kinetic_energy(m, q, qd)
    pot = body_potential(m, q) + V
    raw[off[6]] = kin
    raw[off[6] + 1] = pot
    raw[off[6] + 2] = kin + pot
    raw[off[7]] = iterations
    raw[off[7] + 1] = residual
    return V


@njit(cache=True, _nrt=False, inline="always")
def planar_angles(raw, off, nm, prev_phi, has_prev):
    """A planar model's marker angles phi = 2 atan2(q_z, q_w) (rad) from the quaternions in ``raw`` into raw after
    the energy sums (analyses.channels.ChannelEvaluator's "phi" block), continuous against ``prev_phi`` if
    ``has_prev`` (else in (-pi, pi]); ``prev_phi`` becomes them. The one unwrap of every evaluation path: the
    one-call step, the batch (channel_rows) and ChannelEvaluator.finish_planar (the general path) call it."""
    off_phi = off[7] + 4
    for k in range(nm):
        base = off[0] + MARKER_VALUES * k
        phi = 2.0 * math.atan2(raw[base + 12], raw[base + 9])
        if has_prev:
            jump = phi - prev_phi[k]
            phi = prev_phi[k] + math.atan2(math.sin(jump), math.cos(jump))
        else:
            phi = math.atan2(math.sin(phi), math.cos(phi))
        prev_phi[k] = phi
        raw[off_phi + k] = phi


@njit(cache=True)
def channel_rows(m, ms, t, q, qd, qdd, lam, u, z, iterations, residual, sums, u_cur, zs, zn, Q, fr, rows, mrows, out,
                 cw, plan, q_local, angle_local, planar, is_angle, prev_s, prev_phi, has_prev, raw, off, gather, first,
                 values):
    """The channels of rows ``first``... of a history (t (N,), q, qd, qdd (N, n_q), lam (N, n_rows), u (N, n_u) or
    (0, n_u): keep ``u_cur``, z (N, n_z) committed element states or (0, n_z): carry ``zs`` from row to row,
    iterations and residual (N,), sums (N, 2): the integrator's energy sums) into ``values[i] = raw[gather]``, each
    row as channel_values plus what analyses.channels.ChannelEvaluator adds after it: the two sums after the solver
    block, and for a planar model the marker angles phi = 2 atan2(q_z, q_w) after them, continuous against
    ``prev_phi``. ``prev_s``, ``prev_phi``, ``zs`` (= the row's candidates zn) and ``u_cur`` carry over from row to
    row and are updated in place. Returns the first row not done: N, or the row whose contact pair buffer or state
    table overflowed (cw.stat says which; its values are not written, and the memory is that of the row before)."""
    n_rows = t.shape[0]
    nm = m.marker_body.shape[0]
    off_sums = off[7] + 2
    scratch = prev_s.copy()
    prev = has_prev
    for i in range(first, n_rows):
        if u.shape[0] > 0:
            for k in range(u_cur.shape[0]):
                u_cur[k] = u[i, k]
        if z.shape[0] > 0:
            for k in range(zs.shape[0]):
                zs[k] = z[i, k]
        for k in range(prev_s.shape[0]):
            scratch[k] = prev_s[k]
        channel_values(m, ms, t[i], q[i], qd[i], qdd[i], lam[i], u_cur, zs, zn, Q, fr, rows, mrows, out, cw, plan,
                       q_local, angle_local, planar, is_angle, scratch, prev, iterations[i], residual[i], raw, off)
        if cw.stat[ST_PAIR_OVERFLOW] != 0 or cw.stat[ST_STATE_OVERFLOW] != 0:
            return i
        for k in range(prev_s.shape[0]):
            prev_s[k] = scratch[k]
        raw[off_sums] = sums[i, 0]
        raw[off_sums + 1] = sums[i, 1]
        if planar:
            planar_angles(raw, off, nm, prev_phi, prev)
        prev = True
        for k in range(zs.shape[0]):
            zs[k] = zn[k]
        for c in range(gather.shape[0]):
            values[i, c] = raw[gather[c]] + 0.0
    return n_rows
