# suite.sh: what scripts/rodinia.sh, scripts/cuda-samples.sh and scripts/polybench.sh
# share, sourced by each. Each runs a suite's unmodified programs as a user builds them
# for gtrace run (nvcc -cudart shared, PTX for compute_80 in the fat binary), under
# gtrace run or on a real GPU, and compares what they printed (issue 19's acceptance:
# "gtrace run on six or more unmodified public programs: the same printed results ...,
# one trace with every launch and transfer, replay on every arch").
#
# The sourcing script defines programs (one line per program: NAME|...|ARGS|RESULT|FLAGS
# with ARGS the fourth field, RESULT the file it writes its results to, FLAGS gtrace
# run's) and sets here (the gtrace checkout), mode (gtrace, gpu, prebuild or compare)
# and suite (its name).

# suite_nvcc sets nv, the nvcc command line a program is built with in $mode. nvcc 11.8
# from Debian needs clang as its host compiler (Debian 12 has no g++-11). CUDA 12
# removed cudaThreadSynchronize (cudaDeviceSynchronize does the same), CUDA 13
# cudaDeviceProp's clockRate and deviceOverlap: on a GPU machine with a newer nvcc the
# programs build with stand-ins for those, and the comparison leaves such lines out.
suite_nvcc() {
	local ccbin=() compat=()
	if nvcc --version | grep -q 'release 11' && command -v clang++-14 >/dev/null; then
		ccbin=(-ccbin clang++-14)
	fi
	if ! nvcc --version | grep -q 'release 11'; then
		compat=(-DcudaThreadSynchronize=cudaDeviceSynchronize -DclockRate=memoryBusWidth -DdeviceOverlap=asyncEngineCount)
	fi
	nv=(nvcc "${ccbin[@]}" "${compat[@]}" -cudart shared -gencode arch=compute_80,code=compute_80 -O2 -w)
	if [ "$mode" = prebuild ]; then
		nvcc --version | grep -q 'release 11' || { echo "$0 prebuild: needs nvcc 11" >&2; exit 1; }
		nv=(nvcc "${ccbin[@]}" -cudart static -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80 -O2 -w)
	fi
}

# suite_results PREFIX: what a run printed and wrote, less the lines that report times,
# the device's name (gtrace gives the preset's), the fields CUDA 13 lacks and the lines
# matching $suite_skip (a suite's own run-to-run variations); sorted for a program
# named in $suite_sorted (one whose lines a GPU prints in an order of its own).
suite_results() {
	local sort=cat
	[[ ${suite_sorted:-} == *" $(basename "$1") "* ]] && sort=sort
	{
		grep -viE "time|took|exec:|elapsed|device name|clock rate|device overlap${suite_skip:+|$suite_skip}" "$1.stdout"
		[ -f "$1.result" ] && cat "$1.result"
	} | $sort
}

# suite_run NAME EXE RUNDIR ARGS RESULT FLAGS runs one program from RUNDIR in $mode and
# writes to $out: NAME.stdout, NAME.result (RESULT, the file it wrote, if any),
# NAME.exit; under gtrace also NAME.stderr, NAME.gtrace, NAME.seconds (gtrace run's
# wall time) and NAME.replay-ARCH.txt with NAME.replay-ARCH.exit for the four archs.
suite_run() {
	local name=$1 exe=$2 run=$3 args=$4 result=$5 flags=$6 start a
	rm -f "$out/$name".*
	# shellcheck disable=SC2086 # the arguments and flags are words
	if [ "$mode" = gpu ]; then
		(cd "$run" && "$exe" $args >"$out/$name.stdout" 2>"$out/$name.stderr")
		echo $? >"$out/$name.exit"
	else
		start=$(date +%s.%N)
		(cd "$run" && "$here/bin/gtrace" run $flags --cudart "$here/bin/cudart" -o "$out/$name.gtrace" "$exe" $args \
			>"$out/$name.stdout" 2>"$out/$name.stderr")
		echo $? >"$out/$name.exit"
		echo "$start $(date +%s.%N)" | awk '{printf "%.1f\n", $2 - $1}' >"$out/$name.seconds"
		for a in fermi kepler ampere hopper; do
			"$here/bin/gtrace" replay "$out/$name.gtrace" --arch "$a" >"$out/$name.replay-$a.txt" 2>&1
			echo "$a:$?" >"$out/$name.replay-$a.exit"
		done
	fi
	[ -n "$result" ] && [ -f "$run/$result" ] && cp "$run/$result" "$out/$name.result"
	echo "$name: exit $(cat "$out/$name.exit")"
}

