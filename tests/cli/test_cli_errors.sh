#!/usr/bin/env bash
# The command line's contract for bad input: a clear message, the documented exit code, and no
# file created or changed. Runs on any machine; the no-GPU case only where no GPU is visible.
set -u
apod=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0

expect() {  # expect NAME WANT_CODE WANT_TEXT -- command...
  local name=$1 want=$2 text=$3; shift 4
  local out code
  out=$("$@" 2>&1); code=$?
  if [[ $code -ne $want ]]; then
    echo "FAIL $name: exit $code, wanted $want; output: $out"; failures=$((failures + 1))
  elif [[ -n $text && $out != *"$text"* ]]; then
    echo "FAIL $name: output lacks '$text': $out"; failures=$((failures + 1))
  else
    echo "ok   $name"; passed=$((passed + 1))
  fi
}

expect version 0 "apod 0." -- "$apod" --version
expect help 0 "run" -- "$apod" --help
expect run_help 0 "--only" -- "$apod" run --help

# Command-line errors in apod's voice (issue 24): stderr's first line is exactly "apod: error:",
# the command and the offending word (with the nearest command or option where one is close),
# the second says what to run for help; nothing on stdout; exit 2.
usage_error() {  # usage_error NAME FIRST_LINE HINT_LINE -- command...
  local name=$1 first=$2 hint=$3; shift 4
  local err out code
  out=$("$@" 2>"$tmp/stderr"); code=$?
  err=$(cat "$tmp/stderr")
  if [[ $code -ne 2 ]]; then
    echo "FAIL $name: exit $code, wanted 2; stderr: $err"; failures=$((failures + 1))
  elif [[ -n $out ]]; then
    echo "FAIL $name: printed on stdout: $out"; failures=$((failures + 1))
  elif [[ $(sed -n 1p <<< "$err") != "$first" || $(sed -n 2p <<< "$err") != "$hint" ]]; then
    printf 'FAIL %s: stderr\n%s\nwanted\n%s\n%s\n' "$name" "$err" "$first" "$hint"; failures=$((failures + 1))
  else
    echo "ok   $name"; passed=$((passed + 1))
  fi
}
commands_hint="run 'apod --help' for the commands"
usage_error unknown_command "apod: error: unknown command 'frobnicate'" "$commands_hint" -- "$apod" frobnicate
usage_error command_misspelt "apod: error: unknown command 'reprot'; did you mean 'report'?" "$commands_hint" -- "$apod" reprot
usage_error command_cut_short "apod: error: unknown command 'comp'; did you mean 'compare'?" "$commands_hint" -- "$apod" comp
usage_error unknown_command_with_options "apod: error: unknown command 'lsit'; did you mean 'list'?" "$commands_hint" -- "$apod" lsit --runs
usage_error unknown_top_option "apod: error: unknown option '--frob'" "$commands_hint" -- "$apod" --frob
run_hint="run 'apod run --help' for the options"
usage_error unknown_option "apod: error: run: unknown option '--frob'" "$run_hint" -- "$apod" run --frob
usage_error unknown_option_with_value "apod: error: run: unknown option '--frob'" "$run_hint" -- "$apod" run --frob=3
usage_error option_misspelt "apod: error: run: unknown option '--quik'; did you mean '--quick'?" "$run_hint" -- "$apod" run --quik
usage_error unknown_options "apod: error: run: unknown option '--frob' (and 1 more: --glob)" "$run_hint" -- "$apod" run --frob --glob
usage_error unexpected_argument "apod: error: run: unexpected argument 'extra'" "$run_hint" -- "$apod" run extra
usage_error subcommand_misspelt "apod: error: baseline: unknown command 'shwo'; did you mean 'show'?" \
  "run 'apod baseline --help' for the commands" -- "$apod" baseline shwo
usage_error subcommand_missing "apod: error: baseline: a command is required: set, show" \
  "run 'apod baseline --help' for the commands" -- "$apod" baseline
usage_error positional_missing "apod: error: baseline set: run is required" \
  "run 'apod baseline set --help' for the options" -- "$apod" baseline set
usage_error not_a_number "apod: error: device: --device expects a whole number, not 'x'" \
  "run 'apod device --help' for the options" -- "$apod" device --device x
usage_error out_of_range "apod: error: list: --device must be at least 0, not -1" \
  "run 'apod list --help' for the options" -- "$apod" list --json --device -1
usage_error value_missing "apod: error: list: --db needs a value" \
  "run 'apod list --help' for the options" -- "$apod" list --runs --db
usage_error excluded_pair "apod: error: run: --quick excludes --full" "$run_hint" -- "$apod" run --quick --full
usage_error file_missing "apod: error: import: files: File does not exist: $tmp/none.json" \
  "run 'apod import --help' for the options" -- "$apod" import --db "$tmp/new.db" "$tmp/none.json"
