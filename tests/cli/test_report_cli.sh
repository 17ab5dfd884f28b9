#!/usr/bin/env bash
# apod report from the command line: the pinned baseline reaches the page's first screen and the
# markdown summary, --format markdown writes nvbench-style tables to standard output or a file,
# and an unknown format is a usage error (exit 2). Runs on any machine (no GPU).
set -u
apod=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0
expect() {  # expect NAME WANT_CODE WANT_TEXT -- command...
  local name=$1 want=$2 text=$3; shift 4
  local out code
  out=$("$@" 2>&1); code=$?
  if [[ $code -ne $want || ( -n $text && $out != *"$text"* ) ]]; then
    echo "FAIL $name: exit $code (wanted $want), output: ${out:0:600}"; failures=$((failures + 1))
  else
    echo "ok   $name"; passed=$((passed + 1))
  fi
}

# Two runs of one GPU: a point near 100 GB/s, then the same point at half of it (without a history
# of the GPU only the class defaults judge, docs/ci.md: a change must be gross to be found).
python3 - "$tmp" <<'PY'
import json, random, sys
runs = []
for rid, level, day in [("a1", 100.0, 1), ("b2", 50.0, 2)]:
    rnd = random.Random(day)
    runs.append({"id": rid * 8, "label": f"night {day}", "started_at": f"2026-01-0{day}T02:00:00.000Z",
                 "status": "complete", "device": {"name": "Synthetic GPU", "uuid": "GPU-synthetic",
                                                  "theoretical_bandwidth_gbs": 125.0},
                 "experiments": [{"name": "offset_copy", "version": 1, "status": "complete"}],
                 "measurements": [{"experiment": "offset_copy", "params": {"word_bytes": 4, "offset": 0},
                                   "metric": "effective_bandwidth", "unit": "GB/s", "direction": "higher",
                                   "samples": [rnd.gauss(level, 0.2) for _ in range(12)],
                                   "verified": True,
                                   "extra": {"bytes_moved": 1e9}}]})
json.dump({"format": "apod-results", "schema_version": 2, "runs": runs}, open(f"{sys.argv[1]}/runs.json", "w"))
PY
"$apod" import --db "$tmp/r.db" "$tmp/runs.json" >/dev/null 2>&1
# No pin: the newest run against the previous run of its machine, and the words say so (issue 25).
expect markdown_no_baseline 0 "no baseline is pinned" -- "$apod" report --db "$tmp/r.db" --format markdown
"$apod" baseline set a1a1 --db "$tmp/r.db" >/dev/null 2>&1
expect markdown_stdout 0 "| word\_bytes | offset | samples used | excluded | GPU time | noise | median | % of limit | status |" \
  -- "$apod" report --db "$tmp/r.db" --format markdown
expect markdown_verdict 0 "REGRESSION\\: 1 regression\\," -- "$apod" report --db "$tmp/r.db" --format markdown
expect markdown_file 0 "wrote $tmp/r.md" -- "$apod" report --db "$tmp/r.db" --format markdown --out "$tmp/r.md"
grep -q "## Misaligned copy" "$tmp/r.md" || grep -q "## offset\\\\_copy" "$tmp/r.md" ||
  { echo "FAIL markdown_file_content: $(head -c 400 "$tmp/r.md")"; failures=$((failures + 1)); }
expect html 0 "wrote" -- "$apod" report --db "$tmp/r.db" --out "$tmp/r.html"
grep -q 'class="change change-bad"' "$tmp/r.html" &&
  grep -q '<strong class="change-word">REGRESSION</strong>: the newest run' "$tmp/r.html" &&
  grep -q ">1 regression, " "$tmp/r.html" ||
  { echo "FAIL html_first_screen: the pinned baseline's verdict is not on the page"; failures=$((failures + 1)); }
# The page apod writes is packed (report/pack.hpp): no chart spec or Vega source in plain text;
# --plain-data writes the same page unpacked, and unpacking the packed one gives its markup.
grep -q 'data-packed="deflate-base64"' "$tmp/r.html" && ! grep -q '"\$schema"\|"mark":' "$tmp/r.html" ||
  { echo "FAIL html_packed: the page's data is not packed"; failures=$((failures + 1)); }
expect html_plain 0 "wrote" -- "$apod" report --db "$tmp/r.db" --out "$tmp/plain.html" --plain-data
! grep -q 'data-packed=' "$tmp/plain.html" && grep -q '"mark":' "$tmp/plain.html" ||
  { echo "FAIL html_plain_data: --plain-data left packed blocks or no plain spec"; failures=$((failures + 1)); }
python3 "$(dirname "$0")/../browser/unpack_page.py" "$tmp/r.html" | grep -q '"mark":' ||
  { echo "FAIL html_unpacks: the packed page does not inflate to its specs"; failures=$((failures + 1)); }
expect bad_format 2 "" -- "$apod" report --db "$tmp/r.db" --format pdf

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
