#!/bin/bash
# roofs.sh: the hierarchical roofline as Nsight Compute draws it, on this GPU. On a GPU
# machine (nvcc, ncu), with hwcheck built as collect.sh says:
#
#   scripts/hw/roofs.sh OUTDIR
#
# It runs the untiled and 16x16-tiled matrix multiplies of issue 15 (kernels.Lessons'
# sizes, both corpora; SIZES=default MATCH=REGEXP picks another hwcheck set) under ncu
# and records the bytes each level of the memory
# hierarchy moved (l1tex__t_bytes, lts__t_bytes, dram__bytes), each level's peak
# bytes per cycle (.peak_sustained: NVIDIA's own rate for the unit), the units' clocks,
# and the FP32 thread-instructions that ncu's roofline counts as FLOPs. It also copies
# ncu's roofline section files, which name the metrics ncu's own charts use.
#   OUTDIR/roofs.csv       ncu's CSV (base units)
#   OUTDIR/sections/       ncu's *Roofline* section files
#   OUTDIR/roofs.log       the run
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/roofs.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-roofs}
mkdir -p "$OUTDIR/sections"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/roofs.log") 2>&1

HWCHECK=${HWCHECK:-.hw/hwcheck}
if [ ! -x "$HWCHECK" ] && [ -f "$HWCHECK.gz" ]; then
	gunzip -c "$HWCHECK.gz" >"$WORK/hwcheck" && chmod +x "$WORK/hwcheck" && HWCHECK=$WORK/hwcheck
fi
"$HWCHECK" prepare -sizes "${SIZES:-lessons}" -match "${MATCH:-matmul_naive|tiled_matmul_bounds}" "$WORK" || exit 1
nvcc -O2 -o "$WORK/runner" kernels/hwcheck/runner.cu -lcuda || exit 1
JOBS=$(cd "$WORK/jobs" && ls -d *.clang-14 *.nvcc)
echo "jobs:" $JOBS

NCU=$(command -v ncu)
SECDIR=$(dirname "$(readlink -f "$NCU")")/sections
[ -d "$SECDIR" ] || SECDIR=$(find / -type d -name sections -path '*nsight-compute*' 2>/dev/null | head -1)
echo "sections: $SECDIR"
cp "$SECDIR"/*Roofline* "$OUTDIR/sections/" 2>/dev/null
ls "$OUTDIR/sections"
ncu --version

M=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second
M=$M,lts__cycles_elapsed.avg,lts__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second
for b in l1tex__t_bytes lts__t_bytes dram__bytes; do
	M=$M,$b.sum,$b.sum.peak_sustained,$b.sum.per_second,$b.sum.pct_of_peak_sustained_elapsed
done
M=$M,l1tex__t_sectors.sum,lts__t_sectors.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
# What ncu's hierarchical roofline charts (sections/SpeedOfLight_HierarchicalSingleRooflineChart):
# L1 bytes are 128 a cycle of L1 writeback to the SM, L2 bytes 32 a cycle of L2 to crossbar.
M=$M,l1tex__cycles_elapsed.avg.per_second,l1tex__t_requests.sum
for b in l1tex__lsu_writeback_active_mem_lgds lts__lts2xbar_cycles_active; do
	M=$M,$b.sum,$b.sum.peak_sustained
done
for op in fadd fmul ffma; do
	M=$M,smsp__sass_thread_inst_executed_op_${op}_pred_on.sum,smsp__sass_thread_inst_executed_op_${op}_pred_on.sum.peak_sustained
done
M=$M,sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained
mkdir -p "$WORK/run" && ln -s ../jobs "$WORK/run/jobs"
# shellcheck disable=SC2086
timeout 420 ncu --cache-control all --clock-control base --replay-mode kernel --metrics "$M" \
	--export "$WORK/report" --force-overwrite "$WORK/runner" "$WORK/jobs" "$WORK/run/out" $JOBS >"$WORK/ncu.log" 2>&1
echo "ncu exit $?"
grep -v '==PROF== Profiling' "$WORK/ncu.log" | tail -20
ncu --import "$WORK/report.ncu-rep" --csv --page details --print-units base >"$OUTDIR/roofs.csv"
wc -l "$OUTDIR/roofs.csv"
"$HWCHECK" verify "$WORK/run" | tail -3
