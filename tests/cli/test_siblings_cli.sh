#!/usr/bin/env bash
# apod compare --siblings from the command line, on the committed `--device all` runs of four
# H200s of one machine (data/runs): as they were, no GPU is flagged (exit 0); with one GPU's
# samples scaled 5% slower, that GPU is named and the exit code is 1 (docs/siblings.md, the exit
# codes in runner/core/errors.hpp); one GPU alone is nothing compared (2); the report shows the
# GPUs side by side with the flagged one marked. Runs on any machine (no GPU).
set -u
apod=$1
runs_dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0
check() {  # check NAME WANT_CODE WANT_TEXT -- command...
  local name=$1 want=$2 text=$3; shift 4
  local out code
  out=$("$@" 2>&1); code=$?
  if [[ $code -ne $want || ( -n $text && $out != *"$text"* ) ]]; then
    echo "FAIL $name: exit $code (wanted $want), output: $out"; failures=$((failures + 1))
  else
    echo "ok   $name"; passed=$((passed + 1))
  fi
}

four=$runs_dir/nvidia-h200-x4-20261122-device-all.json.gz
# The same runs with the newest set's third GPU (by start) 5% slower: every sample of every
# point scaled (GB/s divided, times multiplied), under new run ids so both can be told apart.
slow_uuid=$(python3 - "$four" "$tmp/slowed.json" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]))
newest = sorted(doc["runs"], key=lambda r: r["started_at"])[-4:]
slow = newest[2]
for m in slow["measurements"]:
    higher = m["direction"] == "higher"
    m["samples"] = [s / 1.05 if higher else s * 1.05 for s in m["samples"]]
    for k in ("median", "min", "max", "mean", "stddev", "q1", "q3", "iqr", "ci_low", "ci_high"):
        m.pop(k, None)  # recomputed from the samples on import
json.dump(doc, open(sys.argv[2], "w"))
print(slow["device"]["uuid"])
PY
)

"$apod" import --db "$tmp/as_run.db" "$four" >/dev/null
"$apod" import --db "$tmp/slowed.db" "$tmp/slowed.json" >/dev/null
check as_they_were 0 "no GPU of 4 lies outside its siblings' spread" -- \
  "$apod" compare --siblings --db "$tmp/as_run.db"
check every_set 0 "no GPU of 4" -- "$apod" compare --siblings --all --db "$tmp/as_run.db"
check one_slower 1 "SLOWER than its siblings" -- "$apod" compare --siblings --db "$tmp/slowed.db"
check names_the_gpu 1 "1 of 4 GPUs slower than their siblings: GPU" -- \
  "$apod" compare --siblings --db "$tmp/slowed.db"
check names_the_uuid 1 "$slow_uuid" -- "$apod" compare --siblings --db "$tmp/slowed.db"
"$apod" compare --siblings --db "$tmp/slowed.db" --format json >"$tmp/v.json"
python3 - "$tmp/v.json" "$slow_uuid" <<'PY' && { echo "ok   json_flags_one"; passed=$((passed + 1)); } || { echo "FAIL json: $(head -c 400 "$tmp/v.json")"; failures=$((failures + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))["sibling_check"]
flagged = [g["uuid"] for s in v["sets"] for g in s["gpus"] if g["flagged"]]
assert v["flagged"] == 1 and flagged == [sys.argv[2]], flagged
PY
check markdown 1 "slower than its siblings**" -- \
  "$apod" compare --siblings --db "$tmp/slowed.db" --format markdown
one=$(python3 -c "import gzip,json,sys; print(json.load(gzip.open(sys.argv[1]))['runs'][0]['id'])" "$four")
check one_gpu 2 "nothing compared" -- "$apod" compare --siblings --db "$tmp/as_run.db" "$one"
check no_baseline_db 2 "excludes" -- \
  "$apod" compare --siblings --baseline-db "$tmp/as_run.db" --db "$tmp/as_run.db"
# Runs stored before `--device all` was recorded: named, they are judged; not named, refused.
"$apod" import --db "$tmp/two.db" "$runs_dir/nvidia-h200-x2-20261122-device-all.json.gz" >/dev/null
check no_device_all 2 "no run of \`apod run --device all\`" -- \
  "$apod" compare --siblings --db "$tmp/two.db"
check two_named 0 "no GPU of 2 lies outside" -- \
  "$apod" compare --siblings --db "$tmp/two.db" 18091a3152ef 84c36615169c
check plain_compare_says 7 "apod compare --siblings" -- \
  "$apod" compare --db "$tmp/two.db" 18091a3152ef 84c36615169c
# The report: the node's GPUs side by side, the slowed one marked.
"$apod" report --db "$tmp/slowed.db" --out "$tmp/page.html" >/dev/null 2>&1
check report_section 0 "A node's GPUs side by side" -- cat "$tmp/page.html"
check report_marks_flagged 0 "— slower" -- cat "$tmp/page.html"
check report_names_flagged 0 "is slower than its siblings" -- cat "$tmp/page.html"

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
