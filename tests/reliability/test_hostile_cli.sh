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

# Databases changed outside apod: nothing stored in them runs, every way in refuses them.
tamper() {  # tamper NAME SQL: a copy of good.db changed as another program could
  cp "$tmp/good.db" "$tmp/$1.db"
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()" "$tmp/$1.db" "$2"
  cp "$tmp/$1.db" "$tmp/$1.orig"
}
tamper trigger "CREATE TRIGGER wipe AFTER INSERT ON run BEGIN DELETE FROM run; END;"
tamper forever "DROP TABLE telemetry; CREATE VIEW telemetry AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL
  SELECT x + 1 FROM c) SELECT 'd10' AS run_id, x AS seq, '{}' AS reading FROM c;"  # read: a hang
tamper negative "PRAGMA user_version = -1;"
python3 "$here/results_doc.py" e1 20 > "$tmp/more.json"
for f in trigger forever negative; do
  want="refusing to use it"; [[ $f == negative ]] && want="schema version -1"
  expect "import_into_${f}_db" 2 "$want" -- timeout 20 "$apod" import --db "$tmp/$f.db" "$tmp/more.json"
  expect "merge_from_${f}_db" 2 "$want" -- timeout 20 "$apod" merge "$tmp/merged_$f.db" "$tmp/$f.db"
  expect "report_of_${f}_db" 2 "$want" -- timeout 20 "$apod" report --db "$tmp/$f.db" --out "$tmp/$f.html"
  expect "export_of_${f}_db" 2 "$want" -- timeout 20 "$apod" export --db "$tmp/$f.db" --out "$tmp/$f.json"
  [[ ! -e $tmp/merged_$f.db && ! -e $tmp/$f.html && ! -e $tmp/$f.json ]] || { echo "FAIL $f: a refused command wrote a file"; failures=$((failures + 1)); }
  unchanged "$f.db" "$tmp/$f.db" "$tmp/$f.orig"
done

# Inputs of any size are bounded: refused at once, exit 2, never out of memory or exit 3.
truncate -s 300M "$tmp/sparse.json"
python3 - "$tmp" <<'PY'
import gzip, json, sys
d = sys.argv[1]
with gzip.open(f"{d}/bomb.json.gz", "wb") as f:
    f.write(b"[" + b" " * (300 << 20) + b"]")
ms = [{"experiment": "e", "params": {}, "metric": "m", "unit": "u", "samples": [1], "verified": True}] * 150000
run = {"id": "ab", "started_at": "2026-01-01T00:00:00.000Z", "status": "complete", "device": {"name": "G"}, "measurements": ms}
json.dump({"format": "apod-results", "schema_version": 2, "runs": [run]}, open(f"{d}/many.json", "w"))
run["measurements"] = [dict(ms[0], params={f"k{i}": i for i in range(164000)})]
json.dump({"format": "apod-results", "schema_version": 2, "runs": [run]}, open(f"{d}/keys.json", "w"))
open(f"{d}/deep_prices.json", "w").write('{"GPU": ' + "[" * 100000 + "]" * 100000 + "}")
open(f"{d}/big_prices.json", "w").write('{"GPU": 1, "pad": "' + "x" * (2 << 20) + '"}')
open(f"{d}/deep_config.json", "w").write('{"experiments": ' + "[" * 100000 + "]" * 100000 + "}")
PY
expect import_dev_zero 2 "binary data" -- timeout 10 "$apod" import --db "$tmp/fresh.db" /dev/zero
expect import_300_mb 2 "larger than 256 MiB" -- timeout 10 "$apod" import --db "$tmp/fresh.db" "$tmp/sparse.json"
expect import_gzip_bomb 2 "decompresses to more than" -- timeout 30 "$apod" import --db "$tmp/fresh.db" "$tmp/bomb.json.gz"
expect import_150k_measurements 2 "more than 100000" -- timeout 60 "$apod" import --db "$tmp/fresh.db" "$tmp/many.json"
expect import_164k_keys 2 "more than 4096 members" -- timeout 60 "$apod" import --db "$tmp/fresh.db" "$tmp/keys.json"
[[ ! -e $tmp/fresh.db ]] || { echo "FAIL a refused import created a database"; failures=$((failures + 1)); }
expect prices_deep 2 "deeper than 4 levels" -- "$apod" report --db "$tmp/good.db" --prices "$tmp/deep_prices.json" --out "$tmp/p.html"
expect prices_big 2 "larger than 1 MiB" -- "$apod" report --db "$tmp/good.db" --prices "$tmp/big_prices.json" --out "$tmp/p.html"
expect prices_dev_zero 2 "binary data" -- timeout 10 "$apod" report --db "$tmp/good.db" --prices /dev/zero --out "$tmp/p.html"
expect config_deep 2 "deeper than 8 levels" -- "$apod" compare d10 d10 --db "$tmp/good.db" --config "$tmp/deep_config.json"
[[ ! -e $tmp/p.html ]] || { echo "FAIL a refused report wrote a file"; failures=$((failures + 1)); }

