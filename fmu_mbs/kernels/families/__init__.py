"""Element-family kernels: one module per family, each with its arrays (``Arrays``, a named tuple), the width of
its output block (``N_OUT``, in the order its model class declares, model/interface.py), its states per element
(``N_STATES``) and ``add_forces`` (or the hook it needs). The stage list that calls them is kernels/forces.py; the
lowering and the registry are compiler/families.py. docs/adding-an-element.md walks through adding one."""
