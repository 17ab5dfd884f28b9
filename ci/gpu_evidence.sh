#!/usr/bin/env bash
# Everything a GPU machine can prove in one sitting, for a machine where only binaries travel
# (no build tools): the gpu test suites, the full matrix repeated (reproducibility and a short
# history), and the runner benchmark. Usage, from a folder holding apod, test_gpu_experiments and
# the tests/reliability and ci scripts:
#   ci/gpu_evidence.sh APOD TEST_GPU_EXPERIMENTS OUT_DIR [REPEATS]
set -uo pipefail
apod=$1 gpu_tests=$2 out=$3 repeats=${4:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
status=0
step() { echo "== $*"; }
step "gpu suite: every experiment at reduced size"
"$gpu_tests" --gtest_brief=1 > "$out/gpu_experiments.txt" 2>&1 || status=1
tail -3 "$out/gpu_experiments.txt"
step "gpu suite: fault isolation"
bash "$here/tests/reliability/test_gpu_fault_isolation.sh" "$apod" > "$out/fault_isolation.txt" 2>&1 || status=1
tail -3 "$out/fault_isolation.txt"
step "gpu suite: kill -9 and resume"
bash "$here/tests/reliability/test_gpu_kill_resume.sh" "$apod" > "$out/kill_resume.txt" 2>&1 || status=1
tail -3 "$out/kill_resume.txt"
step "full matrix, --repeat $repeats"
"$apod" run --repeat "$repeats" --db "$out/runs.db" --label "full matrix, --repeat $repeats" > "$out/runs.txt" 2>&1 || status=1
cat "$out/runs.txt"
step "runner benchmark"
bash "$here/ci/bench_runner.sh" "$apod" "$out/bench" > "$out/bench.txt" 2>&1 || status=1
cat "$out/bench.txt"
exit $status
