#!/usr/bin/env bash
# `apod list --runs` tells apart runs that share a label: the host, the GPU (model and short
# UUID) and the --repeat batch, in text and in --json. On committed runs: the two GPUs of one
# `apod run --device all` (same label, same host, one batch each) and a first run made outside
# any batch. Runs on any machine (no GPU).
set -u
apod=$1 runs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

"$apod" import --db "$tmp/h.db" "$runs/nvidia-h200-x2-20261122-device-all.json.gz" \
  "$runs/nvidia-h200-20261122.json" > "$tmp/import.out" 2>&1 \
  || { cat "$tmp/import.out"; echo "FAIL importing the committed runs"; exit 1; }

"$apod" list --runs --db "$tmp/h.db" > "$tmp/list.txt" 2>&1 || fail "list --runs exited $?"
# Columns split on runs of two or more blanks (a device name or a label holds single ones).
row() {  # row ID: the fields of the run's line, one per line
  grep "^$1" "$tmp/list.txt" | sed -E 's/ {2,}/\n/g'
}
header=$(head -1 "$tmp/list.txt" | sed -E 's/ {2,}/ /g')
[[ $header == "id started status points device gpu host batch label" ]] && ok header \
  || fail "header: '$header'"
want_row() {  # want_row NAME ID FIELD... : the run's line has exactly these fields
  local name=$1 id=$2; shift 2
  local got want
  got=$(row "$id" | paste -sd '|')
  want=$(printf '%s\n' "$@" | paste -sd '|')
  [[ $got == "$want" ]] && ok "$name" || fail "$name: got '$got', wanted '$want'"
}
want_row first_gpu_of_device_all 18091a3152ef789045cdb1b9209615f8 \
  18091a3152ef789045cdb1b9209615f8 2026-11-22T07:40:13.992Z complete 541 "NVIDIA H200" \
  GPU-2e2c14f1 vm 2d9b5f6f "--device all on 2 GPUs"
want_row second_gpu_of_device_all 84c36615169c104ad1a72b633a79d287 \
  84c36615169c104ad1a72b633a79d287 2026-11-22T07:40:13.995Z complete 541 "NVIDIA H200" \
  GPU-44e7ea90 vm 6bc66831 "--device all on 2 GPUs"
want_row run_outside_a_batch eec3d774f58079d3a53c81d441699fe0 \
  eec3d774f58079d3a53c81d441699fe0 2026-11-22T05:48:03.351Z complete 82 "NVIDIA H200" \
  GPU-b06636c4 vm - "first skeleton run"
"$apod" list --runs --json --db "$tmp/h.db" > "$tmp/list.json" 2>&1 || fail "list --runs --json exited $?"
python3 - "$tmp/list.json" <<'PY' && ok list_runs_json_host_gpu_batch || fail "list --runs --json: $(head -c 400 "$tmp/list.json")"
import json, sys
runs = {r["id"][:8]: r for r in json.load(open(sys.argv[1]))}
assert list(runs) == ["eec3d774", "18091a31", "84c36615"], list(runs)
got = {k: (r["host"], r["gpu_uuid"], r["batch"], r["device"]) for k, r in runs.items()}
assert got == {
    "eec3d774": ("vm", "GPU-b06636c4-18cc-f785-d5f4-4bf734fe668d", None, "NVIDIA H200"),
    "18091a31": ("vm", "GPU-2e2c14f1-1c56-cfde-9637-9674eac83ecd", "2d9b5f6f569e", "NVIDIA H200"),
    "84c36615": ("vm", "GPU-44e7ea90-cd23-bef6-5b97-811346549f42", "6bc66831dacd", "NVIDIA H200"),
}, got
PY

# A run whose environment is not JSON (a file edited outside apod) is still listed, host and
# batch unknown; so is one whose device row is gone (the UUID from the run's own facts).
python3 - "$tmp/h.db" <<'PY' || fail "editing the database"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE run SET environment = 'not json' WHERE id LIKE 'eec3%'")
c.execute("PRAGMA foreign_keys = OFF")
c.execute("UPDATE run SET device_id = 999 WHERE id LIKE '8409%' OR id LIKE '84c3%'")
c.commit()
PY
"$apod" list --runs --db "$tmp/h.db" > "$tmp/list.txt" 2>&1 || fail "list --runs of an edited database exited $?"
want_row environment_not_json eec3d774f58079d3a53c81d441699fe0 \
  eec3d774f58079d3a53c81d441699fe0 2026-11-22T05:48:03.351Z complete 82 "NVIDIA H200" \
  GPU-b06636c4 - - "first skeleton run"
want_row device_row_missing 84c36615169c104ad1a72b633a79d287 \
  84c36615169c104ad1a72b633a79d287 2026-11-22T07:40:13.995Z complete 541 "NVIDIA H200" \
  GPU-44e7ea90 vm 6bc66831 "--device all on 2 GPUs"

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
