#!/bin/bash
# atomics.sh: issue 11's atomics probe. On a GPU machine with nvcc and ncu:
#
#   scripts/hw/atomics.sh OUTDIR
#
# builds scripts/hw/atomics.cu and writes to OUTDIR:
#   atomics-free.csv  every launch (see atomics.cu) timed with CUDA events, no profiler,
#                     at the clocks the driver picks
#   atomics-ncu.csv   the same launches once each under ncu --clock-control base: SM
#                     and L2 cycles, L2 atomic requests and sectors by op, shared
#                     atomic wavefronts, and the unit nearest its peak
#                     (gpu__compute_memory_throughput's breakdown); ncu's ID is the
#                     launch's id in atomics-free.csv
#   atomics.log       the whole run
# The run that docs cite is traces/hw/<gpu>-<date>-atomics/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/atomics.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-atomics}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/atomics.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory --format=csv
nvcc --version | tail -1
ncu --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/atomics" scripts/hw/atomics.cu || exit 1
cuobjdump -sass "$WORK/atomics" | grep -E 'Function|RED|ATOM' >"$WORK/sass.txt"
grep -c . "$WORK/sass.txt" && head -30 "$WORK/sass.txt"

echo "== free"
timeout 200 "$WORK/atomics" >"$OUTDIR/atomics-free.csv"
echo "exit $?"
cat "$OUTDIR/atomics-free.csv"

M=gpu__time_duration.sum,sm__cycles_elapsed.avg,lts__cycles_elapsed.avg,smsp__inst_executed.sum
for op in red atom; do
	M=$M,lts__t_requests_srcunit_tex_op_$op.sum,lts__t_sectors_srcunit_tex_op_$op.sum
	M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum
done
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed_op_shared_atom.sum
M=$M,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
echo "== ncu"
timeout 400 ncu --cache-control all --clock-control base --replay-mode kernel --metrics "$M" \
	--export "$WORK/report" --force-overwrite "$WORK/atomics" once >"$WORK/once.csv" 2>"$WORK/ncu.err"
echo "exit $?"
grep -v '==PROF==' "$WORK/ncu.err" | tail -5
ncu --import "$WORK/report.ncu-rep" --csv --page details --print-units base >"$OUTDIR/atomics-ncu.csv"
wc -l "$OUTDIR/atomics-ncu.csv"
