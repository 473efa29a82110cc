#!/bin/bash
# transfers.sh: host<->device copy times for the transfer model (issue 15, seed 000).
# On a GPU machine with nvcc:
#
#   scripts/hw/transfers.sh OUTDIR
#
# builds scripts/hw/transfers.cu and writes to OUTDIR:
#   transfers.csv   copy times, 4 KB to 256 MB, h2d and d2h, pinned and pageable,
#                   on the host (copy) and by CUDA events (event); pairs of copies
#                   on two streams; a kernel with and without a copy beside it
#   transfers.txt   the GPU, its PCIe link (generation and width, now and at most),
#                   the host CPU, nvcc, and the probe's # lines
# The runs docs cite are traces/hw/<gpu>-<date>-transfers/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/transfers.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-transfers}
mkdir -p "$OUTDIR" && rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
{
	nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv
	nvidia-smi topo -m 2>/dev/null | head -5
	grep -m1 'model name' /proc/cpuinfo
	nvcc --version | tail -1
} >"$OUTDIR/transfers.txt" 2>&1
nvcc -O2 -arch=sm_90 -o "$WORK/transfers" scripts/hw/transfers.cu || exit 1
"$WORK/transfers" >"$WORK/out.csv" || exit 1
grep '^#' "$WORK/out.csv" >>"$OUTDIR/transfers.txt"
# the link while copying (a GPU at idle may train its link down)
nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.width.current --format=csv >>"$OUTDIR/transfers.txt"
grep -v '^#' "$WORK/out.csv" >"$OUTDIR/transfers.csv"
cat "$OUTDIR/transfers.txt"
wc -l "$OUTDIR/transfers.csv"