# A word echoed back reaches the terminal escaped, like every other message.
usage_error escaped_word "apod: error: unknown command '\x1b[2Jfrob'" "$commands_hint" -- "$apod" $'\e[2Jfrob'
# apod alone: the short usage, every command on a line of its own, on stderr; exit 2.
out=$("$apod" 2>"$tmp/stderr"); code=$?
python3 - "$tmp/stderr" "$code" "$out" <<'PY' && { echo "ok   apod_alone_short_usage"; passed=$((passed + 1)); } \
  || { echo "FAIL apod alone: exit $code, stdout '$out', stderr: $(cat "$tmp/stderr")"; failures=$((failures + 1)); }
import sys
err, code, out = open(sys.argv[1]).read().splitlines(), int(sys.argv[2]), sys.argv[3]
assert code == 2 and out == "", (code, out)
assert err[0] == "apod: error: a command is required" and err[1] == "usage: apod COMMAND [OPTIONS]", err[:2]
listed = [line.split()[0] for line in err if line.startswith("  ")]
assert {"run", "report", "list", "device", "export", "import", "merge", "compare", "baseline"} <= set(listed), listed
PY
expect bad_device_number 2 "" -- "$apod" run --device notanumber
expect all_at_once_alone 2 "goes with --device all" -- "$apod" run --all-at-once --db "$tmp/one.db"
[[ ! -e "$tmp/one.db" ]] || { echo "FAIL all_at_once_alone: created $tmp/one.db"; failures=$((failures + 1)); }
# --full adds points to the default matrix; --quick shrinks it: asked together, nothing runs.
expect quick_and_full 2 "excludes" -- "$apod" run --quick --full --db "$tmp/qf.db"
[[ ! -e $tmp/qf.db ]] || { echo "FAIL quick_and_full created a database"; failures=$((failures + 1)); }
expect list_full_plan 0 '"full": true' -- "$apod" list --json --full
expect unknown_experiment 2 "unknown experiment 'nope'" -- "$apod" run --only nope --db "$tmp/u.db"
[[ ! -e $tmp/u.db ]] || { echo "FAIL unknown_experiment created a database"; failures=$((failures + 1)); }
expect list_experiments 0 "offset_copy" -- "$apod" list
expect report_missing_db 2 "no database at" -- "$apod" report --db "$tmp/missing.db" --out "$tmp/r.html"
[[ ! -e $tmp/missing.db && ! -e $tmp/r.html ]] || { echo "FAIL report created files"; failures=$((failures + 1)); }

echo "just some text, certainly not SQLite, padded to more than one hundred bytes......................" > "$tmp/text.db"
cp "$tmp/text.db" "$tmp/text.orig"
expect not_sqlite 2 "not a SQLite database" -- "$apod" list --runs --db "$tmp/text.db"
expect export_not_sqlite 2 "not a SQLite database" -- "$apod" export --db "$tmp/text.db"
cmp -s "$tmp/text.db" "$tmp/text.orig" || { echo "FAIL the text file was changed"; failures=$((failures + 1)); }

echo '{"format":"apod-results","schema_version":1,"runs":[{"id":"zz"}]}' > "$tmp/bad.json"
expect import_bad_json 2 "runs[0].id" -- "$apod" import --db "$tmp/new.db" "$tmp/bad.json"
[[ ! -e $tmp/new.db ]] || { echo "FAIL a rejected import created a database"; failures=$((failures + 1)); }

# A valid document, then a report into a directory that does not exist.
cat > "$tmp/ok.json" <<'JSON'
{"format":"apod-results","schema_version":1,"runs":[{"id":"ab12","label":"cli","started_at":"2026-01-01T00:00:00.000Z",
 "finished_at":"2026-01-01T00:00:01.000Z","status":"complete","device":{"name":"GPU","uuid":"GPU-1",
 "memory_clock_khz":1000000,"memory_bus_width_bits":1024,"theoretical_bandwidth_gbs":256.0},
 "experiments":[{"name":"offset_copy","version":1,"status":"complete","wall_s":1.0}],
 "measurements":[{"experiment":"offset_copy","params":{"word_bytes":4,"offset":0},"metric":"effective_bandwidth",
 "unit":"GB/s","direction":"higher","median":200.0,"min":190.0,"max":210.0,"n":3,"samples":[190.0,200.0,210.0],
 "verified":true,"status":"ok","error":null,"extra":{}}]}]}
JSON
expect import_ok 0 "imported 1 run" -- "$apod" import --db "$tmp/ok.db" "$tmp/ok.json"
expect import_again 0 "1 already present" -- "$apod" import --db "$tmp/ok.db" "$tmp/ok.json"
expect list_runs 0 "ab12" -- "$apod" list --runs --db "$tmp/ok.db"
expect report_unwritable 2 "cannot write" -- "$apod" report --db "$tmp/ok.db" --out "$tmp/no/such/dir/r.html"
expect report_ok 0 "wrote" -- "$apod" report --db "$tmp/ok.db" --out "$tmp/r.html"
expect export_unknown_run 2 "no run 'ffff'" -- "$apod" export --db "$tmp/ok.db" --run ffff
expect export_bad_format 2 "" -- "$apod" export --db "$tmp/ok.db" --format xml
"$apod" export --db "$tmp/ok.db" --out "$tmp/back.json" >/dev/null 2>&1
expect import_into_text_file 2 "not a SQLite database" -- "$apod" import --db "$tmp/text.db" "$tmp/ok.json"
cmp -s "$tmp/text.db" "$tmp/text.orig" || { echo "FAIL the text file was changed by import"; failures=$((failures + 1)); }
expect reimport_export 0 "imported 1 run" -- "$apod" import --db "$tmp/ok2.db" "$tmp/back.json"

