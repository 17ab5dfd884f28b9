#!/usr/bin/env bash
# Outputs never destroy inputs, and "exit 2: nothing was written" is literally true (issue 10),
# through the binary: --out naming the database by any spelling or link is refused; devices,
# FIFOs and descriptors are written into; modes are kept; --db that stores nothing is refused;
# multi-run imports and merges are all or nothing and a refused command creates no file;
# conflicts are named; a completed run replaces its interrupted copy.
set -u
apod=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }
source "$here/cli_checks.sh"

python3 "$here/results_doc.py" a1 50 > "$tmp/one.json"
python3 "$here/results_doc.py" b 50 6 > "$tmp/six.json"
"$apod" import --db "$tmp/h.db" "$tmp/one.json" >/dev/null 2>&1 || { echo "FAIL base import"; exit 1; }
cp "$tmp/h.db" "$tmp/h.orig"
ln -s h.db "$tmp/link.db"
ln "$tmp/h.db" "$tmp/hard.db"
mkdir "$tmp/sub"

# --out naming the database: every spelling, a link, a hard link, its WAL.
for out in "$tmp/h.db" "$tmp/./h.db" "$tmp/sub/../h.db" "$tmp/link.db" "$tmp/hard.db" "$tmp/h.db-wal"; do
  expect "report_out_is_db ${out#$tmp/}" 2 "refusing to overwrite an input" -- "$apod" report --db "$tmp/h.db" --out "$out"
  expect "export_out_is_db ${out#$tmp/}" 2 "refusing to overwrite an input" -- "$apod" export --db "$tmp/h.db" --out "$out"
done
(cd "$tmp" && expect report_relative_out 2 "refusing to overwrite" -- "$apod" report --db h.db --out ./h.db)
echo '{"GPU": 1000}' > "$tmp/prices.json"
expect report_out_is_prices 2 "the prices file" -- "$apod" report --db "$tmp/h.db" --prices "$tmp/prices.json" --out "$tmp/prices.json"
expect merge_into_an_input 2 "refusing to overwrite" -- "$apod" merge "$tmp/link.db" "$tmp/h.db"
expect import_into_its_document 2 "refusing to overwrite" -- "$apod" import --db "$tmp/one.json" "$tmp/one.json"
same "database intact after the refused outputs" "$tmp/h.db" "$tmp/h.orig"

# Non-regular outputs are written into; an existing file keeps its mode.
expect report_to_dev_null 0 "wrote" -- "$apod" report --db "$tmp/h.db" --out /dev/null
[[ -c /dev/null ]] && pass "/dev/null is still a device" || fail "/dev/null was replaced"
mkfifo "$tmp/fifo"
timeout 30 cat "$tmp/fifo" > "$tmp/from-fifo.json" & reader=$!
expect export_to_fifo 0 "" -- timeout 30 "$apod" export --db "$tmp/h.db" --out "$tmp/fifo"
[[ -p $tmp/fifo ]] || timeout 5 cat /dev/null > "$tmp/fifo"  # the old way replaced it: unblock the reader
wait $reader
[[ -p $tmp/fifo ]] && grep -q apod-results "$tmp/from-fifo.json" && pass "the FIFO got the document and is still a FIFO" \
  || fail "the FIFO was replaced or got nothing"
"$apod" export --db "$tmp/h.db" --out /dev/stdout > "$tmp/stdout.json" 2>/dev/null
grep -q apod-results "$tmp/stdout.json" && [[ -L /dev/stdout || ! -e /dev/stdout ]] && pass "export through /dev/stdout" \
  || fail "export through /dev/stdout"
echo old > "$tmp/private.html"; chmod 600 "$tmp/private.html"
expect report_private 0 "wrote" -- "$apod" report --db "$tmp/h.db" --out "$tmp/private.html"
[[ $(stat -c %a "$tmp/private.html") == 600 ]] && pass "an existing 0600 output stays 0600" || fail "mode became $(stat -c %a "$tmp/private.html")"

# --db that would store nothing anywhere.
for db in "" ":memory:" "file:x?mode=memory" "file:$tmp/u.db"; do
  expect "import_db_'$db'" 2 "would not name a database file" -- "$apod" import --db "$db" "$tmp/one.json"
  expect "list_db_'$db'" 2 "would not name a database file" -- "$apod" list --runs --db "$db"
done
expect merge_out_memory 2 "would not name a database file" -- "$apod" merge ":memory:" "$tmp/h.db"

