#!/usr/bin/env bash
# One GPU node's night: the matrix on every GPU of the node, into the node's own database in the
# night's directory. Runs as a Slurm array task (ci/fleet/slurm-submit.sh submits it with the
# #SBATCH lines below) or as a pod of the Kubernetes Indexed Job (kubernetes-indexed-job.yaml).
# Environment:
#   APOD_RESULTS  the night's directory on shared storage (required; slurm-submit.sh sets it)
#   APOD_NIGHT    the night's name in run labels (default: today)
#   APOD          the apod binary (default: apod on PATH)
#   APOD_RUN      a program that replaces `$APOD run`, given the same arguments: CI has no GPU
#                 and imports a committed run instead (tests/fleet/standin-run.sh)
# Exit: 0 when the node's runs are stored (also a `partial` run, apod run's exit 4, and a GPU
# flagged by the sibling check, exit 1: the report and compare show them); apod run's code
# otherwise (2 bad input, 3 no GPU or driver).
#SBATCH --job-name=apod-night
#SBATCH --array=0-7                 # one task per GPU node (adjust to the fleet)
#SBATCH --nodes=1
#SBATCH --gres=gpu:8                # every GPU of the node: `apod run --device all` uses them all
#SBATCH --exclusive                 # nothing else on the GPUs while they are measured
#SBATCH --time=00:30:00
#SBATCH --output=apod-night-%A_%a.log
set -euo pipefail
results=${APOD_RESULTS:?APOD_RESULTS must name the night\'s directory (slurm-submit.sh sets it)}
night=${APOD_NIGHT:-$(date +%F)}
task=${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:?no SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX}}
if [[ -n ${APOD_RUN:-} ]]; then
  run=("$APOD_RUN")
else
  run=("${APOD:-apod}" run)
fi
mkdir -p "$results"
# One database per node: no two hosts write one SQLite file over a network filesystem.
db=$results/$(hostname)-$task.db
code=0
"${run[@]}" --device all --db "$db" --label "nightly $night $(hostname)" || code=$?
if ((code == 4)); then
  echo "night-task: a partial run (exit 4) was stored; the report and compare show what failed"
elif ((code == 1)); then
  # The runs are whole and stored; the sibling check (docs/siblings.md) found a GPU of this node
  # outside its siblings' spread. The night goes on: the report's side-by-side names it.
  echo "night-task: a GPU lies outside its siblings' spread (exit 1); the runs were stored"
elif ((code != 0)); then
  exit "$code"
fi
