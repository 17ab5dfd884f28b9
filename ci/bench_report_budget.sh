#!/usr/bin/env bash
# The report's budgets (issue 25; docs/performance.md records the figures), measured on the
# committed runs of data/runs/, i.e. on the grown matrix:
#
#   page                                                      size          time
#   one run: the newest committed H100 run                    < 1.5 MB      charts < 5 s
#   12 runs of two models: the newest 6 H100 and 6 H200 runs  < 3 MiB       charts < 5 s
#   every committed run                                       < 6 MiB       charts < 5 s
#   1000 runs: the committed runs repeated, a year of nights  < 10 MB       apod renders < 3 s,
#     (tests/report/bench_report --from)                                    charts < 5 s
#
# "charts" is the median of 3 loads in headless Chromium of the time from navigation to the last
# chart drawn (tests/browser/draw_time.js); "apod renders" is render_html's median of 3 renders
# (bench_report; the store read and JSON parsing are not in it). `apod report`'s whole wall time
# on the committed runs' database is printed too, for reading only. Prints one line per budget
# and exits 1 when any is exceeded, 2 on bad arguments or a missing build. A benchmark to rerun
# on the machine at hand, not a test: no test suite calls it.
#
#   ci/bench_report_budget.sh [BUILD_DIR]     (default build/; needs node and chromium for times)
#   APOD_BENCH=/path/to/release/tests/report/bench_report ci/bench_report_budget.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) ||
  { echo "bench_report_budget: no build directory ${1:-$root/build}" >&2; exit 2; }
apod=$build/apod
# APOD_BENCH: a bench_report of another build (e.g. a release host-only build: ci/build.sh
# builds -O1 where no GPU is visible, and times there are upper bounds).
bench=${APOD_BENCH:-$build/tests/report/bench_report}
for program in "$apod" "$bench"; do
  [ -x "$program" ] || { echo "bench_report_budget: no $program (build first)" >&2; exit 2; }
done
draw=(node "$root/tests/browser/draw_time.js")
can_draw=1
{ command -v node && [ -x "${APOD_CHROMIUM:-/usr/bin/chromium}" ] &&
  [ -f "$root/node_modules/playwright-core/package.json" ]; } >/dev/null 2>&1 || can_draw=0

work=$(mktemp -d "${TMPDIR:-/tmp}/apod-budget.XXXXXX")
trap 'rm -rf "$work"' EXIT
documents=("$root"/data/runs/*.json "$root"/data/runs/*.json.gz)
"$apod" import --db "$work/all.db" "${documents[@]}" >/dev/null

# The runs to put on each page, by the store's own listing (start order).
mapfile -t one < <("$apod" list --runs --json --db "$work/all.db" | python3 -c '
import json, sys
runs = json.load(sys.stdin)
print([r for r in runs if r["device"].startswith("NVIDIA H100")][-1]["id"])')
mapfile -t twelve < <("$apod" list --runs --json --db "$work/all.db" | python3 -c '
import json, sys
runs = json.load(sys.stdin)
for model in ("NVIDIA H100", "NVIDIA H200"):
    for r in [r for r in runs if r["device"].startswith(model)][-6:]:
        print(r["id"])')
committed=$("$apod" list --runs --json --db "$work/all.db" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')

over=0
# check NAME VALUE LIMIT UNIT: one line, and the verdict against the budget.
check() {
  local verdict=within
  if python3 -c "import sys; sys.exit(0 if float('$2') < float('$3') else 1)"; then :; else
    verdict=OVER
    over=1
  fi
  printf '%-58s %14s  budget < %-12s %s\n' "$1" "$2 $4" "$3 $4" "$verdict"
}
size_of() { stat -c %s "$1"; }
mib() { python3 -c "print(f'{$1 / 1048576:.2f}')"; }
drawn() {  # drawn PAGE: the median seconds, or "n/a" without a browser
  if ((can_draw)); then "${draw[@]}" "$1" --repeat 3 | awk '/^draw_time:/ { print $3 }'; else echo n/a; fi
}

report() {  # report OUT [--run ID]...: apod report on the committed runs' database
  local out=$1
  shift
  "$apod" report --db "$work/all.db" --out "$out" "$@" >/dev/null
}

echo "apod report budgets on $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, $(date -u +%FT%TZ)"
report "$work/one.html" --run "${one[0]}"
check "page, one run (newest H100)" "$(size_of "$work/one.html")" 1500000 bytes
runs=()
for id in "${twelve[@]}"; do runs+=(--run "$id"); done
report "$work/twelve.html" "${runs[@]}"
check "page, 12 runs of two models (newest 6 H100 + 6 H200)" "$(mib "$(size_of "$work/twelve.html")")" 3 MiB
start=$(date +%s.%N)
report "$work/all.html"
wall=$(python3 -c "print(f'{$(date +%s.%N) - $start:.2f}')")
check "page, every committed run ($committed runs)" "$(mib "$(size_of "$work/all.html")")" 6 MiB
echo "  (apod report's wall time on those $committed runs, store read included: $wall s)"

from=()
for document in "${documents[@]}"; do from+=(--from "$document"); done
"$bench" 1000 "${from[@]}" --out "$work/thousand.html" > "$work/bench.txt" 2>&1 ||
  { cat "$work/bench.txt"; exit 1; }
render=$(awk '/^render [0-9]:/ { print $3 }' "$work/bench.txt" | sort -n | sed -n 2p)
check "page, 1000 runs (committed runs repeated)" "$(size_of "$work/thousand.html")" 10000000 bytes
check "apod renders 1000 runs (median of 3)" "$render" 3 s

for page in one twelve all thousand; do
  seconds=$(drawn "$work/$page.html")
  if [ "$seconds" = n/a ]; then
    echo "charts drawn, $page: not measured (no node, Chromium or playwright-core)"
  else
    check "charts drawn in headless Chromium, $page (median of 3)" "$seconds" 5 s
  fi
done
exit $over
