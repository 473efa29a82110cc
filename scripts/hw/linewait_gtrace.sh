#!/bin/bash
# linewait_gtrace.sh: the engine's side of scripts/hw/probe.sh linewait (hw-facts
# section 17). Compiles scripts/hw/linewait_kernels.cu with clang-14, captures kernel
# `lines` at 40 and 80 rounds for each layout and n, one block of B threads (default 32:
# one warp an SM) on 132 SMs over 256 MB, and prints the timing engine's cycles a round
# (hopper/h200 at 1980 MHz): the difference over 40 rounds.
#
#   scripts/hw/linewait_gtrace.sh [ARCH-SET...]   # e.g. dram.row_hit_ns=0
set -eu
cd "$(dirname "$0")/../.."
B=${B:-32}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
go build -o "$T/gtrace" ./cmd/gtrace
# the flags capture --cu uses (gtrace cuda-include --flags), without its line table
clang-14 $("$T/gtrace" cuda-include --flags) -O3 -S -o "$T/linewait.ptx" scripts/hw/linewait_kernels.cu 2>/dev/null
SETS=(--set sm.clock_mhz=1980)
for s in "$@"; do SETS+=(--set "$s"); done
echo "layout,n,round"
for lay in adj:1 far:33 page:16385; do
	for n in 1 2 4 8 32; do
		c=()
		for it in 40 80; do
			"$T/gtrace" capture --ptx "$T/linewait.ptx" --kernel lines --grid 132 --block "$B" \
				--arg buf:u32:67108864 --arg u64:2097152 --arg i32:$n --arg u64:${lay#*:} --arg i32:$it \
				--arg buf:u32:$((132 * B / 32 * 80)) --arg buf:u32:2 -o "$T/lw_$it.gtrace" >/dev/null 2>"$T/err" ||
				{ cat "$T/err"; exit 1; } # (its note on %clock64 is expected: the engine times the rounds)
			c+=($("$T/gtrace" replay --arch hopper --gpu h200 --engine timing "${SETS[@]}" "$T/lw_$it.gtrace" |
				awk '$1 == "sm__cycles_elapsed.avg" {print $NF}'))
		done
		awk -v a="${c[0]}" -v b="${c[1]}" -v l="${lay%%:*}" -v n=$n 'BEGIN { printf "%s,%d,%.1f\n", l, n, (b - a) / 40 }'
	done
done
