#!/usr/bin/env bash
# Hostile input through the binary: damaged databases, adversarial JSON for `apod import`, and
# nonsense command lines. Each must end with a clear message and exit 2 (3 for `apod run`
# where there is no GPU), never a crash, and never create or change a file. (The single cases of
# tests/cli/test_cli_errors.sh are not repeated here.)
set -u
apod=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }
failures=0 passed=0
expect() {  # expect NAME WANT_CODE WANT_TEXT -- command...
  local name=$1 want=$2 text=$3; shift 4
  local out code
  out=$("$@" 2>&1); code=$?
  if [[ $code -ge 128 || $out == *"terminate called"* || $out == *Sanitizer* || $out == *"Segmentation"* ]]; then
    echo "FAIL $name crashed (exit $code): ${out:0:300}"; failures=$((failures + 1))
  elif [[ $code -ne $want ]]; then echo "FAIL $name: exit $code, wanted $want: ${out:0:300}"; failures=$((failures + 1))
  elif [[ -n $text && $out != *"$text"* ]]; then echo "FAIL $name: message lacks '$text': ${out:0:300}"; failures=$((failures + 1))
  else echo "ok   $name"; passed=$((passed + 1)); fi
}
unchanged() {  # unchanged NAME FILE COPY
  if cmp -s "$2" "$3"; then passed=$((passed + 1)); else echo "FAIL $1: the file was changed"; failures=$((failures + 1)); fi
}

# Damaged databases: a real one cut short, cut mid-page, with a page of noise, and pure noise.
python3 "$here/results_doc.py" d1 3000 4 > "$tmp/doc.json"
"$apod" import --db "$tmp/good.db" "$tmp/doc.json" >/dev/null 2>&1 || { echo "FAIL base import"; exit 1; }
size=$(stat -c %s "$tmp/good.db")
head -c $((size / 2 / 4096 * 4096)) "$tmp/good.db" > "$tmp/half.db"
head -c $((size - 100)) "$tmp/good.db" > "$tmp/midpage.db"
cp "$tmp/good.db" "$tmp/noisy.db"
head -c 4096 /dev/urandom | dd of="$tmp/noisy.db" bs=4096 seek=2 conv=notrunc status=none
head -c 65536 /dev/urandom > "$tmp/random.db"
for f in half midpage noisy random; do
  cp "$tmp/$f.db" "$tmp/$f.orig"
  want="damaged"; [[ $f == random ]] && want="not a SQLite database"
  expect "import_into_${f}_db" 2 "$want" -- "$apod" import --db "$tmp/$f.db" "$tmp/doc.json"
  if [[ $f != noisy ]]; then  # a page of noise may sit where a read-only listing never looks
    expect "list_${f}_db" 2 "" -- "$apod" list --runs --db "$tmp/$f.db"
    expect "export_${f}_db" 2 "" -- "$apod" export --db "$tmp/$f.db" --out "$tmp/$f.json"
    [[ ! -e $tmp/$f.json ]] || { echo "FAIL export of a damaged db wrote a file"; failures=$((failures + 1)); }
  fi
  unchanged "$f.db" "$tmp/$f.db" "$tmp/$f.orig"
done

# Adversarial JSON: no database may be created by any of these.
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
good = json.load(open(f"{d}/doc.json"))
def write(name, text): open(f"{d}/{name}.json", "w").write(text)
write("deep", "[" * 100000 + "]" * 100000)
write("deep_environment", json.dumps(good).replace('"label"', '"environment": ' + '{"a":' * 5000 + '1' + '}' * 5000 + ', "label"', 1))
write("huge_number", json.dumps(good).replace('"samples": [', '"samples": [1e999, ', 1))
write("nan_string", json.dumps(good).replace('"samples": [', '"samples": ["NaN", ', 1))
write("duplicate_keys", json.dumps(good).replace('"label": "reliability"', '"label": "a", "label": "b"', 1))
write("ten_mb_id", json.dumps(good).replace('"d10"', '"' + "a" * (10 << 20) + '"', 1))
write("wrong_types", json.dumps({"format": "apod-results", "schema_version": 2, "runs": [
    {"id": "ab", "started_at": 1, "status": [], "device": "GPU", "measurements": {}}]}))
