"""The layout allocator: the one place that hands out addresses in the element-state vector z, the input vector u
and the element-output vector ``out``. Element families ask it for their blocks while they are lowered (in the
order of the family registry, compiler/families.py); nothing computes an address from another family's counts.

- ``states(values, owner)``: a block of z with its initial values; returns its address.
- ``inputs(element, signals)``: one address per declared input signal (model/interface.py), named
  ``<element>.<quantity>[k]`` as the input channels (model/names.py).
- ``outputs(element, signals)``: one contiguous block of ``out`` per element, the signals in declared order;
  ``output_slots`` maps each output channel name to its index in ``out``.
"""

from __future__ import annotations

import numpy as np

from ..model.interface import Signal, output_width


class Layout:
    """Addresses of element states, inputs and outputs, allocated in call order."""

    def __init__(self) -> None:
        self.z0: list[float] = []
        self.z_owner: list[str] = []             # element that owns each state (for error messages)
        self.input_names: list[str] = []
        self.n_out = 0
        self.output_slots: dict[str, int] = {}

    def states(self, values, owner: str) -> int:
        """Address of a new state block with initial ``values`` (a block of 0 values gets the current end)."""
        adr = len(self.z0)
        self.z0 += [float(v) for v in values]
        self.z_owner += [owner] * (len(self.z0) - adr)
        return adr

    def inputs(self, element: str, signals: tuple[Signal, ...]) -> list[int]:
        """Addresses of the declared input signals of ``element`` (one per scalar value), in order."""
        adrs = []
        for sig in signals:
            for k in range(sig.size):
                adrs.append(len(self.input_names))
                self.input_names.append(f"{element}.{sig.quantity}" + (f"[{k + 1}]" if sig.width else ""))
        return adrs

    def outputs(self, element: str, signals: tuple[Signal, ...]) -> int:
        """Address of the output block of ``element`` (its declared signals in order)."""
        adr = self.n_out
        for sig in signals:
            for k in range(sig.size):
                name = f"{element}.{sig.quantity}" + (f"[{k + 1}]" if sig.width else "")
                self.output_slots[name] = self.n_out
                self.n_out += 1
        assert self.n_out - adr == output_width(signals)
        return adr

    def z0_array(self) -> np.ndarray:
        return np.array(self.z0, dtype=float)
