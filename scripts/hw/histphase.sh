#!/bin/bash
# histphase.sh: run scripts/hw/histphase.cu (hist_warp's time phase by phase, issue 11)
# on a GPU machine with nvcc:
#
#   scripts/hw/histphase.sh OUTDIR
#
# writes to OUTDIR:
#   histphase.csv       per launch and block, the cycles of each phase (see histphase.cu)
#   histphase-sass.txt  the SASS of hist_warp and hist_warp_t
#   histphase.log       the whole run
# The run docs cite is traces/hw/<gpu>-<date>-histphase/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/histphase.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-histphase}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/histphase.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv
nvcc --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/histphase" scripts/hw/histphase.cu || exit 1
cuobjdump -sass "$WORK/histphase" | awk '/Function : /{on = ($3 == "hist_warp" || $3 == "hist_warp_t")} on' >"$OUTDIR/histphase-sass.txt"
echo "== run"
timeout 200 "$WORK/histphase" >"$OUTDIR/histphase.csv"
echo "exit $?"
nvidia-smi --query-gpu=clocks.sm --format=csv
grep "^#" "$OUTDIR/histphase.csv"
# per bins and mode: the mean of each phase over the blocks of each wave
python3 - "$OUTDIR/histphase.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#") and r[0] != "bins"]
acc = collections.defaultdict(list)
for r in rows:
    acc[(int(r[0]), int(r[1]), int(r[4]))].append([int(v) for v in r[5:10]])
print("bins mode wave blocks  start   zero  count reduce   span")
for k in sorted(acc):
    v = acc[k]
    m = [sum(c) / len(v) for c in zip(*v)]
    print("%4d %4d %4d %6d %6.0f %6.0f %6.0f %6.0f %6.0f" % (k + (len(v),) + tuple(m)))
PY
