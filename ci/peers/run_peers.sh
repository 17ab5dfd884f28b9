#!/usr/bin/env bash
# Runs the peer benchmarks built by ci/peers/build_peers.sh on one GPU and keeps their raw output,
# so that apod's figures can be set beside them from the same machine and the same device call
# (issue 12). Usage: ci/peers/run_peers.sh OUT_DIR [--device N]
#   BabelStream  CUDA, double, 2^29 elements per array (3 x 4 GiB, the size of the issue's
#                figures), 100 iterations, classic order: Copy, Mul, Add, Triad, Dot.
#   nvbandwidth  host_to_device_memcpy_ce and device_to_host_memcpy_ce at its defaults
#                (512 MiB buffer, 16 copies per sample, median of 3 samples), if it was built.
# Writes, in OUT_DIR (4 files: the device tool brings back at most 8):
#   babelstream.csv  BabelStream's stdout (--csv --gigabytes): device lines, then the table
#   nvbandwidth.txt  nvbandwidth's stdout and stderr, after a first line with its command
#   summary.csv      peer,kernel,gb_per_s,statistic (ci/peers/summarise_peers.sh)
#   peers.log        versions, GPU state before and after, BabelStream's stderr, wall times
# Environment: PEERS_BIN (default .peers/bin), BABELSTREAM_SIZE (default 2^29),
# BABELSTREAM_TIMES (default 100). Exit status 0 when every peer ran and verified, else 1.
# Wall time, estimated (not yet measured): 10-20 s on an H100 or H200; BabelStream's host side
# (12 GiB of host arrays, their copy back and check) outweighs its 100 iterations (~5 TB moved,
# ~2 s at 3 TB/s), and nvbandwidth takes a few seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: ci/peers/run_peers.sh OUT_DIR [--device N]}
device=0
[[ ${2:-} == --device ]] && device=${3:?--device needs an index}
bin=$(realpath -m "${PEERS_BIN:-$here/../../.peers/bin}")
size=${BABELSTREAM_SIZE:-$((2 ** 29))}
times=${BABELSTREAM_TIMES:-100}
budget_s=30 # the issue's bound for BabelStream; above it, lower BABELSTREAM_TIMES

mkdir -p "$out"
log=$out/peers.log
: > "$log"
status=0

# The peers see only the chosen GPU: nvbandwidth's SUM line adds up every visible GPU.
export CUDA_VISIBLE_DEVICES=$device

gpu_state() {
  echo "== GPU $device $1"
  command -v nvidia-smi >/dev/null || { echo "(no nvidia-smi)"; return; }
  nvidia-smi -i "$device" --format=csv --query-gpu=name,pci.bus_id,driver_version,memory.total,\
ecc.mode.current,clocks.sm,clocks.mem,clocks.max.sm,power.draw,temperature.gpu 2>&1 || true
  # A field older drivers lack, asked alone so that it cannot void the line above.
  nvidia-smi -i "$device" --format=csv --query-gpu=clocks_event_reasons.active 2>&1 || true
}

# run NAME SECONDS_LIMIT STDOUT_FILE STDERR_FILE COMMAND...: runs a peer, logs its wall time and
# exit status and returns the latter.
run() {
  local name=$1 limit=$2 file=$3 errors=$4 start end rc=0
  shift 4
  echo "== $name: $*" >> "$log"
  start=$(date +%s.%N)
  timeout "$limit" "$@" >> "$file" 2>> "$errors" || rc=$?
  end=$(date +%s.%N)
  awk -v n="$name" -v rc="$rc" -v a="$start" -v b="$end" \
    'BEGIN { printf "== %s: exit %d after %.1f s\n", n, rc, b - a }' >> "$log"
  ((rc == 0)) || echo "ci/peers/run_peers.sh: $name failed (exit $rc; see $errors)" >&2
  return "$rc"
}

{
  echo "== ci/peers/run_peers.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
  cat "$bin/VERSIONS" 2>/dev/null || echo "(no $bin/VERSIONS: run ci/peers/build_peers.sh)"
  gpu_state before
} >> "$log"

: > "$out/babelstream.csv"
if [[ -x $bin/babelstream ]]; then
  run babelstream 300 "$out/babelstream.csv" "$log" \
    "$bin/babelstream" --device 0 --arraysize "$size" --numtimes "$times" --csv --gigabytes ||
    status=1
  secs=$(awk '/^== babelstream: exit/ { print $(NF - 1) }' "$log")
  if awk -v s="$secs" -v b="$budget_s" 'BEGIN { exit !(s > b) }'; then
    echo "ci/peers/run_peers.sh: BabelStream took ${secs} s (> ${budget_s} s):" \
      "set BABELSTREAM_TIMES below $times" | tee -a "$log" >&2
  fi
else
  echo "ci/peers/run_peers.sh: $bin/babelstream missing (run ci/peers/build_peers.sh)" >&2
  status=1
fi

# nvbandwidth ARGS...: one attempt, its command line first in nvbandwidth.txt.
nvbandwidth() {
  echo "# nvbandwidth $*" > "$out/nvbandwidth.txt"
  run nvbandwidth 120 "$out/nvbandwidth.txt" "$out/nvbandwidth.txt" "$bin/nvbandwidth" "$@"
}

if [[ -x $bin/nvbandwidth ]]; then
  nvb=(-t host_to_device_memcpy_ce device_to_host_memcpy_ce -i 3)
  if ! nvbandwidth "${nvb[@]}"; then
    # It pins its thread near the GPU through NVML and stops if that fails for any reason but
    # "not supported"; a virtual machine may refuse it. Then once more without (-d), and say so.
    if grep -q nvmlDeviceSetCpuAffinity "$out/nvbandwidth.txt"; then
      { echo "== nvbandwidth: CPU affinity refused; its output:"; cat "$out/nvbandwidth.txt"
        echo "== nvbandwidth: again without CPU affinity (-d)"; } >> "$log"
      nvbandwidth -d "${nvb[@]}" || status=1
    else
      status=1
    fi
  fi
  # nvbandwidth reports a failed test case in its output and still exits 0.
  if grep -q -E '^(Error|ERROR|Not Found|Waived)' "$out/nvbandwidth.txt"; then
    echo "ci/peers/run_peers.sh: nvbandwidth reported an error (see $out/nvbandwidth.txt)" >&2
    status=1
  fi
else
  echo "ci/peers/run_peers.sh: no nvbandwidth in $bin; PCIe peer figures skipped" | tee -a "$log"
fi

gpu_state after >> "$log"
"$here/summarise_peers.sh" "$out" || status=1
exit "$status"
