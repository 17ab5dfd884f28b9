#!/usr/bin/env bash
# apod compare / baseline / merge from the command line: exit codes 0 (no regression),
# 1 (regression), 2 (bad input), and merge's idempotence. Runs on any machine (no GPU).
set -u
apod=$1
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

# Three synthetic runs of one point (same comparability key): a baseline near 100 GB/s, a
# candidate within noise, and a candidate 10% slower.
python3 - "$tmp" <<'PY'
import json, random, sys
def run(rid, center, started, seed):
    rnd = random.Random(seed)
    samples = [rnd.gauss(center, center * 0.003) for _ in range(20)]
    return {"id": rid, "label": rid, "started_at": started, "finished_at": started, "status": "complete",
            "device": {"name": "Synthetic GPU", "uuid": "GPU-synthetic"},
            "experiments": [{"name": "offset_copy", "version": 1, "status": "complete", "wall_s": 1.0}],
            "measurements": [{"experiment": "offset_copy", "params": {"word_bytes": 4, "offset": 0},
                              "metric": "effective_bandwidth", "unit": "GB/s", "direction": "higher",
                              "samples": samples, "verified": True, "status": "ok",
                              "comparability_key": "00000000000000aa"}]}
for name, rid, center, t, seed in [("base", "aa01", 100, "2026-01-01T00:00:00.000Z", 1),
                                   ("same", "bb02", 100, "2026-01-02T00:00:00.000Z", 2),
                                   ("slow", "cc03", 90, "2026-01-03T00:00:00.000Z", 3)]:
    json.dump({"format": "apod-results", "schema_version": 2, "runs": [run(rid, center, t, seed)]},
              open(f"{sys.argv[1]}/{name}.json", "w"))
PY
"$apod" import --db "$tmp/h.db" "$tmp/base.json" "$tmp/same.json" >/dev/null 2>&1
check no_baseline 2 "no baseline" -- "$apod" compare --db "$tmp/h.db"
check same 0 "no regression" -- "$apod" compare aa01 bb02 --db "$tmp/h.db"
check baseline_set 0 "aa01" -- "$apod" baseline set aa --db "$tmp/h.db"
check baseline_show 0 "aa01" -- "$apod" baseline show --db "$tmp/h.db"
check pinned_vs_latest 0 "no regression" -- "$apod" compare --db "$tmp/h.db"
"$apod" import --db "$tmp/h.db" "$tmp/slow.json" >/dev/null 2>&1
check regression 1 "REGRESSION" -- "$apod" compare --db "$tmp/h.db"
check regression_markdown 1 "regression found" -- "$apod" compare --db "$tmp/h.db" --format markdown
check regression_json 1 '"regression": true' -- "$apod" compare --db "$tmp/h.db" --format json
check loose_threshold 0 "no regression" -- "$apod" compare --db "$tmp/h.db" --threshold 0.2
echo '{"experiments": {"offset_copy": {"threshold": 0.25}}}' > "$tmp/cfg.json"
check config_override 0 "no regression" -- "$apod" compare --db "$tmp/h.db" --config "$tmp/cfg.json"
echo '{"treshold": 0.1}' > "$tmp/bad.json"
check bad_config 2 "unknown key" -- "$apod" compare --db "$tmp/h.db" --config "$tmp/bad.json"
check unknown_run 2 "no run" -- "$apod" compare ffff aa01 --db "$tmp/h.db"
check bad_format 2 "" -- "$apod" compare --db "$tmp/h.db" --format html

# Two databases: the baseline in one, the candidate in another.
"$apod" import --db "$tmp/night1.db" "$tmp/base.json" >/dev/null 2>&1
"$apod" import --db "$tmp/night2.db" "$tmp/slow.json" >/dev/null 2>&1
check two_databases 1 "REGRESSION" -- "$apod" compare aa01 cc03 --baseline-db "$tmp/night1.db" --db "$tmp/night2.db"

# Merge: idempotent, keyed by run id.
check merge 0 "merged 2 run(s)" -- "$apod" merge "$tmp/all.db" "$tmp/night1.db" "$tmp/night2.db"
check merge_again 0 "merged 0 run(s) into $tmp/all.db; 2 already present" -- "$apod" merge "$tmp/all.db" "$tmp/night1.db" "$tmp/night2.db"
"$apod" export --db "$tmp/all.db" --out "$tmp/all1.json" 2>/dev/null
"$apod" merge "$tmp/all.db" "$tmp/night2.db" >/dev/null 2>&1
"$apod" export --db "$tmp/all.db" --out "$tmp/all2.json" 2>/dev/null
if cmp -s "$tmp/all1.json" "$tmp/all2.json"; then echo "ok   merge_changes_nothing"; passed=$((passed + 1));
else echo "FAIL merging the same input twice changed the database"; failures=$((failures + 1)); fi
check merge_missing_input 2 "" -- "$apod" merge "$tmp/all.db" "$tmp/none.db"

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
