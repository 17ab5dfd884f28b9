#!/usr/bin/env bash
# Configures (once) and builds apod in build/. Extra arguments go to `meson setup`.
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
if [[ ! -f build/build.ninja ]]; then
  meson setup build "$@"
fi
meson compile -C build
