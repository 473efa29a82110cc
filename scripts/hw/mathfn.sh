#!/bin/bash
# mathfn.sh: run scripts/hw/mathfn.cu on a GPU machine with nvcc and ncu:
#
#   scripts/hw/mathfn.sh OUTDIR
#
# writes to OUTDIR:
#   values/NAME.bin   each function's inputs and CUDA's results (see mathfn.cu)
#   mathfn.csv        name,type,n,ms per function, no profiler
#   mathfn-ncu.csv    each launch once under ncu: smsp__inst_executed.sum (warp-
#                     instructions); per call = (launch - copy kernel) / warps
#   mathfn-sass.txt   per kernel, its SASS opcodes and their static counts
#   mathfn.log        the whole run
# The run docs cite is traces/hw/<gpu>-<date>-mathfn/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/mathfn.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-mathfn}
mkdir -p "$OUTDIR/values"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/mathfn.log") 2>&1

nvidia-smi --query-gpu=name,driver_version --format=csv
nvcc --version | tail -1
ncu --version | tail -1
nvcc -O3 -arch=sm_90 --extended-lambda -o "$WORK/mathfn" scripts/hw/mathfn.cu || exit 1
cuobjdump -sass "$WORK/mathfn" >"$WORK/all.sass"
python3 scripts/hw/sass_ops.py "$WORK/all.sass" >"$OUTDIR/mathfn-sass.txt"
echo "== free"
timeout 200 "$WORK/mathfn" "$OUTDIR" >"$OUTDIR/mathfn.csv"
echo "exit $?"
cat "$OUTDIR/mathfn.csv"
echo "== ncu"
mkdir -p "$WORK/values"
timeout 400 ncu --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum --csv --print-units base \
	"$WORK/mathfn" "$WORK" once >"$OUTDIR/mathfn-ncu.csv" 2>"$WORK/ncu.err"
echo "exit $?"
tail -5 "$WORK/ncu.err"
wc -l "$OUTDIR/mathfn-ncu.csv"
