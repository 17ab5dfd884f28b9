#!/bin/sh
# The browser test's chart checks must fail where a chart is broken. Declarations cannot draw a
# broken chart (the report builds every spec, caps series at 10 and sets no title limit), so this
# renders the one-run fixture with the synthetic catalog and then breaks the first chart's spec in
# the page (tests/browser/break_chart.py): a Vega-Lite warning (opacity on an unsorted nominal
# field), a series per point, a y title cut at 40 px and two labels drawn on each other. Passes
# only when the browser test fails naming all four. Exits 77 where the browser test is skipped.
#   expect_chart_failures.sh RENDER_FIXTURE RESULTS.json CATALOG.json REFERENCES.json
set -eu
here=$(cd "$(dirname "$0")" && pwd)
workdir=$(mktemp -d "${TMPDIR:-/tmp}/apod-broken-charts.XXXXXX")
trap 'rm -rf "$workdir"' EXIT
"$1" "$2" "$3" "$4" "$workdir/report.html"
python3 "$here/break_chart.py" "$workdir/report.html"
out=$(sh "$here/run_browser_test.sh" "$workdir/report.html") &&
  { echo "FAIL: the browser test passed a page with broken charts"; echo "$out"; exit 1; }
status=$?
echo "$out"
[ "$status" -eq 77 ] && exit 77
for expected in 'console warning: chart-[0-9]*: WARN' 'a legend lists [0-9]* entries (limit 10)' \
                'truncated text "a y ' 'the labels "planted label" and "planted label too" overlap'; do
  echo "$out" | grep -q "$expected" || { echo "FAIL: no problem matching: $expected"; exit 1; }
done
echo "PASS: the browser test names the warning, the series over the limit, the cut title and the overlapping labels"
