#!/bin/bash
# polybench.sh: the CUDA programs of PolyBench/GPU, unmodified, built as a user builds
# them for gtrace run (nvcc -cudart shared, PTX for compute_80 in the fat binary), run
# under gtrace run or on a real GPU, and their results compared, as scripts/rodinia.sh
# does for Rodinia (issue 19's acceptance: "kernels from Rodinia, PolyBench-GPU and
# cuda-samples ... capture with no edits"; "gtrace run on six or more unmodified public
# programs").
#
#   scripts/polybench.sh gtrace POLYBENCH OUTDIR [NAME...]
#                                                 under gtrace run (make build cudart
#                                                 first), then gtrace replay of each
#                                                 trace on fermi, kepler, ampere, hopper
#   scripts/polybench.sh gpu POLYBENCH OUTDIR [NAME...]
#                                                 the same programs on the GPU at hand
#   scripts/polybench.sh compare GPUDIR OUTDIR    OUTDIR/compare.md: each program's
#                                                 results against the GPU's, its trace
#
# With NAMEs, only those programs run. POLYBENCH is a checkout of
# github.com/sgrauerg/polybenchGpu (PolyBench/GPU 1.0; nothing of it is committed here).
# Each program is built as its Makefile builds it, from its one .cu file, with problem
# sizes on nvcc's command line (the headers take them there: "Do not define anything if
# the user manually defines the size"), smaller than the defaults so that each runs in
# seconds on a CPU: -DN=N (a macro that stands for itself) with the sizes it guards, or
# for correlation and covariance, whose size is N itself and which include the driver
# API's cuda.h (where N names parameters), -D__cuda_cuda_h__ too, cuda.h's include
# guard (they call nothing of it). gemver, gesummv and mvt keep their sizes (4096), and
# jacobi2d the ones its .cu defines (N 1000, 20 steps). doitgen is left out: it does
# not compile (it calls rtclock, which its folder's copy of the helpers lacks). Each
# program defines RUN_ON_CPU: after the GPU it runs its CPU reference and prints how
# many outputs differ from it by more than a threshold (0.05 % for most), which the
# comparison takes, less the device's name and the times.
#
# OUTDIR gets, per program NAME, what scripts/lib/suite.sh's suite_run writes. WORK
# (default /tmp/gtrace-polybench) holds the builds (suite_main).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: scripts/polybench.sh gtrace|gpu POLYBENCH OUTDIR, or compare GPUDIR OUTDIR}
# The device's name, and the times the programs print alone on their lines.
suite_skip='setting device|^[0-9]+\.[0-9]+$'

# NAME | folder under CUDA/ | sizes and source | arguments | result file | gtrace run flags
programs() {
	cat <<'EOF2'
2dconv|2DCONV|-DN=N -DNI=1024 -DNJ=1024 2DConvolution.cu|||
2mm|2MM|-DN=N -DNI=128 -DNJ=128 -DNK=128 -DNL=128 2mm.cu|||
3dconv|3DCONV|-DN=N -DNI=64 -DNJ=64 -DNK=64 3DConvolution.cu|||
3mm|3MM|-DN=N -DNI=128 -DNJ=128 -DNK=128 -DNL=128 -DNM=128 3mm.cu|||
adi|ADI|-DN=256 -DTSTEPS=1 adi.cu|||
atax|ATAX|-DN=N -DNX=1024 -DNY=1024 atax.cu|||
bicg|BICG|-DN=N -DNX=1024 -DNY=1024 bicg.cu|||
correlation|CORR|-D__cuda_cuda_h__ -DN=256 -DM=256 correlation.cu|||
covariance|COVAR|-D__cuda_cuda_h__ -DN=256 -DM=256 covariance.cu|||
fdtd2d|FDTD-2D|-DN=N -DTMAX=20 -DNX=256 -DNY=256 fdtd2d.cu|||
gemm|GEMM|-DN=N -DNI=256 -DNJ=256 -DNK=256 gemm.cu|||
gemver|GEMVER|gemver.cu|||
gesummv|GESUMMV|gesummv.cu|||
gramschmidt|GRAMSCHM|-DN=N -DNI=128 -DNJ=128 gramschmidt.cu|||
jacobi1d|JACOBI1D|-DN=4096 -DTSTEPS=100 jacobi1D.cu|||
jacobi2d|JACOBI2D|jacobi2D.cu|||
lu|LU|-DN=256 lu.cu|||
mvt|MVT|mvt.cu|||
syr2k|SYR2K|-DN=N -DNI=256 -DNJ=256 syr2k.cu|||
syrk|SYRK|-DN=N -DNI=256 -DNJ=256 syrk.cu|||
EOF2
}

# suite_build NAME FOLDER BUILD EXE: as the suite's own makefiles build a program.
suite_build() {
	# shellcheck disable=SC2086 # the sizes and source are words
	(cd "$src/CUDA/$2" && "${nv[@]}" $3 -o "$4")
}

suite=polybench
# shellcheck source=lib/suite.sh
. "$here/scripts/lib/suite.sh"
suite_main "$@"
