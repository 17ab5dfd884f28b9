#!/usr/bin/env bash
# The fleet recipe (ci/fleet/slurm-submit.sh, night-task.sh, night-merge.sh) end to end on a real
# single-node Slurm (ci/fleet/single-node-slurm.sh, a fake `gpu` GRES), the GPU step replaced by
# tests/fleet/standin-run.sh, which imports committed runs. Three nights:
#   good        two array tasks (2 runs each, one exiting 4 = partial): every task and the merge
#               job COMPLETED with exit 0, the history holds the night's runs, each of them has a
#               verdict, the report is published;
#   lost-node   a task without a GPU (exit 3) FAILED, so the merge job (afterok) is cancelled and
#               the history is unchanged;
#   regression  a committed run with every device-memory bandwidth sample 20x lower: the merge
#               job FAILED with exit 1, its verdicts say so, the report is still published.
# Needs root or passwordless sudo (Slurm is installed and started): exit 77 without.
# Usage: test_slurm_recipe.sh APOD SOURCE_ROOT
set -euo pipefail
apod=$(realpath "$1")
root=$(realpath "$2")
tmp=$(mktemp -d /tmp/apod-fleet.XXXXXX)
export APOD_SLURM_DIR=$tmp/slurm
slurm=$root/ci/fleet/single-node-slurm.sh
runs_dir=$root/data/runs
failures=0 passed=0