# A refused command creates no file.
expect baseline_set_missing_db 2 "no database at" -- "$apod" baseline set a1 --db "$tmp/new1.db"
absent "baseline set created no database" "$tmp/new1.db"
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
doc = json.load(open(f"{d}/six.json"))
doc["runs"][5]["status"] = "bogus"  # the 6th run is refused
json.dump(doc, open(f"{d}/bad6.json", "w"))
PY
expect import_bad_sixth_new 2 "runs[5].status" -- "$apod" import --db "$tmp/new2.db" "$tmp/six.json" "$tmp/bad6.json"
absent "a refused multi-file import created no database" "$tmp/new2.db"
[[ -z $(ls -A "$tmp" | grep '\.new-') ]] && pass "no temporary database left" || fail "a temporary database was left"
expect import_bad_sixth_existing 2 "runs[5].status" -- "$apod" import --db "$tmp/h.db" "$tmp/six.json" "$tmp/bad6.json"
same "a refused multi-file import left the database as it was" "$tmp/h.db" "$tmp/h.orig"

# merge validates runs as import does, and all or nothing.
"$apod" import --db "$tmp/night.db" "$tmp/six.json" >/dev/null 2>&1
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE run SET environment='[]' WHERE id='b5'\"); c.commit()" "$tmp/night.db"
expect merge_malformed_run 2 "holds a run that apod would not import" -- "$apod" merge "$tmp/all.db" "$tmp/h.db" "$tmp/night.db"
absent "a refused merge created no database" "$tmp/all.db"
expect merge_malformed_into_existing 2 "would not import" -- "$apod" merge "$tmp/h.db" "$tmp/night.db"
same "a refused merge left the database as it was" "$tmp/h.db" "$tmp/h.orig"

# Conflicts: the same id with other content is named; --on-conflict chooses.
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
doc = json.load(open(f"{d}/one.json"))
doc["runs"][0]["label"] = "a different label"
json.dump(doc, open(f"{d}/one_relabelled.json", "w"))
run = doc["runs"][0]
run["label"], run["status"], run["finished_at"] = "night", "interrupted", None
run["environment"] = {"writer": {"host": "n1", "pid": 7}}
run["id"] = "c1"
json.dump(doc, open(f"{d}/interrupted.json", "w"))
run["status"], run["finished_at"] = "complete", "2026-01-01T00:09:00.000Z"
run["environment"] = {"writer": {"host": "n1", "pid": 8}, "resumed": [{"previous_writer": {"host": "n1", "pid": 7}}]}
run["experiments"].append({"name": "stride_copy", "version": 1, "status": "complete"})
json.dump(doc, open(f"{d}/completed.json", "w"))
PY
expect conflict_refused 2 "run a1 from '$tmp/one_relabelled.json' differs from the copy already in" -- \
  "$apod" import --db "$tmp/h.db" "$tmp/one_relabelled.json"
same "a refused conflict changed nothing" "$tmp/h.db" "$tmp/h.orig"
cp "$tmp/h.db" "$tmp/keep.db"
expect conflict_keep 0 "kept the copy already in" -- "$apod" import --db "$tmp/keep.db" --on-conflict keep "$tmp/one_relabelled.json"
expect conflict_replace 0 "--on-conflict replace" -- "$apod" import --db "$tmp/keep.db" --on-conflict replace "$tmp/one_relabelled.json"
"$apod" list --runs --db "$tmp/keep.db" 2>&1 | grep -q "a different label" && pass "replace stored the new copy" || fail "replace"
"$apod" import --db "$tmp/n1.db" "$tmp/interrupted.json" >/dev/null 2>&1
"$apod" import --db "$tmp/n2.db" "$tmp/completed.json" >/dev/null 2>&1
expect merge_interrupted_then_completed 0 "by its later state" -- "$apod" merge "$tmp/m1.db" "$tmp/n1.db" "$tmp/n2.db"
expect merge_completed_then_interrupted 0 "is an earlier state of it" -- "$apod" merge "$tmp/m2.db" "$tmp/n2.db" "$tmp/n1.db"
"$apod" export --db "$tmp/m1.db" --out "$tmp/m1.json" 2>/dev/null; "$apod" export --db "$tmp/m2.db" --out "$tmp/m2.json" 2>/dev/null
cmp -s "$tmp/m1.json" "$tmp/m2.json" && grep -q '"complete"' "$tmp/m1.json" && pass "either order keeps the completed run" \
  || fail "the merged history depends on the order of the arguments"

finish
