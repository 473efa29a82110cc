#!/bin/bash
# probe.sh: run one of issue 11's lane-pattern probes. On a GPU machine with nvcc and ncu:
#
#   scripts/hw/probe.sh PROBE OUTDIR        # PROBE: atomics or constdiv
#
# builds scripts/hw/PROBE.cu and writes to OUTDIR:
#   PROBE-free.csv  every launch (see PROBE.cu) timed with CUDA events, no profiler, at
#                   the clocks the driver picks
#   PROBE-ncu.csv   the same launches once each under ncu --clock-control base, with the
#                   probe's counters (below) and the unit nearest its peak
#                   (gpu__compute_memory_throughput's breakdown); ncu's ID is the
#                   launch's id in PROBE-free.csv
#   PROBE.log       the whole run
# The runs that docs cite are traces/hw/<gpu>-<date>-PROBE/.
set -u
cd "$(dirname "$0")/../.."
PROBE=${1:?usage: scripts/hw/probe.sh atomics|constdiv OUTDIR}
OUTDIR=${2:?usage: scripts/hw/probe.sh atomics|constdiv OUTDIR}
WORK=${WORK:-/tmp/gtrace-$PROBE}
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,lts__cycles_elapsed.avg,smsp__inst_executed.sum
case $PROBE in
atomics) # L2 atomic requests and sectors by op, shared atomic wavefronts
	for op in red atom; do
		M=$M,lts__t_requests_srcunit_tex_op_$op.sum,lts__t_sectors_srcunit_tex_op_$op.sum
		M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum
	done
	M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed_op_shared_atom.sum ;;
constdiv) # the constant caches' requests and misses, and why warps wait
	M=$M,idc__requests.sum,idc__requests_lookup_hit.sum,idc__requests_lookup_miss.sum
	M=$M,smsp__average_warp_latency_issue_stalled_imc_miss.ratio,smsp__average_warp_latency_issue_stalled_no_instruction.ratio
	M=$M,smsp__pcsamp_warps_issue_stalled_imc_miss.sum,smsp__pcsamp_warps_issue_stalled_long_scoreboard.sum
	M=$M,smsp__pcsamp_warps_issue_stalled_short_scoreboard.sum,smsp__pcsamp_warps_issue_stalled_mio_throttle.sum
	M=$M,smsp__pcsamp_warps_issue_stalled_lg_throttle.sum,smsp__pcsamp_warps_issue_selected.sum,smsp__pcsamp_sample_count.sum ;;
*) echo "probe.sh: unknown probe $PROBE (want atomics or constdiv)"; exit 1 ;;
esac
M=$M,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/$PROBE.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory --format=csv
nvcc --version | tail -1
ncu --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/$PROBE" "scripts/hw/$PROBE.cu" || exit 1
cuobjdump -sass "$WORK/$PROBE" | grep -E 'Function|RED|ATOM|LDC' >"$WORK/sass.txt"
grep -c . "$WORK/sass.txt" && head -30 "$WORK/sass.txt"

echo "== free"
timeout 200 "$WORK/$PROBE" >"$OUTDIR/$PROBE-free.csv"
echo "exit $?"
cat "$OUTDIR/$PROBE-free.csv"

# Keep the counters this ncu has (a name it does not know fails the whole run).
ncu --query-metrics >"$WORK/query.txt" 2>&1
KEEP=
for m in ${M//,/ }; do
	case $m in
	breakdown:*) KEEP=$KEEP,$m ;;
	*) grep -q "^${m%%.*} " "$WORK/query.txt" && KEEP=$KEEP,$m || echo "ncu here lacks $m" ;;
	esac
done
M=${KEEP#,}
echo "== ncu"
timeout 400 ncu --cache-control all --clock-control base --replay-mode kernel --metrics "$M" \
	--export "$WORK/report" --force-overwrite "$WORK/$PROBE" once >"$WORK/once.csv" 2>"$WORK/ncu.err"
echo "exit $?"
grep -v '==PROF==' "$WORK/ncu.err" | tail -5
ncu --import "$WORK/report.ncu-rep" --csv --page details --print-units base >"$OUTDIR/$PROBE-ncu.csv"
wc -l "$OUTDIR/$PROBE-ncu.csv"