finish() {
  local code=$?
  if ((failures > 0 || (code != 0 && code != 77))); then
    for log in "$tmp"/*/apod-*.log "$APOD_SLURM_DIR"/slurmctld.log; do
      [[ -f $log ]] && { echo "== $log"; tail -n 30 "$log"; }
    done
  fi
  if ((code != 77)); then
    "$slurm" stop || true
  fi
  rm -rf "$tmp" || true  # under sudo, the daemons' files are root's
}
trap finish EXIT
trap 'exit 1' INT TERM  # a timeout still stops the daemons

code=0
"$slurm" start || code=$?
if ((code == 77)); then
  echo "skipped: Slurm cannot be installed or started here (needs root or passwordless sudo)"
  exit 77
fi
((code == 0)) || { echo "FAIL: the single-node Slurm did not start"; exit 1; }
export SLURM_CONF=$APOD_SLURM_DIR/slurm.conf

check() {  # check NAME WANT GOT
  if [[ $2 == "$3" ]]; then
    echo "ok   $1"
    passed=$((passed + 1))
  else
    printf 'FAIL %s: wanted\n%s\ngot\n%s\n' "$1" "$2" "$3"
    failures=$((failures + 1))
  fi
}

run_ids() {  # run_ids DOCUMENT...: the ids of the runs a document holds
  python3 -c 'import gzip, json, sys
for path in sys.argv[1:]:
    doc = json.load(gzip.open(path, "rt") if path.endswith(".gz") else open(path))
    print("\n".join(r["id"] for r in doc["runs"]))' "$@"
}

run_count() { "$apod" list --runs --db "$APOD_HISTORY" | awk 'NR > 1 && NF' | wc -l; }

job_states() {  # job_states JOB_ID: "TASK STATE EXIT_CODE" per job of it ("-" when not an array)
  scontrol show job -o "$1" | awk '{
    task = "-"
    for (i = 1; i <= NF; i++) {
      split($i, kv, "=")
      if (kv[1] == "ArrayTaskId") task = kv[2]
      if (kv[1] == "JobState") state = kv[2]
      if (kv[1] == "ExitCode") exit_code = kv[2]
    }
    print task, state, exit_code
  }' | sort
}

night() {  # night NAME ARRAY DOCUMENTS CODES: submits a night, waits for its jobs to end
  results=$tmp/$1
  local ids
  ids=$(APOD_NIGHT=$1 APOD_RESULTS=$results APOD_STANDIN_DOCS=$3 APOD_STANDIN_CODES=$4 \
    "$root/ci/fleet/slurm-submit.sh" --array="$2")
  read -r array merge <<< "$ids"
  for _ in $(seq 240); do
    [[ -z $(squeue -h -j "$array,$merge" 2>/dev/null) ]] && return 0
    sleep 1
  done
  echo "FAIL $1: jobs $array and $merge still queued after 240 s"
  squeue
  exit 1
}

contains_all() {  # contains_all FILE ID...: the ids missing from FILE, none when all are there
  local file=$1 id text
  shift
  # A report's folded tables are packed (report/pack.hpp): read it as a reader who opens them.
  if [[ $file == *.html ]]; then
    text=$(python3 "$root/tests/browser/unpack_page.py" "$file" 2>/dev/null)
  else
    text=$(cat "$file" 2>/dev/null)
  fi
  for id in "$@"; do grep -q "$id" <<< "$text" || echo "$id"; done
}

# The persistent history: six back-to-back runs of one H200, the first pinned as the baseline.
export APOD=$apod APOD_RUN=$root/tests/fleet/standin-run.sh
export APOD_HISTORY=$tmp/history.db APOD_PUBLISH=$tmp/www
"$apod" import --db "$APOD_HISTORY" "$runs_dir/nvidia-h200-20261122-matrix.json.gz" > /dev/null
mapfile -t history_runs < <(run_ids "$runs_dir/nvidia-h200-20261122-matrix.json.gz")
"$apod" baseline set "${history_runs[0]}" --db "$APOD_HISTORY" > /dev/null
# The test judges the recipe, not compare's noise model: at a 90% threshold only the planted
# regression below counts, whatever the night-to-night noise of the committed runs.
export APOD_COMPARE_CONFIG=$tmp/compare.json
echo '{"threshold": 0.9}' > "$APOD_COMPARE_CONFIG"

good_docs=("$runs_dir/nvidia-h200-x2-20261122-device-all.json.gz"
  "$runs_dir/nvidia-h200-20261122-session2.json.gz")
mapfile -t good_runs < <(run_ids "${good_docs[@]}")
night good 0-1 "${good_docs[*]}" "0 4"
check good_tasks_completed $'0 COMPLETED 0:0\n1 COMPLETED 0:0' "$(job_states "$array")"
# The night's GPUs (two H200s of a --device all, another H200's session) have no history in the
# database: compare cannot see their thresholds, so the merge job ends INCONCLUSIVE, exit 7
# (docs/ci.md), which Slurm records as FAILED 7:0: a night nothing could judge is not green.
check good_merge_inconclusive "- FAILED 7:0" "$(job_states "$merge")"
check good_task_databases 2 "$(find "$results" -name '*.db' | wc -l)"
partial_log=$results/apod-night-${array}_1.log
check good_partial_run_kept 1 "$(grep -c "partial run" "$partial_log" || true)"
check good_history_runs 10 "$(run_count)"
check good_every_run_judged "" "$(contains_all "$results/compare.md" "${good_runs[@]}")"
check good_report_published "" "$(contains_all "$APOD_PUBLISH/index.html" "${good_runs[@]}")"

night lost-node 0-1 "${good_docs[*]}" "3 0"
check lost_node_task_failed $'0 FAILED 3:0\n1 COMPLETED 0:0' "$(job_states "$array")"
check lost_node_merge_cancelled "- CANCELLED 0:0" "$(job_states "$merge")"
check lost_node_history_unchanged 10 "$(run_count)"

python3 - "$runs_dir/nvidia-h200-20261122-session2.json.gz" "$tmp/planted.json" << 'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1], "rt"))
run = doc["runs"][0]
doc["runs"] = [run]
run.update(id="0badc0de" * 4, label="planted: device-memory bandwidth 20x lower",
           started_at="2026-11-23T02:00:00.000Z", finished_at="2026-11-23T02:01:00.000Z")
for m in run["measurements"]:
    if m["unit"] == "GB/s" and m["direction"] == "higher":
        m["samples"] = [s * 0.05 for s in m["samples"]]
json.dump(doc, open(sys.argv[2], "w"))
PY
night regression 0-0 "$tmp/planted.json" "0"
check regression_task_completed "0 COMPLETED 0:0" "$(job_states "$array")"
check regression_merge_failed "- FAILED 1:0" "$(job_states "$merge")"
check regression_history_runs 11 "$(run_count)"
check regression_judged "" "$(contains_all "$results/compare.md" "0badc0de" "regression")"
check regression_report_published "" "$(contains_all "$APOD_PUBLISH/index.html" "0badc0de")"

echo "$passed passed, $failures failed"
((failures == 0))
