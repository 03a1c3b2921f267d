"""Layer 4: analyses over a compiled model (assembly, kinematics, statics, inverse dynamics, integrators,
output channels). Plain Python and numpy/scipy; all numba code they run lives in fmu_mbs.kernels."""
