"""Geometrically exact (Simo-Reissner) beam element between two node markers: linear interpolation, one-point
(reduced) integration, objective strains through the mid-point rotation (Crisfield & Jelenic, Proc. R. Soc. A 455
(1999) 1125-1147; Simo & Vu-Quoc, CMAME 58 (1986) 79-116).

Node frames R1, R2 (the markers' axes, world; column 1 along the beam, 2 and 3 the section's principal axes),
origins x1, x2, reference length L0 (m). With Q = R1^T R2 = exp(psi~) (psi: the relative rotation vector, in either
node's axes), the mid-point rotation Rm = R1 exp(psi~/2) and d = x2 - x1:

    Gamma = Rm^T d / L0 - Gamma0         (axial strain, two shear strains; 1)
    kappa = psi / L0 - kappa0            (twist, two curvatures; 1/m)
    N = diag(EA, GA_2, GA_3) Gamma,  M = diag(GJ, EI_2, EI_3) kappa     (section force N, moment N m; Rm axes)
    U = L0 (Gamma . N + kappa . M) / 2   (strain energy, J)

Gamma0, kappa0 are the strains of the initial configuration (a stress-free reference that may be curved). The
virtual work with spatial virtual rotations dth_i: dGamma = Rm^T (dd / L0 + d / L0 x dth_m), dpsi = Jr(psi)^-1
R2^T (dth_2 - dth_1), dth_m = dth_1 + B (dth_2 - dth_1), B = Rm Jr(psi/2) Jr(psi)^-1 R2^T / 2 (Jr: the right
Jacobian of SO(3), exp(psi + dpsi) = exp(psi) exp(Jr dpsi)), so with n = Rm N and m = R2 Jr(psi)^-T M the loads on
the nodes are exact gradients of U:

    F1 = n,  F2 = -n,  T1 = (I - B^T)(d x n) + m,  T2 = B^T (d x n) - m        (N, N m; world)

In a planar model (sv.dim = 2: both node frames turn about z) every rotation commutes: psi = (0, 0, th2 - th1)
(wrapped), Rm turns by th1 + psi / 2, Jr = I on z and B = 1/2, so T1 = (d x n) / 2 + m, T2 = (d x n) / 2 - m; that
case is evaluated in closed form (one atan2, no SO(3) maps), with the same result.

Damping (stiffness proportional, beta in s): N += beta C_N Gamma', M += beta C_M kappa' with Gamma' = Rm^T (d' + d x
w_m) / L0, kappa' = Jr^-1 R2^T (w2 - w1) / L0; it is switched off in MODE_CONSERVATIVE (dissipated work).
Outputs: N (3) and M (3) in the mid-point axes Rm. No element states.
"""

from __future__ import annotations

import math

from numba import njit

from ..inner import inner_kernel
from ..marker_loads import add_marker_wrench_pair
from ..model_arrays import FALSE, MODE_CONSERVATIVE, TRUE, arrays_type
from ..rotation import cross_v, dot_v

Arrays = arrays_type("GeBeamArrays", ["mi", "mj", "length", "stiffness", "beta", "strain0", "out_adr"], __name__,
                     "Arrays")
N_OUT = 6
N_STATES = 0
SMALL_ANGLE = 1e-4     # rad: below, the SO(3) series coefficients are taken from their Taylor expansions


@njit(cache=True, inline="always")
def frame(R, k):
    """Rows of marker k's axes matrix (its columns are the axes, world)."""
    return ((R[k, 0, 0], R[k, 0, 1], R[k, 0, 2]), (R[k, 1, 0], R[k, 1, 1], R[k, 1, 2]),
            (R[k, 2, 0], R[k, 2, 1], R[k, 2, 2]))


@njit(cache=True, inline="always")
def mv(A, v):
    """A v (A as rows)."""
    return dot_v(A[0], v), dot_v(A[1], v), dot_v(A[2], v)