write("empty", "")
write("truncated", json.dumps(good)[: len(json.dumps(good)) // 2])
open(f"{d}/binary.json", "wb").write(bytes(range(256)) * 64)
PY
for f in deep deep_environment huge_number nan_string duplicate_keys ten_mb_id wrong_types empty truncated binary; do
  expect "import_$f" 2 "" -- "$apod" import --db "$tmp/fresh.db" "$tmp/$f.json"
done
[[ ! -e $tmp/fresh.db ]] || { echo "FAIL a refused import created a database"; failures=$((failures + 1)); }
expect import_directory 2 "" -- "$apod" import --db "$tmp/fresh.db" "$tmp"
expect import_deep_message 2 "deeper than 64" -- "$apod" import --db "$tmp/fresh.db" "$tmp/deep.json"
expect import_duplicate_message 2 "repeats the key" -- "$apod" import --db "$tmp/fresh.db" "$tmp/duplicate_keys.json"

# Nonsense on the command line.
cp "$tmp/good.db" "$tmp/good.orig"
long=$(head -c 100000 /dev/zero | tr '\0' x)
expect resume_with_only 2 "excludes" -- "$apod" run --resume abc --only offset_copy --db "$tmp/good.db"
expect resume_with_quick 2 "excludes" -- "$apod" run --resume abc --quick --db "$tmp/good.db"
expect resume_without_id 2 "" -- "$apod" run --resume
expect repeat_zero 2 "" -- "$apod" run --repeat 0 --db "$tmp/x.db"
expect min_samples_text 2 "" -- "$apod" run --min-samples many --db "$tmp/x.db"
expect target_ci_nan 2 "finite" -- "$apod" run --target-ci nan --db "$tmp/x.db"
expect point_cap_inf 2 "" -- "$apod" run --point-time-cap inf --db "$tmp/x.db"
expect only_empty_names 2 "unknown experiment" -- "$apod" run --only "nope,,," --db "$tmp/x.db"
expect only_long_name 2 "unknown experiment" -- "$apod" run --only "$long" --db "$tmp/x.db"
expect db_is_directory 2 "is a directory" -- "$apod" list --runs --db "$tmp"
expect db_long_path 2 "" -- "$apod" list --runs --db "$tmp/$long"
expect db_control_chars 2 "no database" -- "$apod" list --runs --db $'\x01\xff\xfe.db'
expect export_sql_prefix 2 "no run" -- "$apod" export --db "$tmp/good.db" --run "%' OR 1=1 --"
expect export_empty_prefix 2 "" -- "$apod" export --db "$tmp/good.db" --run ""
expect resume_unknown_run_is_refused 2 "" -- "$apod" run --resume "zz'; DROP TABLE run; --" --db "$tmp/good.db" --no-such-flag
expect unknown_subcommand_junk 2 "" -- "$apod" $'\xff\xfe'
expect db_option_without_value 2 "" -- "$apod" list --runs --db
[[ ! -e $tmp/x.db ]] || { echo "FAIL a refused command line created a database"; failures=$((failures + 1)); }
unchanged "good.db after the command lines" "$tmp/good.db" "$tmp/good.orig"

if ! "$apod" device >/dev/null 2>&1; then  # no GPU: --resume stops before the database
  expect resume_without_gpu 3 "no CUDA-capable device" -- "$apod" run --resume d1 --db "$tmp/missing.db"
  [[ ! -e $tmp/missing.db ]] || { echo "FAIL --resume without a GPU created a database"; failures=$((failures + 1)); }
else
  expect resume_missing_db 2 "no database at" -- "$apod" run --resume d1 --db "$tmp/missing.db"
  expect resume_finished_run 2 "only an interrupted run can be resumed" -- "$apod" run --resume d10 --db "$tmp/good.db"
fi

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
