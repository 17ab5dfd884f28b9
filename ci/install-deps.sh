#!/usr/bin/env bash
# Installs what apod needs to build and test, and nothing that is already there. Idempotent and
# non-interactive: safe to run on every CI job. Usage: ci/install-deps.sh [--browser] [--sanitizers]
#   --browser     also install Debian's chromium for the report's browser test.
#   --sanitizers  also install clang 14 and its runtimes (ASan, UBSan, libFuzzer) for the
#                 sanitizer and fuzzing stage of ci/test.sh.
# The CUDA Toolkit (12.4 or newer, nvcc) is not installed here: it comes from NVIDIA, not Debian;
# this script only checks for it and says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

want_browser=0 want_sanitizers=0
for arg in "$@"; do
  [[ $arg == --browser ]] && want_browser=1
  [[ $arg == --sanitizers ]] && want_sanitizers=1
done

# libxml2-utils (xmllint), python3-jsonschema and python3-prometheus-client validate the CI formats
# (tests/cli/test_ci_formats.sh: JUnit against its XSD, BMF against Bencher's schema, OpenMetrics).
packages=(g++ meson ninja-build pkg-config python3 git clang-format-14
          libcli11-dev libfmt-dev nlohmann-json3-dev libsqlite3-dev zlib1g-dev libgtest-dev libkainjow-mustache-dev
          libxml2-utils python3-jsonschema python3-prometheus-client)
((want_browser)) && packages+=(chromium)
((want_sanitizers)) && packages+=(clang-14 libclang-rt-14-dev)

missing=()
# Node may come from NodeSource (whose nodejs package bundles npm) or from Debian: ask for
# Debian's only where the commands are missing.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "ci/install-deps.sh: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo -n"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# nvcc: on PATH, or in the toolkit's usual place.
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
if ! command -v nvcc >/dev/null; then
  echo "ci/install-deps.sh: error: nvcc not found. Install the CUDA Toolkit 12.4 or newer" >&2
  echo "  (https://developer.nvidia.com/cuda-downloads) and put its bin/ on PATH." >&2
  exit 1
fi

# The report's pinned JavaScript (vega, vega-lite, vega-embed; playwright-core for the browser
# test; junit-processor for the JUnit XSD tests/cli/test_ci_formats.sh validates against), exactly
# as package-lock.json says; skipped when node_modules was made from this lock.
stamp=node_modules/.apod-lock.sha256
if [[ ! -f $stamp ]] || ! sha256sum --status -c "$stamp" 2>/dev/null; then
  echo "ci/install-deps.sh: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  sha256sum package-lock.json > "$stamp"
fi
