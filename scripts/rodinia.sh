#!/bin/bash
# rodinia.sh: unmodified Rodinia CUDA programs, built as a user builds them for gtrace run
# (nvcc -cudart shared, PTX for compute_80 in the fat binary), run under gtrace run or
# on a real GPU, and their printed results compared (issue 19: "gtrace run on six or
# more unmodified public programs: the same printed results ..., one trace with every
# launch and transfer, replay on every arch").
#
#   scripts/rodinia.sh gtrace RODINIA OUTDIR   under gtrace run (make build cudart first),
#                                              then gtrace replay of each trace on
#                                              fermi, kepler, ampere and hopper
#   scripts/rodinia.sh gpu RODINIA OUTDIR      the same programs on the GPU at hand
#   scripts/rodinia.sh compare GPUDIR OUTDIR   OUTDIR/compare.md: each program's results
#                                              against the GPU's, and its trace
#   scripts/rodinia.sh prebuild RODINIA OUTDIR with nvcc 11.8: the programs that need
#                                              CUDA 11 (texture references left CUDA in
#                                              12: hybridsort, kmeans) for a GPU machine
#                                              with a newer nvcc, static runtime, sm_90
#                                              SASS; gpu mode there takes OUTDIR/NAME
#                                              when PREBUILT=OUTDIR is set
#
# RODINIA is a checkout of Rodinia 3.1's sources (github.com/yuhc/gpu-rodinia; nothing
# of it is committed here). The programs make their own inputs (sizes as below), or
# read ones this script writes with a fixed-seed generator, so both sides see the same
# data. Some are compiled with the defines the Rodinia makefiles offer to print or write
# their results (BENCH_PRINT, TRACEBACK, OUTPUT); lud checks itself against its CPU
# reference (-v). Lines that report times are left out of the comparison.
#
# OUTDIR gets, per program NAME: NAME.stdout (what it printed), NAME.result (the file it
# wrote its results to, if any), NAME.exit; under gtrace also NAME.stderr, NAME.gtrace,
# NAME.seconds (gtrace run's wall time) and NAME.replay-ARCH.txt. WORK (default
# /tmp/gtrace-rodinia) holds the builds.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: scripts/rodinia.sh gtrace|gpu|prebuild RODINIA OUTDIR, or compare GPUDIR OUTDIR}
# The programs that use texture references, which nvcc 12 and later cannot compile.
cuda11=" hybridsort kmeans "

# NAME | folder under cuda/ | extra nvcc flags and sources | arguments | result file | gtrace run flags
programs() {
	cat <<'EOF'
pathfinder|pathfinder|-DBENCH_PRINT pathfinder.cu|512 16 4||
needle|nw|-DTRACEBACK needle.cu|256 10|result.txt|
srad_v2|srad/srad_v2|-DOUTPUT srad.cu|64 64 0 31 0 31 0.5 2||--oob warn
lud|lud/cuda|-I../common -use_fast_math -DGPU_TIMER lud.cu lud_kernel.cu ../common/common.c|-s 256 -v||
nn|nn|nn_cuda.cu|filelist -r 5 -lat 30 -lng 90||
bfs|bfs|bfs.cu|graph4096.txt|result.txt|
streamcluster|streamcluster|-O3 streamcluster_cuda_cpu.cpp streamcluster_cuda.cu streamcluster_header.cu|10 20 16 1024 1024 100 none output.txt 1|output.txt|
gaussian|gaussian|gaussian.cu|-s 64||
backprop|backprop|backprop_cuda.cu|4096||
hybridsort|hybridsort|-DVERIFY bucketsort.cu mergesort.cu main.cu|floats65536.txt||
kmeans|kmeans|kmeans_cuda.cu|-o -i points4096.txt||
EOF
}

suite=rodinia
# shellcheck source=lib/suite.sh
. "$here/scripts/lib/suite.sh"
suite_setup "$@"
# hybridsort includes GL/glew.h and GL/glut.h and uses neither: empty ones stand in.
mkdir -p "$work/gl/GL" && touch "$work/gl/GL/glew.h" "$work/gl/GL/glut.h" || exit 1

