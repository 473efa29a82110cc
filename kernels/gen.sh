#!/bin/sh
# gen.sh: regenerate the PTX of the reference kernels from kernels/cu/*.cu.
#
#   sh kernels/gen.sh [clang|nvcc|all]      (default: clang; `make ptx` runs it)
#
#   clang  clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 \
#                   -nocudainc -nocudalib -O3 -S          -> kernels/ptx/
#          (+ptx70: clang-14 offers the *_sync warp builtins, __ballot_sync and
#          __shfl_sync, only with that target feature; the PTX is .version 7.0
#          with or without it)
#          The committed corpus, which the tests and `gtrace capture` use. Needs
#          only Debian's clang-14 (apt-get install clang-14), no CUDA SDK:
#          kernels/cu/gtrace_cuda.h stands in for the CUDA headers.
#   nvcc   nvcc -ptx -O3 -arch=sm_80                      -> kernels/ptx-nvcc/
#          The second corpus, so that the emulator is tested on both producers'
#          PTX. Run it on a machine with the CUDA toolkit (12 or 13) and commit
#          the result together with the nvcc version it prints.
#   all    both; fails if either compiler is missing.
#
# Environment: CLANG (default clang-14) and NVCC (default nvcc) name the
# compilers; PTX_OUT writes a single mode's output to another directory (the
# tests use it to check that the committed PTX is up to date).
#
# After compiling, every output is checked for calls that the emulator could
# not resolve: libdevice (__nv_*) or any other .extern .func. The emulator has
# no libm; a kernel must not need one.
set -eu

dir=$(cd "$(dirname "$0")" && pwd)
mode=${1:-clang}
CLANG=${CLANG:-clang-14}
NVCC=${NVCC:-nvcc}

die() {
	echo "gen.sh: $*" >&2
	exit 1
}

# check FILE: refuse PTX that calls what it does not define.
check() {
	if grep -n -e '\.extern[[:space:]]*\.func' -e '__nv_' "$1" >&2; then
		die "$1: calls an external function (above); the emulator has no libdevice or libm"
	fi
}

gen_clang() {
	command -v "$CLANG" >/dev/null 2>&1 ||
		die "$CLANG not found: install Debian's clang-14 (apt-get install clang-14) or set CLANG"
	out=${PTX_OUT:-$dir/ptx}
	mkdir -p "$out"
	for cu in "$dir"/cu/*.cu; do
		ptx="$out/$(basename "$cu" .cu).ptx"
		"$CLANG" -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
			-Xclang -target-feature -Xclang +ptx70 \
			-O3 -S -o "$ptx" "$cu" || die "$CLANG failed on $cu"
		check "$ptx"
	done
	echo "gen.sh: $("$CLANG" --version | head -n 1) -> $out"
}

gen_nvcc() {
	command -v "$NVCC" >/dev/null 2>&1 ||
		die "$NVCC not found: the nvcc corpus needs the CUDA toolkit (12 or 13) on PATH, or set NVCC"
	out=${PTX_OUT:-$dir/ptx-nvcc}
	mkdir -p "$out"
	for cu in "$dir"/cu/*.cu; do
		ptx="$out/$(basename "$cu" .cu).ptx"
		"$NVCC" -ptx -O3 -arch=sm_80 -o "$ptx" "$cu" || die "$NVCC failed on $cu"
		check "$ptx"
	done
	echo "gen.sh: $("$NVCC" --version | tail -n 1) -> $out"
}

case "$mode" in
clang) gen_clang ;;
nvcc) gen_nvcc ;;
all)
	[ -z "${PTX_OUT:-}" ] || die "PTX_OUT needs a single mode, clang or nvcc"
	gen_clang
	gen_nvcc
	;;
*) die "unknown mode '$mode': want clang, nvcc or all" ;;
esac
