#!/bin/bash
# compare.sh: gtrace's timing replay and Accel-Sim on the same traces, one pinned core each,
# one after the other, for docs/PEERS.md.
#
#   scripts/peer/build-accelsim.sh                  # once (see there)
#   scripts/peer/compare.sh OUTDIR [KERNEL:SIZE,SIZE ...]
#
# For each reference kernel (default: the four below at their default sizes but the
# reduction's, about a minute of Accel-Sim each), it
#   1. captures it with gtrace (`gtrace capture KERNEL --size ...`),
#   2. exports the capture as an Accel-Sim trace directory (`gtrace export --format accelsim`),
#   3. runs Accel-Sim's trace-driven simulator on that directory, pinned to CPU 0, with
#      the config PRESET names:
#        rtx3070 (default)  SM86_RTX3070, the tested Ampere config of the dev branch;
#                           gtrace: --arch ampere --gpu rtx3090 --set sm.count=46, its
#                           nearest preset
#        h100               SM90_H100 of the h100-test branches (build-accelsim.sh copies
#                           it out), with -gpgpu_memory_partition_indexing 0: as shipped
#                           (IPoly hashing over 80 channels) it stops at the first memory
#                           access, as IPoly takes 16, 32 or 64 (hashing.cc);
#                           gtrace: --arch hopper --gpu h100
#   4. runs gtrace's timing replay (`--engine timing`) on the capture with the matching
#      preset, pinned to CPU 0, and its memory engine (counters, no cycles) the same way,
# and writes OUTDIR/peers.csv (one row a kernel) and each tool's full output. With HW set
# to a ground-truth CSV of scripts/hw/collect.sh (kernels at their default sizes), each
# row also gets the cycles measured there (sm__cycles_elapsed.avg, clang-14 PTX).
#
# Wall times are whole processes (/usr/bin/time), so they include reading the trace:
# Accel-Sim reads text, gtrace its Arrow file. Environment: GTRACE (default: build
# ./cmd/gtrace into OUTDIR), GTRACE_PEER_DIR (build-accelsim.sh's WORKDIR), CPU (default 0),
# PRESET, HW.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/peer/compare.sh OUTDIR [KERNEL:NAME=V,NAME=V ...]}
shift
if [ $# -eq 0 ]; then
	set -- copy transpose_v1:n=1024 reduce_v2:n=1048576 volkov_memcpy_f4
fi
PEER=${GTRACE_PEER_DIR:-$HOME/.cache/gtrace/peer}
CPU=${CPU:-0}
# OUTDIR's kernel folders are rewritten: take only a new or empty folder, or one an
# earlier run of this script wrote (it holds peers.csv).
if [ -d "$OUTDIR" ] && [ -n "$(ls -A "$OUTDIR")" ] && [ ! -e "$OUTDIR/peers.csv" ]; then
	echo "compare: $OUTDIR holds files this script did not write: give a new or empty folder" >&2
	exit 1
fi
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
if [ -z "${GTRACE:-}" ]; then
	go build -o "$OUTDIR/gtrace" ./cmd/gtrace
	GTRACE=$OUTDIR/gtrace
fi
SIM=$PEER/accel-sim/gpu-simulator/bin/release/accel-sim.out
[ -x "$SIM" ] || { echo "compare: no $SIM: run scripts/peer/build-accelsim.sh first" >&2; exit 1; }
case ${PRESET:=rtx3070} in
rtx3070)
	GCFG=$PEER/accel-sim/gpu-simulator/gpgpu-sim/configs/tested-cfgs/SM86_RTX3070/gpgpusim.config
	TCFG=$PEER/accel-sim/gpu-simulator/configs/tested-cfgs/SM86_RTX3070/trace.config
	GARGS=(--arch ampere --gpu rtx3090 --set sm.count=46)
	AARGS=()
	;;
h100)
	GCFG=$PEER/configs/SM90_H100/gpgpusim.config
	TCFG=$PEER/configs/SM90_H100/trace.config
	GARGS=(--arch hopper --gpu h100)
	AARGS=(-gpgpu_memory_partition_indexing 0)
	;;
*)
	echo "compare: PRESET $PRESET: want rtx3070 or h100" >&2
	exit 1
	;;
