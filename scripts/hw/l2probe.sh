#!/bin/bash
# l2probe.sh: where does a warp request that touches many 128-byte lines spend its
# time? On a GPU machine (nvcc, ncu), with hwcheck built as collect.sh says:
#
#   scripts/hw/l2probe.sh OUTDIR
#
# It runs the coalescing granularity kernels (clang-14 corpus, default sizes) under
# ncu and records, for each one, every L1TEX-to-L2 and L2 tag/sector counter this ncu
# has, with the counter's per-cycle peak (.peak_sustained: NVIDIA's own rate for the
# unit) and its share of that peak, plus the breakdown of
# gpu__compute_memory_throughput (the unit nearest its peak is the limiter).
# OUTDIR/l2probe.csv is ncu's CSV (base units); OUTDIR/l2probe.log is the run. The H200 run
# of 2026-11-21 is traces/hw/h200-2026-11-21-l2probe.csv (what models/arch cites as
# "scripts/hw/l2probe.sh").
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/l2probe.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-l2probe}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/l2probe.log") 2>&1

HWCHECK=${HWCHECK:-.hw/hwcheck}
if [ ! -x "$HWCHECK" ] && [ -f "$HWCHECK.gz" ]; then
	gunzip -c "$HWCHECK.gz" >"$WORK/hwcheck" && chmod +x "$WORK/hwcheck" && HWCHECK=$WORK/hwcheck
fi
"$HWCHECK" prepare -sizes default "$WORK" || exit 1
nvcc -O2 -o "$WORK/runner" kernels/hwcheck/runner.cu -lcuda || exit 1
JOBS="test_coalesced.clang-14 test_offset_2.clang-14 test_offset_8.clang-14 test_offset_32.clang-14 test_scattered.clang-14"

ncu --query-metrics >"$WORK/query.txt" 2>&1
# Base names of the L1TEX<->crossbar, crossbar and L2 tag/sector/data counters.
BASES=$(awk '{print $1}' "$WORK/query.txt" | grep -E '^(l1tex__m_|lts__t_(requests|sectors|tag_requests)$|lts__t_requests_srcunit_tex$|lts__t_sectors_srcunit_tex$|lts__d_|lts__xbar|lts__cycles_(active|elapsed)$|xbar__|ltc__|dram__(sectors|bytes|cycles_elapsed)$)' | sort -u)
echo "bases:"; echo "$BASES"
M="sm__cycles_elapsed.avg,lts__cycles_elapsed.avg,gpu__time_duration.sum,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
for b in $BASES; do
	case $b in
	*cycles_elapsed | *cycles_active) M="$M,$b.avg" ;;
	*) M="$M,$b.sum,$b.sum.peak_sustained,$b.sum.pct_of_peak_sustained_elapsed" ;;
	esac
done
mkdir -p "$WORK/run" && ln -s ../jobs "$WORK/run/jobs"
# shellcheck disable=SC2086
timeout 420 ncu --cache-control all --clock-control base --replay-mode kernel --metrics "$M" \
	--export "$WORK/report" --force-overwrite "$WORK/runner" "$WORK/jobs" "$WORK/run/out" $JOBS >"$WORK/ncu.log" 2>&1
echo "ncu exit $?"
grep -v '==PROF== Profiling' "$WORK/ncu.log" | tail -20
ncu --import "$WORK/report.ncu-rep" --csv --page details --print-units base >"$OUTDIR/l2probe.csv"
wc -l "$OUTDIR/l2probe.csv"
"$HWCHECK" verify "$WORK/run" | tail -3
