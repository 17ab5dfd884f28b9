#!/usr/bin/env bash
# The screenshots of the report's first screen in docs/screenshots/ (docs/report.md), taken from
# headless Chromium by tests/browser/screenshot.js and never edited:
#   first-screen-one-device.png   the runs of one GPU          (ONE_DEVICE documents)
#   first-screen-two-models.png   two or more device models    (TWO_MODELS documents)
#   first-screen-history.png      a year of nights, three machines (1000 synthetic runs,
#                                 tests/report/bench_report --fleet; or HISTORY_DB, a database)
#   section-history.png, section-peak-copy.png, section-offset-copy.png, section-environment.png
#                                 sections of the one-device page, scrolled to the top
#   section-comparison.png        the buyer's comparison of the two-model page
# Each database gets its oldest run pinned as the baseline (`apod baseline set`), so the first
# screen shows the verdict of the newest run against it.
#
#   ci/screenshots.sh [BUILD_DIR] [OUT_DIR]
#   ONE_DEVICE="data/runs/a.json ..." TWO_MODELS="data/runs/h100.json data/runs/h200.json ..."
#   HISTORY_DB=fleet.db ci/screenshots.sh build docs/screenshots
#
# Defaults: ONE_DEVICE is every committed H200 document of data/runs (.json or .json.gz); TWO_MODELS every committed
# document of data/runs. When those cover a single device model (only H200 runs are committed so
# far), the two-model image is taken of the synthetic two-model fixture
# (tests/report/fixtures/synthetic_history.json, whose page says it is synthetic) and the script
# says so: rerun it once runs of a second model are committed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/docs/screenshots}
apod=$build/apod
one_device=${ONE_DEVICE:-$(ls "$root"/data/runs/nvidia-h200-*.json "$root"/data/runs/nvidia-h200-*.json.gz)}
two_models=${TWO_MODELS:-$(ls "$root"/data/runs/*.json "$root"/data/runs/*.json.gz)}
shoot="node $root/tests/browser/screenshot.js"
[ -x "$apod" ] || { echo "screenshots: no apod at $apod (build first)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/apod-screenshots.XXXXXX")
trap 'rm -rf "$work"' EXIT

# database NAME DOCUMENT...: a database of the documents with its oldest run pinned.
database() {
  local db=$work/$1.db
  shift
  "$apod" import --db "$db" "$@" >/dev/null
  pin "$db"
  echo "$db"
}

pin() {
  local oldest
  oldest=$("$apod" list --runs --db "$1" | awk 'NR == 2 { print $1 }')
  [ -n "$oldest" ] && "$apod" baseline set "$oldest" --db "$1" >/dev/null
}

models_in() {
  "$apod" export --db "$1" --out - 2>/dev/null |
    python3 -c 'import json, sys; print(len({r["device"]["name"] for r in json.load(sys.stdin)["runs"]}))'
}

# shellcheck disable=SC2086 # the documents are paths without spaces, one word each
db=$(database one $one_device)
"$apod" report --db "$db" --out "$work/one.html"
$shoot "$work/one.html" "$out/first-screen-one-device.png"
$shoot "$work/one.html" "$out/section-history.png" --scroll '#history'
$shoot "$work/one.html" "$out/section-peak-copy.png" --scroll 'section[id$="-peak_copy"]'
$shoot "$work/one.html" "$out/section-offset-copy.png" --scroll 'section[id$="-offset_copy"]'
$shoot "$work/one.html" "$out/section-environment.png" --scroll '#environment'

# shellcheck disable=SC2086
db=$(database two $two_models)
if [ "$(models_in "$db")" -ge 2 ]; then
  "$apod" report --db "$db" --out "$work/two.html"
else
  echo "screenshots: the documents given cover one device model; the two-model image shows the" \
       "synthetic fixture tests/report/fixtures/synthetic_history.json" >&2
  db=$(database two-synthetic "$root/tests/report/fixtures/synthetic_history.json")
  "$apod" report --db "$db" --out "$work/two.html"
fi
$shoot "$work/two.html" "$out/first-screen-two-models.png"
$shoot "$work/two.html" "$out/section-comparison.png" --scroll '#comparison'

if [ -n "${HISTORY_DB:-}" ]; then
  cp "$HISTORY_DB" "$work/history.db"
  [ -n "$("$apod" baseline show --db "$work/history.db" 2>/dev/null)" ] || pin "$work/history.db"
  "$apod" report --db "$work/history.db" --out "$work/history.html"
else
  "$build/tests/report/bench_report" 1000 --fleet --samples 10 --out "$work/history.html" >/dev/null
fi
$shoot "$work/history.html" "$out/first-screen-history.png"
echo "screenshots: wrote $(cd "$out" && ls first-screen-*.png section-*.png | tr '\n' ' ')in $out"
