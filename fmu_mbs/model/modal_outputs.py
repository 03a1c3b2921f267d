"""Output channels of floating modal bodies (model/elements.ModalBody), in this order per body ``b``:

- ``b.eta[1..m]`` the modal coordinates (1) and ``b.etad[1..m]`` their rates (1/s), m the body's mode count;
- per output node row n: ``b.node<n>.u[1..3]`` the node's elastic displacement Psi_t eta in the body frame (m)
  and ``b.node<n>.r[1..3]`` its world position r + A (x + Psi_t eta) (m);
- per stress point k (built-in beam): ``b.stress[k]`` the normal stress sigma_xx (Pa) at the point's section
  point, sum_j eta_j sigma_j from the stress modes (fe/recovery.py), and ``b.strain[k]`` = sigma_xx / E (1).

Values come from the coordinates alone (analyses/modal_channels.py)."""

from __future__ import annotations

from .elements import ModalBody

KIND = "modal_body"


def modal_body_channels(b: ModalBody) -> list:
    """The channels (model/names.Channel) of modal body ``b`` (module docstring)."""
    from .modal_data import modal_data  # fmu_mbs.fe (scipy) only for models with modal bodies
    from .names import Channel  # names.py imports this module

    m = modal_data(b).inv.n_modes
    out = [Channel(f"{b.name}.eta[{k}]", "1", b.name, "eta", k, KIND, "modal coordinate") for k in range(1, m + 1)]
    out += [Channel(f"{b.name}.etad[{k}]", "1/s", b.name, "etad", k, KIND, "modal coordinate rate")
            for k in range(1, m + 1)]
    for n in b.output_nodes:
        out += [Channel(f"{b.name}.node{n}.u[{k}]", "m", b.name, f"node{n}.u", k, KIND,
                        f"elastic displacement of node {n}, body frame") for k in (1, 2, 3)]
        out += [Channel(f"{b.name}.node{n}.r[{k}]", "m", b.name, f"node{n}.r", k, KIND,
                        f"world position of node {n}") for k in (1, 2, 3)]
    ns = len(b.stress_points)
    out += [Channel(f"{b.name}.stress[{k}]", "Pa", b.name, "stress", k, KIND, f"normal stress at stress point {k}")
            for k in range(1, ns + 1)]
    out += [Channel(f"{b.name}.strain[{k}]", "1", b.name, "strain", k, KIND, f"normal strain at stress point {k}")
            for k in range(1, ns + 1)]
    return out
