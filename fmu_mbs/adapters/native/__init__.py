"""The FMU binary's sources, compiled together per FMU by adapters/fmu_native.py: fmi2_shim.c (the FMI functions;
its header comment describes the binary) and its parts (instances.c, python_locate.c, python_start.c,
resource_uri.c, fmi2_states.c, fmi2_unsupported.c; shared declarations in shim.h), the FMI 2.0 headers (fmi2/),
and the Python the binary runs (shim_python.py). Not copied into FMUs, not part of the library copy's hash."""
