#!/usr/bin/env bash
# Reads the peers' raw outputs in DIR (written by ci/peers/run_peers.sh) and writes
# DIR/summary.csv: one row per peer figure, `peer,kernel,gb_per_s,statistic`, GB = 10^9 bytes.
#   babelstream.csv  BabelStream --csv: its device lines, then `function,num_times,n_elements,
#                    sizeof,max_GB_per_sec,min_runtime,max_runtime,avg_runtime` (the unit is
#                    MB = 10^6 unless --gigabytes or --terabytes was given).
#                    Its headline is the best iteration (bytes / min_runtime, first iteration
#                    left out); the mean (bytes / avg_runtime) is given beside it because apod
#                    reports medians.
#   nvbandwidth.txt  nvbandwidth's text output: `SUM <testcase> <GB/s>` per test case, the median
#                    of its samples (3 unless the first line, `# nvbandwidth ... -i N`, says N).
# Usage: ci/peers/summarise_peers.sh DIR. Exit 1 if neither file held a figure.
set -euo pipefail
dir=${1:?usage: ci/peers/summarise_peers.sh DIR}
out=$dir/summary.csv

{
  echo "peer,kernel,gb_per_s,statistic"
  if [[ -f $dir/babelstream.csv ]]; then
    awk -F, '
      $1 == "function" {
        for (i = 1; i <= NF; i++) {
          col[$i] = i
          if ($i ~ /^max_.*_per_sec$/) { bw = i; unit = substr($i, 5, length($i) - 12) }
        }
        scale = unit == "GB" ? 1 : unit == "MB" ? 1e-3 : unit == "TB" ? 1e3 : 0
        if (!scale) { print "babelstream.csv: unit " unit " is not decimal" > "/dev/stderr"; exit 1 }
        next
      }
      scale && NF >= 8 {
        n = $(col["num_times"]) - 1  # BabelStream leaves the first iteration out
        best = $(bw) * scale
        mean = best * $(col["min_runtime"]) / $(col["avg_runtime"])
        printf "babelstream,%s,%.1f,best of %d (min time)\n", $1, best, n
        printf "babelstream,%s,%.1f,mean of %d\n", $1, mean, n
      }' "$dir/babelstream.csv"
  fi
  if [[ -f $dir/nvbandwidth.txt ]]; then
    # run_peers.sh writes the command line first (`# nvbandwidth ... -i N`); the sample count
    # comes from it, since nvbandwidth does not print it.
    awk '$1 == "#" { for (i = 2; i < NF; i++) if ($i == "-i") samples = $(i + 1) }
         $1 == "SUM" && NF == 3 { printf "nvbandwidth,%s,%.2f,median of %s\n", $2, $3, samples }
         BEGIN { samples = 3 }' "$dir/nvbandwidth.txt"
  fi
} > "$out"

if (($(wc -l < "$out") < 2)); then
  echo "ci/peers/summarise_peers.sh: no peer figures found in $dir" >&2
  exit 1
fi
column -t -s, "$out" 2>/dev/null || cat "$out"
