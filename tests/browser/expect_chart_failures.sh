#!/bin/sh
# The browser test's chart checks must fail where a chart is broken: renders the one-run fixture
# with broken_charts_catalog.json (h2d_copy's own spec encodes opacity by an unsorted name,
# gives each of its 18 points a series and cuts its y title at 40 px) and passes only when the
# browser test fails naming all three. Exits 77 where the browser test is skipped.
#   expect_chart_failures.sh RENDER_FIXTURE RESULTS.json REFERENCES.json
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(sh "$here/run_browser_test.sh" --render "$1" "$2" "$here/broken_charts_catalog.json" "$3") &&
  { echo "FAIL: the browser test passed a page with broken charts"; echo "$out"; exit 1; }
status=$?
echo "$out"
[ "$status" -eq 77 ] && exit 77
for expected in 'console warning: chart-[0-9]*: WARN' 'a legend lists [0-9]* entries (limit 10)' \
                'truncated text "a y '; do
  echo "$out" | grep -q "$expected" || { echo "FAIL: no problem matching: $expected"; exit 1; }
done
echo "PASS: the browser test names the warning, the series over the limit and the cut title"
