#!/bin/bash
# deviceprops.sh: what cudaGetDeviceProperties, cudaDeviceGetAttribute and cudaMemGetInfo
# say on a real GPU, built with CUDA 11's layout of cudaDeviceProp where the machine has
# it (the struct gtrace run's stand-in fills), else the machine's nvcc. On a GPU machine:
#
#   scripts/hw/deviceprops.sh OUTDIR      writes OUTDIR/deviceprops.txt and OUTDIR/gpu.txt
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/deviceprops.sh OUTDIR}
mkdir -p "$OUTDIR" || exit 1
{
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
	nvcc --version | tail -1
} >"$OUTDIR/gpu.txt" 2>&1
nvcc -o /tmp/deviceprops scripts/hw/deviceprops.cu && /tmp/deviceprops >"$OUTDIR/deviceprops.txt"
echo "exit $?" >>"$OUTDIR/deviceprops.txt"
cat "$OUTDIR/gpu.txt" "$OUTDIR/deviceprops.txt"
