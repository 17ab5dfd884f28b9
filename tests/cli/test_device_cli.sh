#!/usr/bin/env bash
# `apod device` where no GPU can be used says why in one plain sentence and exits 3; with --json
# it prints {"format": "apod-device", "error": {"code": 3, "message": ...}} on stdout and still
# exits 3 (issue 25). Without a driver: the no-driver sentence. With a driver and no GPU, or
# with every GPU hidden (CUDA_VISIBLE_DEVICES=, also run where a GPU is visible): the no-GPU one.
set -u
apod=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0

no_device() {  # no_device NAME WANT_MESSAGE [env ARGS...]: text and --json, exit 3 both
  local name=$1 want=$2; shift 2
  local code
  env "$@" "$apod" device > "$tmp/out" 2> "$tmp/err"; code=$?
  if [[ $code -eq 3 && ! -s $tmp/out && $(cat "$tmp/err") == "apod: error: $want" ]]; then
    echo "ok   $name"; passed=$((passed + 1))
  else
    echo "FAIL $name: exit $code (wanted 3), stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
    echo "     wanted stderr 'apod: error: $want'"; failures=$((failures + 1))
  fi
  env "$@" "$apod" device --json > "$tmp/out" 2> "$tmp/err"; code=$?
  if python3 - "$tmp/out" "$code" "$want" <<'PY'; then
import json, sys
doc, code, want = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
assert code == 3, f"exit {code}"
assert doc == {"format": "apod-device", "error": {"code": 3, "message": want}}, doc
PY
    echo "ok   ${name}_json"; passed=$((passed + 1))
  else
    echo "FAIL ${name}_json: exit $code, stdout '$(cat "$tmp/out")'"; failures=$((failures + 1))
  fi
  [[ $(cat "$tmp/err") == "apod: error: $want" ]] && { echo "ok   ${name}_json_stderr"; passed=$((passed + 1)); } \
    || { echo "FAIL ${name}_json_stderr: '$(cat "$tmp/err")'"; failures=$((failures + 1)); }
}

driver_present() { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; }
gpu_visible() { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }

if ! driver_present && ! gpu_visible; then
  no_device no_driver \
    "no NVIDIA driver is loaded on this machine (libcuda.so.1 not found): apod device needs a GPU"
  # The wording does not depend on what CUDA_VISIBLE_DEVICES hides: there is no driver to ask.
  no_device no_driver_devices_hidden \
    "no NVIDIA driver is loaded on this machine (libcuda.so.1 not found): apod device needs a GPU" \
    CUDA_VISIBLE_DEVICES=
else
  no_device every_gpu_hidden \
    "no CUDA-capable GPU is visible (CUDA_VISIBLE_DEVICES is ''): apod device needs a GPU" \
    CUDA_VISIBLE_DEVICES=
  if gpu_visible; then  # the same command with the GPUs in view: facts, and exit 0
    "$apod" device --json > "$tmp/out" 2>&1 && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['uuid'].startswith('GPU-') and 'error' not in d" "$tmp/out" \
      && { echo "ok   gpu_device_json"; passed=$((passed + 1)); } \
      || { echo "FAIL apod device --json on a GPU: $(head -c 300 "$tmp/out")"; failures=$((failures + 1)); }
    "$apod" device --json --device 99 > "$tmp/out" 2>/dev/null; code=$?
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['error']['code'] == 2 and '--device 99' in d['error']['message'], d" "$tmp/out" && [[ $code -eq 2 ]] \
      && { echo "ok   bad_ordinal_json"; passed=$((passed + 1)); } \
      || { echo "FAIL apod device --json --device 99: exit $code, $(head -c 300 "$tmp/out")"; failures=$((failures + 1)); }
  else
    no_device driver_without_gpu \
      "no CUDA-capable GPU is visible (the NVIDIA driver is loaded but lists none): apod device needs a GPU" \
      -u CUDA_VISIBLE_DEVICES
  fi
fi

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
