"""Seat belt webbing through slip rings, with a locked retractor, a load limiter and a pretensioner.

A belt is a path of markers p_0 (retractor), p_1 .. p_{n-1} (slip rings), p_n (anchor): n segments. Segment i
has the length l_i = |p_{i+1} - p_i| and an unstretched webbing length s_i (a state), and pulls its end markers
together with F_i = EA (l_i - s_i)/s_i for l_i > s_i, else 0 (webbing takes no compression).

Slip rings (capstan law, Euler-Eytelwein): at the ring between segments a = i-1 and b = i the webbing sticks while
F_a <= c F_b and F_b <= c F_a, c = e^(mu alpha), alpha the wrap angle (the angle between the directions of the two
segments: 0 for a straight path, pi for a belt folded back). When a bound would be broken webbing slides from the
low-tension side into the high-tension side until F_high = c F_low; with mu = 0 both sides carry the same force
and the webbing is conserved (s_a + s_b constant: path length plus slip = the pulled length).

Retractor (segment 0): locked; the load limiter pays webbing out while F_0 would exceed L (s_0 = l_0/(1 + L/EA),
never taken back); the pretensioner pulls in pull(t) = f(t) + P(t - t_f) (m), f a time function, P the stroke
table after firing at t_f (the fire_time, or the first evaluation with the input fire >= 0.5; a state): s_0 is
shortened by the change of pull since the last committed step.

Each evaluation starts from the committed states (zs), applies the pretensioner, then sweeps the rings and the
limiter (Gauss-Seidel; each ring by the root of its quadratic capstan equality when both sides end taut, else by
bisection on its monotone residual) until no webbing moves, writes the new
states to zn and applies the forces. The belt's work is all counted as dissipated in the energy split (it
returns no potential and applies nothing in MODE_CONSERVATIVE; the pretensioner's work shows up there too).

States per belt (2n + 2 from z_adr): s_0..s_{n-1} (m), the slip of each ring, towards the retractor (m), the
load limiter's pay-out (m), the committed pull-in (m), the firing time (s; negative: not fired).
Outputs: force[n], slip[n-1] (when n > 1), payout, length.
"""

from __future__ import annotations

import math

from ..functions import eval_curve
from ..inner import inner_kernel
from ..marker_loads import add_marker_force, line, time_function
from ..model_arrays import MODE_CONSERVATIVE, ZERO, arrays_type

Arrays = arrays_type("BeltArrays", ["p_start", "n_seg", "pts", "ea", "mu", "limit", "fn", "stroke", "input_adr",
                                    "z_adr", "out_adr"], __name__, "Arrays")
MAX_SWEEPS = 60
BISECTIONS = 80


@inner_kernel(_nrt=False)
def tension(ea, l, s):
    """Webbing force (N) of a segment of length l and unstretched length s (m)."""
    if l <= s:
        return 0.0
    return ea * (l - s) / s


@inner_kernel(_nrt=False)
def _taut_root(qa, qb, qc, lo, hi):
    """The root of qa x^2 + qb x + qc in (lo, hi), or -1.0 (qa may be 0)."""
    if qa == 0.0:
        if qb == 0.0:
            return -1.0
        x = -qc / qb
        return x if lo < x < hi else -1.0
    disc = qb * qb - 4.0 * qa * qc
    if disc < 0.0:
        return -1.0
    sq = math.sqrt(disc)
    w = -0.5 * (qb + sq) if qb >= 0.0 else -0.5 * (qb - sq)      # the stable pair of roots
    for x in (w / qa, qc / w if w != 0.0 else -1.0):
        if lo < x < hi:
            return x
    return -1.0


@inner_kernel(_nrt=False)
def ring_slip(ea, c, la, sa, lb, sb):
    """Webbing (m) to move from segment b into segment a across a ring (negative: from a into b) so that
    F_a <= c F_b and F_b <= c F_a hold; 0 while they hold. Both sides taut at the answer: the capstan equality
    with F = EA (l/s - 1) is a quadratic in x = the new s_a (s_a + s_b = S kept); otherwise bisection."""
    fa = tension(ea, la, sa)
    fb = tension(ea, lb, sb)
    big = 1.0 + 1e-13
    if fa <= c * fb * big and fb <= c * fa * big:
        return 0.0
    S = sa + sb
    if fa > c * fb * big:                            # a pulls webbing out of b: x in (sa, min(la, S))
        x = _taut_root(1.0 - c, -(la + S + c * lb - c * S), la * S, sa, min(la, S))
        if x > 0.0 and S - x < lb:
            return x - sa
        lo, hi = 0.0, sb
        for _ in range(BISECTIONS):
            mid = 0.5 * (lo + hi)
            if tension(ea, la, sa + mid) - c * tension(ea, lb, sb - mid) > 0.0:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)
    x = _taut_root(1.0 - c, lb - S + c * la + c * S, -c * la * S, max(0.0, S - lb), sa)   # b pulls from a
    if x > 0.0 and x < la:
        return x - sa
    lo, hi = -sa, 0.0
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        if tension(ea, lb, sb - mid) - c * tension(ea, la, sa + mid) > 0.0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