# suite_compare GPUDIR OUTDIR writes OUTDIR/compare.md: each program's results against
# the GPU's, and its trace.
suite_compare() {
	local gpu=$1 out=$2
	{
		echo "| program | arguments | results as on the GPU | launches | warp-instructions | copies | gtrace run | replay exit (fermi kepler ampere hopper) |"
		echo "|---|---|---|---|---|---|---|---|"
		programs | while IFS='|' read -r name _ _ args _ flags; do
			local same=no info launches insts copies replays
			if [ -f "$gpu/$name.stdout" ] && [ -f "$out/$name.stdout" ] && cmp -s <(suite_results "$gpu/$name") <(suite_results "$out/$name"); then
				same=yes
			fi
			info=$("$here/bin/gtrace" inspect "$out/$name.gtrace" 2>/dev/null)
			launches=$(grep -c '^kernel ' <<<"$info")
			insts=$(awk '$1 == "warp-instructions" {s += $2} END {printf "%d", s}' <<<"$info")
			copies=$(sed -n 's/^copies \([0-9]\)/\1/p' <<<"$info")
			replays=$(for a in fermi kepler ampere hopper; do cut -d: -f2 "$out/$name.replay-$a.exit" 2>/dev/null; done | tr '\n' ' ')
			echo "| $name | \`$args\` | $same | $launches | $insts | ${copies:-none} | ${flags:+\`$flags\`, }$(cat "$out/$name.seconds" 2>/dev/null) s | ${replays% } |"
		done
	} >"$out/compare.md"
	cat "$out/compare.md"
}

# suite_setup MODE SOURCE OUTDIR: in compare mode (MODE GPUDIR OUTDIR) the table, and
# the script ends; otherwise src (SOURCE), out (OUTDIR, made) and work (WORK, default
# /tmp/gtrace-$suite, emptied, with bin/ and run/) for the builds and runs, and nv.
suite_setup() {
	if [ "$mode" = compare ]; then
		suite_compare "${2:?GPUDIR}" "${3:?OUTDIR}"
		exit 0
	fi
	src=$(cd "${2:?SOURCE}" && pwd) || exit 1
	out=${3:?OUTDIR}
	mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
	work=${WORK:-/tmp/gtrace-$suite}
	rm -rf "$work" && mkdir -p "$work/bin" "$work/run" || exit 1
	suite_nvcc
}

# suite_main MODE ARGS... is a whole script's work for a suite whose programs build
# alike: suite_setup, then for "gtrace|gpu SOURCE OUTDIR [NAME...]" each program (or
# each NAMEd one) built with the script's suite_build NAME FOLDER BUILD EXE (from $src,
# with $nv) and run with suite_run.
suite_main() {
	suite_setup "$@"
	shift 3
	local status=0 name dir build args result flags
	while IFS='|' read -r name dir build args result flags; do
		if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
			continue
		fi
		suite_build "$name" "$dir" "$build" "$work/bin/$name" ||
			{ echo "$suite: building $name failed" >&2; status=1; continue; }
		mkdir -p "$work/run/$name"
		suite_run "$name" "$work/bin/$name" "$work/run/$name" "$args" "$result" "$flags"
	done < <(programs)
	exit $status
}
