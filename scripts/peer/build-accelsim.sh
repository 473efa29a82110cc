#!/bin/bash
# build-accelsim.sh: build Accel-Sim's trace-driven simulator from source, beside gtrace,
# so the two tools can be run side by side (scripts/peer/compare.sh, docs/PEERS.md).
# No GPU is needed: Accel-Sim only needs the CUDA toolkit's headers and nvcc's version.
#
#   scripts/peer/build-accelsim.sh [WORKDIR]      # default $HOME/.cache/gtrace/peer
#
# On Debian 12 the toolkit is the non-free package nvidia-cuda-toolkit (CUDA 11.8):
#   sed -i 's/^Components: main$/Components: main contrib non-free/' \
#       /etc/apt/sources.list.d/debian.sources
#   apt-get update && apt-get install -y nvidia-cuda-toolkit bison flex zlib1g-dev \
#       xutils-dev libglu1-mesa-dev
#
# Sources (clones made once, under WORKDIR; nothing of Accel-Sim is kept in this repo):
#   ACCELSIM_GIT  default https://github.com/accel-sim/accel-sim-framework.git
#   GPGPUSIM_GIT  default https://github.com/accel-sim/gpgpu-sim_distribution.git
#   ACCELSIM_REF, GPGPUSIM_REF  default dev (Accel-Sim's own setup script pairs the two
#                 dev branches)
# Either may be a local git directory (a mirror), for machines without network access.
# The commits built are written to WORKDIR/accelsim.version, with the compiler versions.
#
# The result: WORKDIR/accel-sim/gpu-simulator/bin/release/accel-sim.out, and
# WORKDIR/env.sh to source before running it (its libcudart is gpgpu-sim's).
set -euo pipefail
WORKDIR=${1:-${GTRACE_PEER_DIR:-$HOME/.cache/gtrace/peer}}
ACCELSIM_GIT=${ACCELSIM_GIT:-https://github.com/accel-sim/accel-sim-framework.git}
GPGPUSIM_GIT=${GPGPUSIM_GIT:-https://github.com/accel-sim/gpgpu-sim_distribution.git}
ACCELSIM_REF=${ACCELSIM_REF:-dev}
GPGPUSIM_REF=${GPGPUSIM_REF:-dev}
JOBS=${JOBS:-$(nproc)}

need() {
	command -v "$1" >/dev/null || { echo "build-accelsim: $1 not found: $2" >&2; exit 1; }
}
need git "install git"
need bison "apt-get install bison"
need flex "apt-get install flex"
need makedepend "apt-get install xutils-dev"
need nvcc "apt-get install nvidia-cuda-toolkit (Debian non-free), or put CUDA's bin on PATH"
[ -e /usr/include/zlib.h ] || { echo "build-accelsim: zlib.h not found: apt-get install zlib1g-dev" >&2; exit 1; }

mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)
cd "$WORKDIR"

# One CUDA_INSTALL_PATH with bin/nvcc and include/: nvcc's own folder's parent (Debian's
# /usr, or a toolkit's /usr/local/cuda), unless CUDA_INSTALL_PATH is set.
if [ -z "${CUDA_INSTALL_PATH:-}" ]; then
	CUDA_INSTALL_PATH=$(dirname "$(dirname "$(command -v nvcc)")")
fi
[ -e "$CUDA_INSTALL_PATH/include/cuda_runtime_api.h" ] || {
	echo "build-accelsim: no cuda_runtime_api.h under $CUDA_INSTALL_PATH/include: set CUDA_INSTALL_PATH" >&2
	exit 1
}
export CUDA_INSTALL_PATH

clone() { # DIR URL REF
	if [ ! -d "$1/.git" ]; then
		git clone -q "$2" "$1"
	fi
	git -C "$1" fetch -q origin || true
	git -C "$1" checkout -q "$3" 2>/dev/null || git -C "$1" checkout -q "origin/$3"
}
clone accel-sim "$ACCELSIM_GIT" "$ACCELSIM_REF"
clone accel-sim/gpu-simulator/gpgpu-sim "$GPGPUSIM_GIT" "$GPGPUSIM_REF"
# Accel-Sim's only H100 config lives on the h100-test branches of both repositories (its
# research notes call it a V100 with 132 SMs, docs/research/accelsim.md); it is copied
# out to configs/SM90_H100 so the dev build can run it beside the tested RTX 3070 config.
mkdir -p configs/SM90_H100
for f in gpgpusim.config config_hopper_islip.icnt; do
	git -C accel-sim/gpu-simulator/gpgpu-sim show "origin/h100-test:configs/tested-cfgs/SM90_H100/$f" >"configs/SM90_H100/$f"
done
git -C accel-sim show origin/h100-test:gpu-simulator/configs/tested-cfgs/SM90_H100/trace.config >configs/SM90_H100/trace.config
# Accel-Sim's setup script clones pybind11 for its Python wrapper, which this build does
# not make; an empty folder stops it going to the network.
mkdir -p accel-sim/gpu-simulator/extern/pybind11

{
	echo "accel-sim $(git -C accel-sim rev-parse HEAD) ($ACCELSIM_REF)"
	echo "gpgpu-sim $(git -C accel-sim/gpu-simulator/gpgpu-sim rev-parse HEAD) ($GPGPUSIM_REF)"
	echo "SM90_H100 configs: accel-sim $(git -C accel-sim rev-parse origin/h100-test), gpgpu-sim $(git -C accel-sim/gpu-simulator/gpgpu-sim rev-parse origin/h100-test) (h100-test)"
	echo "nvcc $(nvcc --version | tail -1)"
	echo "g++ $(g++ --version | head -1)"
	echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(nproc) cores"
} >accelsim.version

cat >env.sh <<EOF
export CUDA_INSTALL_PATH=$CUDA_INSTALL_PATH
source $WORKDIR/accel-sim/gpu-simulator/setup_environment.sh release >/dev/null
EOF

cd accel-sim/gpu-simulator
set +u
# shellcheck disable=SC1091
source setup_environment.sh release
set -u
make -j"$JOBS"
ls -l bin/release/accel-sim.out
cat "$WORKDIR/accelsim.version"
