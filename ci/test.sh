#!/usr/bin/env bash
# Installs what is missing (chromium included), builds, and runs every test this machine can
# run: unit, cli, report, browser; the gpu suite runs where a GPU is visible and is reported as
# skipped (exit 77) where none is. Ends with one line "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh --browser || exit 1
ci/build.sh || exit 1
meson test -C build --print-errorlogs --num-processes 2 "$@"
status=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for line in open(sys.argv[1]):
    result = json.loads(line)["result"]
    key = {"OK": "passed", "SKIP": "skipped", "EXPECTEDFAIL": "passed"}.get(result, "failed")
    counts[key] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
PY
exit $status