# Inputs from a fixed-seed generator (Park and Miller's, exact in awk's doubles),
# written once into $1 (bfs's graph, nn's record files and their list).
inputs() {
	mkdir -p "$1/data" || exit 1
	awk -v n=4096 'function r(m) { s = (s * 16807) % 2147483647; return s % m }
	BEGIN { s = 1; print n; e = 0
		for (i = 0; i < n; i++) { d = 1 + r(4); print e, d; for (j = 0; j < d; j++) { dst[e] = r(n); w[e] = 1 + r(10); e++ } }
		print 0; print e; for (i = 0; i < e; i++) print dst[i], w[i] }' >"$1/graph4096.txt"
	awk -v dir="$1" 'function r(m) { s = (s * 16807) % 2147483647; return s % m }
	BEGIN { s = 7; split("ALBERTO BERYL CHRIS DEBBY ERNESTO FLORENCE GORDON HELENE ISAAC JOYCE KIRK", names, " ")
		for (f = 0; f < 2; f++) { file = sprintf("data/cane2_%d.db", f)
			for (i = 0; i < 2000; i++) printf "%4d %2d %2d %2d %2d %-9s %5.1f %5.1f %4d %4d\n", 1950 + r(55), 1 + r(12), 1 + r(28),
				6 * r(4), 1 + r(28), names[1 + r(11)], 7 + r(63) + r(1000) / 1000, r(358) + r(1000) / 1000, 10 + r(155), r(900) >(dir "/" file) } }'
	printf 'data/cane2_0.db\ndata/cane2_1.db\n' >"$1/filelist"
	# hybridsort's floats in [0, 1), kmeans's 4096 points of 34 features in [0, 10).
	awk 'BEGIN { s = 3; for (i = 0; i < 65536; i++) { s = (s * 16807) % 2147483647; printf "%.6f\n", s / 2147483647 } }' >"$1/floats65536.txt"
	awk 'BEGIN { s = 5; for (i = 0; i < 4096; i++) { printf "%d", i
		for (j = 0; j < 34; j++) { s = (s * 16807) % 2147483647; printf " %.4f", 10 * s / 2147483647 }; printf "\n" } }' >"$1/points4096.txt"
}

inputs "$work/inputs"
status=0
while IFS='|' read -r name dir build args result flags; do
	dir="$src/cuda/$dir"
	exe="$work/bin/$name"
	if [ "$mode" = prebuild ] && [[ $cuda11 != *" $name "* ]]; then
		continue
	fi
	# shellcheck disable=SC2086 # the flags and sources are words
	if [ "$mode" = gpu ] && [ -n "${PREBUILT:-}" ] && [ -x "$PREBUILT/$name" ]; then
		cp "$PREBUILT/$name" "$exe"
	else
		case $name in
		hybridsort) (cd "$dir" && "${nv[@]}" -I"$work/gl" $build -o "$exe") ;;
		kmeans) # C files with OpenMP by gcc, as backprop's; kmeans_cuda.cu includes omp.h (clang-14: libomp-14-dev)
			for f in cluster getopt kmeans kmeans_clustering rmse; do gcc -O2 -fopenmp -w -c "$dir/$f.c" -o "$work/bin/km_$f.o" || exit 1; done
			(cd "$dir" && "${nv[@]}" $build "$work"/bin/km_*.o -lgomp -o "$exe") ;;
		backprop) # its C files want OpenMP, which clang-14 lacks here: gcc builds them, as Rodinia's makefile does
			for f in backprop facetrain imagenet; do gcc -O2 -fopenmp -w -c "$dir/$f.c" -o "$work/bin/bp_$f.o" || exit 1; done
			(cd "$dir" && "${nv[@]}" $build "$work"/bin/bp_*.o -lgomp -o "$exe") ;;
		*) (cd "$dir" && "${nv[@]}" $build -o "$exe") ;;
		esac || { echo "rodinia.sh: building $name failed" >&2; status=1; continue; }
	fi
	if [ "$mode" = prebuild ]; then
		cp "$exe" "$out/$name" && echo "$name: built" || status=1
		continue
	fi
	run="$work/run/$name"
	mkdir -p "$run" && ln -s "$work"/inputs/* "$run"/
	suite_run "$name" "$exe" "$run" "$args" "$result" "$flags"
done < <(programs)
exit $status
