#!/usr/bin/env bash
# Fault isolation on a GPU: `apod run --only offset_copy,fault_injection,stride_copy --quick` with
# fault_injection told to fault the CUDA context (APOD_FAULT_INJECTION: an illegal address, then
# a trap). The fault must fail only its own experiment, stored as failed with the CUDA error;
# offset_copy before it and stride_copy after it complete with every point verified (a point may
# fail only for the runner's clock check, never for its output); the run is partial and apod
# exits 4. A third pass forces the path for a context that cudaDeviceReset
# cannot recover (APOD_TEST_ASSUME_UNRECOVERABLE=1): apod re-executes itself to finish the run.
# Skipped (77) where there is no GPU.
set -u
apod=$1
if ! "$apod" device >/dev/null 2>&1; then echo "no CUDA-capable device: skipped"; exit 77; fi
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

check_run() {  # check_run NAME DB WANT_ERROR
  "$apod" export --db "$2" --out "$tmp/$1.json" || { echo "FAIL $1: export"; return 1; }
  python3 - "$tmp/$1.json" "$3" "$1" <<'PY'
import json, re, sys
doc, want_error, name = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
problems = []
runs = doc["runs"]
if len(runs) != 1: problems.append(f"{len(runs)} runs stored, wanted 1")
run = runs[0]
if run["status"] != "partial": problems.append(f"run status {run['status']}, wanted partial")
names = [e["name"] for e in run["experiments"]]
if names != ["offset_copy", "fault_injection", "stride_copy"]: problems.append(f"experiments {names}")
by_name = {e["name"]: e for e in run["experiments"]}
fault = by_name.get("fault_injection", {})
if fault.get("status") != "failed": problems.append(f"fault_injection status {fault.get('status')}")
error = fault.get("error") or ""
if want_error not in error or not re.search(r"cudaError\w+", error): problems.append(f"fault_injection error {error!r}")
for exp in ("offset_copy", "stride_copy"):
    points = [m for m in run["measurements"] if m["experiment"] == exp]
    bad = [m for m in points if not m["verified"] or (m["status"] != "ok" and "throttled clocks" not in (m["error"] or ""))]
    if by_name.get(exp, {}).get("status") != "complete": problems.append(f"{exp} not complete")
    if not points or bad: problems.append(f"{exp}: {len(points)} points, {len(bad)} failed: {[m['error'] for m in bad][:3]}")
if any(m["experiment"] == "fault_injection" for m in run["measurements"]): problems.append("fault_injection stored points")
if problems:
    print(f"FAIL {name}: " + "; ".join(problems)); sys.exit(1)
points = {exp: sum(m["experiment"] == exp for m in run["measurements"]) for exp in ("offset_copy", "stride_copy")}
print(f"ok   {name}: fault stored as failed ({error.split(': ', 1)[-1]}); offset_copy {points['offset_copy']} "
      f"and stride_copy {points['stride_copy']} points all verified; run partial")
PY
}

for mode in illegal_address trap unrecoverable; do
  db=$tmp/$mode.db
  fault=$mode; force=0
  [[ $mode == unrecoverable ]] && fault=illegal_address force=1
  APOD_FAULT_INJECTION=$fault APOD_TEST_ASSUME_UNRECOVERABLE=$force \
    "$apod" run --only offset_copy,fault_injection,stride_copy --quick --db "$db" --label "fault-$mode" \
    > "$tmp/$mode.out" 2> "$tmp/$mode.err"
  code=$?
  if [[ $code -ne 4 ]]; then
    echo "FAIL $mode: exit $code, wanted 4"; cat "$tmp/$mode.out" "$tmp/$mode.err"; failures=$((failures + 1)); continue
  fi
  want=cudaError; [[ $fault == illegal_address ]] && want=cudaErrorIllegalAddress
  check_run "$mode" "$db" "$want" || failures=$((failures + 1))
  if [[ $force -eq 1 ]] && ! grep -q "in a fresh process" "$tmp/$mode.err"; then
    echo "FAIL $mode: apod did not continue in a fresh process"; cat "$tmp/$mode.err"; failures=$((failures + 1))
  elif [[ $force -eq 0 ]]; then
    grep -q "in a fresh process" "$tmp/$mode.err" && how="cudaDeviceReset did not clear it: continued in a fresh process" \
      || how="cudaDeviceReset cleared it: continued in the same process"
    echo "     $mode: $how"
  fi
done
echo "faults injected: 3, survived: $((3 - failures))"
[[ $failures -eq 0 ]]
