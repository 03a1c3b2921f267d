"""Bushing: small-angle 6-DOF spring-damper in marker_i axes. Force -K d - C d' and torque -Kr phi - Cr w on
marker_j's body (d: displacement of origin_j from origin_i, phi: small-angle rotation of marker_j relative to
marker_i, both in marker_i axes); the reaction (-F at origin_j, -T) acts on marker_i's body. Outputs: F (3) N,
T (3) N m on marker_j, world axes. Energy: the springs' (J)."""

from __future__ import annotations

from ..inner import inner_kernel
from ..marker_loads import add_marker_force, add_marker_torque, add_point_wrench, to_world
from ..model_arrays import MODE_CONSERVATIVE, arrays_type
from ..rotation import cross_v

Arrays = arrays_type("BushingArrays", ["mi", "mj", "k", "c", "kr", "cr", "out_adr"], __name__, "Arrays")
N_OUT = 6
N_STATES = 0


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, q, mode, Q, out):
    """Q += the bushing forces; writes the output blocks; returns the spring energy (J)."""
    V = 0.0
    o, R, vo, wm = sv.o, sv.R, sv.vo, sv.wm
    damped = mode != MODE_CONSERVATIVE
    for k in range(a.mi.shape[0]):
        mi = a.mi[k]
        mj = a.mj[k]
        d = (o[mj, 0] - o[mi, 0], o[mj, 1] - o[mi, 1], o[mj, 2] - o[mi, 2])
        wi = (wm[mi, 0], wm[mi, 1], wm[mi, 2])
        wixd = cross_v(wi, d)
        dd = (vo[mj, 0] - vo[mi, 0] - wixd[0], vo[mj, 1] - vo[mi, 1] - wixd[1], vo[mj, 2] - vo[mi, 2] - wixd[2])
        wr = (wm[mj, 0] - wi[0], wm[mj, 1] - wi[1], wm[mj, 2] - wi[2])
        Fl0, Fl1, Fl2, Tl0, Tl1, Tl2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for ax in range(3):
            da = R[mi, 0, ax] * d[0] + R[mi, 1, ax] * d[1] + R[mi, 2, ax] * d[2]
            dda = R[mi, 0, ax] * dd[0] + R[mi, 1, ax] * dd[1] + R[mi, 2, ax] * dd[2]
            wa = R[mi, 0, ax] * wr[0] + R[mi, 1, ax] * wr[1] + R[mi, 2, ax] * wr[2]
            # small-angle rotation of marker_j in marker_i axes: 1/2 vee(Rrel - Rrel^T)
            b1 = (ax + 1) % 3
            b2 = (ax + 2) % 3
            rel_b2b1 = 0.0
            rel_b1b2 = 0.0
            for i in range(3):
                rel_b2b1 += R[mi, i, b2] * R[mj, i, b1]
                rel_b1b2 += R[mi, i, b1] * R[mj, i, b2]
            phia = 0.5 * (rel_b2b1 - rel_b1b2)
            fa_ = -a.k[k, ax] * da
            ta_ = -a.kr[k, ax] * phia
            if damped:
                fa_ -= a.c[k, ax] * dda
                ta_ -= a.cr[k, ax] * wa
            if ax == 0:
                Fl0, Tl0 = fa_, ta_
            elif ax == 1:
                Fl1, Tl1 = fa_, ta_
            else:
                Fl2, Tl2 = fa_, ta_
            V += 0.5 * a.k[k, ax] * da * da + 0.5 * a.kr[k, ax] * phia * phia
        F = to_world(R, mi, Fl0, Fl1, Fl2)
        T = to_world(R, mi, Tl0, Tl1, Tl2)
        add_marker_force(sv, q, mj, F[0], F[1], F[2], 1.0, Q)
        add_marker_torque(sv, q, mj, T[0], T[1], T[2], 1.0, Q)
        # reaction on body i: -F at the point o_j, and -T
        add_point_wrench(sv, q, mi, o[mj, 0], o[mj, 1], o[mj, 2], F[0], F[1], F[2], T[0], T[1], T[2], -1.0, Q)
        base = a.out_adr[k]
        for i in range(3):
            out[base + i] = F[i]
            out[base + 3 + i] = T[i]
    return V
