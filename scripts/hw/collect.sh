#!/bin/bash
# collect.sh: hardware ground truth for `gtrace validate`, on a machine with an NVIDIA
# GPU, nvcc and Nsight Compute (ncu). No Go is needed there: build hwcheck elsewhere.
#
#   CGO_ENABLED=0 go build -ldflags='-s -w' -o .hw/hwcheck ./kernels/hwcheck   # here
#   scripts/hw/collect.sh OUTDIR                                              # there
#
# It runs every reference kernel from both PTX corpora at its default launch (the
# sizes `gtrace capture KERNEL` uses), or with SIZES=heldout the launches of the
# held-out validation set (kernels.HeldOut, named KERNEL@SIZE=VALUE,...), or with
# SIZES=lessons those of issue 15's seed lessons (kernels.Lessons), under ncu,
# and writes into OUTDIR:
#   <gpu>-<date>[-heldout|-lessons].csv  the ground truth: # header, then kernel,producer,metric,unit,value
#   <gpu>-<date>[-heldout|-lessons].txt  sidecar: environment, the exact commands, verify results,
#                         ptxas register counts, metrics this ncu lacks
#   ncu-<producer>.csv    ncu's own CSV, for re-tidying
#   report-<producer>.ncu-rep  ncu's report (when under 15 MB), for other views
#   sass.tar.gz           ptxas -arch=sm_XX output (cuobjdump -sass) of every PTX file,
#                         to explain PTX-vs-SASS differences
#   collect.log           everything the steps printed
#
# The kernels load their PTX through the CUDA driver API (kernels/hwcheck/runner.cu:
# cuModuleLoadData JIT-compiles it, as cupy.RawModule does); hwcheck writes every
# input from the same argument specs a capture uses and checks every output against
# the Go references, so a wrong launch is caught before its counters are kept.
#
# Idempotent: it works under WORK (default /tmp/gtrace-hw, wiped first) and writes
# only OUTDIR. Environment: SIZES (default, heldout or lessons; default default), MATCH
# (a regular expression: only the set's launches whose name matches, e.g. '^hist_'),
# NVCC_PTX (fresh: compile kernels/cu with this machine's nvcc, run those launches from
# it instead of the nvcc corpus built into hwcheck, and write it to OUTDIR/ptx-nvcc for
# committing: how a new kernel's nvcc PTX is made, since nvcc lives here), HWCHECK
# (default .hw/hwcheck, or .hw/hwcheck.gz unpacked),
# NCU_TIMEOUT seconds per corpus (default 300), CLOCK_CONTROL (base; falls back to none
# if ncu cannot lock clocks here).
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/collect.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-hw}
NCU_TIMEOUT=${NCU_TIMEOUT:-300}
CLOCK_CONTROL=${CLOCK_CONTROL:-base}
SIZES=${SIZES:-default}
MATCH=${MATCH:-}
NVCC_PTX=${NVCC_PTX:-}
case $NVCC_PTX in "" | fresh) ;; *) echo "collect.sh: NVCC_PTX=$NVCC_PTX: want fresh or nothing"; exit 1 ;; esac
case $SIZES in default | heldout | lessons) ;; *) echo "collect.sh: SIZES=$SIZES: want default, heldout or lessons"; exit 1 ;; esac
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
LOG=$OUTDIR/collect.log
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$LOG") 2>&1
step() { echo; echo "== $(date -u +%H:%M:%S) $*"; }

HWCHECK=${HWCHECK:-.hw/hwcheck}
if [ ! -x "$HWCHECK" ] && [ -f "$HWCHECK.gz" ]; then
	gunzip -c "$HWCHECK.gz" >"$WORK/hwcheck" && chmod +x "$WORK/hwcheck" && HWCHECK=$WORK/hwcheck
fi
[ -x "$HWCHECK" ] || { echo "collect.sh: no hwcheck at $HWCHECK (build it with Go, see above)"; exit 1; }

# Metrics: the ncu names replay/counters.go reports; what the model does not (cycles,
# time, registers, occupancy, SASS instruction counts) for context; and L2 counts split
# by source unit, since lts__t_sector_hit_rate.pct also counts traffic that is not the
# SMs' L1/TEX misses (and reads above 100% on tiny kernels, research/hw-facts.md §6).
# The SM and L2 clocks of each launch let validate replay at them (--clock-control base
# runs a GH100's SMs at 1500-1590 MHz, not the preset's 1980: research/hw-facts.md §8).
METRICS="
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
l1tex__t_sector_hit_rate.pct l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
lts__t_sector_hit_rate.pct lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
lts__t_sectors_srcunit_tex_op_atom.sum lts__t_sectors_srcunit_tex_op_red.sum
dram__bytes_read.sum dram__bytes_write.sum
smsp__inst_executed.sum smsp__thread_inst_executed.sum
idc__requests.sum idc__requests_lookup_hit.sum
l1tex__t_requests_pipe_tex_mem_texture.sum l1tex__t_sectors_pipe_tex_mem_texture.sum
sm__cycles_elapsed.avg gpu__time_duration.sum launch__registers_per_thread
sm__cycles_elapsed.avg.per_second lts__cycles_elapsed.avg.per_second
launch__grid_size launch__block_size launch__occupancy_limit_registers
sm__warps_active.avg.pct_of_peak_sustained_active
lts__t_sectors_srcunit_tex.sum lts__t_sectors_srcunit_tex_lookup_hit.sum lts__t_sectors.sum lts__t_sectors_lookup_hit.sum
lts__t_sector_op_read_hit_rate.pct lts__t_sector_op_write_hit_rate.pct
l1tex__t_sectors_pipe_tex_mem_texture_lookup_hit.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
smsp__sass_inst_executed_op_global_atom.sum smsp__sass_inst_executed_op_global_red.sum smsp__inst_executed_op_ldc.sum
smsp__sass_inst_executed_op_shared_ld.sum smsp__sass_inst_executed_op_shared_st.sum
smsp__sass_inst_executed_op_global_ld.sum smsp__sass_inst_executed_op_global_st.sum
"