# Formats tools expect: list --runs --json, export --format csv, .json.gz both ways.
"$apod" list --runs --json --db "$tmp/ok.db" > "$tmp/list.json" 2>&1
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r[0]['id']=='ab12' and r[0]['points']==1" "$tmp/list.json" \
  && { echo "ok   list_runs_json"; passed=$((passed + 1)); } || { echo "FAIL list --runs --json: $(head -c 300 "$tmp/list.json")"; failures=$((failures + 1)); }
# The catalog: every experiment's declaration and planned points, without running anything (a
# nominal H100 where no GPU is visible; on a GPU, that GPU).
"$apod" list --json > "$tmp/catalog.json" 2>&1
python3 - "$tmp/catalog.json" <<'PY' && { echo "ok   list_json_catalog"; passed=$((passed + 1)); } || { echo "FAIL list --json: $(head -c 300 "$tmp/catalog.json")"; failures=$((failures + 1)); }
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "apod-catalog" and doc["planned_for"]["device"], doc.get("planned_for")
by_name = {e["name"]: e for e in doc["experiments"]}
offset = by_name["offset_copy"]
assert [m["class"] for m in offset["metrics"]] == ["device_memory"], offset["metrics"]
assert offset["charts"][0]["x"] == "offset" and len(offset["points"]) == 2 * (33 + 17), offset["points"][:2]
transfer = by_name["host_transfer"]["metrics"][0]
assert transfer["class"] == "host_link" and transfer["limit"] == "pcie", transfer
assert {c["class"] for c in transfer["class_cases"]} == {"host_phase"}, transfer["class_cases"]
assert all(e["points"] for e in doc["experiments"] if not e["hidden"]), "an experiment plans no point"
PY
expect export_csv 0 "" -- "$apod" export --db "$tmp/ok.db" --format csv --out "$tmp/ok.csv"
python3 - "$tmp/ok.csv" <<'PY' && { echo "ok   export_csv_columns"; passed=$((passed + 1)); } || { echo "FAIL export --format csv"; failures=$((failures + 1)); }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 1, rows
r = rows[0]
assert (r["run_id"], r["experiment"], r["metric"], r["n"], r["status"]) == ("ab12", "offset_copy", "effective_bandwidth", "3", "ok"), r
assert float(r["median"]) == 200.0 and r["params"] == '{"word_bytes":4,"offset":0}', r
PY
expect export_gz 0 "" -- "$apod" export --db "$tmp/ok.db" --out "$tmp/back.json.gz"
expect import_gz 0 "imported 1 run" -- "$apod" import --db "$tmp/gz.db" "$tmp/back.json.gz"
"$apod" export --db "$tmp/gz.db" --out "$tmp/gz.json" >/dev/null 2>&1
cmp -s "$tmp/gz.json" "$tmp/back.json" && { echo "ok   gzip_round_trip"; passed=$((passed + 1)); } \
  || { echo "FAIL export .json.gz, import, export differs"; failures=$((failures + 1)); }

sqlite_newer() {  # bump user_version with python's sqlite3 (no sqlite3 CLI needed)
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version=99'); c.commit()" "$1"
}
if command -v python3 >/dev/null; then
  cp "$tmp/ok.db" "$tmp/future.db"; rm -f "$tmp/ok.db-wal" "$tmp/ok.db-shm"
  sqlite_newer "$tmp/future.db"
  expect newer_schema 2 "newer than this apod" -- "$apod" import --db "$tmp/future.db" "$tmp/ok.json"
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE t(x)'); c.commit()" "$tmp/foreign.db"
  expect foreign_db 2 "not an apod database" -- "$apod" import --db "$tmp/foreign.db" "$tmp/ok.json"
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  # The one wording of "no GPU" (runner/core/device.cpp, no_device_reason), apod device's too.
  if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then no_gpu="no CUDA-capable GPU is visible"
  else no_gpu="no NVIDIA driver is loaded on this machine (libcuda.so.1 not found)"; fi
  expect no_gpu_run 3 "apod: error: $no_gpu" -- "$apod" run --db "$tmp/gpu.db"
  [[ ! -e $tmp/gpu.db ]] || { echo "FAIL a run without a GPU created a database"; failures=$((failures + 1)); }
  expect no_gpu_device 3 "apod: error: $no_gpu" -- "$apod" device
fi

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