@njit(cache=True, inline="always")
def mtv(A, v):
    """A^T v (A as rows)."""
    return (A[0][0] * v[0] + A[1][0] * v[1] + A[2][0] * v[2], A[0][1] * v[0] + A[1][1] * v[1] + A[2][1] * v[2],
            A[0][2] * v[0] + A[1][2] * v[1] + A[2][2] * v[2])


@njit(cache=True, inline="always")
def mtm(A, B):
    """A^T B (as rows)."""
    c0 = mtv(A, (B[0][0], B[1][0], B[2][0]))
    c1 = mtv(A, (B[0][1], B[1][1], B[2][1]))
    c2 = mtv(A, (B[0][2], B[1][2], B[2][2]))
    return (c0[0], c1[0], c2[0]), (c0[1], c1[1], c2[1]), (c0[2], c1[2], c2[2])


@njit(cache=True, inline="always")
def mm(A, B):
    """A B (as rows)."""
    c0 = mv(A, (B[0][0], B[1][0], B[2][0]))
    c1 = mv(A, (B[0][1], B[1][1], B[2][1]))
    c2 = mv(A, (B[0][2], B[1][2], B[2][2]))
    return (c0[0], c1[0], c2[0]), (c0[1], c1[1], c2[1]), (c0[2], c1[2], c2[2])


@inner_kernel(_nrt=False)
def log_so3(Q):
    """Rotation vector psi (rad) of the rotation matrix Q (rows), |psi| <= pi, through its unit quaternion
    (Shepperd's branch choice, accurate at every angle)."""
    tr = Q[0][0] + Q[1][1] + Q[2][2]
    if tr >= Q[0][0] and tr >= Q[1][1] and tr >= Q[2][2]:
        w = 0.5 * math.sqrt(max(1.0 + tr, 0.0))
        s = 0.25 / w
        x, y, z = (Q[2][1] - Q[1][2]) * s, (Q[0][2] - Q[2][0]) * s, (Q[1][0] - Q[0][1]) * s
    elif Q[0][0] >= Q[1][1] and Q[0][0] >= Q[2][2]:
        x = 0.5 * math.sqrt(max(1.0 + 2.0 * Q[0][0] - tr, 0.0))
        s = 0.25 / x
        w, y, z = (Q[2][1] - Q[1][2]) * s, (Q[0][1] + Q[1][0]) * s, (Q[0][2] + Q[2][0]) * s
    elif Q[1][1] >= Q[2][2]:
        y = 0.5 * math.sqrt(max(1.0 + 2.0 * Q[1][1] - tr, 0.0))
        s = 0.25 / y
        w, x, z = (Q[0][2] - Q[2][0]) * s, (Q[0][1] + Q[1][0]) * s, (Q[1][2] + Q[2][1]) * s
    else:
        z = 0.5 * math.sqrt(max(1.0 + 2.0 * Q[2][2] - tr, 0.0))
        s = 0.25 / z
        w, x, y = (Q[1][0] - Q[0][1]) * s, (Q[0][2] + Q[2][0]) * s, (Q[1][2] + Q[2][1]) * s
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    sn = math.sqrt(x * x + y * y + z * z)
    if sn < 1e-300:
        return 0.0, 0.0, 0.0
    f = 2.0 * math.atan2(sn, w) / sn
    return f * x, f * y, f * z


@inner_kernel(_nrt=False)
def exp_so3(v):
    """Rotation matrix (rows) of the rotation vector v (Rodrigues)."""
    th2 = dot_v(v, v)
    th = math.sqrt(th2)
    if th < SMALL_ANGLE:
        a = 1.0 - th2 / 6.0
        b = 0.5 - th2 / 24.0
    else:
        a = math.sin(th) / th
        b = (1.0 - math.cos(th)) / th2
    x, y, z = v
    return ((1.0 - b * (y * y + z * z), -a * z + b * x * y, a * y + b * x * z),
            (a * z + b * x * y, 1.0 - b * (x * x + z * z), -a * x + b * y * z),
            (-a * y + b * x * z, a * x + b * y * z, 1.0 - b * (x * x + y * y)))


