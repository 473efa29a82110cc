#!/bin/bash
# printf.sh: what device-side printf and assert print on a real GPU, and when
# (issue 19: "the program's own output must be what it prints on a GPU"). On a GPU
# machine with nvcc:
#
#   scripts/hw/printf.sh OUTDIR
#
# runs examples.sh for examples/cuda/printf.cu's runs of examples/cuda/runs.txt
# (examples.txt, stderr.txt, gpu.txt in OUTDIR), and writes to OUTDIR:
#   gpuwrong.txt   "printf gpuwrong": the forms the GPU prints wrongly (hh, '*')
#   overflow.txt   "printf overflow N" for N up to past the default buffer (8 MiB on
#                  an H100 with CUDA 13): how many lines came out, the first and the
#                  last three
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/printf.sh OUTDIR}
export WORK=${WORK:-/tmp/gtrace-printf}
scripts/hw/examples.sh "$OUTDIR" printf >/dev/null || exit 1
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
