#!/bin/bash
# streamtime.sh: the streams probe (scripts/hw/streamtime.cu) on a real GPU, for
# gtrace plan's test (plan of the same program's gtrace run trace) to compare with.
# On a GPU machine with nvcc:
#
#   scripts/hw/streamtime.sh OUTDIR
#
# builds the probe as a user builds for gtrace run (nvcc -cudart shared, PTX for
# compute_80, which the driver compiles for the GPU at hand), runs it three times and
# writes to OUTDIR:
#   streamtime.txt  each run's lines ("kernel R MS", "case S B R MS"), "== run N" before each
#   gpu.txt         the GPU, its driver and nvcc
set -eu
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/streamtime.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-streamtime}
mkdir -p "$OUTDIR" "$WORK"
{
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
	nvcc --version | tail -1
} >"$OUTDIR/gpu.txt" 2>&1
nvcc -cudart shared -gencode arch=compute_80,code=compute_80 -o "$WORK/streamtime" scripts/hw/streamtime.cu
: >"$OUTDIR/streamtime.txt"
for n in 1 2 3; do
	echo "== run $n" >>"$OUTDIR/streamtime.txt"
	"$WORK/streamtime" >>"$OUTDIR/streamtime.txt"
done
cat "$OUTDIR/streamtime.txt"