@inner_kernel(_nrt=False)
def jr(v, w, transpose):
    """Jr(v) w, the right Jacobian of SO(3): I - (1 - cos t)/t^2 v~ + (t - sin t)/t^3 v~^2 (its transpose flips the
    sign of the v~ term)."""
    th2 = dot_v(v, v)
    th = math.sqrt(th2)
    if th < SMALL_ANGLE:
        a = 0.5 - th2 / 24.0
        b = 1.0 / 6.0 - th2 / 120.0
    else:
        a = (1.0 - math.cos(th)) / th2
        b = (th - math.sin(th)) / (th2 * th)
    if transpose:
        a = -a
    vw = cross_v(v, w)
    vvw = cross_v(v, vw)
    return w[0] - a * vw[0] + b * vvw[0], w[1] - a * vw[1] + b * vvw[1], w[2] - a * vw[2] + b * vvw[2]


@inner_kernel(_nrt=False)
def jr_inv(v, w, transpose):
    """Jr(v)^-1 w = w + v~ w / 2 + (1/t^2 - (1 + cos t) / (2 t sin t)) v~^2 w (transpose: -v~ w / 2)."""
    th2 = dot_v(v, v)
    th = math.sqrt(th2)
    if th < SMALL_ANGLE:
        c = 1.0 / 12.0 + th2 / 720.0
    else:
        c = 1.0 / th2 - (1.0 + math.cos(th)) / (2.0 * th * math.sin(th))
    h = -0.5 if transpose else 0.5
    vw = cross_v(v, w)
    vvw = cross_v(v, vw)
    return w[0] + h * vw[0] + c * vvw[0], w[1] + h * vw[1] + c * vvw[1], w[2] + h * vw[2] + c * vvw[2]


@inner_kernel(_nrt=False)
def strains(R1, R2, d, L0):
    """(Gamma, kappa, psi, Rm) of the current configuration, before the reference strains are subtracted."""
    psi = log_so3(mtm(R1, R2))
    Rm = mm(R1, exp_so3((0.5 * psi[0], 0.5 * psi[1], 0.5 * psi[2])))
    g = mtv(Rm, d)
    return (g[0] / L0, g[1] / L0, g[2] / L0), (psi[0] / L0, psi[1] / L0, psi[2] / L0), psi, Rm


@inner_kernel(_nrt=False)
def b_transpose(psi, Rm, R2, w):
    """B^T w = R2 Jr(psi)^-T Jr(psi/2)^T Rm^T w / 2 (module docstring)."""
    half = (0.5 * psi[0], 0.5 * psi[1], 0.5 * psi[2])
    v = jr_inv(psi, jr(half, mtv(Rm, w), TRUE), TRUE)
    u = mv(R2, v)
    return 0.5 * u[0], 0.5 * u[1], 0.5 * u[2]


@inner_kernel(_nrt=False)
def b_apply(psi, Rm, R2, w):
    """B w = Rm Jr(psi/2) Jr(psi)^-1 R2^T w / 2."""
    half = (0.5 * psi[0], 0.5 * psi[1], 0.5 * psi[2])
    u = mv(Rm, jr(half, jr_inv(psi, mtv(R2, w), FALSE), FALSE))
    return 0.5 * u[0], 0.5 * u[1], 0.5 * u[2]