# Stored text reaches a terminal or a job summary only neutralised; JSON stays JSON.
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
doc = json.load(open(f"{d}/doc.json"))
base = doc["runs"][0]
base["label"] = "\x1b[2J\x1b]0;owned\x07\x1b]52;c;ZXZpbA==\x07"
m = base["measurements"][0]
m["metric"] = "x\n### no regression\n[details](http://evil.example) <!-- hidden"
cand = json.loads(json.dumps(base)); cand["id"] = "d20"; cand["started_at"] = "2026-01-02T00:00:00.000Z"; cand["finished_at"] = "2026-01-02T00:01:00.000Z"
cand["measurements"][0]["samples"] = [v * 0.5 for v in m["samples"]]
json.dump({"format": "apod-results", "schema_version": 2, "runs": [base, cand]}, open(f"{d}/hostile_text.json", "w"))
PY
sed -i 's/"id": "d10"/"id": "d19"/' "$tmp/hostile_text.json"
"$apod" import --db "$tmp/text.db" "$tmp/hostile_text.json" >/dev/null 2>&1 || { echo "FAIL importing hostile text"; failures=$((failures + 1)); }
no_escape() {  # no_escape NAME FILE: no ESC or BEL byte
  if LC_ALL=C grep -q $'[\x1b\x07]' "$2"; then echo "FAIL $1: a control character reached the output"; failures=$((failures + 1))
  else echo "ok   $1"; passed=$((passed + 1)); fi
}
"$apod" list --runs --db "$tmp/text.db" > "$tmp/list.txt" 2>&1; no_escape list_runs_neutralised "$tmp/list.txt"
grep -q '\\x1b\[2J' "$tmp/list.txt" && passed=$((passed + 1)) || { echo "FAIL the label is not shown escaped"; failures=$((failures + 1)); }
"$apod" compare d19 d20 --db "$tmp/text.db" > "$tmp/compare.txt" 2>&1; no_escape compare_text_neutralised "$tmp/compare.txt"
"$apod" compare d19 d20 --db "$tmp/text.db" --format markdown > "$tmp/compare.md" 2>&1
if grep -q -- '<!--' "$tmp/compare.md" || grep -q '](http' "$tmp/compare.md" || [[ $(grep -c '^#' "$tmp/compare.md") -ne 2 ]]; then  # apod's own: ### and one ####
  echo "FAIL compare --format markdown let markdown or HTML through:"; cat "$tmp/compare.md"; failures=$((failures + 1))
else echo "ok   compare_markdown_neutralised"; passed=$((passed + 1)); fi
"$apod" list --runs --json --db "$tmp/text.db" | python3 -c "import json,sys; r=json.load(sys.stdin); assert r[0]['label'].startswith('\x1b[2J')" \
  && { echo "ok   list_json_keeps_the_label"; passed=$((passed + 1)); } || { echo "FAIL list --json"; failures=$((failures + 1)); }
