#!/bin/sh
# Rebuilds cudart/libcudart/api.txt: every function NVIDIA's libcudart.so.11.0 exports
# (CUDA 11.8, Debian's non-free libcudart11.0), one name per line. The stand-in defines
# each: the calls it runs in shim.c, every other one in unsupported.c, which returns
# cudaErrorNotSupported and names itself (regenerate it with
# go test ./cudart/libcudart -run TestUnsupportedStubs -update-stubs).
set -eu
lib=${1:-/usr/lib/x86_64-linux-gnu/libcudart.so.11.0}
out="$(dirname "$0")/../cudart/libcudart/api.txt"
objdump -T "$lib" | awk '$2 == "g" && $(NF-1) == "libcudart.so.11.0" && $NF ~ /^(cuda|__cuda)/ {print $NF}' | sort -u >"$out"
wc -l "$out"
