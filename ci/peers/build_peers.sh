#!/usr/bin/env bash
# Builds the peer benchmarks that apod's figures are set beside (issue 12) into .peers/bin/, from
# local git mirrors, for Hopper (sm_90: H100, H200), ready to carry to a GPU machine that has the
# driver but nothing else (no network, no cmake needed there):
#   babelstream  UoB-HPC/BabelStream, CUDA model, double precision (Copy, Mul, Add, Triad, Dot)
#   nvbandwidth  NVIDIA/nvbandwidth (host<->device copy-engine bandwidth)
# Usage: ci/peers/build_peers.sh [--force]
#   BABELSTREAM_GIT, NVBANDWIDTH_GIT  git directories to build from (default: /work/.mirror/...)
#   PEERS_ARCH                        nvcc -arch value (default sm_90)
# Neither project's code is committed to apod: the sources are exported from the pinned commits
# below into .peers/src/ (git-ignored). .peers/bin/VERSIONS records what was built and how.
# Both link the CUDA runtime statically and libstdc++/libgcc statically; what they still need
# at run time is glibc (2.36 or newer when built on Debian 12; Ubuntu 24.04 has 2.39), the
# driver's libcuda.so.1 (nvbandwidth) and, through nvml_shim.c, libnvidia-ml.so.1 (opened on
# first use, so --help works where there is no driver).
set -euo pipefail
cd "$(dirname "$0")/../.."
source ci/env.sh

# Pinned versions: change them here, deliberately, and say so in the commit.
babelstream_commit=57637d572532fc028b6c0964944f1afc27ff5436 # main, 2026-04-10 (version 5.0)
nvbandwidth_commit=66746a3bef61c8c2e12ab34955310da70b9e38cb # v0.8, 2025-04-14
babelstream_git=${BABELSTREAM_GIT:-/work/.mirror/UoB-HPC+BabelStream/repo}
nvbandwidth_git=${NVBANDWIDTH_GIT:-/work/.mirror/NVIDIA+nvbandwidth/repo}
arch=${PEERS_ARCH:-sm_90}
force=0
[[ ${1:-} == --force ]] && force=1

peers=$PWD/.peers
shim=$PWD/ci/peers/nvml_shim
cuda_home=$(dirname "$(dirname "$(command -v nvcc)")")
mkdir -p "$peers/bin" "$peers/src" "$peers/obj"

# Static C++ runtime: the build machine (Debian 12) and the GPU machines (Ubuntu 24.04) differ.
# Stripped (-s): 4.4 MB for both instead of 6; the carry to the GPU machine is 64 MiB in all.
host_link=(-s -static-libstdc++ -static-libgcc -L"$cuda_home/lib64" -lcudart_static -ldl -lrt
  -lpthread)

log() { echo "ci/peers/build_peers.sh: $*"; }

