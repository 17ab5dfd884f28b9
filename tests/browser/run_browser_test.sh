#!/bin/sh
# Opens an apod report in headless Chromium (tests/browser/report_browser_test.js) and fails on
# console errors, network requests, charts without marks or injected scripts that ran.
#
#   run_browser_test.sh REPORT.html [--screenshot OUT.png] [--expect SELECTOR]...
#       test a report that is already rendered (e.g. by `build/apod report`)
#   run_browser_test.sh --render RENDER_FIXTURE RESULTS.json CATALOG.json REFERENCES.json
#                       [--prices PRICES.json [--baseline RUN_ID]] [--screenshot OUT.png]
#                       [--expect SELECTOR]...
#       render RESULTS.json with tests/report/render_fixture first, into a temporary file
# --expect: a CSS selector that must match at least one element (a section the fixture must have).
#
# Exits 77 (meson's "skipped") where node, Chromium or node_modules/playwright-core is missing;
# it never downloads a browser. APOD_CHROMIUM overrides the browser (default /usr/bin/chromium).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
source_root=$(cd "$here/../.." && pwd)
chromium=${APOD_CHROMIUM:-/usr/bin/chromium}

skip() {
  echo "SKIP: $*"
  exit 77
}
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -x "$chromium" ] || skip "no Chromium at $chromium (set APOD_CHROMIUM)"
[ -f "$source_root/node_modules/playwright-core/package.json" ] ||
  skip "node_modules/playwright-core is missing: run \`npm ci\` in $source_root"

if [ "${1:-}" = "--render" ]; then
  [ $# -ge 5 ] || { echo "usage: $0 --render RENDER_FIXTURE RESULTS CATALOG REFERENCES" >&2; exit 2; }
  workdir=$(mktemp -d "${TMPDIR:-/tmp}/apod-browser-test.XXXXXX")
  trap 'rm -rf "$workdir"' EXIT
  html="$workdir/report.html"
  render=$2 results=$3 catalog=$4 references=$5
  shift 5
  prices=""
  if [ "${1:-}" = "--prices" ]; then
    prices=$2
    shift 2
  fi
  if [ "${1:-}" = "--baseline" ]; then # the pinned run (needs --prices before it)
    prices="$prices $2"
    shift 2
  fi
  # shellcheck disable=SC2086 # $prices is a path and a run id, or nothing
  "$render" "$results" "$catalog" "$references" "$html" $prices
else
  [ $# -ge 1 ] || { echo "usage: $0 REPORT.html [--screenshot OUT.png]" >&2; exit 2; }
  html=$1
  shift
  [ -f "$html" ] || { echo "FAIL: no report at $html"; exit 1; }
fi

APOD_CHROMIUM="$chromium" node "$here/report_browser_test.js" "$html" "$@"
