#!/usr/bin/env bash
# Submits one night to Slurm: the array of night-task.sh (one task per GPU node) and
# night-merge.sh, which starts only when every task succeeded (afterok) and is cancelled when one
# failed: a failed node fails the night where everyone sees it, instead of a merge of part of the
# fleet. Prints the array's and the merge job's ids. Extra arguments go to the array's sbatch
# (e.g. --array=0-3 for four nodes). The night's name and directory are fixed here, once, so a
# merge that starts after midnight still finds the night's databases; the jobs start in that
# directory and write their logs there. Every variable of the two scripts (APOD, APOD_RUN,
# APOD_HISTORY, APOD_PUBLISH, APOD_COMPARE_CONFIG) is passed on to them.
set -euo pipefail
fleet=$(cd "$(dirname "$0")" && pwd)
export APOD_NIGHT=${APOD_NIGHT:-$(date +%F)}
export APOD_RESULTS=${APOD_RESULTS:-/shared/apod/$APOD_NIGHT}
# The jobs run elsewhere and in the night's directory: relative paths would not resolve there.
for name in APOD_RESULTS APOD_HISTORY APOD_PUBLISH APOD_COMPARE_CONFIG; do
  [[ -z ${!name:-} ]] || export "$name=$(realpath -m "${!name}")"
done
for name in APOD APOD_RUN; do  # a command found on PATH stays as it is
  [[ ${!name:-} != */* ]] || export "$name=$(realpath -m "${!name}")"
done
mkdir -p "$APOD_RESULTS"
array=$(sbatch --parsable --chdir="$APOD_RESULTS" "$@" "$fleet/night-task.sh")
array=${array%%;*}  # --parsable prints "id" or "id;cluster"
merge=$(sbatch --parsable --chdir="$APOD_RESULTS" --dependency=afterok:"$array" \
  --kill-on-invalid-dep=yes "$fleet/night-merge.sh")
echo "$array ${merge%%;*}"