esac
HW=${HW:-}
[ -z "$HW" ] || [ -r "$HW" ] || { echo "compare: HW $HW cannot be read" >&2; exit 1; }
set +u
# shellcheck disable=SC1091
source "$PEER/env.sh"
set -u

# field FILE KEY: the last "KEY = VALUE" Accel-Sim printed (its totals are cumulative).
field() { grep -E "^$2 = " "$1" | tail -1 | sed -E 's/^[^=]*= *([0-9.]+).*/\1/'; }
wall() { grep -E '^wall ' "$1" | awk '{print $2}'; }
# ratio A B: A/B rounded, the speed-up of the faster tool.
ratio() { awk -v a="$1" -v g="$2" 'BEGIN{ if (g > 0) printf "%.0f", a / g; else print "inf" }'; }

cp "$PEER/accelsim.version" "$OUTDIR/"
echo "# preset $PRESET: Accel-Sim $(basename "$(dirname "$GCFG")"), ${AARGS[*]}, gtrace ${GARGS[*]}; hw ${HW:-none}" >"$OUTDIR/peers.csv"
echo "kernel,sizes,warp_inst,accelsim_wall_s,accelsim_cycles,accelsim_warp_inst,gtrace_timing_wall_s,gtrace_cycles,gtrace_memory_wall_s,timing_speedup,memory_speedup,hw_cycles" >>"$OUTDIR/peers.csv"
for spec in "$@"; do
	k=${spec%%:*}
	sizes=${spec#*:}
	[ "$sizes" = "$spec" ] && sizes=
	args=()
	IFS=, read -ra kv <<<"$sizes"
	for s in "${kv[@]}"; do args+=(--size "$s"); done
	d=$OUTDIR/$k
	rm -rf "$d" && mkdir -p "$d"
	echo "== $k ${sizes}"
	"$GTRACE" capture "$k" "${args[@]}" -o "$d/$k.gtrace" >"$d/capture.log" 2>&1
	"$GTRACE" export "$d/$k.gtrace" --format accelsim -o "$d/accelsim-trace" >"$d/export.log" 2>&1
	winst=$("$GTRACE" inspect "$d/$k.gtrace" | awk '$1=="warp-instructions"{print $2; exit}')

	(cd "$d" && /usr/bin/time -f 'wall %e maxrss_kb %M' -o accelsim.time \
		taskset -c "$CPU" "$SIM" -trace accelsim-trace/kernelslist.g \
		-config "$GCFG" -config "$TCFG" "${AARGS[@]}" >accelsim.log 2>&1)
	a_wall=$(wall "$d/accelsim.time")
	a_cyc=$(field "$d/accelsim.log" gpu_tot_sim_cycle)
	a_inst=$(field "$d/accelsim.log" gpgpu_n_tot_w_icount || true)

	/usr/bin/time -f 'wall %e maxrss_kb %M' -o "$d/gtrace.time" \
		taskset -c "$CPU" "$GTRACE" replay --engine timing "${GARGS[@]}" --format csv "$d/$k.gtrace" >"$d/gtrace.csv" 2>"$d/gtrace.log"
	g_wall=$(wall "$d/gtrace.time")
	g_cyc=$(awk -F, '$6 == "sm__cycles_elapsed.avg" {print $7; exit}' "$d/gtrace.csv")
	/usr/bin/time -f 'wall %e maxrss_kb %M' -o "$d/gtrace-memory.time" \
		taskset -c "$CPU" "$GTRACE" replay --engine memory "${GARGS[@]}" --format csv "$d/$k.gtrace" >"$d/gtrace-memory.csv" 2>>"$d/gtrace.log"
	m_wall=$(wall "$d/gtrace-memory.time")
	hw=
	if [ -n "$HW" ] && [ -z "$sizes" ]; then
		hw=$(awk -F, -v k="$k" '$1 == k && $2 == "clang-14" && $3 == "sm__cycles_elapsed.avg" {print $5; exit}' "$HW")
	fi
	echo "$k,\"$sizes\",$winst,$a_wall,$a_cyc,${a_inst:-},$g_wall,$g_cyc,$m_wall,$(ratio "$a_wall" "$g_wall"),$(ratio "$a_wall" "$m_wall"),$hw" |
		tee -a "$OUTDIR/peers.csv"
done
