"""The FMU binary's sources: fmi2_shim.c (compiled per FMU by adapters/fmu_native.py), the FMI 2.0 headers, and the
Python the binary runs (shim_python.py). Not copied into FMUs, not part of the library copy's hash."""
