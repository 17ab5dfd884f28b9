#!/bin/sh
# The history fixture made into the issue 25 case: its ten H200 runs as a batch two minutes apart
# and a tenth run 8 hours later, then the browser test on it, with the gap's marks expected: the
# sparklines' dashed rule (and history_checks.js's check that no line crosses it, which the
# nightly fixtures leave unexercised) and the full chart's rule with the gap's length.
#   history_gap_test.sh RENDER_FIXTURE HISTORY.json CATALOG.json REFERENCES.json
# Exits 77 (skipped) as run_browser_test.sh does.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/apod-history-gap.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$2" "$work/history_gap.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
h200 = [run for run in results["runs"] if run["device"]["name"] == "NVIDIA H200"]
for i, run in enumerate(h200):
    start = f"2026-02-01T20:{2 * i:02d}:00.000Z" if i < 9 else "2026-02-02T04:16:00.000Z"
    run["started_at"], run["finished_at"] = start, start.replace(":00.000Z", ":50.000Z")
json.dump(results, open(sys.argv[2], "w"))
PY
status=0
sh "$here/run_browser_test.sh" --render "$1" "$work/history_gap.json" "$3" "$4" \
  --expect '#history details.figure-row svg.spark line.gap' \
  --expect '#history details.figure-row .lazy-canvas .mark-text.role-mark text' || status=$?
exit $status
