#!/usr/bin/env bash
# Resource faults and concurrent imports through the binary. A full disk is simulated with a
# file-size limit (`ulimit -f`, which binds root as well): `apod import` must say that the disk
# is full or a limit was reached, exit 2, and leave the database exactly as it was (SIGXFSZ is
# left at its default: apod itself must not die of it, issue 19); an export
# over an existing file must fail the same way and keep the old file. Then eight `apod import`
# processes write one new database at once and every run must arrive.
set -u
apod=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; passed=$((passed + 1)); }
crashed() { [[ $1 -ge 128 || $2 == *"terminate called"* || $2 == *Sanitizer* || $2 == *"Segmentation"* ]]; }
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }

db=$tmp/full.db
python3 "$here/results_doc.py" a1 20 > "$tmp/base.json"
python3 "$here/results_doc.py" b1 400000 > "$tmp/big.json"
"$apod" import --db "$db" "$tmp/base.json" >/dev/null 2>&1 || fail "importing the base document"
"$apod" export --db "$db" --out "$tmp/before.json" >/dev/null 2>&1 || fail "exporting the base database"
cp "$tmp/before.json" "$tmp/kept.json"

limit_kb=$(( ($(stat -c %s "$db") + 65535) / 1024 ))
out=$( (ulimit -f "$limit_kb"; "$apod" import --db "$db" "$tmp/big.json") 2>&1 ); code=$?
if crashed $code "$out"; then fail "import into a full disk crashed (exit $code): $out"
elif [[ $code -ne 2 ]]; then fail "import into a full disk: exit $code, wanted 2: $out"
elif [[ $out != *"disk is full or a file-size limit"* && $out != *"a full disk, a file-size limit"* ]]; then
  fail "import into a full disk: unclear message: $out"
else pass "full disk on import: exit 2, '${out:0:160}...'"; fi
"$apod" export --db "$db" --out "$tmp/after.json" >/dev/null 2>&1 || fail "the database does not export after the failed import"
cmp -s "$tmp/before.json" "$tmp/after.json" && pass "database unchanged by the failed import" \
  || fail "the failed import changed the database"
python3 -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0]; sys.exit(r!='ok')" "$db" \
  && pass "integrity_check ok after the full disk" || fail "integrity_check after the full disk"

"$apod" import --db "$db" "$tmp/big.json" >/dev/null 2>&1 || fail "the big import once space is back"
out=$( (ulimit -f 64; "$apod" export --db "$db" --out "$tmp/kept.json") 2>&1 ); code=$?
if crashed $code "$out"; then fail "export into a full disk crashed: $out"
elif [[ $code -ne 2 || $out != *"cannot write"* ]]; then fail "export into a full disk: exit $code: $out"
else pass "full disk on export: exit 2"; fi
cmp -s "$tmp/before.json" "$tmp/kept.json" && pass "the existing export file was kept" || fail "the export file was overwritten"
[[ -z $(find "$tmp" -maxdepth 1 -name '.kept.json.*') ]] || fail "a temporary export file was left behind"

# Eight concurrent imports into one new database.
for w in 0 1 2 3 4 5 6 7; do python3 "$here/results_doc.py" "c${w}f" 200 3 > "$tmp/w$w.json"; done
pids=()
for w in 0 1 2 3 4 5 6 7; do "$apod" import --db "$tmp/shared.db" "$tmp/w$w.json" > "$tmp/w$w.out" 2>&1 & pids+=($!); done
ok=1
for i in "${!pids[@]}"; do wait "${pids[$i]}" || { ok=0; fail "concurrent import $i: $(cat "$tmp/w$i.out")"; }; done
runs=$("$apod" list --runs --db "$tmp/shared.db" 2>/dev/null | grep -c reliability)
[[ $ok -eq 1 && $runs -eq 24 ]] && pass "8 concurrent imports: 24 of 24 runs stored, no error" \
  || fail "8 concurrent imports stored $runs of 24 runs"

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
