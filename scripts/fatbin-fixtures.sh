#!/bin/sh
# Rebuilds cudart/fatbin/testdata: the .nv_fatbin sections nvcc 11.8 (Debian's
# nvidia-cuda-toolkit; -ccbin clang-14, as Debian 12 has no g++-11) puts in programs
# built from testdata/saxpy.cu (and symbols.cu), and the PTX cuobjdump extracts from each.
#   lz4:     the default (PTX compressed, LZ4)
#   plain:   -Xfatbin -compress=false
#   multi:   PTX for compute_70 and compute_90, SASS for sm_80
#   symbols: symbols.cu's __constant__ and __device__ variables, the default
set -eu
cd "$(dirname "$0")/../cudart/fatbin/testdata"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() { # NAME SOURCE NVCC-FLAGS...
	name=$1 src=$2
	shift 2
	nvcc -ccbin clang-14 -cudart shared "$@" -o "$tmp/$name" "$src"
	objcopy -O binary --only-section=.nv_fatbin "$tmp/$name" "$name.fatbin"
	(cd "$tmp" && cuobjdump -xptx all "$name" >/dev/null)
	for p in "$tmp"/"$name".*.ptx; do
		cp "$p" "$name.$(echo "$p" | sed 's/.*\.\(sm_[0-9]*\)\.ptx$/\1/').ptx"
	done
}
build lz4 saxpy.cu -gencode arch=compute_80,code=compute_80
build plain saxpy.cu -gencode arch=compute_80,code=compute_80 -Xfatbin -compress=false
build multi saxpy.cu -gencode arch=compute_70,code=compute_70 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90
build symbols symbols.cu -gencode arch=compute_80,code=compute_80
ls -l