# A binary is rebuilt when its commit, the arch, this script or the NVML shim changed.
recipe=$(cat ci/peers/build_peers.sh "$shim"/* | sha256sum | cut -c1-16)
stamp_of() { echo "$1 $arch $recipe"; }
up_to_date() { # up_to_date NAME COMMIT
  ((!force)) && [[ -x $peers/bin/$1 ]] &&
    [[ $(cat "$peers/obj/$1.stamp" 2>/dev/null) == "$(stamp_of "$2")" ]]
}

# export_source GIT_DIR COMMIT DEST: the tree at COMMIT, nothing else (no .git, no history).
export_source() {
  git --git-dir="$1" cat-file -e "$2^{commit}" 2>/dev/null || {
    echo "ci/peers/build_peers.sh: error: commit $2 not in $1 (fetch the mirror first)" >&2
    exit 2
  }
  rm -rf "$3" && mkdir -p "$3"
  git --git-dir="$1" archive "$2" | tar -x -C "$3"
}

nvml_shim_object() {
  gcc -std=c11 -O2 -Wall -I"$shim" -c "$shim/nvml_shim.c" -o "$peers/obj/nvml_shim.o"
}

# BabelStream's CMake CUDA model (src/cuda/model.cmake) with its defaults: MEM=DEFAULT,
# STRIDE=GRID_STRIDE, UNROLL_FACTOR=4, Release -O3; -march=native is left out because the build
# machine is not the one that runs it (it only affects the host-side verification loop).
build_babelstream() {
  local src=$peers/src/babelstream obj=$peers/obj/babelstream
  export_source "$babelstream_git" "$babelstream_commit" "$src"
  mkdir -p "$obj"
  local defs=(-DCUDA -DDEFAULT -DGRID_STRIDE -DUNROLL_FACTOR=4 -I"$src/src" -I"$src/src/cuda"
    -I"$shim")
  nvcc -O3 -std=c++17 -arch="$arch" --extended-lambda "${defs[@]}" \
    -c "$src/src/cuda/CUDAStream.cu" -o "$obj/CUDAStream.o"
  g++ -O3 -std=c++17 "${defs[@]}" -c "$src/src/main.cpp" -o "$obj/main.o"
  g++ -o "$peers/bin/babelstream" "$obj/main.o" "$obj/CUDAStream.o" "$peers/obj/nvml_shim.o" \
    "${host_link[@]}"
  stamp_of "$babelstream_commit" > "$peers/obj/babelstream.stamp"
}

# Debian's libboost-program-options-dev carries the static archive nvbandwidth links.
boost_program_options_archive() {
  local a
  a=$(find /usr/lib /usr/lib64 -name libboost_program_options.a 2>/dev/null | head -n 1)
  if [[ -z $a ]]; then
    log "installing libboost-program-options-dev" >&2
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo -n"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      libboost-program-options-dev >/dev/null
    a=$(find /usr/lib /usr/lib64 -name libboost_program_options.a 2>/dev/null | head -n 1)
  fi
  [[ -n $a ]] || { echo "ci/peers/build_peers.sh: error: no libboost_program_options.a" >&2; exit 2; }
  echo "$a"
}

# nvbandwidth's CMakeLists.txt: C++17, Release, Boost_USE_STATIC_LIBS, links nvidia-ml and cuda
# (the driver API: the stub here, the driver's libcuda.so.1 there).
build_nvbandwidth() {
  local src=$peers/src/nvbandwidth obj=$peers/obj/nvbandwidth boost_a version
  boost_a=$(boost_program_options_archive)
  export_source "$nvbandwidth_git" "$nvbandwidth_commit" "$src"
  version=$(git --git-dir="$nvbandwidth_git" describe --always --tags "$nvbandwidth_commit")
  mkdir -p "$obj"
  local flags=(-O3 -std=c++17 -I"$src" -I"$cuda_home/include" -I"$shim"
    "-DGIT_VERSION=\"$version\"")
  nvcc "${flags[@]}" -arch="$arch" -c "$src/kernels.cu" -o "$obj/kernels.o"
  local objects=("$obj/kernels.o") f
  for f in testcase testcases_ce testcases_sm memcpy nvbandwidth multinode_memcpy \
    multinode_testcases output json_output json/jsoncpp; do
    g++ "${flags[@]}" -c "$src/$f.cpp" -o "$obj/${f//\//_}.o"
    objects+=("$obj/${f//\//_}.o")
  done
  g++ -o "$peers/bin/nvbandwidth" "${objects[@]}" "$peers/obj/nvml_shim.o" "$boost_a" \
    -L"$cuda_home/lib64/stubs" -lcuda "${host_link[@]}"
  stamp_of "$nvbandwidth_commit" > "$peers/obj/nvbandwidth.stamp"
}

nvml_shim_object
if up_to_date babelstream "$babelstream_commit"; then log "babelstream is up to date"; else
  log "building BabelStream $babelstream_commit for $arch"
  build_babelstream
fi
if up_to_date nvbandwidth "$nvbandwidth_commit"; then log "nvbandwidth is up to date"; else
  log "building nvbandwidth $nvbandwidth_commit for $arch"
  build_nvbandwidth
fi

{
  echo "# Built by ci/peers/build_peers.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "babelstream UoB-HPC/BabelStream $babelstream_commit CUDA model, double, -arch=$arch"
  echo "nvbandwidth NVIDIA/nvbandwidth $nvbandwidth_commit $(git --git-dir="$nvbandwidth_git" \
    describe --always --tags "$nvbandwidth_commit"), -arch=$arch"
  echo "nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), $(g++ --version | head -n 1)"
} > "$peers/bin/VERSIONS"
ls -l "$peers/bin"
