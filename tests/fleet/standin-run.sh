#!/usr/bin/env bash
# CI's stand-in for `apod run` in the fleet recipe (APOD_RUN=tests/fleet/standin-run.sh): CI has
# no GPU, so each task imports a committed run into the database the recipe names (--db), and
# exits as apod run would. Task i (SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX) imports the i-th
# file of APOD_STANDIN_DOCS and exits with the i-th code of APOD_STANDIN_CODES (space-separated;
# default 0). Code 4 (partial) stores the run as apod run does; 2 and 3 store nothing.
set -euo pipefail
db=""
while (($#)); do
  if [[ $1 == --db ]]; then
    db=$2
    shift
  fi
  shift
done
task=${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:?no task index}}
read -ra docs <<< "${APOD_STANDIN_DOCS:?APOD_STANDIN_DOCS names the documents to import}"
read -ra codes <<< "${APOD_STANDIN_CODES:-}"
code=${codes[task]:-0}
if ((code == 0 || code == 4)); then
  "${APOD:-apod}" import --db "${db:?no --db given}" "${docs[task]:?no document for task $task}"
fi
echo "standin-run: task $task on $(hostname), exit $code (GPUs: ${CUDA_VISIBLE_DEVICES:-none})"
exit "$code"
