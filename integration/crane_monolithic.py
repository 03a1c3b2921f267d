"""The hydraulic crane in one solver: the fmu-mbs ``crane`` model with its actuator replaced by fmu-mbs's own
hydraulic-cylinder element (kernels/hydraulics.py: pressures and spool integrated together with the multibody
model), the same cylinder data, the same static start and the same valve profile as the co-simulation
(crane_hydraulic.py). It is the reference that measures the co-simulation error (cosim_study.py).

    python integration/crane_monolithic.py [OUT_DIR] [--t-end 25] [--step 5e-5]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "partners"))

import crane_hydraulic as ch  # noqa: E402
from signal_source import VALVE_PROFILE  # noqa: E402

from fmu_mbs.analyses.channels import evaluate_channels  # noqa: E402
from fmu_mbs.analyses.simulate import simulate  # noqa: E402
from fmu_mbs.compiler import compile_model  # noqa: E402
from fmu_mbs.model import ModelBuilder, load_model  # noqa: E402
from fmu_mbs.model.functions import Table  # noqa: E402
from fmu_mbs.model.names import channel_names  # noqa: E402

PERIOD = 10.0


def valve_table(t_end: float) -> Table:
    """The partner signal source's periodic valve reference as one linear table up to t_end (s)."""
    times, values = [], []
    for k in range(math.ceil(t_end / PERIOD) + 1):
        for tk, yk in VALVE_PROFILE:
            t = k * PERIOD + tk
            if times and t <= times[-1]:
                continue
            times.append(t)
            values.append(yk)
    return Table(tuple(times), tuple(values), "linear")


def monolithic_model(force: float, t_end: float):
    """The crane with the hydraulic cylinder element 'cylinder' (markers of the catalogue actuator), started at the
    pressures that hold ``force`` (N) with the valve centred (crane_hydraulic.equilibrium_pressures)."""
    b = ModelBuilder.from_model(load_model(ch.MODEL))
    b.remove("cylinder")
    p1, p2 = ch.equilibrium_pressures(force)
    b.add_hydraulic_cylinder("cylinder", "cylinder_base", "boom_mount", ch.S_RETRACTED, valve=valve_table(t_end),
                             stroke=ch.STROKE, piston_diameter=ch.PISTON_D, rod_diameter=ch.ROD_D,
                             pump_pressure=ch.P_PUMP, tank_pressure=ch.P_TANK, p1_start=p1, p2_start=p2)
    return compile_model(b.build())


def run(t_end: float, step: float = 5e-5, output_step: float = 5e-4, force: float | None = None) -> dict:
    """Boom angle and cylinder states of the monolithic crane at every output_step (s)."""
    force = ch.holding_force() if force is None else force
    cm = monolithic_model(force, t_end)
    start = time.perf_counter()
    tr = simulate(cm, t_end, step, output_step=output_step)
    wall = time.perf_counter() - start
    ch_values = evaluate_channels(cm, tr)
    names = channel_names(cm.model)
    out = {"time": tr.t, "wall_time": wall, "force": force}
    for name in ("boom_hinge.s", "cylinder.p1", "cylinder.p2", "cylinder.U", "cylinder.force", "cylinder.length"):
        out[name] = ch_values[:, names.index(name)]
    return out


def monolithic_reference(fmus, force: float, t_end: float) -> tuple[np.ndarray, np.ndarray, dict]:
    """The reference of cosim_study.study: (times, boom angle, info)."""
    res = run(t_end, force=force)
    return res["time"], res["boom_hinge.s"], {"label": "monolithic fmu-mbs, h = 0.05 ms",
                                              "wall_time": res["wall_time"]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="out")
    parser.add_argument("--t-end", type=float, default=25.0)
    parser.add_argument("--step", type=float, default=5e-5)
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res = run(args.t_end, args.step)
    path = out / "crane_monolithic.csv"
    keys = [k for k in res if isinstance(res[k], np.ndarray)]
    np.savetxt(path, np.column_stack([res[k] for k in keys]), delimiter=",", header=",".join(keys), comments="")
    th = res["boom_hinge.s"]
    print(f"monolithic hydraulic crane ({args.t_end} s, h = {args.step} s): boom angle {math.degrees(th.min()):.3f} "
          f".. {math.degrees(th.max()):.3f} deg; {res['wall_time']:.1f} s wall; wrote {path}")


if __name__ == "__main__":
    main()