@inner_kernel(_nrt=False)
def _segment(a, sv, k, i):
    p = a.p_start[k] + i
    return line(sv, a.pts[p], a.pts[p + 1])


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, t, q, u, zs, zn, mode, Q, out):
    """Q += the belt forces; the webbing states go to zn; writes the output blocks; returns 0 (no potential)."""
    if mode == MODE_CONSERVATIVE:
        return 0.0
    for k in range(a.p_start.shape[0]):
        n = a.n_seg[k]
        z = a.z_adr[k]
        ea = a.ea[k]
        for j in range(2 * n + 2):
            zn[z + j] = zs[z + j]
        zs_ = z                                      # s_i at zn[z + i]; ring slips at zn[z + n + i - 1]
        z_pay = z + 2 * n - 1
        z_pull = z + 2 * n
        z_fire = z + 2 * n + 1
        pull = time_function(sv, a.fn[k], t)
        if zn[z_fire] < 0.0 and a.input_adr[k] >= 0 and u[a.input_adr[k]] >= 0.5:
            zn[z_fire] = t                           # fired by the signal: from this evaluation on
        if zn[z_fire] >= 0.0 and t >= zn[z_fire] and a.stroke[k, 1] > 0:
            p, _, _ = eval_curve(sv.curve_par, a.stroke[k, 0], a.stroke[k, 1], t - zn[z_fire])
            pull += p
        s0 = zs[zs_] - (pull - zs[z_pull])
        zn[zs_] = max(s0, 1e-6 * zs[zs_])            # the pretensioner cannot pull in more webbing than there is
        zn[z_pull] = pull
        total = 0.0
        for i in range(n):
            total += zn[zs_ + i]
        tol = 1e-14 * total
        for _ in range(MAX_SWEEPS):
            moved = 0.0
            if a.limit[k] > 0.0:
                _, l0, _ = _segment(a, sv, k, ZERO)
                if tension(ea, l0, zn[zs_]) > a.limit[k] * (1.0 + 1e-13):
                    s_new = l0 / (1.0 + a.limit[k] / ea)
                    zn[z_pay] += s_new - zn[zs_]
                    moved = max(moved, s_new - zn[zs_])
                    zn[zs_] = s_new
            for i in range(1, n):
                ea_dir, la, _ = _segment(a, sv, k, i - 1)
                eb_dir, lb, _ = _segment(a, sv, k, i)
                cosa = ea_dir[0] * eb_dir[0] + ea_dir[1] * eb_dir[1] + ea_dir[2] * eb_dir[2]
                c = math.exp(a.mu[k] * math.acos(min(1.0, max(-1.0, cosa))))
                d = ring_slip(ea, c, la, zn[zs_ + i - 1], lb, zn[zs_ + i])
                if d != 0.0:
                    zn[zs_ + i - 1] += d
                    zn[zs_ + i] -= d
                    zn[z + n + i - 1] += d
                    moved = max(moved, abs(d))
            if moved <= tol:
                break
        o = a.out_adr[k]
        length = 0.0
        for i in range(n):
            e, l, _ = _segment(a, sv, k, i)
            f = tension(ea, l, zn[zs_ + i])
            p = a.p_start[k] + i
            add_marker_force(sv, q, a.pts[p], f * e[0], f * e[1], f * e[2], 1.0, Q)
            add_marker_force(sv, q, a.pts[p + 1], f * e[0], f * e[1], f * e[2], -1.0, Q)
            out[o + i] = f
            length += l
        for i in range(1, n):
            out[o + n + i - 1] = zn[z + n + i - 1]
        out[o + 2 * n - 1] = zn[z_pay] - zn[z_pull]
        out[o + 2 * n] = length
    return 0.0
