"""The 3D two-node beam element: 12 DOF, Euler-Bernoulli or Timoshenko, consistent mass.

Local axes: x along the beam (node 1 to node 2), y and z the principal axes of the section. Local DOF order
``[u1, v1, w1, rx1, ry1, rz1, u2, v2, w2, rx2, ry2, rz2]`` (m, rad). Bending in the x-y plane uses (v, rz) with
rz = dv/dx for Euler-Bernoulli; bending in the x-z plane uses (w, ry) with ry = -dw/dx.

Shear deformation (Timoshenko) uses the interdependent interpolation of Friedman & Kosmatka, "An improved two-node
Timoshenko beam finite element", Computers & Structures 47 (1993) 473-481: cubic deflection and quadratic rotation
shape functions that satisfy the homogeneous Timoshenko equations, so the stiffness is exact for end loads
(Przemieniecki, *Theory of Matrix Structural Analysis*, 1968, eq. 5.115) and the consistent mass
``rho A int N_v^T N_v dx + rho I int N_r^T N_r dx`` (translational + rotary inertia) is integrated from the same
functions. With Phi = 12 E I / (k G A L^2) = 0 they reduce to the cubic Hermite (Euler-Bernoulli) element.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError

# 5-point Gauss-Legendre on [0, 1]: exact for polynomials up to degree 9 (the mass integrands are degree 6)
_GX, _GW = np.polynomial.legendre.leggauss(5)
_XI = 0.5 * (_GX + 1.0)
_W = 0.5 * _GW

THEORIES = ("euler-bernoulli", "timoshenko")


@dataclass(frozen=True)
class BeamSection:
    """Section and material of a prismatic beam (SI units).

    E, G: Young's and shear moduli (Pa); A: area (m^2); Iy, Iz: second moments of area about the local y and z axes
    (m^4); J: torsion constant (m^4); rho: density (kg/m^3); ky, kz: shear correction factors for shear along local
    y (bending about z, uses Iz) and along local z (bending about y, uses Iy); Ip: polar moment of area for the
    torsional inertia (m^4, default Iy + Iz).
    """

    E: float
    G: float
    A: float
    Iy: float
    Iz: float
    J: float
    rho: float
    ky: float = 5.0 / 6.0
    kz: float = 5.0 / 6.0
    Ip: float | None = None

    def check(self, name: str = "section") -> None:
        """Raise ModelError listing every non-positive or non-finite property."""
        bad = [f"{name}: {k} = {getattr(self, k)!r} must be a positive finite number"
               for k in ("E", "G", "A", "Iy", "Iz", "J", "rho", "ky", "kz")
               if not (np.isfinite(getattr(self, k)) and getattr(self, k) > 0)]
        if self.Ip is not None and not (np.isfinite(self.Ip) and self.Ip > 0):
            bad.append(f"{name}: Ip = {self.Ip!r} must be a positive finite number")
        if bad:
            raise ModelError(bad)

    @property
    def polar(self) -> float:
        """Polar moment of area used for the torsional inertia rho*Ip (m^4)."""
        return self.Iy + self.Iz if self.Ip is None else self.Ip

    @staticmethod
    def rectangle(b: float, h: float, E: float, nu: float, rho: float, k: float | None = None) -> BeamSection:
        """Solid rectangle, width b along local y and height h along local z (m). k defaults to Cowper's
        10(1+nu)/(12+11nu); J from the series of Roark (Young & Budynas, Table 10.7, case 4)."""
        a, c = max(b, h) / 2.0, min(b, h) / 2.0
        J = a * c**3 * (16.0 / 3.0 - 3.36 * c / a * (1.0 - c**4 / (12.0 * a**4)))
        k = 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu) if k is None else k
        return BeamSection(E=E, G=E / (2.0 * (1.0 + nu)), A=b * h, Iy=b * h**3 / 12.0, Iz=h * b**3 / 12.0,
                           J=J, rho=rho, ky=k, kz=k)


def _bending_shapes(L: float, phi: float, xi: float | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                            np.ndarray]:
    """Deflection N_v, its slope dN_v/dx, rotation N_r and dN_r/dx at xi = x/L for DOFs (v1, r1, v2, r2),
    r = dv/dx - gamma (Friedman & Kosmatka 1993, eqs. 14-15); shape (4,) for a scalar xi, (4, n) for n points."""
    c = 1.0 / (1.0 + phi)
    nv = c * np.array([2 * xi**3 - 3 * xi**2 - phi * xi + 1 + phi,
                       L * (xi**3 - (2 + phi / 2) * xi**2 + (1 + phi / 2) * xi),
                       -(2 * xi**3 - 3 * xi**2 - phi * xi),
                       L * (xi**3 - (1 - phi / 2) * xi**2 - (phi / 2) * xi)])
    dnv = c / L * np.array([6 * xi**2 - 6 * xi - phi,
                            L * (3 * xi**2 - (4 + phi) * xi + (1 + phi / 2)),
                            -(6 * xi**2 - 6 * xi - phi),
                            L * (3 * xi**2 - (2 - phi) * xi - phi / 2)])
    nr = c * np.array([6.0 / L * (xi**2 - xi), 3 * xi**2 - (4 + phi) * xi + 1 + phi,
                       -6.0 / L * (xi**2 - xi), 3 * xi**2 - (2 - phi) * xi])
    dnr = c / L * np.array([6.0 / L * (2 * xi - 1), 6 * xi - (4 + phi), -6.0 / L * (2 * xi - 1), 6 * xi - (2 - phi)])
    return nv, dnv, nr, dnr


def bending_matrices(L: float, EI: float, kGA: float | None, rhoA: float, rhoI: float) -> tuple[np.ndarray, np.ndarray]:
    """4x4 stiffness and consistent mass of planar bending, DOFs (v1, r1, v2, r2), r = dv/dx - gamma.

    kGA None means Euler-Bernoulli (no shear). rhoI = 0 drops the rotary inertia. Integrated by 5-point Gauss, point
    by point: the mode shapes of a body whose frequencies come in equal pairs (a square section) are fixed only up
    to a rotation within each pair, which round-off decides, and model files store modal coordinates in that basis
    (a summation in another order changed it and moved models/flexible_boom.json's stored static start)."""
    phi = 0.0 if kGA is None else 12.0 * EI / (kGA * L * L)
    K = np.zeros((4, 4))
    M = np.zeros((4, 4))
    for xi, w in zip(_XI, _W):
        nv, dnv, nr, dnr = _bending_shapes(L, phi, xi)
        K += w * L * EI * np.outer(dnr, dnr)
        if kGA is not None:
            g = dnv - nr
            K += w * L * kGA * np.outer(g, g)
        M += w * L * (rhoA * np.outer(nv, nv) + rhoI * np.outer(nr, nr))
    return K, M


def local_matrices(L: float, s: BeamSection, theory: str = "timoshenko",
                   rotary_inertia: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """12x12 local stiffness and consistent mass of one element of length L (m).

    rotary_inertia defaults to True for Timoshenko and False for Euler-Bernoulli (the classical theories)."""
    if theory not in THEORIES:
        raise ModelError(f"beam theory '{theory}' is unknown; use one of {THEORIES}")
    if not (np.isfinite(L) and L > 0):
        raise ModelError(f"beam element length {L!r} must be positive (two nodes at the same place?)")
    rot = (theory == "timoshenko") if rotary_inertia is None else rotary_inertia
    timo = theory == "timoshenko"
    K = np.zeros((12, 12))
    M = np.zeros((12, 12))
    ax = np.array([0, 6])
    K[np.ix_(ax, ax)] = s.E * s.A / L * np.array([[1, -1], [-1, 1]])
    M[np.ix_(ax, ax)] = s.rho * s.A * L / 6.0 * np.array([[2, 1], [1, 2]])
    tor = np.array([3, 9])
    K[np.ix_(tor, tor)] = s.G * s.J / L * np.array([[1, -1], [-1, 1]])
    M[np.ix_(tor, tor)] = s.rho * s.polar * L / 6.0 * np.array([[2, 1], [1, 2]])
    # x-y plane: (v, rz), rz = dv/dx; shear along y (ky) with Iz
    kb, mb = bending_matrices(L, s.E * s.Iz, s.ky * s.G * s.A if timo else None, s.rho * s.A,
                              s.rho * s.Iz if rot else 0.0)
    idx = np.array([1, 5, 7, 11])
    K[np.ix_(idx, idx)] = kb
    M[np.ix_(idx, idx)] = mb
    # x-z plane: (w, ry), ry = -dw/dx; shear along z (kz) with Iy
    kb, mb = bending_matrices(L, s.E * s.Iy, s.kz * s.G * s.A if timo else None, s.rho * s.A,
                              s.rho * s.Iy if rot else 0.0)
    sign = np.diag([1.0, -1.0, 1.0, -1.0])
    idx = np.array([2, 4, 8, 10])
    K[np.ix_(idx, idx)] = sign @ kb @ sign
    M[np.ix_(idx, idx)] = sign @ mb @ sign
    return K, M


def element_rotation(x1: np.ndarray, x2: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Rows: the local x, y, z axes in global coordinates. Local x = x2 - x1; local y is the part of ``up``
    normal to x (so ``up`` fixes the section's orientation)."""
    ex = np.asarray(x2, float) - np.asarray(x1, float)
    ex = ex / np.linalg.norm(ex)
    ey = np.asarray(up, float) - np.dot(up, ex) * ex
    n = np.linalg.norm(ey)
    if n < 1e-9 * max(1.0, np.linalg.norm(up)):
        raise ModelError(f"beam orientation vector {list(up)} is parallel to the element axis {list(ex)}")
    ey /= n
    return np.vstack([ex, ey, np.cross(ex, ey)])


def global_matrices(x1: np.ndarray, x2: np.ndarray, up: np.ndarray, s: BeamSection, theory: str = "timoshenko",
                    rotary_inertia: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """12x12 stiffness and mass in global DOFs [ux uy uz rx ry rz] x 2 of the element from x1 to x2 (m)."""
    R = element_rotation(x1, x2, up)
    T = np.kron(np.eye(4), R)
    K, M = local_matrices(float(np.linalg.norm(np.asarray(x2, float) - x1)), s, theory, rotary_inertia)
    return T.T @ K @ T, T.T @ M @ T
