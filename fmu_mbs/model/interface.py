"""What a force element shows to the outside: its output and input signals, declared once on the element class.

Each force element class declares ``OUTPUTS`` and ``INPUTS``: tuples of ``Signal`` (quantity, SI unit as an FMI
unit string, width: 0 for a scalar ``<element>.<quantity>``, n for a vector ``<element>.<quantity>[1..n]``).
The channel names (CSV columns, FMU variables) come from them (model/names.py), the compiler's layout allocator
gives each element an output block of that width in the same order (compiler/layout.py), and the element's kernel
writes its block in that order. An element whose signals depend on its data overrides ``outputs`` or ``inputs``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Signal:
    """One declared output or input of an element: ``quantity`` (name after the dot), SI ``unit`` (FMI notation,
    a key of names.UNITS), ``width`` (0: scalar; n: components 1..n) and ``doc``, what it means (default: the
    common meaning of the quantity's name, model/names.py)."""

    quantity: str
    unit: str
    width: int = 0
    doc: str = ""

    @property
    def size(self) -> int:
        """Number of scalar values (1 for a scalar)."""
        return max(self.width, 1)


class Interface:
    """Mixin of force element classes: the declared signals (override the methods where they depend on data)."""

    OUTPUTS: tuple[Signal, ...] = ()
    INPUTS: tuple[Signal, ...] = ()

    def outputs(self, model) -> tuple[Signal, ...]:
        """Output signals of this element in ``model`` (the kernel writes them in this order)."""
        return self.OUTPUTS

    def inputs(self) -> tuple[Signal, ...]:
        """Input signals of this element (the compiler gives each an address in the input vector u)."""
        return self.INPUTS


def output_width(signals: tuple[Signal, ...]) -> int:
    """Values in an element's output block."""
    return sum(s.size for s in signals)
