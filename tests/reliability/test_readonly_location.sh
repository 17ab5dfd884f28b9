#!/usr/bin/env bash
# A read-only location: the database's folder mounted read-only (a bind mount in a private mount
# namespace, since file permissions do not stop root, which these tests often run as). Writing
# to a database there, or creating one, must fail with a clear message and exit 2, and change
# nothing. Skipped (77) where no private read-only mount can be made (no unshare, no privilege).
set -u
apod=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }
mkdir "$tmp/ro"
python3 "$here/results_doc.py" a2 20 > "$tmp/base.json"
python3 "$here/results_doc.py" b2 20 > "$tmp/more.json"
"$apod" import --db "$tmp/ro/apod.db" "$tmp/base.json" >/dev/null 2>&1 || { echo "FAIL base import"; exit 1; }
cp "$tmp/ro/apod.db" "$tmp/orig.db"
# A database whose WAL still holds pages (its writer was killed) and whose -shm is gone.
cp "$tmp/ro/apod.db" "$tmp/ro/live.db"
python3 - "$tmp/ro/live.db" <<'PY'
import os, sqlite3, sys
reader = sqlite3.connect(sys.argv[1], isolation_level=None)
reader.execute("BEGIN"); reader.execute("SELECT count(*) FROM run").fetchall()
writer = sqlite3.connect(sys.argv[1])
writer.execute("INSERT INTO setting(name, value) VALUES ('note', 'in the WAL only')"); writer.commit()
os._exit(0)  # as if killed: no connection is closed, no checkpoint, the WAL keeps the page
PY
rm -f "$tmp/ro/live.db-shm"
[[ -s $tmp/ro/live.db-wal ]] || { echo "FAIL the WAL of live.db is empty"; exit 1; }

if ! unshare -m --propagation private true 2>/dev/null; then
  echo "cannot create a private mount namespace here (unshare -m): skipped"
  exit 77
fi
# Inside the namespace: make the folder read-only, then run the checks; 77 if mounting fails.
unshare -m --propagation private bash -s "$apod" "$tmp" <<'INNER'
set -u
apod=$1 tmp=$2
mount --bind "$tmp/ro" "$tmp/ro" 2>/dev/null && mount -o remount,bind,ro "$tmp/ro" 2>/dev/null || {
  echo "cannot mount a folder read-only here: skipped"; exit 77; }
touch "$tmp/ro/probe" 2>/dev/null && { echo "the read-only mount is writable: skipped"; exit 77; }
failures=0
check() {  # check NAME WANT_TEXT -- command...
  local name=$1 text=$2; shift 3
  local out code
  out=$("$@" 2>&1); code=$?
  if [[ $code -ge 128 || $out == *"terminate called"* ]]; then echo "FAIL $name crashed (exit $code): $out"; failures=$((failures + 1))
  elif [[ $code -ne 2 ]]; then echo "FAIL $name: exit $code, wanted 2: $out"; failures=$((failures + 1))
  elif [[ $out != *"$text"* ]]; then echo "FAIL $name: message lacks '$text': $out"; failures=$((failures + 1))
  else echo "ok   $name: ${out:0:200}"; fi
}
check import_into_readonly_db "read-only" -- "$apod" import --db "$tmp/ro/apod.db" "$tmp/more.json"
check create_in_readonly_folder "cannot" -- "$apod" import --db "$tmp/ro/new.db" "$tmp/more.json"
[[ ! -e $tmp/ro/new.db ]] || { echo "FAIL a database appeared in the read-only folder"; failures=$((failures + 1)); }
# A cleanly closed WAL database on read-only media reads (as immutable: no -shm can be made).
out=$("$apod" list --runs --db "$tmp/ro/apod.db" 2>&1); code=$?
if [[ $code -eq 0 && $out == *a2* ]]; then echo "ok   list_in_readonly_folder"
else echo "FAIL list_in_readonly_folder: exit $code: $out"; failures=$((failures + 1)); fi
out=$("$apod" export --db "$tmp/ro/apod.db" 2>&1); code=$?
[[ $code -eq 0 && $out == *'"id": "a2"'* ]] && echo "ok   export_in_readonly_folder" \
  || { echo "FAIL export_in_readonly_folder: exit $code: ${out:0:300}"; failures=$((failures + 1)); }
# One whose WAL holds pages cannot be read there without hiding them: refused, saying why.
check list_live_wal_readonly "write-ahead log" -- "$apod" list --runs --db "$tmp/ro/live.db"
exit $((failures > 0))
INNER
code=$?
[[ $code -eq 77 ]] && exit 77
cmp -s "$tmp/ro/apod.db" "$tmp/orig.db" || { echo "FAIL the database in the read-only folder changed"; exit 1; }
echo "ok   database unchanged"
exit $code
