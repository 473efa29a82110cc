#!/bin/bash
# loopcost.sh: run scripts/hw/loopcost.cu (a loop trip's cost, issue 11) on a GPU
# machine with nvcc:
#
#   scripts/hw/loopcost.sh OUTDIR
#
# writes to OUTDIR:
#   loopcost.csv       per loop, warps and trip count, the loop's cycles (see loopcost.cu)
#   loopcost-sass.txt  the SASS of the three kernels
#   loopcost.log       the whole run
# The run docs cite is traces/hw/<gpu>-<date>-loopcost/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/loopcost.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-loopcost}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/loopcost.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
nvcc --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/loopcost" scripts/hw/loopcost.cu || exit 1
cuobjdump -sass "$WORK/loopcost" | awk '/Function : /{on = ($3 ~ /^loop_/)} on' >"$OUTDIR/loopcost-sass.txt"
echo "== run"
timeout 100 "$WORK/loopcost" >"$OUTDIR/loopcost.csv"
echo "exit $?"
# cycles a trip: the difference between the two trip counts' slowest warps
python3 - "$OUTDIR/loopcost.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["loop"], int(r["warps"])), []).append((int(r["trips"]), int(r["cycles_max"])))
print("loop  warps  cycles/trip")
for (loop, w), v in by.items():
    (t0, c0), (t1, c1) = sorted(v)[:2]
    print("%-5s %5d  %.2f" % (loop, w, (c1 - c0) / (t1 - t0)))
PY
