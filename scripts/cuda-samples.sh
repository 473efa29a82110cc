#!/bin/bash
# cuda-samples.sh: unmodified programs of NVIDIA's cuda-samples, built as a user builds
# them for gtrace run (nvcc -cudart shared, PTX for compute_80 in the fat binary), run
# under gtrace run or on a real GPU, and their printed results compared, as
# scripts/rodinia.sh does for Rodinia (issue 19's acceptance: "gtrace run on six or more
# unmodified public programs").
#
#   scripts/cuda-samples.sh gtrace SAMPLES OUTDIR [NAME...]
#                                                   under gtrace run (make build cudart
#                                                   first), then gtrace replay of each
#                                                   trace on fermi, kepler, ampere, hopper
#   scripts/cuda-samples.sh gpu SAMPLES OUTDIR [NAME...]
#                                                   the same programs on the GPU at hand
#   scripts/cuda-samples.sh compare GPUDIR OUTDIR   OUTDIR/compare.md: each program's
#                                                   results against the GPU's, its trace
#
# With NAMEs, only those programs run. SAMPLES is a checkout of
# github.com/NVIDIA/cuda-samples (nothing of it is committed here; its Common/ folder
# holds the helper headers the programs include). The programs
# check themselves against their own CPU reference and print PASS/FAIL or the values;
# they take no arguments and make their own inputs. Lines that report times, the
# device's name and clock counts are left out of the comparison. The list leaves out
# programs whose fixed sizes take more than two minutes under gtrace run on two cores
# (scan: 1.1 G warp-instructions in 5 minutes, histogram, sortingNetworks,
# convolutionSeparable, transpose, alignedTypes, mergeSort, simpleStreams, matrixMul's
# 301 launches), eigenvalues (it reads data files the sample's folder lacks), and those
# that need what gtrace run lacks (CUDA arrays, graphics interop, the driver API, NVRTC,
# cuda::barrier, grid-wide cooperative launches).
#
# OUTDIR gets, per program NAME, what scripts/lib/suite.sh's suite_run writes. WORK
# (default /tmp/gtrace-cuda-samples) holds the builds (suite_main).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: scripts/cuda-samples.sh gtrace|gpu SAMPLES OUTDIR, or compare GPUDIR OUTDIR}
# What changes from run to run on a GPU (clock counts, rates, how long the CPU waited,
# fp16ScalarProduct's sums of inputs seeded by time(NULL): its PASSED line stays), and
# the device's own name.
suite_skip='clocks/block|CPU executed|bandwidth|MegaElements/s|Result native operators|Result intrinsics|CUDA device \[|^Device [0-9]+: "'
# A GPU prints simplePrintf's CTAs' lines in the order they run, gtrace in CTA order:
# its lines are compared sorted.
suite_sorted=" simplePrintf "

# NAME | folder under Samples/ | sources (and extra nvcc flags) | arguments | result file | gtrace run flags
programs() {
	cat <<'EOF2'
vectorAdd|0_Introduction/vectorAdd|vectorAdd.cu|||
simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics|simpleAtomicIntrinsics.cu simpleAtomicIntrinsics_cpu.cpp|||
simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics|simpleVoteIntrinsics.cu|||
simpleTemplates|0_Introduction/simpleTemplates|simpleTemplates.cu|||
template|0_Introduction/template|template.cu template_cpu.cpp|||
asyncAPI|0_Introduction/asyncAPI|asyncAPI.cu|||
clock|0_Introduction/clock|clock.cu|||
simplePrintf|0_Introduction/simplePrintf|simplePrintf.cu|||
simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups|simpleCooperativeGroups.cu|||
simpleOccupancy|0_Introduction/simpleOccupancy|simpleOccupancy.cu|||
fp16ScalarProduct|0_Introduction/fp16ScalarProduct|fp16ScalarProduct.cu|||
scalarProd|2_Concepts_and_Techniques/scalarProd|scalarProd.cu scalarProd_cpu.cpp|||
shfl_scan|2_Concepts_and_Techniques/shfl_scan|shfl_scan.cu|||
threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction|threadFenceReduction.cu|||
warpAggregatedAtomicsCG|3_CUDA_Features/warpAggregatedAtomicsCG|warpAggregatedAtomicsCG.cu|||
binaryPartitionCG|3_CUDA_Features/binaryPartitionCG|binaryPartitionCG.cu|||
EOF2
}

# suite_build NAME FOLDER BUILD EXE: as the suite's own makefiles build a program.
suite_build() {
	# shellcheck disable=SC2086 # the sources are words
	(cd "$src/Samples/$2" && "${nv[@]}" -I"$src/Common" $3 -o "$4")
}

suite=cuda-samples
# shellcheck source=lib/suite.sh
. "$here/scripts/lib/suite.sh"
suite_main "$@"
