"""Raw output values of one consistent state in a single kernel call (the FMU evaluates them after every
communication step, so the Python-level evaluation, ~40 numpy and kernel calls, dominated a step).

``channel_values`` fills the flat vector that analyses.channels.ChannelEvaluator gathers its channels from:
marker block (16 per marker: r, v, a, quaternion [w, x, y, z], w; world axes), joint coordinates s (angles
unwrapped against ``prev_s``) and rates sd of the measure rows, joint reactions (F, T on marker_j's body about
marker_j's origin; on ground: minus the reaction on marker_i's body), driver efforts -lam, every force
element output block, energies (kinetic, potential, total) and the two solver values.

Marker acceleration a = a_cm + alpha x s + w x (w x s), s = o - r; joint reaction from the multipliers (M qdd +
Phi_q^T lam = Q convention): wrench w = -(jtw_rows^T lam_rows) about the body's CM, then T = n - s x F.
"""

from __future__ import annotations

import math

from numba import njit

from .constraints import eval_constraints
from .frames import body_accelerations
from .mass import gravity_potential, kinetic_energy
from .model_arrays import PLANAR, RIGID
from .outputs import eval_forces, eval_frames

MARKER_VALUES = 16


@njit(cache=True)
def _marker_block(m, q, qd, qdd, ws, q_local, angle_local, planar, raw, off):
    r, w, o, vo, wm, acc, alpha = ws[0], ws[3], ws[4], ws[6], ws[7], ws[8], ws[9]
    body_accelerations(m, q, qd, qdd, acc, alpha)
    for k in range(m.marker_body.shape[0]):
        base = off + MARKER_VALUES * k
        for i in range(3):
            raw[base + i] = o[k, i]
            raw[base + 3 + i] = vo[k, i]
            raw[base + 13 + i] = wm[k, i]
            raw[base + 6 + i] = 0.0
        b = m.marker_body[k]
        if b >= 0:
            s0, s1, s2 = o[k, 0] - r[b, 0], o[k, 1] - r[b, 1], o[k, 2] - r[b, 2]
            w0, w1, w2 = w[b, 0], w[b, 1], w[b, 2]
            x0, x1, x2 = alpha[b, 0], alpha[b, 1], alpha[b, 2]
            c0, c1, c2 = w1 * s2 - w2 * s1, w2 * s0 - w0 * s2, w0 * s1 - w1 * s0          # w x s
            raw[base + 6] = acc[b, 0] + x1 * s2 - x2 * s1 + w1 * c2 - w2 * c1
            raw[base + 7] = acc[b, 1] + x2 * s0 - x0 * s2 + w2 * c0 - w0 * c2
            raw[base + 8] = acc[b, 2] + x0 * s1 - x1 * s0 + w0 * c1 - w1 * c0
        if planar:
            angle = angle_local[k]
            if b >= 0 and m.body_kind[b] == PLANAR:
                angle += q[m.body_q_adr[b] + 2]
            raw[base + 9] = math.cos(0.5 * angle)
            raw[base + 10] = 0.0
            raw[base + 11] = 0.0
            raw[base + 12] = math.sin(0.5 * angle)
        else:
            l0, l1, l2, l3 = q_local[k, 0], q_local[k, 1], q_local[k, 2], q_local[k, 3]
            if b >= 0 and m.body_kind[b] == RIGID:
                a = m.body_q_adr[b] + 3
                n = math.sqrt(q[a] ** 2 + q[a + 1] ** 2 + q[a + 2] ** 2 + q[a + 3] ** 2)
                p0, p1, p2, p3 = q[a] / n, q[a + 1] / n, q[a + 2] / n, q[a + 3] / n
                # Hamilton product p (x) l
                raw[base + 9] = p0 * l0 - p1 * l1 - p2 * l2 - p3 * l3
                raw[base + 10] = p0 * l1 + l0 * p1 + p2 * l3 - p3 * l2
                raw[base + 11] = p0 * l2 + l0 * p2 + p3 * l1 - p1 * l3
                raw[base + 12] = p0 * l3 + l0 * p3 + p1 * l2 - p2 * l1
            else:
                raw[base + 9] = l0
                raw[base + 10] = l1
                raw[base + 11] = l2
                raw[base + 12] = l3


@njit(cache=True)
def _coordinates(ms, t, q, qd, mw, is_angle, prev_s, has_prev, raw, off_s, off_sd):
    phi, jac, nu, gamma, jtw = mw
    n = phi.shape[0]
    if n == 0:
        return
    eval_constraints(ms, t, q, qd, phi, jac, nu, gamma, jtw)
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


