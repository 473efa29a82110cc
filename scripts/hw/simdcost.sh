#!/bin/bash
# simdcost.sh: run scripts/hw/simdcost.cu on a GPU machine with nvcc and ncu:
#
#   scripts/hw/simdcost.sh OUTDIR
#
# writes to OUTDIR:
#   simdcost.csv       name,arity per launch, in launch order
#   simdcost-ncu.csv   each launch under ncu: smsp__inst_executed.sum (warp-instructions);
#                      per call = launch - simdc_not's (unary) or simdc_xor's (binary)
#                      + 1, over 256 warps
#   simdcost-sass.txt  per kernel, its SASS opcodes and their static counts
#   simdcost.log       the whole run
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/simdcost.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-simdcost}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/simdcost.log") 2>&1

nvidia-smi --query-gpu=name,driver_version --format=csv
nvcc --version | tail -1
ncu --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/simdcost" scripts/hw/simdcost.cu || exit 1
cuobjdump -sass "$WORK/simdcost" >"$WORK/all.sass"
python3 scripts/hw/sass_ops.py "$WORK/all.sass" >"$OUTDIR/simdcost-sass.txt"
echo "== free"
timeout 100 "$WORK/simdcost" >"$OUTDIR/simdcost.csv"
echo "exit $?"
echo "== ncu"
timeout 400 ncu --metrics smsp__inst_executed.sum --csv --print-units base \
	"$WORK/simdcost" >"$OUTDIR/simdcost-ncu.csv" 2>"$WORK/ncu.err"
echo "exit $?"
tail -5 "$WORK/ncu.err"
wc -l "$OUTDIR/simdcost-ncu.csv"
