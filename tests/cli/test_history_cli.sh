#!/usr/bin/env bash
# apod compare / baseline / merge from the command line: exit codes 0 (no regression),
# 1 (regression), 2 (bad input, or nothing compared), whole batches judged, the threshold as a
# percentage, what baseline show says, and merge's idempotence. Runs on any machine (no GPU).
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

# Synthetic runs of one GPU, two points each (same comparability keys): a baseline near 100 GB/s,
# four runs within 0.1% of it (a --repeat batch "b4tch"), a run 10% slower, and a run on an H100.
python3 - "$tmp" <<'PY'
import json, random, sys
def run(rid, center, started, seed, gpu="Synthetic GPU", uuid="GPU-synthetic", batch=None):
    rnd = random.Random(seed)
    env = {"host": "ci", "gpu_state": {"driver_branch": "580"}}
    if batch:
        env["repeat"] = {"index": 1, "count": 4, "batch": batch}
    points = []
    for offset in (0, 1):
        samples = [rnd.gauss(center + offset, center * 0.0003) for _ in range(20)]
        points.append({"experiment": "offset_copy", "params": {"word_bytes": 4, "offset": offset},
                       "metric": "effective_bandwidth", "unit": "GB/s", "direction": "higher",
                       "samples": samples, "verified": True, "status": "ok"})
    return {"id": rid, "label": f"label of {rid}", "started_at": started, "finished_at": started,
            "status": "complete", "device": {"name": gpu, "uuid": uuid}, "environment": env,
            "experiments": [{"name": "offset_copy", "version": 1, "status": "complete", "wall_s": 1.0}],
            "measurements": points}
def write(name, runs):
    json.dump({"format": "apod-results", "schema_version": 2, "runs": runs}, open(f"{sys.argv[1]}/{name}.json", "w"))
write("base", [run("aa01", 100, "2026-01-01T00:00:00.000Z", 1)])
write("same", [run(f"bb0{i}", 100 * (1 + 0.001 * (i - 2)), f"2026-01-02T00:0{i}:00.000Z", 2 + i, batch="b4tch")
               for i in range(4)])
write("slow", [run("cc03", 90, "2026-01-03T00:00:00.000Z", 9)])
write("halved", [run("ff06", 50, "2026-01-06T00:00:00.000Z", 12)])
write("h100", [run("dd04", 100, "2026-01-04T00:00:00.000Z", 10, gpu="NVIDIA H100", uuid="GPU-h100")])
write("fresh", [run("ee05", 100, "2026-01-05T00:00:00.000Z", 11)])
PY
"$apod" import --db "$tmp/h.db" "$tmp/base.json" "$tmp/same.json" >/dev/null 2>&1
check no_baseline 2 "no baseline" -- "$apod" compare --db "$tmp/h.db"
check same 7 "INCONCLUSIVE: 0 regressions" -- "$apod" compare aa01 bb02 --db "$tmp/h.db"
check noise_from_history 7 "from up to 4 other runs of this GPU" -- "$apod" compare aa01 bb02 --db "$tmp/h.db"
check baseline_set 0 "aa01" -- "$apod" baseline set aa --db "$tmp/h.db"
check baseline_show_says_which_run 0 "label    \"label of aa01\"" -- "$apod" baseline show --db "$tmp/h.db"
check baseline_show_says_device_and_date 0 "Synthetic GPU (GPU-synthetic) on ci, driver branch 580" -- "$apod" baseline show --db "$tmp/h.db"
check baseline_show_date 0 "started  2026-01-01T00:00:00.000Z" -- "$apod" baseline show --db "$tmp/h.db"
check pinned_vs_latest 7 "INCONCLUSIVE" -- "$apod" compare --db "$tmp/h.db"
check whole_batch 7 "4 runs against aa01: 0 with regressions" -- "$apod" compare pinned --batch b4tch --db "$tmp/h.db"
check pooled_batch 0 "NO REGRESSION" -- "$apod" compare pinned --batch b4 --pool --db "$tmp/h.db"
"$apod" import --db "$tmp/h.db" "$tmp/slow.json" >/dev/null 2>&1
check regression 1 "REGRESSION: 2 regressions" -- "$apod" compare --db "$tmp/h.db"
check ratio_style 1 "1.11x slower" -- "$apod" compare --db "$tmp/h.db"
check every_run_judged 1 "5 runs against aa01: 1 with regressions (2 points or experiments), 4 inconclusive, 0 with nothing compared, 0 without regression" -- "$apod" compare --all --db "$tmp/h.db"
check named_candidates 1 "2 runs against aa01: 1 with regressions" -- "$apod" compare pinned bb01 cc03 --db "$tmp/h.db"
check regression_markdown 1 "| **regression** |" -- "$apod" compare --db "$tmp/h.db" --format markdown
check regression_json 1 '"regression": true' -- "$apod" compare --db "$tmp/h.db" --format json
check only_changed 1 "regression: slower beyond" -- "$apod" compare --db "$tmp/h.db" --only-changed
check threshold_percent 0 "must also exceed its threshold (20%)" -- "$apod" compare --db "$tmp/h.db" --threshold 20%
check threshold_fraction 0 "NO REGRESSION" -- "$apod" compare --db "$tmp/h.db" --threshold 0.2
check threshold_ambiguous 2 "a fraction or a percentage is meant" -- "$apod" compare --db "$tmp/h.db" --threshold 5
echo '{"experiments": {"offset_copy": {"threshold": 0.25}}}' > "$tmp/cfg.json"
check config_override 0 "NO REGRESSION" -- "$apod" compare --db "$tmp/h.db" --config "$tmp/cfg.json"
echo '{"treshold": 0.1}' > "$tmp/bad.json"
check bad_config 2 "unknown key" -- "$apod" compare --db "$tmp/h.db" --config "$tmp/bad.json"
check unknown_run 2 "no run" -- "$apod" compare ffff aa01 --db "$tmp/h.db"
check bad_format 2 "" -- "$apod" compare --db "$tmp/h.db" --format html
check unknown_batch 2 "no run of batch" -- "$apod" compare pinned --batch ffff --db "$tmp/h.db"

