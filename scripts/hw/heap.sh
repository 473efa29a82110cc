#!/bin/bash
# heap.sh: the device heap on a real GPU (scripts/hw/heap.cu) for several requested
# sizes, each in its own process (the size is fixed by the first kernel that calls
# malloc). On a GPU machine with nvcc: scripts/hw/heap.sh OUTDIR
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/heap.sh OUTDIR}
mkdir -p "$OUTDIR" || exit 1
nvcc -O2 -arch=sm_90 -o /tmp/gtrace-heap scripts/hw/heap.cu || exit 1
{
	nvidia-smi --query-gpu=name,driver_version --format=csv
	nvcc --version | tail -1
	for s in 0 1 4096 1048576 3145728 4194304 4194305 5000000 8388608 8388609 100000000; do
		echo "== heap $s"
		timeout 30 /tmp/gtrace-heap "$s" || echo "exit $?"
	done
} >"$OUTDIR/heap.txt" 2>&1
cat "$OUTDIR/heap.txt"
