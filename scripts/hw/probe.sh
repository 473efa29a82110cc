#!/bin/bash
# probe.sh: run one of issue 11's lane-pattern probes. On a GPU machine with nvcc and ncu:
#
#   scripts/hw/probe.sh PROBE OUTDIR        # PROBE: atomics, constdiv, writeback, dramrand, loadlat, rounds, streamlat, copylat, wbhome, linewait, ldgsts, ldsm, mbarrier, codefetch, reuse or wcombine
#
# builds scripts/hw/PROBE.cu and writes to OUTDIR:
#   PROBE-free.csv  every launch (see PROBE.cu) timed with CUDA events, no profiler, at
#                   the clocks the driver picks
#   PROBE-ncu.csv   the same launches once each under ncu --clock-control base, with the
#                   probe's counters (below) and the unit nearest its peak
#                   (gpu__compute_memory_throughput's breakdown); ncu's ID is the
#                   launch's id in PROBE-free.csv
#   PROBE.log       the whole run
# ARGS="..." passes more arguments to the probe's program (writeback: ARGS=sm for its
# per-SM part; reuse: ARGS=order for its orders and one-partition part). The runs that docs cite are traces/hw/<gpu>-<date>-PROBE/.
set -u
cd "$(dirname "$0")/../.."
PROBE=${1:?usage: scripts/hw/probe.sh atomics|constdiv|writeback|dramrand|loadlat|rounds|streamlat|copylat|wbhome|linewait|ldgsts|ldsm|mbarrier|codefetch|reuse|wcombine OUTDIR}
OUTDIR=${2:?usage: scripts/hw/probe.sh atomics|constdiv|writeback|dramrand|loadlat|rounds|streamlat|copylat|wbhome|linewait|ldgsts|ldsm|mbarrier|codefetch|reuse|wcombine OUTDIR}
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
writeback | reuse) # DRAM bytes, L2 lookups by source unit (the SMs' L1s, and the fabric between
	# the two L2 partitions), fills from DRAM
	M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__d_sectors_fill_device.sum
	M=$M,lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
	for u in tex ltcfabric; do
		M=$M,lts__t_requests_srcunit_$u.sum,lts__t_sectors_srcunit_$u.sum,lts__t_sectors_srcunit_${u}_lookup_hit.sum
		for op in read write; do
			M=$M,lts__t_sectors_srcunit_${u}_op_$op.sum,lts__t_sectors_srcunit_${u}_op_${op}_lookup_hit.sum
		done
	done ;;
ldgsts) # cp.async against ld+st: the global-load and shared-store counters (every
	# counter whose name has ldgsts is added from ncu's list below)
	M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
	M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum
	M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
	M=$M,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_global_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
	M=$M,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio ;;
mbarrier) # mbarrier against bar.sync: the shared-memory and instruction counters (every
	# counter whose name says mbarrier, syncs or barrier is added from ncu's list below)
	for op in ld st atom; do
		M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,smsp__inst_executed_op_shared_$op.sum
	done
	M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_branch.sum
	M=$M,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio
	M=$M,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio ;;
dramrand) # DRAM bytes and how busy DRAM, the L2 and the fabric are
	M=$M,dram__bytes_read.sum,dram__bytes_write.sum,dram__cycles_active.avg.pct_of_peak_sustained_elapsed
	M=$M,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__cycles_elapsed.avg,lts__t_sectors_srcunit_tex_op_read.sum
	M=$M,lts__t_sectors_lookup_hit.sum,lts__t_sectors.sum,lts__d_sectors_fill_device.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed ;;
loadlat) # DRAM bytes and how busy DRAM is, beside the chase's latency the probe prints
	M=$M,dram__bytes_read.sum,dram__bytes_write.sum,dram__cycles_active.avg.pct_of_peak_sustained_elapsed
	M=$M,lts__t_sectors_lookup_hit.sum,lts__t_sectors.sum ;;
rounds) # DRAM bytes, the L2's lookups, and how long warps wait and on what
	M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors.sum
	M=$M,smsp__pcsamp_warps_issue_stalled_long_scoreboard.sum,smsp__pcsamp_warps_issue_stalled_drain.sum
	M=$M,smsp__pcsamp_warps_issue_stalled_lg_throttle.sum,smsp__pcsamp_warps_issue_stalled_no_instruction.sum
	M=$M,smsp__pcsamp_warps_issue_stalled_imc_miss.sum,smsp__pcsamp_warps_issue_selected.sum,smsp__pcsamp_sample_count.sum
	M=$M,sm__warps_launched.sum,smsp__cycles_active.avg,sm__cycles_active.avg ;;
streamlat) # DRAM bytes and how busy DRAM and the L2 are, and how long warps wait and on what
	M=$M,dram__bytes_read.sum,dram__cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_lookup_hit.sum,lts__t_sectors.sum
	M=$M,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum
	M=$M,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
	M=$M,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio
	M=$M,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__cycles_active.avg ;;