@inner_kernel(_nrt=False, emit=True)
def add_forces(a, sv, q, mode, Q, out):
    """Q += the beam elements' internal forces on their node markers; writes N and M; returns the strain energy
    (J)."""
    V = 0.0
    o, R, vo, wm = sv.o, sv.R, sv.vo, sv.wm
    planar = sv.dim == 2
    for k in range(a.mi.shape[0]):
        if planar:
            V += add_planar_element(a, sv, q, mode, k, Q, out)
            continue
        i = a.mi[k]
        j = a.mj[k]
        L0 = a.length[k]
        C = a.stiffness[k]
        e0 = a.strain0[k]
        R1 = frame(R, i)
        R2 = frame(R, j)
        d = (o[j, 0] - o[i, 0], o[j, 1] - o[i, 1], o[j, 2] - o[i, 2])
        g, kap, psi, Rm = strains(R1, R2, d, L0)
        g = (g[0] - e0[0], g[1] - e0[1], g[2] - e0[2])
        kap = (kap[0] - e0[3], kap[1] - e0[4], kap[2] - e0[5])
        N = (C[0] * g[0], C[1] * g[1], C[2] * g[2])
        M = (C[3] * kap[0], C[4] * kap[1], C[5] * kap[2])
        V += 0.5 * L0 * (dot_v(g, N) + dot_v(kap, M))
        beta = a.beta[k]
        if beta > 0.0 and mode != MODE_CONSERVATIVE:
            w1 = (wm[i, 0], wm[i, 1], wm[i, 2])
            dw = (wm[j, 0] - w1[0], wm[j, 1] - w1[1], wm[j, 2] - w1[2])
            bw = b_apply(psi, Rm, R2, dw)
            wmid = (w1[0] + bw[0], w1[1] + bw[1], w1[2] + bw[2])
            dxw = cross_v(d, wmid)
            dd = (vo[j, 0] - vo[i, 0] + dxw[0], vo[j, 1] - vo[i, 1] + dxw[1], vo[j, 2] - vo[i, 2] + dxw[2])
            gd = mtv(Rm, dd)
            kd = jr_inv(psi, mtv(R2, dw), FALSE)
            N = (N[0] + beta * C[0] * gd[0] / L0, N[1] + beta * C[1] * gd[1] / L0, N[2] + beta * C[2] * gd[2] / L0)
            M = (M[0] + beta * C[3] * kd[0] / L0, M[1] + beta * C[4] * kd[1] / L0, M[2] + beta * C[5] * kd[2] / L0)
        n = mv(Rm, N)
        m = mv(R2, jr_inv(psi, M, TRUE))
        dxn = cross_v(d, n)
        bt = b_transpose(psi, Rm, R2, dxn)
        add_marker_wrench_pair(sv, q, i, j, n[0], n[1], n[2], dxn[0] - bt[0] + m[0], dxn[1] - bt[1] + m[1],
                               dxn[2] - bt[2] + m[2], bt[0] - m[0], bt[1] - m[1], bt[2] - m[2], Q)
        adr = a.out_adr[k]
        for c in range(3):
            out[adr + c] = N[c]
            out[adr + 3 + c] = M[c]
    return V


@njit(cache=True, _nrt=False, inline="always")
def planar_geometry(sv, i, j):
    """(psi, cm, sm, dx, dy) of a planar element between markers i, j: the relative angle psi = th2 - th1 (rad,
    wrapped), the mid-point axis (cos, sin of th1 + psi / 2) and the chord d = x2 - x1 (m)."""
    o, R = sv.o, sv.R
    c1, s1, c2, s2 = R[i, 0, 0], R[i, 1, 0], R[j, 0, 0], R[j, 1, 0]
    sp, cp = c1 * s2 - s1 * c2, c1 * c2 + s1 * s2          # sin, cos of psi = th2 - th1
    psi = math.atan2(sp, cp)
    ch = math.sqrt(max(0.5 * (1.0 + cp), 0.0))               # cos, sin of psi / 2 (|psi| < pi: ch > 0)
    sh = 0.5 * sp / ch if ch > 1e-150 else 1.0
    cm, sm = c1 * ch - s1 * sh, s1 * ch + c1 * sh            # the mid-point axis
    return psi, cm, sm, o[j, 0] - o[i, 0], o[j, 1] - o[i, 1]


@njit(cache=True, _nrt=False, inline="always")
def planar_damping(sv, i, j, cm, sm, dx, dy, L0, C, beta):
    """The damping parts (N, N, N m) of the section forces n0, n1 and moment mz: beta C times the strain rates
    Gamma' = R_m^T (d' + d x w_m) / L0, kappa' = (w2 - w1) / L0 (module docstring)."""
    vo, wm = sv.vo, sv.wm
    w1, w2 = wm[i, 2], wm[j, 2]
    wmid = 0.5 * (w1 + w2)
    ddx = vo[j, 0] - vo[i, 0] + wmid * dy                 # d' + d x w_m, w_m = (0, 0, wmid)
    ddy = vo[j, 1] - vo[i, 1] - wmid * dx
    return (beta * C[0] * (cm * ddx + sm * ddy) / L0, beta * C[1] * (cm * ddy - sm * ddx) / L0,
            beta * C[5] * (w2 - w1) / L0)


