#!/usr/bin/env bash
# The screenshots of docs/screenshots/ (docs/report.md describes each), taken from headless
# Chromium by tests/browser/screenshot.js at 1280x900 and never edited. One first screen per
# reader, then sections:
#   first-screen-gpu-owner.png  what does this GPU deliver? The newest committed H100 runs (two
#                               sittings on two GPUs, 14 runs), no baseline pinned: the newest run
#                               is judged against the previous run of its machine.
#   first-screen-ci-owner.png   did anything change? The same 12 H100 runs with the oldest pinned
#                               and, as the 13th, a copy of the newest run PLANTED 8% slower on
#                               every offset_copy point (its label says so): the verdict a
#                               regression gets.
#   first-screen-buyer.png      which model for what? The newest two sittings of both models
#                               (H100 and H200) with the example prices of docs/report.md,
#                               scrolled to the first screen's "which is better for what" block.
#   first-screen-history.png    a year of nights: 1000 runs, the committed runs repeated
#                               (tests/report/bench_report --from), or HISTORY_DB, a database.
#   section-history.png, section-offset-copy.png, section-peak-copy.png, section-environment.png
#                               sections of the CI owner's page, scrolled to the top
#   section-comparison.png      the buyer's comparison
#
#   ci/screenshots.sh [BUILD_DIR] [OUT_DIR]
#   H100_RUNS="data/runs/a.json.gz ..." H200_RUNS="..." HISTORY_DB=fleet.db ci/screenshots.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/docs/screenshots}
apod=$build/apod
h100_runs=${H100_RUNS:-$(ls "$root"/data/runs/nvidia-h100-*-oos-sitting[12].json.gz)}
h200_runs=${H200_RUNS:-$(ls "$root"/data/runs/nvidia-h200-*-oos-sitting[12].json.gz)}
shoot="node $root/tests/browser/screenshot.js"
[ -x "$apod" ] || { echo "screenshots: no apod at $apod (build first)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/apod-screenshots.XXXXXX")
trap 'rm -rf "$work"' EXIT

newest_runs() {  # newest_runs DB COUNT: the ids of the newest COUNT runs, oldest first
  "$apod" list --runs --json --db "$1" | python3 -c "
import json, sys
for run in json.load(sys.stdin)[-$2:]:
    print(run['id'])"
}

# The GPU owner: the H100 runs, nothing pinned.
# shellcheck disable=SC2086 # the documents are paths without spaces, one word each
"$apod" import --db "$work/h100.db" $h100_runs >/dev/null
"$apod" report --db "$work/h100.db" --out "$work/gpu-owner.html"
$shoot "$work/gpu-owner.html" "$out/first-screen-gpu-owner.png"

# The CI owner: the newest 12 of those runs, the oldest pinned, and a planted regression.
mapfile -t twelve < <(newest_runs "$work/h100.db" 12)
"$apod" export --db "$work/h100.db" --run "${twelve[-1]}" --out "$work/newest.json"
python3 - "$work/newest.json" "$work/planted.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
run = doc["runs"][0]
source = run["id"]
run["id"] = "badc0ffee" + source[9:]
run["label"] = f"PLANTED: run {source[:12]} with every offset_copy point 8% slower (ci/screenshots.sh)"
run["started_at"] = run["finished_at"] or run["started_at"]
for m in run["measurements"]:
    if m.get("experiment") != "offset_copy":
        continue
    # 8% slower: a rate times 0.92, a time over 0.92; every statistic scales with its samples.
    factor = 0.92 if m.get("direction") == "higher" else 1 / 0.92
    for key in ("median", "min", "max", "mean", "stddev", "q1", "q3", "iqr", "ci_low", "ci_high"):
        if isinstance(m.get(key), (int, float)) and not isinstance(m.get(key), bool):
            m[key] *= factor
    m["samples"] = [sample * factor for sample in m.get("samples", [])]
json.dump(doc, open(sys.argv[2], "w"))
PY
"$apod" export --db "$work/h100.db" --run "${twelve[@]}" --out "$work/twelve.json"
"$apod" import --db "$work/ci.db" "$work/twelve.json" "$work/planted.json" >/dev/null
"$apod" baseline set "${twelve[0]}" --db "$work/ci.db" >/dev/null
"$apod" report --db "$work/ci.db" --out "$work/ci-owner.html"
$shoot "$work/ci-owner.html" "$out/first-screen-ci-owner.png"
$shoot "$work/ci-owner.html" "$out/section-history.png" --scroll '#history'
$shoot "$work/ci-owner.html" "$out/section-offset-copy.png" --scroll 'section[id$="-offset_copy"]'
$shoot "$work/ci-owner.html" "$out/section-peak-copy.png" --scroll 'section[id$="-peak_copy"]'
$shoot "$work/ci-owner.html" "$out/section-environment.png" --scroll '#environment'

# The buyer: both models, the example prices.
printf '{"NVIDIA H100 80GB HBM3": 25000, "NVIDIA H200": 32000}\n' > "$work/prices.json"
# shellcheck disable=SC2086
"$apod" import --db "$work/two.db" $h100_runs $h200_runs >/dev/null
"$apod" report --db "$work/two.db" --prices "$work/prices.json" --out "$work/buyer.html"
# The first screen's last block is the buyer's: scrolled to it (the verdict and the newest
# figures come first on every page).
$shoot "$work/buyer.html" "$out/first-screen-buyer.png" --scroll '#better-for-what'
$shoot "$work/buyer.html" "$out/section-comparison.png" --scroll '#comparison'

# A year of nights.
if [ -n "${HISTORY_DB:-}" ]; then
  cp "$HISTORY_DB" "$work/history.db"
  "$apod" report --db "$work/history.db" --out "$work/history.html"
else
  from=()
  for document in $h100_runs $h200_runs; do from+=(--from "$document"); done
  "$build/tests/report/bench_report" 1000 "${from[@]}" --out "$work/history.html" >/dev/null
fi
$shoot "$work/history.html" "$out/first-screen-history.png"
echo "screenshots: wrote $(cd "$out" && ls first-screen-*.png section-*.png | tr '\n' ' ')in $out"
