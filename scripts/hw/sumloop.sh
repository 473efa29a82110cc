#!/bin/bash
# sumloop.sh: run scripts/hw/sumloop.cu (a trip of hist_warp's summing loop, issue 11)
# on a GPU machine with nvcc, over the PTX of replay/testdata/sumloop.ptx (clang-14)
# and sumloop.nvcc.ptx (nvcc):
#
#   scripts/hw/sumloop.sh OUTDIR
#
# writes to OUTDIR:
#   sumloop.csv        per PTX, kernel, warps and passes, the timed cycles (see sumloop.cu)
#   sumloop-sass.txt   the SASS ptxas makes of each PTX for the GPU (as the driver's JIT does)
#   sumloop.log        the whole run
# The run docs cite is traces/hw/<gpu>-<date>-sumloop/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/sumloop.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-sumloop}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/sumloop.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
nvcc --version | tail -1
ARCH=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
nvcc -O3 -arch="$ARCH" -o "$WORK/sumloop" scripts/hw/sumloop.cu -lcuda || exit 1
: >"$OUTDIR/sumloop-sass.txt"
for p in replay/testdata/sumloop.ptx replay/testdata/sumloop.nvcc.ptx; do
	echo "==== $p (ptxas -arch=$ARCH)" >>"$OUTDIR/sumloop-sass.txt"
	ptxas -O3 -arch="$ARCH" -o "$WORK/k.cubin" "$p" && cuobjdump -sass "$WORK/k.cubin" >>"$OUTDIR/sumloop-sass.txt"
done
echo "== run"
timeout 100 "$WORK/sumloop" replay/testdata/sumloop.ptx replay/testdata/sumloop.nvcc.ptx >"$OUTDIR/sumloop.csv"
echo "exit $?"
# cycles a trip: the slowest warps' difference between 2 passes and 1, over a pass's
# trips (bins over the block's threads)
python3 - "$OUTDIR/sumloop.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    k = (r["ptx"], r["kernel"], int(r["warps"]), int(r["bins"]), int(r["copies"]))
    by.setdefault(k, {})[int(r["reps"])] = int(r["cycles_max"])
print("ptx                 kernel     warps  bins copies  cycles/trip")
for (ptx, k, w, b, c), v in by.items():
    print("%-19s %-10s %5d %5d %6d  %.1f" % (ptx, k, w, b, c, (v[2] - v[1]) / (b / (32 * w))))
PY
