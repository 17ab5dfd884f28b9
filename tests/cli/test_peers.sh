#!/usr/bin/env bash
# ci/peers/run_peers.sh and summarise_peers.sh, without a GPU: stand-in peers print output in the
# real programs' formats (BabelStream --csv, nvbandwidth's text with its SUM lines); every number
# below is synthetic. Checks the figures and statistics in summary.csv, the arguments and the one
# visible GPU the peers get, and that a peer's failure or reported error fails the run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0

check() { # check NAME CONDITION_EXIT_CODE DETAIL
  if [[ $2 -eq 0 ]]; then
    echo "ok   $1"; passed=$((passed + 1))
  else
    echo "FAIL $1: $3"; failures=$((failures + 1))
  fi
}
has_line() { grep -q -x -F "$2" "$1"; }

# Stand-ins: they log their arguments and CUDA_VISIBLE_DEVICES, and fail when asked to.
mkdir -p "$tmp/bin"
cat > "$tmp/bin/babelstream" <<'EOF'
#!/usr/bin/env bash
echo "$CUDA_VISIBLE_DEVICES $*" > "$FAKE_LOG/babelstream.args"
echo 'CUDA Driver: 13000'
echo 'CUDA Device 0: "Synthetic GPU" 132 SMs(9,0) Memory: 2619 MHz x 5120-bit = 3352.3 GB/s PEAK, ECC is ON'
if [[ ${FAKE_FAIL:-} == babelstream ]]; then
  echo "FAILED validation of a[0]: 1 (is) != 2 (should)" >&2; exit 1
fi
echo "function,num_times,n_elements,sizeof,max_${FAKE_UNIT:-GB}_per_sec,min_runtime,max_runtime,avg_runtime"
echo "Copy,100,536870912,8,${FAKE_COPY:-1000},0.01,0.02,0.0125"
echo "Dot,100,536870912,8,2000,0.004,0.005,0.005"
EOF
cat > "$tmp/bin/nvbandwidth" <<'EOF'
#!/usr/bin/env bash
echo "$CUDA_VISIBLE_DEVICES $*" > "$FAKE_LOG/nvbandwidth.args"
printf 'nvbandwidth Version: v0.8\n\nRunning host_to_device_memcpy_ce.\n'
printf 'memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n           0\n 0     50.00\n\n'
printf 'SUM host_to_device_memcpy_ce 50.00\n\n'
if [[ ${FAKE_FAIL:-} == affinity && $1 != -d ]]; then
  echo "NVML_ERROR: [Unknown Error] in expression nvmlDeviceSetCpuAffinity(device)" >&2; exit 1
fi
if [[ ${FAKE_FAIL:-} == nvbandwidth ]]; then
  printf 'Running device_to_host_memcpy_ce.\nError: CUDA_ERROR_UNKNOWN in cuMemcpyAsync\n'
  exit 0  # as nvbandwidth does: the error is in its output, the exit status is 0
fi
printf 'Running device_to_host_memcpy_ce.\nSUM device_to_host_memcpy_ce 40.50\n'
EOF
chmod +x "$tmp/bin/"*
export PEERS_BIN=$tmp/bin FAKE_LOG=$tmp

run_peers() { # run_peers OUT [ENV=VALUE...] -- ARGS...: exit status in $code
  local out=$1; shift
  local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done
  shift
  env "${env[@]}" "$root/ci/peers/run_peers.sh" "$out" "$@" > "$out.stdout" 2>&1
  code=$?
}

run_peers "$tmp/ok" -- --device 2
check run_ok_exit_0 $((code != 0)) "exit $code: $(cat "$tmp/ok.stdout")"
s=$tmp/ok/summary.csv
has_line "$s" "peer,kernel,gb_per_s,statistic"
check summary_header $? "$(cat "$s")"
has_line "$s" "babelstream,Copy,1000.0,best of 99 (min time)"
check babelstream_best_from_min_time $? "$(cat "$s")"
has_line "$s" "babelstream,Copy,800.0,mean of 99"
check babelstream_mean_from_avg_time $? "$(cat "$s")"
has_line "$s" "babelstream,Dot,1600.0,mean of 99"
check babelstream_every_kernel $? "$(cat "$s")"
has_line "$s" "nvbandwidth,host_to_device_memcpy_ce,50.00,median of 3" &&
  has_line "$s" "nvbandwidth,device_to_host_memcpy_ce,40.50,median of 3"
check nvbandwidth_sum_lines $? "$(cat "$s")"
has_line "$tmp/babelstream.args" "2 --device 0 --arraysize 536870912 --numtimes 100 --csv --gigabytes"
check babelstream_args_one_gpu $? "$(cat "$tmp/babelstream.args")"
has_line "$tmp/nvbandwidth.args" "2 -t host_to_device_memcpy_ce device_to_host_memcpy_ce -i 3"
check nvbandwidth_args_one_gpu $? "$(cat "$tmp/nvbandwidth.args")"
grep -q '^== babelstream: exit 0 after' "$tmp/ok/peers.log"
check log_has_wall_time $? "$(cat "$tmp/ok/peers.log")"

run_peers "$tmp/small" BABELSTREAM_SIZE=1024 BABELSTREAM_TIMES=10 --
has_line "$tmp/babelstream.args" "0 --device 0 --arraysize 1024 --numtimes 10 --csv --gigabytes"
check size_and_times_from_env $? "$(cat "$tmp/babelstream.args")"

run_peers "$tmp/mb" FAKE_UNIT=MB FAKE_COPY=3000000 --
has_line "$tmp/mb/summary.csv" "babelstream,Copy,3000.0,best of 99 (min time)"
check megabytes_converted $? "$(cat "$tmp/mb/summary.csv")"

run_peers "$tmp/mib" FAKE_UNIT=MiB --
check binary_unit_refused $((code == 0)) "exit 0; $(cat "$tmp/mib/summary.csv")"

run_peers "$tmp/bad" FAKE_FAIL=babelstream --
check failed_verification_fails_run $((code != 1)) "exit $code"
grep -q '^babelstream,' "$tmp/bad/summary.csv"
check failed_verification_no_figures $((! $?)) "$(cat "$tmp/bad/summary.csv")"
grep -q 'FAILED validation' "$tmp/bad/peers.log"
check failure_reason_logged $? "$(cat "$tmp/bad/peers.log")"

run_peers "$tmp/nvb" FAKE_FAIL=nvbandwidth --
check nvbandwidth_error_fails_run $((code != 1)) "exit $code"

run_peers "$tmp/aff" FAKE_FAIL=affinity --
check affinity_refused_retried_with_d $((code != 0)) "exit $code: $(cat "$tmp/aff.stdout")"
has_line "$tmp/nvbandwidth.args" "0 -d -t host_to_device_memcpy_ce device_to_host_memcpy_ce -i 3" &&
  grep -q 'again without CPU affinity' "$tmp/aff/peers.log" &&
  has_line "$tmp/aff/summary.csv" "nvbandwidth,device_to_host_memcpy_ce,40.50,median of 3"
check affinity_retry_logged_and_summarised $? "$(cat "$tmp/aff/peers.log")"

empty=$tmp/empty && mkdir -p "$empty"
"$root/ci/peers/summarise_peers.sh" "$empty" > /dev/null 2>&1
check no_figures_exit_1 $(($? != 1)) "summarise_peers.sh on an empty folder"

echo "$passed passed, $failures failed"
((failures == 0))
