#!/usr/bin/env bash
# The night's last step, after every node's task succeeded: merge the night's databases into the
# persistent history, publish the report, and judge every run of the night (not only the newest:
# `--device all` and `--repeat` store several per node) against the history's pinned baseline.
# Runs as a Slurm job (slurm-submit.sh) or as the Kubernetes merge Job.
# Environment:
#   APOD_RESULTS         the night's directory, holding one database per node (required)
#   APOD_HISTORY         the persistent history (default /shared/apod/history.db)
#   APOD_PUBLISH         where the report goes, as index.html (default /shared/www/apod)
#   APOD                 the apod binary (default: apod on PATH)
#   APOD_COMPARE_CONFIG  an `apod compare --config` file (default: none, compare's calibrated
#                        defaults, docs/ci.md)
#   APOD_CONFIRM         1: this machine holds the night's GPUs (a one-node fleet, the GitHub
#                        workflow of docs/ci.md): each run whose verdict is a regression or
#                        inconclusive with a slowdown to re-measure is settled by `apod confirm`
#                        on the GPU that ran it, in the same job (default 0: a merge node without
#                        GPUs judges only)
# Writes the verdicts to $APOD_RESULTS/compare.md (markdown) and to the job's log.
# Exit: 0 no regression; 1 a regression in any run of the night; 7 inconclusive (some gated class
# could not see its threshold: no history of a GPU yet, too few runs, or an unconfirmed slowdown);
# 2 bad input (no database, no pinned baseline, a failed merge or report).
#SBATCH --job-name=apod-merge
#SBATCH --time=00:10:00
#SBATCH --output=apod-merge-%j.log
set -euo pipefail
shopt -s nullglob
results=${APOD_RESULTS:?APOD_RESULTS must name the night\'s directory (slurm-submit.sh sets it)}
history=${APOD_HISTORY:-/shared/apod/history.db}
publish=${APOD_PUBLISH:-/shared/www/apod}
apod=${APOD:-apod}
verdicts=$results/compare.md

# Judges every run of the night against the history's pinned baseline in one `apod compare`
# call: each run on the noise of its own GPU's history before the night (the night's runs are not
# history for each other, so a regression they share is not hidden). The markdown verdicts go to
# $verdicts; the result is compare's exit code: 0, 1 (a regression in any run) or 2 (no pinned
# baseline, no run, or a run with nothing comparable).
judge_night() {  # judge_night RUN_ID...
  local code=0 config=()
  if (($# == 0)); then
    echo "night-merge: the night's databases hold no run: nothing to judge" >> "$verdicts"
    return 2
  fi
  if [[ -n ${APOD_COMPARE_CONFIG:-} ]]; then
    config=(--config "$APOD_COMPARE_CONFIG")
  fi
  # --only-changed: a CI job summary holds at most 1 MiB, and a night of 16 runs of the full
  # matrix lists 8,000 points that stayed the same.
  "$apod" compare --db "$history" "${config[@]}" --format markdown --only-changed pinned "$@" \
    >> "$verdicts" 2>&1 || code=$?
  if [[ ${APOD_CONFIRM:-0} == 1 && ($code -eq 1 || $code -eq 7) ]]; then
    # Re-measure what each run left flagged or unconfirmed, then judge it again: the night's
    # code is the worst of the confirmed verdicts (2 over 1 over 7 over 0).
    local worst=0 one
    for run in "$@"; do
      one=0
      "$apod" confirm --db "$history" "${config[@]}" --format markdown --only-changed pinned \
        "$run" >> "$verdicts" 2>&1 || one=$?
      # 2 and any failure of confirm itself (3 no GPU, 5, 6) over 1 over 7 over 0.
      if ((one == 2 || (one >= 3 && one != 7))); then ((worst == 2)) || worst=$one
      elif ((one == 1)); then ((worst == 0 || worst == 7)) && worst=1
      elif ((one == 7 && worst == 0)); then worst=7
      fi
    done
    code=$worst
  fi
  return "$code"
}

databases=("$results"/*.db)
if ((${#databases[@]} == 0)); then
  echo "night-merge: no node database in $results: nothing to merge" >&2
  exit 2
fi
runs=()  # the ids of the night's runs, from every database
for db in "${databases[@]}"; do
  listing=$("$apod" list --runs --db "$db")
  mapfile -t -O "${#runs[@]}" runs < <(awk 'NR > 1 && NF { print $1 }' <<< "$listing")
done
"$apod" merge "$history" "${databases[@]}"
mkdir -p "$publish"
"$apod" report --db "$history" --out "$publish/index.html"
: > "$verdicts"
status=0
judge_night "${runs[@]}" || status=$?
cat "$verdicts"
echo "night-merge: the night's ${#runs[@]} run(s) from ${#databases[@]} database(s), exit $status"
exit "$status"
