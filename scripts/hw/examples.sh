#!/bin/bash
# examples.sh: what the example programs of examples/cuda print on a real GPU, for
# gtrace run's tests to compare with (issue 19: "the program's own output must be what
# it prints on a GPU"). On a GPU machine with nvcc:
#
#   scripts/hw/examples.sh OUTDIR [NAME...]
#
# builds each program (or only those NAMEd) as a user would for gtrace run (nvcc
# -cudart shared, PTX for compute_80 in the fat binary, which the driver compiles for
# the GPU at hand), runs it with the arguments of examples/cuda/runs.txt and writes to
# OUTDIR:
#   examples.txt   one block per run: "== NAME ARGS", what it printed on stdout, and
#                  "exit N"; stdout is a file, so the program's lines are buffered as
#                  they are when a test reads them
#   stderr.txt     the same runs' stderr, one "== NAME ARGS" block each
#   gpu.txt        the GPU, its driver and nvcc
#
# A program that needs an older CUDA than the machine's (texref.cu: texture references
# left CUDA in 12) is taken from $PREBUILT/NAME when that exists, built elsewhere with
# nvcc 11.8: -cudart static -gencode arch=compute_90,code=sm_90 -gencode
# arch=compute_80,code=compute_80 (the static runtime, since the machine's is newer).
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/examples.sh OUTDIR [NAME...]}
shift
WORK=${WORK:-/tmp/gtrace-examples}
mkdir -p "$OUTDIR" && rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
{
	nvidia-smi --query-gpu=name,driver_version --format=csv
	nvcc --version | tail -1
} >"$OUTDIR/gpu.txt" 2>&1
: >"$OUTDIR/examples.txt"
: >"$OUTDIR/stderr.txt"
while read -r name args; do
	case $name in '' | '#'*) continue ;; esac
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	if [ -n "${PREBUILT:-}" ] && [ -x "$PREBUILT/$name" ]; then
		cp "$PREBUILT/$name" "$WORK/$name"
	elif [ ! -x "$WORK/$name" ]; then
		nvcc -cudart shared -gencode arch=compute_80,code=compute_80 -o "$WORK/$name" "examples/cuda/$name.cu" || exit 1
	fi
	echo "== $name $args" >>"$OUTDIR/examples.txt"
	echo "== $name $args" >>"$OUTDIR/stderr.txt"
	# shellcheck disable=SC2086 # the arguments are words
	"$WORK/$name" $args >>"$OUTDIR/examples.txt" 2>>"$OUTDIR/stderr.txt"
	echo "exit $?" >>"$OUTDIR/examples.txt"
done <examples/cuda/runs.txt
cat "$OUTDIR/gpu.txt" "$OUTDIR/examples.txt"