step "environment"
nvidia-smi || true
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
SLUG=$(echo "$GPU" | tr 'A-Z' 'a-z' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/-$//')
DATE=$(date -u +%Y-%m-%d)
NAME=$SLUG-$DATE
[ "$SIZES" = default ] || NAME=$NAME-$SIZES
ENV=$WORK/env.txt
{
	echo "gpu: $GPU"
	echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
	echo "sm_clock_max_mhz: $(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits | head -1)"
	echo "sm_clock_idle_mhz: $(nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits | head -1)"
	echo "mem_clock_max_mhz: $(nvidia-smi --query-gpu=clocks.max.mem --format=csv,noheader,nounits | head -1)"
	echo "nvcc: $(nvcc --version | tail -1)"
	echo "ncu: $(ncu --version | tail -1)"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	if [ "$SIZES" = heldout ]; then
		echo "sizes: heldout (kernels.HeldOut: the held-out validation set, each launch named KERNEL@SIZE=VALUE,...)"
	elif [ "$SIZES" = lessons ]; then
		echo "sizes: lessons (kernels.Lessons: issue 15's seed lessons, each launch named KERNEL@SIZE=VALUE,...)"
	else
		echo "sizes: default (kernels.Kernel.Defaults, as gtrace capture KERNEL)"
	fi
	if [ -n "$MATCH" ]; then echo "match: $MATCH (only the launches whose name matches)"; fi
	if [ -n "$NVCC_PTX" ]; then echo "nvcc corpus: compiled here from kernels/cu (NVCC_PTX=fresh; in ptx-nvcc/)"; fi
} >"$ENV"
cat "$ENV"

FRESH=
if [ "$NVCC_PTX" = fresh ]; then
	step "compile the nvcc corpus here (NVCC_PTX=fresh)"
	PTX_OUT="$OUTDIR/ptx-nvcc" sh kernels/gen.sh nvcc || exit 1
	FRESH="$OUTDIR/ptx-nvcc"
fi

step "prepare jobs (both corpora, $SIZES sizes)"
"$HWCHECK" prepare -sizes "$SIZES" -match "$MATCH" ${FRESH:+-nvcc-ptx "$FRESH"} "$WORK" || exit 1
ls "$WORK/jobs" | grep -c '\.'

step "build the runner"
nvcc -O2 -o "$WORK/runner" kernels/hwcheck/runner.cu -lcuda || exit 1

step "ptxas: SASS and register counts of every PTX file"
ARCH=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
[ "$ARCH" = sm_ ] && ARCH=sm_90
mkdir -p "$WORK/sass"
for ptx in "$WORK"/jobs/ptx/*/*.ptx; do
	p=$(basename "$(dirname "$ptx")")
	f=$(basename "$ptx" .ptx)
	ptxas -arch="$ARCH" -v -o "$WORK/sass/$p.$f.cubin" "$ptx" >"$WORK/sass/$p.$f.ptxas.txt" 2>&1
	cuobjdump -sass "$WORK/sass/$p.$f.cubin" >"$WORK/sass/$p.$f.sass" 2>&1
done
grep -h -e "Compiling entry" -e "Used" "$WORK"/sass/*.ptxas.txt | head -400 >"$WORK/ptxas-registers.txt"
tar -C "$WORK" -czf "$OUTDIR/sass.tar.gz" sass

step "plain run (no profiler), then verify against the Go references"
mkdir -p "$WORK/plain" && ln -s ../jobs "$WORK/plain/jobs"
timeout 180 "$WORK/runner" "$WORK/jobs" "$WORK/plain/out"
"$HWCHECK" verify "$WORK/plain" | tail -3
cp "$WORK/plain/out/device.txt" "$WORK/device.txt" 2>/dev/null
sed -e 's/^device: .*//' -e '/^$/d' "$WORK/device.txt" >>"$ENV"

step "metrics this ncu knows"
ncu --query-metrics >"$WORK/query.txt" 2>&1
KEEP=""
DROPPED=""
for m in $METRICS; do
	base=${m%%.*}
	if [ "${base#launch__}" != "$base" ] || grep -q "^$base[[:space:]]" "$WORK/query.txt" || ! grep -q "^dram__bytes" "$WORK/query.txt"; then
		KEEP="$KEEP,$m"
	else
		DROPPED="$DROPPED $m"
	fi
done
KEEP=${KEEP#,}
echo "dropped:${DROPPED:- none}"

step "probe: clock control and metric names, on one launch"
# ncu refuses a whole run over one unknown metric, and clock locking may be refused in
# a VM: find a working combination on one job first. launch__* names are not listed by
# --query-metrics, so the optional ones are dropped on the second try.
mkdir -p "$WORK/probe" && ln -s ../jobs "$WORK/probe/jobs"
first=$(ls "$WORK/jobs" | grep '\.' | head -1)
CORE=$(echo "$KEEP" | tr ',' '\n' | grep -v -e launch__occupancy_limit_registers -e launch__grid_size -e launch__block_size | paste -sd, -)
ok=""
for try in "$CLOCK_CONTROL $KEEP" "none $KEEP" "$CLOCK_CONTROL $CORE" "none $CORE"; do
	set -- $try
	if ncu --clock-control "$1" --metrics "$2" "$WORK/runner" "$WORK/jobs" "$WORK/probe/out" "$first" >"$WORK/probe.txt" 2>&1 &&
		grep -q sm__cycles_elapsed "$WORK/probe.txt"; then
		CLOCK_CONTROL=$1 KEEP=$2 ok=1
		break
	fi
	echo "probe failed with --clock-control $1 and $(echo "$2" | tr ',' '\n' | wc -l) metrics:"
	grep -v '^ ' "$WORK/probe.txt" | tail -5
done
[ -n "$ok" ] || { echo "collect.sh: ncu could not profile one launch; see above"; exit 1; }
grep -A60 "Section: Command line profiler metrics" "$WORK/probe.txt" | head -60
NCU_OPTS="--target-processes all --cache-control all --clock-control $CLOCK_CONTROL --replay-mode kernel"
echo "ncu options: $NCU_OPTS"

for p in clang-14 nvcc; do
	step "ncu: $p corpus"
	d=$WORK/$p
	mkdir -p "$d" && ln -s ../jobs "$d/jobs"
	jobs=$(ls "$WORK/jobs" | grep "\.$p\$")
	# shellcheck disable=SC2086
	timeout "$NCU_TIMEOUT" ncu $NCU_OPTS --metrics "$KEEP" --export "$d/report" --force-overwrite \
		"$WORK/runner" "$WORK/jobs" "$d/out" $jobs >"$d/ncu-run.log" 2>&1
	echo "ncu exit $? ($(grep -c '==PROF== Profiling' "$d/ncu-run.log") kernels profiled)"
	grep -v '==PROF== Profiling' "$d/ncu-run.log" | tail -5
	ncu --import "$d/report.ncu-rep" --csv --page details --print-units base --print-kernel-base mangled >"$d/ncu.csv" 2>"$d/import.err" ||
		{ cat "$d/import.err"; ncu --import "$d/report.ncu-rep" --csv --page details --print-kernel-base mangled >"$d/ncu.csv"; }
	cp "$d/ncu.csv" "$OUTDIR/ncu-$p.csv"
	[ "$(stat -c %s "$d/report.ncu-rep" 2>/dev/null || echo 99999999)" -lt 15000000 ] && cp "$d/report.ncu-rep" "$OUTDIR/report-$p.ncu-rep"
	"$HWCHECK" verify "$d" | tail -3
done

step "tidy"
{
	echo "ncu_options: $NCU_OPTS"
	echo "metrics_unavailable:${DROPPED:- none}"
	echo "command: scripts/hw/collect.sh (per corpus: ncu $NCU_OPTS --metrics <list in the sidecar> --export report runner jobs out <jobs>; ncu --import report.ncu-rep --csv --page details --print-units base --print-kernel-base mangled)"
} >>"$ENV"
"$HWCHECK" tidy -sizes "$SIZES" -match "$MATCH" -env "$ENV" "$WORK/clang-14" "$WORK/nvcc" >"$OUTDIR/$NAME.csv"
echo "tidy exit $?: $(grep -vc '^#' "$OUTDIR/$NAME.csv") lines in $NAME.csv"
{
	echo "# Sidecar of $NAME.csv (scripts/hw/collect.sh)"
	echo
	cat "$ENV"
	echo
	echo "## device (runner.cu)"
	cat "$WORK/device.txt"
	echo
	echo "## metrics requested"
	echo "$KEEP" | tr ',' '\n'
	echo
	echo "## verify: plain run, then each profiled run"
	cat "$WORK/plain/verify.txt" "$WORK/clang-14/verify.txt" "$WORK/nvcc/verify.txt" 2>/dev/null
	echo
	echo "## ptxas -arch=$ARCH -v (per PTX file)"
	cat "$WORK/ptxas-registers.txt"
} >"$OUTDIR/$NAME.txt"
step "done"
ls -la "$OUTDIR"
sleep 1
