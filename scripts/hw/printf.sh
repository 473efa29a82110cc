#!/bin/bash
# printf.sh: what device-side printf and assert print on a real GPU, and when
# (issue 19: "the program's own output must be what it prints on a GPU"). On a GPU
# machine with nvcc:
#
#   scripts/hw/printf.sh OUTDIR
#
# builds examples/cuda/printf.cu as examples.sh builds every example (nvcc -cudart
# shared, PTX for compute_80) and writes to OUTDIR:
#   examples.txt   examples.sh's blocks ("== NAME ARGS", stdout, "exit N") for the
#                  printf runs of examples/cuda/runs.txt; stdout is a file, so the
#                  host's lines are buffered as they are when a test reads them
#   stderr.txt     the same runs' stderr, one "== NAME ARGS" block each
#   gpuwrong.txt   "printf gpuwrong": the forms the GPU prints wrongly (hh, '*')
#   overflow.txt   "printf overflow N" for N up to past the default buffer (8 MiB on
#                  an H100 with CUDA 13): how many lines came out, the first and the
#                  last three
#   gpu.txt        the GPU, its driver and nvcc
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/printf.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-printf}
mkdir -p "$OUTDIR" && rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
{
	nvidia-smi --query-gpu=name,driver_version --format=csv
	nvcc --version | tail -1
} >"$OUTDIR/gpu.txt" 2>&1
nvcc -cudart shared -gencode arch=compute_80,code=compute_80 -o "$WORK/printf" examples/cuda/printf.cu || exit 1
: >"$OUTDIR/examples.txt"
: >"$OUTDIR/stderr.txt"
while read -r name args; do
	[ "$name" = printf ] || continue
	echo "== $name $args" >>"$OUTDIR/examples.txt"
	echo "== $name $args" >>"$OUTDIR/stderr.txt"
	# shellcheck disable=SC2086 # the arguments are words
	"$WORK/printf" $args >>"$OUTDIR/examples.txt" 2>>"$OUTDIR/stderr.txt"
	echo "exit $?" >>"$OUTDIR/examples.txt"
done <examples/cuda/runs.txt
"$WORK/printf" gpuwrong >"$OUTDIR/gpuwrong.txt" 2>&1
echo "exit $?" >>"$OUTDIR/gpuwrong.txt"
: >"$OUTDIR/overflow.txt"
for n in 1000 300000 1000000 3000000; do
	"$WORK/printf" overflow $n >"$WORK/overflow.out" 2>&1
	code=$?
	{
		echo "== printf overflow $n: exit $code, $(wc -l <"$WORK/overflow.out") lines, $(wc -c <"$WORK/overflow.out") bytes"
		head -3 "$WORK/overflow.out"
		echo ...
		tail -3 "$WORK/overflow.out"
	} >>"$OUTDIR/overflow.txt"
done
cat "$OUTDIR/gpu.txt" "$OUTDIR/examples.txt" "$OUTDIR/stderr.txt" "$OUTDIR/gpuwrong.txt" "$OUTDIR/overflow.txt"
