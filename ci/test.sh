#!/usr/bin/env bash
# Installs what is missing (chromium and clang included), builds, and runs every test this
# machine can run: unit, cli, reliability, report, browser, fleet (the fleet recipe on a real
# single-node Slurm it installs and starts: root or sudo, else skipped); the gpu suite runs where
# a GPU is visible and is reported as skipped (exit 77) where none is. Then the sanitizer and
# fuzzing stage (docs/reliability.md): a host-only clang build runs the unit and reliability
# suites under AddressSanitizer and UndefinedBehaviorSanitizer, and each libFuzzer target runs for
# a fixed time (APOD_FUZZ_SECONDS, default 60, scales the budget; APOD_SKIP_SANITIZERS=1 skips
# the stage). Ends with one line "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh --browser --sanitizers || exit 1
# Where no GPU is visible the build only has to compile and test the host side: machine code for
# one architecture (sm_90, its PTX embedded) compiles every kernel through the same front end as
# the default three, in less of nvcc's time (keeps a fresh clone's run here under 45 minutes),
# and at -O1: code generation is two thirds of a translation unit's time at -O3 (test_compare.cpp:
# 8.7 s to parse, 21 s at -O1, 32 s at -O3), and nothing built here is timed or carried. A GPU
# machine builds the default architectures at the release level (meson_options.txt).
setup=()
nvidia-smi -L >/dev/null 2>&1 || setup=(-Dgpu_archs=90 -Doptimization=1)
ci/build.sh "${setup[@]}" || exit 1
meson test -C build --print-errorlogs --num-processes 2 "$@"
status=$?
logs=(build/meson-logs/testlog.json)

if [[ ${APOD_SKIP_SANITIZERS:-0} != 1 ]]; then
  san=build-sanitize
  if [[ ! -f $san/build.ninja ]]; then
    CXX=clang++-14 meson setup $san -Dhost_only=true -Dfuzz=enabled -Db_sanitize=address,undefined \
      -Db_lundef=false -Dbuildtype=debug -Doptimization=1 >/dev/null || exit 1
  fi
  # Only what the stage runs: the programs of its two suites (and what they call) and the fuzz
  # targets; the data-suite and other binaries of a full build are never run here.
  mapfile -t wanted < <(python3 - "$san" <<'PY'
import json, os, subprocess, sys
build = sys.argv[1]
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", what, build]))
targets = {t["id"]: t for t in introspect("--targets")}
ids = {d for t in introspect("--tests") for d in t["depends"]
       if {s.split(":")[-1] for s in t["suite"]} & {"unit", "reliability"}}
ids |= {i for i, t in targets.items() if t["name"].startswith("fuzz_")}
for i in sorted(ids & targets.keys()):
    for f in targets[i]["filename"]:
        print(os.path.relpath(f, build))
PY
  )
  ((${#wanted[@]})) || { echo "ci/test.sh: the sanitizer build lists no target" >&2; exit 1; }
  ninja -C $san "${wanted[@]}" || exit 1
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C $san --no-rebuild --print-errorlogs --num-processes 2 --suite unit --suite reliability || status=1
  logs+=($san/meson-logs/testlog.json)
  # Each fuzz target from its seeds and the corpus earlier runs left on this machine: a crash,
  # a sanitizer report, an uncaught exception, a leak or a 10 s hang fails it.
  seconds=${APOD_FUZZ_SECONDS:-60}
  mkdir -p $san/fuzz/seed-db && cp $san/tests/fuzz/seed.db $san/fuzz/seed-db/
  # One real run as a seed, the smallest: multi-MB seeds make every mutated input as large and cut
  # the importer's throughput about 20x (the big documents are imported whole by the report tests).
  mkdir -p $san/fuzz/seed-runs && cp data/runs/nvidia-h200-20261122.json $san/fuzz/seed-runs/
  : > $san/fuzz/testlog.json
  fuzz() {  # fuzz TARGET PERCENT_OF_BUDGET SEED_DIR...
    local target=$1 budget=$((seconds * $2 / 100)) dict=() result=OK
    shift 2
    [[ $budget -gt 0 ]] || return 0
    [[ -f tests/fuzz/${target#fuzz_}.dict ]] && dict=(-dict=tests/fuzz/${target#fuzz_}.dict)
    mkdir -p $san/fuzz/$target
    if $san/tests/fuzz/$target -max_total_time=$budget -timeout=10 -rss_limit_mb=2048 "${dict[@]}" \
        -artifact_prefix=$san/fuzz/$target- $san/fuzz/$target "$@" > $san/fuzz/$target.log 2>&1; then
      echo "fuzz $target: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' $san/fuzz/$target.log), no failure"
    else
      result=FAIL status=1
      echo "fuzz $target FAILED (reproducer in $san/fuzz/):"; tail -40 $san/fuzz/$target.log
    fi
    echo "{\"name\": \"$target\", \"result\": \"$result\"}" >> $san/fuzz/testlog.json
  }
  fuzz fuzz_results_import 100 tests/fuzz/seeds/results $san/fuzz/seed-runs
  fuzz fuzz_store_open 50 $san/fuzz/seed-db
  fuzz fuzz_compare_config 25 tests/fuzz/seeds/compare_config
  fuzz fuzz_store_read 50 tests/fuzz/seeds/store_read
  fuzz fuzz_prices 15 tests/fuzz/seeds/prices
  logs+=($san/fuzz/testlog.json)
fi

python3 - "${logs[@]}" <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for line in (line for path in sys.argv[1:] for line in open(path)):
    result = json.loads(line)["result"]
    key = {"OK": "passed", "SKIP": "skipped", "EXPECTEDFAIL": "passed"}.get(result, "failed")
    counts[key] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
PY
exit $status
