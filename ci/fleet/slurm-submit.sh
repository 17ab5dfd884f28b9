#!/usr/bin/env bash
# Submits the nightly array and the merge step that runs after every array task ended.
set -euo pipefail
cd "$(dirname "$0")"
array=$(sbatch --parsable slurm-array.sbatch)
sbatch --dependency=afterany:"$array" slurm-merge.sbatch