copylat | wbhome) # DRAM bytes each way, how busy DRAM and the L2 are, and what warps wait on
	M=$M,dram__bytes_read.sum,dram__bytes_write.sum,dram__cycles_active.avg.pct_of_peak_sustained_elapsed
	M=$M,lts__t_sectors_lookup_hit.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
	M=$M,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__d_sectors_fill_device.sum
	M=$M,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio
	M=$M,smsp__average_warp_latency_issue_stalled_drain.ratio,smsp__cycles_active.avg
	for op in read write; do # what crosses between the two L2 partitions
		M=$M,lts__t_sectors_srcunit_ltcfabric_op_$op.sum,lts__t_sectors_srcunit_ltcfabric_op_${op}_lookup_hit.sum
	done
	M=$M,lts__t_requests_srcunit_ltcfabric.sum ;;
linewait) # DRAM bytes and the L2's lookups (every read should miss), and how busy DRAM is
	M=$M,dram__bytes_read.sum,dram__cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_lookup_hit.sum,lts__t_sectors.sum
	M=$M,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum ;;
codefetch) # what a launch reads from DRAM besides its data: DRAM and L2 reads by source
	# unit (names this ncu lacks are dropped below), and the instruction fetch stalls
	M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_op_read.sum
	M=$M,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,lts__d_sectors_fill_device.sum
	for u in tex gcc fbp ltcfabric pe host; do
		M=$M,lts__t_sectors_srcunit_$u.sum,lts__t_sectors_srcunit_${u}_op_read.sum,lts__t_sectors_srcunit_${u}_lookup_miss.sum
	done
	M=$M,smsp__pcsamp_warps_issue_stalled_no_instruction.sum,smsp__pcsamp_warps_issue_stalled_imc_miss.sum
	M=$M,smsp__pcsamp_sample_count.sum,sm__cycles_active.avg ;;
ldsm) # ldmatrix: the shared-load counters beside the ldsm ones (added from ncu's list below)
	M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
	M=$M,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum ;;
wcombine) # the L1's store sectors against the L2's write sectors from the SMs, and why warps wait
	M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
	M=$M,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_op_write.sum
	M=$M,dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
	M=$M,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio ;;
*) echo "probe.sh: unknown probe $PROBE (want atomics, constdiv, writeback, dramrand, loadlat, rounds, streamlat, copylat, wbhome, linewait, ldgsts, ldsm, mbarrier, codefetch, reuse or wcombine)"; exit 1 ;;
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
cuobjdump -sass "$WORK/$PROBE" | grep -E 'Function|RED|ATOM|LDC|STG|LDG|STS|LDS|DEPBAR|LDSM|SYNCS|BAR' >"$WORK/sass.txt"
grep -c . "$WORK/sass.txt" && head -30 "$WORK/sass.txt"
cuobjdump -sass "$WORK/$PROBE" >"$OUTDIR/$PROBE-sass.txt"

echo "== free"
timeout 200 "$WORK/$PROBE" ${ARGS:-} >"$OUTDIR/$PROBE-free.csv"
echo "exit $?"
cat "$OUTDIR/$PROBE-free.csv"

# Keep the counters this ncu has (a name it does not know fails the whole run).
ncu --query-metrics >"$WORK/query.txt" 2>&1
grep -E '^lts__t_sectors_srcunit_[a-z]+ ' "$WORK/query.txt" | awk '{print $1}' | tr '\n' ' '; echo
case $PROBE in
ldgsts | ldsm) # every counter named after the instruction
	grep -i "$PROBE" "$WORK/query.txt" >"$OUTDIR/$PROBE-metrics.txt"
	for m in $(grep -i "^[a-z_0-9]*${PROBE}[a-z_0-9]* *Counter" "$WORK/query.txt" | awk '{print $1}' | sort -u); do M=$M,$m.sum; done ;;
mbarrier)
	grep -iE "mbar|syncs|barrier" "$WORK/query.txt" >"$OUTDIR/$PROBE-metrics.txt"
	for m in $(grep -iE "^[a-z_0-9]*(mbar|syncs|barrier)[a-z_0-9]* *Counter" "$WORK/query.txt" | awk '{print $1}' | sort -u); do M=$M,$m.sum; done ;;
esac
KEEP=
for m in ${M//,/ }; do
	case $m in
	breakdown:*) KEEP=$KEEP,$m ;;
	*) grep -q "^${m%%.*} " "$WORK/query.txt" && KEEP=$KEEP,$m || echo "ncu here lacks $m" ;;
	esac
done
M=${KEEP#,}
echo "== ncu"
# Profile the probe's own kernels only (reuse's order part flushes and maps SMs first).
K=
[ "$PROBE" = reuse ] && K="--kernel-name regex:^reuse"
timeout 400 ncu --cache-control all --clock-control base --replay-mode kernel --metrics "$M" $K \
	--export "$WORK/report" --force-overwrite "$WORK/$PROBE" ${ARGS:-} once >"$WORK/once.csv" 2>"$WORK/ncu.err"
echo "exit $?"
grep -v '==PROF==' "$WORK/ncu.err" | tail -5
ncu --import "$WORK/report.ncu-rep" --csv --page details --print-units base >"$OUTDIR/$PROBE-ncu.csv"
wc -l "$OUTDIR/$PROBE-ncu.csv"
