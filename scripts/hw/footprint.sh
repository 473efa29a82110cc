#!/bin/bash
# footprint.sh: issue 11's L2 footprint sweep and clock-domain probe. On a GPU machine
# with nvcc and ncu:
#
#   scripts/hw/footprint.sh OUTDIR
#
# writes to OUTDIR:
#   chase-free.csv     the pointer chase (footprint.cu) with no profiler: the clocks the
#                      driver picks (boost when the GPU is otherwise idle)
#   chase-base.csv     the same under ncu --clock-control base (what collect.sh uses),
#   chase-base-ncu.csv   with ncu's SM, L2 and DRAM clocks for each footprint
#   chase-none-ncu.csv the SM, L2 and DRAM clocks under --clock-control none
#   stream-cold.csv    ncu counters of rd_cold, wr_cold, cp_cold after a cache flush
#   stream-warm.csv    ncu counters of rd_warm, right after rd_prime over the same buffer
#   stream-units.csv   the cold kernels at 16 and 64 MB with every L2, crossbar and DRAM
#                      counter this ncu has, each with its per-cycle peak and its share
#                      of it (as l2probe.sh), and ncu's memory-throughput breakdown: which
#                      unit limits a stream
#   footprint.log      the whole run
# PARTS="chase stream units" (the default) picks the parts to run.
# The run of this script that docs cite is traces/hw/<gpu>-<date>-footprint/.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:?usage: scripts/hw/footprint.sh OUTDIR}
WORK=${WORK:-/tmp/gtrace-footprint}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
exec > >(tee "$OUTDIR/footprint.log") 2>&1

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory,clocks.sm,clocks.mem --format=csv
nvcc --version | tail -1
ncu --version | tail -1
nvcc -O3 -arch=sm_90 -o "$WORK/footprint" scripts/hw/footprint.cu || exit 1

CLOCKS=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second
MEM=$CLOCKS,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum

ncsv() { # ncu report -> CSV in base units
	ncu --import "$1" --csv --page details --print-units base >"$2"
	echo "$2: $(wc -l <"$2") lines"
}

# profile NAME CACHE CLOCK KERNELS METRICS MODE STDOUT REPORT: run `footprint MODE` under ncu
# with --cache-control CACHE and --clock-control CLOCK, profiling the kernels matching the
# regex KERNELS; the program's output goes to STDOUT, ncu's report as CSV to REPORT.
profile() {
	echo "== $1: ncu --cache-control $2 --clock-control $3, kernels $4"
	timeout 400 ncu --cache-control "$2" --clock-control "$3" --replay-mode kernel -k "regex:$4" \
		--metrics "$5" --export "$WORK/$1" --force-overwrite "$WORK/footprint" "$6" >"$7" 2>"$WORK/$1.err"
	echo "exit $?"
	grep -m3 'pass' "$WORK/$1.err"
	grep -v '==PROF==' "$WORK/$1.err" | tail -5
	ncsv "$WORK/$1.ncu-rep" "$8"
}

PARTS=${PARTS:-chase stream units}
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

if has chase; then
	echo "== chase, no profiler"
	timeout 300 "$WORK/footprint" chase >"$OUTDIR/chase-free.csv"
	echo "exit $?"
	cat "$OUTDIR/chase-free.csv"
	for cc in base none; do
		profile chase-$cc all $cc chase "$CLOCKS" chase "$OUTDIR/chase-$cc.csv" "$OUTDIR/chase-$cc-ncu.csv"
	done
	cat "$OUTDIR/chase-base.csv"
fi

if has stream; then
	profile stream-cold all base '_cold$' "$MEM" stream /dev/stdout "$OUTDIR/stream-cold.csv"
	profile stream-warm none base '_warm$' "$MEM" stream /dev/stdout "$OUTDIR/stream-warm.csv"
fi

if has units; then
	echo "== stream, units"
	ncu --query-metrics >"$WORK/query.txt" 2>&1
	BASES=$(awk '{print $1}' "$WORK/query.txt" | grep -E '^(l1tex__m_|lts__t_(requests|sectors|tag_requests)$|lts__t_requests_srcunit_tex$|lts__t_sectors_srcunit_tex$|lts__d_|lts__xbar|lts__lts2xbar|lts__cycles_(active|elapsed)$|xbar__|ltc__|dram__(sectors|bytes|cycles_active|cycles_elapsed)$)' | sort -u)
	U="$CLOCKS,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
	for b in $BASES; do
		case $b in
		*cycles_elapsed | *cycles_active) U="$U,$b.avg,$b.avg.pct_of_peak_sustained_elapsed" ;;
		*) U="$U,$b.sum,$b.sum.peak_sustained,$b.sum.pct_of_peak_sustained_elapsed" ;;
		esac
	done
	FOOTPRINT_MB=16,64 profile stream-units all base '_cold$' "$U" stream /dev/stdout "$OUTDIR/stream-units.csv"
fi
