#!/bin/sh
# Regenerates kernels.ptx from kernels.cu with Debian's clang 14. +ptx70 lets clang
# (which assumes an older CUDA without the SDK) emit the *.sync warp intrinsics.
set -e
cd "$(dirname "$0")"
clang-14 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O3 \
	-Xclang -target-feature -Xclang +ptx70 -S -o kernels.ptx kernels.cu