@njit(cache=True, _nrt=False, inline="always")
def add_planar_element(a, sv, q, mode, k, Q, out):
    """The planar case of add_forces for element k (module docstring); returns its strain energy (J)."""
    i = a.mi[k]
    j = a.mj[k]
    L0 = a.length[k]
    C = a.stiffness[k]
    e0 = a.strain0[k]
    psi, cm, sm, dx, dy = planar_geometry(sv, i, j)
    g0 = (cm * dx + sm * dy) / L0 - e0[0]
    g1 = (cm * dy - sm * dx) / L0 - e0[1]
    kz = psi / L0 - e0[5]
    n0, n1, mz = C[0] * g0, C[1] * g1, C[5] * kz
    V = 0.5 * L0 * (g0 * n0 + g1 * n1 + kz * mz)
    beta = a.beta[k]
    if beta > 0.0 and mode != MODE_CONSERVATIVE:
        d0, d1, dm = planar_damping(sv, i, j, cm, sm, dx, dy, L0, C, beta)
        n0 += d0
        n1 += d1
        mz += dm
    nx, ny = cm * n0 - sm * n1, sm * n0 + cm * n1
    half = 0.5 * (dx * ny - dy * nx)
    add_marker_wrench_pair(sv, q, i, j, nx, ny, 0.0, 0.0, 0.0, half + mz, 0.0, 0.0, half - mz, Q)
    adr = a.out_adr[k]
    out[adr] = n0
    out[adr + 1] = n1
    out[adr + 2] = 0.0
    out[adr + 3] = 0.0
    out[adr + 4] = 0.0
    out[adr + 5] = mz
    return V


@njit(cache=True, _nrt=False, inline="always")
def _entry(adj_ptr, adj_idx, b_row, b_col):
    """The adjacency entry e of column body b_col whose row body is b_row (Wx[e, i, s] = W[b_row coordinate i, b_col
    coordinate s], fd_force_jacobian's layout), or -1."""
    for e in range(adj_ptr[b_col], adj_ptr[b_col + 1]):
        if adj_idx[e] == b_row:
            return e
    return -1