@njit(cache=True)
def _reactions(m, jtw, lam, o, r, joint_mi, joint_mj, rows_ptr, rows_idx, raw, off):
    for j in range(joint_mi.shape[0]):
        mi = joint_mi[j]
        mj = joint_mj[j]
        bj = m.marker_body[mj]
        side = 6 if bj >= 0 else 0
        body = bj if bj >= 0 else m.marker_body[mi]
        wr = [0.0] * 6
        for e in range(rows_ptr[j], rows_ptr[j + 1]):
            k = rows_idx[e]
            for i in range(6):
                wr[i] -= jtw[k, side + i] * lam[k]
        s0, s1, s2 = o[mj, 0] - r[body, 0], o[mj, 1] - r[body, 1], o[mj, 2] - r[body, 2]
        F0, F1, F2 = wr[0], wr[1], wr[2]
        T0 = wr[3] - (s1 * F2 - s2 * F1)
        T1 = wr[4] - (s2 * F0 - s0 * F2)
        T2 = wr[5] - (s0 * F1 - s1 * F0)
        sign = 1.0 if bj >= 0 else -1.0
        base = off + 6 * j
        raw[base] = sign * F0
        raw[base + 1] = sign * F1
        raw[base + 2] = sign * F2
        raw[base + 3] = sign * T0
        raw[base + 4] = sign * T1
        raw[base + 5] = sign * T2


@njit(cache=True)
def channel_values(m, ms, t, q, qd, qdd, lam, u, zs, zn, Q, cw, ws, mw, fo, ccw, plan, q_local, angle_local, planar,
                   is_angle, prev_s, has_prev, iterations, residual, raw, off):
    """Fill ``raw`` (layout: module docstring) at the state (t, q, qd, qdd, lam) with inputs u and committed
    element states zs (candidate states go to zn; forces evaluated with h = 0; Q: scratch, n_q).

    m: model arrays; ms: measure rows (CompiledModel.measure); cw = (phi, jac, nu, gamma, jtw) for m's rows
    and mw the same for ms's; ws = (r, A, v, w, o, R, vo, wm, acc, alpha); fo = (tsda, rsda, bush, act, hyd,
    cont, pc) outputs as in eval_forces; ccw: the contact workspace (kernels.contact); plan = (joint_mi,
    joint_mj, joint_rows_ptr, joint_rows_idx, driver_rows); off: int64 offsets of the blocks [marker, s, sd,
    reaction, driver, tsda, rsda, bush, act, hyd, cont, pc, energy, solver]; prev_s: the previous coordinates
    for unwrapping (updated)."""
    phi, jac, nu, gamma, jtw = cw
    r, A, v, w, o, R, vo, wm = ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6], ws[7]
    eval_constraints(m, t, q, qd, phi, jac, nu, gamma, jtw)
    eval_frames(m, q, qd, r, A, v, w, o, R, vo, wm)
    tsda, rsda, bush, act, hyd, cont, pc = fo
    V = eval_forces(m, t, q, qd, r, o, R, vo, wm, u, 0.0, zs, zn, Q, tsda, rsda, bush, act, hyd, cont, pc, ccw)
    _marker_block(m, q, qd, qdd, ws, q_local, angle_local, planar, raw, off[0])
    _coordinates(ms, t, q, qd, mw, is_angle, prev_s, has_prev, raw, off[1], off[2])
    joint_mi, joint_mj, rows_ptr, rows_idx, driver_rows = plan
    _reactions(m, jtw, lam, o, r, joint_mi, joint_mj, rows_ptr, rows_idx, raw, off[3])
    for d in range(driver_rows.shape[0]):
        raw[off[4] + d] = -lam[driver_rows[d]]
    k = 5
    for arr in fo:                                  # every element output block, in the order of fo
        n = arr.shape[1]
        for e in range(arr.shape[0]):
            for i in range(n):
                raw[off[k] + n * e + i] = arr[e, i]
        k += 1
    kin = kinetic_energy(m, q, qd)
    pot = gravity_potential(m, q) + V
    raw[off[k]] = kin
    raw[off[k] + 1] = pot
    raw[off[k] + 2] = kin + pot
    raw[off[k + 1]] = iterations
    raw[off[k + 1] + 1] = residual
    return V
