#!/usr/bin/env bash
# The main job: install what is missing, build, run the full experiment matrix on GPU 0 into
# apod.db, and render apod-report.html. Exit code: apod run's (0 complete, 4 partial, 3 no GPU,
# 2 bad input); the report is rendered whenever the run stored anything.
set -uo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh || exit 1
ci/build.sh || exit 1
label=${APOD_LABEL:-"ci/run.sh on $(hostname)"}
build/apod run --device 0 --db apod.db --label "$label"
status=$?
if [[ -f apod.db ]]; then
  build/apod report --db apod.db --out apod-report.html || exit $?
fi
exit $status