@inner_kernel(_nrt=False)
def add_planar_tangent(a, sv, kq, kv, adj_ptr, adj_idx, Wx):
    """Wx += kq K + kv C of the planar elements, K = -dQ/dq, C = -dQ/dqd in the node bodies' coordinates (x, y,
    theta; planar bodies or the ground, frames of sv at q). In v = (d, phi_m, psi), d = x2 - x1 (the markers'
    origins), phi_m = (phi_1 + phi_2)/2, psi = phi_2 - phi_1, the strain energy U = L0/2 (C_N.g^2 + C_M kz^2) with
    g = R(phi_m)^T d / L0 - Gamma0 has the Hessian (p = dg/dphi_m = (gh_1, -gh_0), gh = R^T d / L0, N = C_N g the
    section force):

        U_dd = R C_N R^T / L0,  U_d,phi = R C_N p + R (-N_1, N_0),  U_phi,phi = L0 (p.C_N p - N.gh),  U_psi,psi = C_M/L0

    and the damping's velocity tangent is beta times its material part (the N terms dropped). The markers sit at o =
    r + a(theta) on their bodies: v = J y for the body coordinates y, plus the load term K[theta, theta] += a.F of each
    marker's force F. N includes the damping force at the frames' velocities; the damping rate's own dependence on q
    is left out (a Newton tangent, not the exact one). Returns the number of element blocks that found no adjacency
    entry (0 unless the pattern is wrong)."""
    o = sv.o
    lost = 0
    for k in range(a.mi.shape[0]):
        i = a.mi[k]
        j = a.mj[k]
        bi = sv.marker_body[i]
        bj = sv.marker_body[j]
        L0 = a.length[k]
        C = a.stiffness[k]
        e0 = a.strain0[k]
        beta = a.beta[k]
        _, cm, sm, dx, dy = planar_geometry(sv, i, j)
        gh0 = (cm * dx + sm * dy) / L0
        gh1 = (cm * dy - sm * dx) / L0
        n0, n1 = C[0] * (gh0 - e0[0]), C[1] * (gh1 - e0[1])
        if beta > 0.0:                      # the damping force at the frames' velocities (add_planar_element)
            d0, d1, _ = planar_damping(sv, i, j, cm, sm, dx, dy, L0, C, beta)
            n0 += d0
            n1 += d1
        p0, p1 = gh1, -gh0
        # material part (R C_N R^T / L0, R C_N p, L0 p.C_N p, C_M / L0) and the N terms
        cn0, cn1 = C[0] / L0, C[1] / L0
        hxx = cm * cm * cn0 + sm * sm * cn1
        hxy = cm * sm * (cn0 - cn1)
        hyy = sm * sm * cn0 + cm * cm * cn1
        mx = cm * C[0] * p0 - sm * C[1] * p1          # R C_N p
        my = sm * C[0] * p0 + cm * C[1] * p1
        mf = L0 * (C[0] * p0 * p0 + C[1] * p1 * p1)
        mp = C[5] / L0
        gx = -cm * n1 - sm * n0                       # R (-N_1, N_0)
        gy = -sm * n1 + cm * n0
        gf = -L0 * (n0 * gh0 + n1 * gh1)
        cw = kq + kv * beta                           # W_v = kq U'' + kv beta U''_material
        vdd = (cw * hxx, cw * hxy, cw * hyy)
        vdf = (cw * mx + kq * gx, cw * my + kq * gy)
        vff = cw * mf + kq * gf
        vpp = cw * mp
        # v = J y, y = (x1, y1, th1, x2, y2, th2): rows d_x, d_y, phi_m, psi
        ax1, ay1, ax2, ay2 = 0.0, 0.0, 0.0, 0.0          # marker offsets from the body origins (none on ground)
        if bi >= 0:
            ax1, ay1 = o[i, 0] - sv.r[bi, 0], o[i, 1] - sv.r[bi, 1]
        if bj >= 0:
            ax2, ay2 = o[j, 0] - sv.r[bj, 0], o[j, 1] - sv.r[bj, 1]
        Jx = (-1.0, 0.0, ay1, 1.0, 0.0, -ay2)
        Jy = (0.0, -1.0, -ax1, 0.0, 1.0, ax2)
        Jf = (0.0, 0.0, 0.5, 0.0, 0.0, 0.5)
        Jp = (0.0, 0.0, -1.0, 0.0, 0.0, 1.0)
        nx, ny = cm * n0 - sm * n1, sm * n0 + cm * n1     # the force on marker i (-n on j)
        load = (kq * (ax1 * nx + ay1 * ny), -kq * (ax2 * nx + ay2 * ny))
        for rb in range(2):
            for cb in range(2):
                b_row = bi if rb == 0 else bj
                b_col = bi if cb == 0 else bj
                if b_row < 0 or b_col < 0:                 # the ground has no coordinates
                    continue
                e = _entry(adj_ptr, adj_idx, b_row, b_col)
                if e < 0:
                    lost += 1
                    continue
                for ii in range(3):
                    r = 3 * rb + ii
                    ux = vdd[0] * Jx[r] + vdd[1] * Jy[r] + vdf[0] * Jf[r]     # (J^T W_v)[r, :]
                    uy = vdd[1] * Jx[r] + vdd[2] * Jy[r] + vdf[1] * Jf[r]
                    uf = vdf[0] * Jx[r] + vdf[1] * Jy[r] + vff * Jf[r]
                    up = vpp * Jp[r]
                    for ss in range(3):
                        c = 3 * cb + ss
                        Wx[e, ii, ss] += ux * Jx[c] + uy * Jy[c] + uf * Jf[c] + up * Jp[c]
                if rb == cb:
                    Wx[e, 2, 2] += load[rb]
    return lost
