#!/usr/bin/env bash
# The main job on the embedded reference kernels: capture transpose V1 (naive) and V3
# (shared memory, padded) on the CPU, inspect one trace, and compare both across
# architectures, then ask the advisor what V1 should change, and write both as one
# HTML page (report.html; scripts/report-screenshot.sh draws docs/report-demo.png from it).
set -euo pipefail
cd "$(dirname "$0")/.."
G=./bin/gtrace
mkdir -p traces/demo
$G kernels
$G capture transpose_v1 -o traces/demo/transpose_v1.gtrace
$G capture transpose_v3 -o traces/demo/transpose_v3.gtrace
$G inspect traces/demo/transpose_v1.gtrace
$G compare traces/demo/transpose_v1.gtrace --arch fermi,kepler,ampere,hopper
$G compare traces/demo/transpose_v1.gtrace traces/demo/transpose_v3.gtrace --arch fermi,hopper
$G advise traces/demo/transpose_v1.gtrace --arch hopper
$G report traces/demo/transpose_v1.gtrace traces/demo/transpose_v3.gtrace -o report.html