# Nothing comparable (another GPU model) is not a pass: exit 2, saying why.
"$apod" import --db "$tmp/h.db" "$tmp/h100.json" >/dev/null 2>&1
check nothing_compared 2 "the baseline ran on Synthetic GPU and the candidate on NVIDIA H100" -- "$apod" compare aa01 dd04 --db "$tmp/h.db"

# Two databases: the baseline in one, the candidate in another. Neither holds a history of the
# GPU (docs/ci.md): 10% slower cannot be told from what device memory may move between two runs of
# an unknown machine, so INCONCLUSIVE (exit 7, never a pass); half the bandwidth is a regression.
"$apod" import --db "$tmp/night1.db" "$tmp/base.json" >/dev/null 2>&1
"$apod" import --db "$tmp/night2.db" "$tmp/slow.json" >/dev/null 2>&1
"$apod" import --db "$tmp/night3.db" "$tmp/halved.json" >/dev/null 2>&1
check two_databases_no_history 7 "no history of this GPU" -- "$apod" compare aa01 cc03 --baseline-db "$tmp/night1.db" --db "$tmp/night2.db"
check two_databases 1 "REGRESSION" -- "$apod" compare aa01 ff06 --baseline-db "$tmp/night1.db" --db "$tmp/night3.db"

# The nightly recipe's last step without a scheduler (ci/fleet/night-merge.sh, under bash -e):
# every run of the night judged in one compare, the worst verdict its exit code, the report
# published first; without a pinned baseline the night is stored and reported, and exits 2.
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$tmp/night"
"$apod" import --db "$tmp/night/node-0.db" "$tmp/slow.json" >/dev/null 2>&1
"$apod" import --db "$tmp/night/node-1.db" "$tmp/fresh.json" >/dev/null 2>&1
"$apod" import --db "$tmp/nightly.db" "$tmp/base.json" "$tmp/same.json" >/dev/null 2>&1
night_merge() { APOD=$apod APOD_RESULTS=$tmp/night APOD_HISTORY=$tmp/nightly.db APOD_PUBLISH=$tmp/www \
  bash "$root/ci/fleet/night-merge.sh"; }
check night_without_baseline 2 "no baseline pinned" -- night_merge
"$apod" baseline set aa01 --db "$tmp/nightly.db" >/dev/null 2>&1
check night_judges_every_run 1 "2 runs against aa01: 1 with regressions (2 points or experiments)" -- night_merge
check night_verdicts_name_each_run 0 "" -- grep -q "ee05" "$tmp/night/compare.md"
check night_verdicts_name_the_regressed_run 0 "" -- grep -q "cc03" "$tmp/night/compare.md"
check night_report_published 0 "" -- test -s "$tmp/www/index.html"
# APOD_CONFIRM=1: a night that regressed or is inconclusive is re-measured by `apod confirm` on
# the GPU that ran each run; on a machine without one, confirm says so and the night fails with
# its code (3), never passing on what it could not settle.
night_merge_confirm() { APOD_CONFIRM=1 night_merge; }
if ! nvidia-smi -L >/dev/null 2>&1; then
  check night_confirm_needs_the_gpu 3 "apod confirm needs a GPU" -- night_merge_confirm
fi

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
