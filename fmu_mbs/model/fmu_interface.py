"""The interface an FMU of a model declares: which inputs and outputs (of model/names.py) become FMU variables.

- **Inputs**: the declared inputs of the force elements (``<actuator>.f``, ``<cylinder>.Uref``, ``<passive>.f``)
  and external drivers as always, and a force ``<m>.F[1..3]`` and torque ``<m>.T[1..3]`` only at markers whose
  ``port`` is true (a master or a Simulink block then sees only the ports the model means to offer).
- **Outputs**: the model's ``fmu_outputs``; without it, the default set of every element (``DEFAULT_OUTPUTS``):
  a marker's position and velocity (a port marker's also orientation and angular velocity, what a partner
  applying a force there needs), a joint's coordinates and rates, a driver's effort, every output of a force
  element, the three energies. An entry of ``fmu_outputs`` is a channel name (``P1.r[1]``), ``<element>.<quantity>``
  (``pin.F``: every component), an element name (every channel of it), or ``default`` (the default set).

The CSV results of the library keep every channel; the FMU computes them all too and only declares these.
"""

from __future__ import annotations

from .elements import Model
from .names import Channel, channels, input_channels

#: quantities an element kind declares as FMU outputs by default (kinds missing here: every quantity)
DEFAULT_OUTPUTS: dict[str, tuple[str, ...]] = {
    "marker": ("r", "v"),
    "port marker": ("r", "v", "q", "phi", "w"),
    "joint": ("s", "sd"),
    "driver": ("f",),
    "energy": ("kinetic", "potential", "total", "dissipated", "input"),
    "solver": (),
}


def fmu_inputs(model: Model) -> list[int]:
    """Positions in ``input_channels(model)`` of the inputs an FMU declares (every input of a marker that is not
    a port is left out; it stays zero)."""
    ports = {m.name for m in model.markers if m.port}
    return [k for k, c in enumerate(input_channels(model)) if c.kind != "marker" or c.element in ports]


def _default(c: Channel, ports: set[str]) -> bool:
    kind = "port marker" if c.kind == "marker" and c.element in ports else c.kind
    return c.quantity in DEFAULT_OUTPUTS.get(kind, (c.quantity,))


def _matches(entry: str, c: Channel) -> bool:
    return entry in (c.name, c.element, f"{c.element}.{c.quantity}")


def fmu_outputs(model: Model) -> list[int]:
    """Positions in ``channels(model)`` of the outputs an FMU declares, in channel order."""
    ports = {m.name for m in model.markers if m.port}
    entries = model.fmu_outputs or ("default",)
    use_default = "default" in entries
    return [k for k, c in enumerate(channels(model))
            if (use_default and _default(c, ports)) or any(_matches(e, c) for e in entries)]


def fmu_output_problems(model: Model) -> list[str]:
    """Entries of ``fmu_outputs`` that name no channel of the model (with close matches), and repeated entries."""
    import difflib

    chans = channels(model)
    problems = []
    known = sorted({c.name for c in chans} | {c.element for c in chans}
                   | {f"{c.element}.{c.quantity}" for c in chans})
    for entry in model.fmu_outputs:
        if entry != "default" and not any(_matches(entry, c) for c in chans):
            close = difflib.get_close_matches(entry, known, n=3)
            problems.append(f"fmu_outputs: '{entry}' is no channel, '<element>.<quantity>' or element of model "
                            f"'{model.name}'" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    if len(set(model.fmu_outputs)) != len(model.fmu_outputs):
        problems.append("fmu_outputs: an entry is listed twice")
    return problems
