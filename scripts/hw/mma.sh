#!/bin/bash
# mma.sh: run scripts/hw/mma.cu (mma.sync values, latency and throughput) on a GPU
# machine with nvcc:
#
#   scripts/hw/mma.sh OUTDIR
#
# writes OUTDIR/mma-VARIANT.bin (the destination fragments), OUTDIR/mma.csv (input
# checksums, latency, throughput) and OUTDIR/mma.log (the whole run, with the SASS of
# every mma). The run the tests read is traces/hw/h100-2026-11-27-mma/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/mma.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-mma}
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/mma.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
nvcc --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/mma" scripts/hw/mma.cu || exit 1
cuobjdump -sass "$WORK/mma" | grep -E 'Function|HMMA' | sort | uniq -c | sort -rn | head -20
timeout 120 "$WORK/mma" "$OUTDIR" >"$OUTDIR/mma.csv"
echo "exit $?"
cat "$OUTDIR/mma.csv"