# The pinned baseline's run and setting, and compare --config's experiment names, reach the
# terminal only through terminal_text: no control character (C0 but the line feed, DEL, C1), no
# bidirectional override, nothing that is not UTF-8.
terminal_safe() {  # terminal_safe NAME FILE
  if python3 - "$2" <<'PY'
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")  # raises on bytes that are not UTF-8
bad = [c for c in t if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
sys.exit(1 if bad else 0)
PY
  then echo "ok   $1"; passed=$((passed + 1))
  else echo "FAIL $1: a control character reached the output:"; cat -v "$2"; failures=$((failures + 1)); fi
}
"$apod" baseline set d19 --db "$tmp/text.db" > "$tmp/baseline.txt" 2>&1; terminal_safe baseline_set_neutralised "$tmp/baseline.txt"
grep -q '\\x1b\[2J' "$tmp/baseline.txt" && passed=$((passed + 1)) || { echo "FAIL baseline set does not show the label escaped"; failures=$((failures + 1)); }
"$apod" baseline show --db "$tmp/text.db" > "$tmp/baseline.txt" 2>&1; terminal_safe baseline_show_neutralised "$tmp/baseline.txt"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE setting SET value=CAST(? AS TEXT) WHERE name='baseline_run'\", (sys.argv[2].encode('utf-8', 'surrogateescape'),)); c.commit()" \
  "$tmp/text.db" $'\x1b]52;c;ZXZpbA==\x07\xc2\x9b2J\xe2\x80\xae\xff'
"$apod" baseline show --db "$tmp/text.db" > "$tmp/pinned.txt" 2>&1; terminal_safe baseline_show_of_hostile_setting "$tmp/pinned.txt"
"$apod" compare --db "$tmp/text.db" > "$tmp/pinned.txt" 2>&1; terminal_safe compare_of_hostile_setting "$tmp/pinned.txt"
printf '{"experiments": {"\\u001b]0;owned\\u0007\\u202ex": {"threshold": "x"}}}' > "$tmp/hostile_config.json"
"$apod" compare d19 d20 --db "$tmp/text.db" --config "$tmp/hostile_config.json" > "$tmp/config.txt" 2>&1
terminal_safe config_experiment_neutralised "$tmp/config.txt"
grep -q 'owned' "$tmp/config.txt" && passed=$((passed + 1)) || { echo "FAIL the config error does not name the experiment"; cat -v "$tmp/config.txt"; failures=$((failures + 1)); }
# A command line's own text: CLI11's parse errors quote the argument (a script may pass on a
# stored name), and reach the terminal through terminal_text like every other message.
"$apod" list $'\x1b]0;owned\x07\xc2\x9b\xe2\x80\xae' > "$tmp/args.txt" 2>&1
terminal_safe parse_error_of_an_argument_neutralised "$tmp/args.txt"
"$apod" compare --format $'\x1b[2J' > "$tmp/args.txt" 2>&1
terminal_safe parse_error_of_an_option_value_neutralised "$tmp/args.txt"
grep -q 'x1b' "$tmp/args.txt" && passed=$((passed + 1)) || { echo "FAIL the parse error does not show the value escaped"; cat -v "$tmp/args.txt"; failures=$((failures + 1)); }

if ! "$apod" device >/dev/null 2>&1; then  # no GPU: --resume stops before the database
  expect resume_without_gpu 3 "apod run needs a GPU" -- "$apod" run --resume d1 --db "$tmp/missing.db"
  [[ ! -e $tmp/missing.db ]] || { echo "FAIL --resume without a GPU created a database"; failures=$((failures + 1)); }
else
  expect resume_missing_db 2 "no database at" -- "$apod" run --resume d1 --db "$tmp/missing.db"
  expect resume_finished_run 2 "only an interrupted run can be resumed" -- "$apod" run --resume d10 --db "$tmp/good.db"
fi

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
