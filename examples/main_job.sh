#!/usr/bin/env bash
# Main job: check every catalogue model, build every catalogue FMU (dist/), simulate the pendulum with the CLI,
# run the coupled crane demo through FMI stepping and the hydraulic-crane co-simulation (crane FMU + partner
# hydraulic cylinder FMU, 25 s at 0.5 ms: 5.4 s wall once the kernels are compiled, 2026-11-26 20:25 UTC at load 1.0)
# (CSV and PNG files in out/).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out
for model in models/*.json; do
    fmu-mbs check "$model"
done
python build_fmu.py -o dist
fmu-mbs simulate models/pendulum.json --t-end 10 --step 0.001 --output-step 0.01 --progress never \
    --out out/pendulum.csv --plot 'P1.r[*]' energy.total --plot-file out/pendulum.png
python integration/crane_pd_demo.py out
python integration/crane_hydraulic.py out
