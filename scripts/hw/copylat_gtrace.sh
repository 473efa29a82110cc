#!/bin/bash
# copylat_gtrace.sh: the engine's side of scripts/hw/probe.sh copylat (hw-facts section
# 18). Compiles scripts/hw/copylat_kernels.cu with clang-14, captures each kind at k
# blocks of 256 threads an SM on 132 SMs (a 256 MB `a`, `out` 256 MB or as the kind
# says) at R and 2R rounds, R = 256/k, so that the stores pass the 25 MB the L2 keeps
# dirty before the first R rounds end, and prints the timing engine's cycles a round
# (hopper/h200 at 1975 MHz, the run's clock): the difference over R rounds, the
# L2's steady state.
#
#   scripts/hw/copylat_gtrace.sh [ARCH-SET...]        # e.g. dram.write_batch=8
#   KINDS="read copy" KS="1 8" scripts/hw/copylat_gtrace.sh
set -eu
cd "$(dirname "$0")/../.."
KINDS=${KINDS:-read copy copyfit copyl2 chase0 chase1 chase1l2 chase2 chase4}
KS=${KS:-1 2 4 8}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
go build -o "$T/gtrace" ./cmd/gtrace
# the flags capture --cu uses (gtrace cuda-include --flags), without its line table
clang-14 $("$T/gtrace" cuda-include --flags) -O3 -S -o "$T/copylat.ptx" scripts/hw/copylat_kernels.cu 2>/dev/null
SETS=(--set sm.clock_mhz=1975)
for s in "$@"; do SETS+=(--set "$s"); done
W=67108864 # 256 MB of words
echo "kind,blocks_per_sm,round"
for k in $KS; do
	R=$((256 / k))
	for kind in $KINDS; do
		kernel=$kind out=$W
		case $kind in
		copyfit) kernel=copy out=4194304 ;;
		copyl2) kernel=copy out=262144 ;;
		*l2) kernel=${kind%l2} out=262144 ;;
		esac
		c=()
		for it in $R $((2 * R)); do
			"$T/gtrace" capture --ptx "$T/copylat.ptx" --kernel "$kernel" --grid $((132 * k)) --block 256 \
				--arg buf:u32:$W --arg u64:$W --arg buf:u32:$out --arg u64:$out --arg i32:$it \
				--arg buf:i64:$((132 * k * 8)) --arg buf:u64:4 --arg buf:u32:$((132 * k * it)) --arg buf:u32:2 \
				-o "$T/c_$it.gtrace" >/dev/null 2>"$T/err" ||
				{ cat "$T/err"; exit 1; } # (its note on %clock64 is expected: the engine times the rounds)
			c+=($("$T/gtrace" replay --arch hopper --gpu h200 --engine timing "${SETS[@]}" "$T/c_$it.gtrace" |
				awk '$1 == "sm__cycles_elapsed.avg" {print $NF}'))
		done
		awk -v k="$k" -v kind="$kind" -v a="${c[0]}" -v b="${c[1]}" -v r="$R" 'BEGIN {printf "%s,%d,%.1f\n", kind, k, (b - a) / r}'
	done
done
