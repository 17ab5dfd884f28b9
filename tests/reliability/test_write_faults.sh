#!/usr/bin/env bash
# Every write survives a full stdout, a file-size limit and a signal (issue 19), through the
# binary: each command that prints its result exits 2 with one sentence when standard output is
# /dev/full (and dies quietly of SIGPIPE on a closed pipe, or exits 2 where SIGPIPE is ignored);
# `ulimit -f` with SIGXFSZ at its default (no `trap`) makes import, export, report and merge exit
# 2 saying so, leaving no temporary file; SIGTERM, SIGINT and SIGHUP during export, report,
# import and merge remove the temporary files (a new database's -wal and -shm too), leave the
# target as it was and end the process by that signal; a 255-byte target name is written; and
# --db naming a FIFO, a socket or a device is refused at once, never opened.
set -u
apod=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
runs=$here/../../data/runs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }
source "$here/cli_checks.sh"
no_temp() {  # no_temp NAME DIR GLOB: nothing in DIR matches GLOB
  local left; left=$(find "$2" -maxdepth 1 -name "$3" | head -3)
  [[ -z $left ]] && pass "$1" || fail "$1: left behind: $left"
}

python3 "$here/results_doc.py" c 50 2 > "$tmp/two.json"
"$apod" import --db "$tmp/h.db" "$tmp/two.json" >/dev/null 2>&1 || { echo "FAIL base import"; exit 1; }
"$apod" baseline set c0 --db "$tmp/h.db" >/dev/null 2>&1 || { echo "FAIL baseline set"; exit 1; }
"$apod" import --db "$tmp/big.db" "$runs/nvidia-h100-20261123-repeat8.json.gz" >/dev/null 2>&1 \
  || { echo "FAIL importing the real runs"; exit 1; }

# A full standard output: exit 2, one sentence (before, the output was lost under exit 0).
full_stdout() {  # full_stdout NAME command...: stdout is /dev/full
  local name=$1; shift
  local err code
  err=$("$@" 2>&1 >/dev/full); code=$?
  if [[ $code -ne 2 ]]; then fail "$name > /dev/full: exit $code, wanted 2: ${err:0:300}"
  elif [[ $err != *"cannot write to standard output: the disk is full"* ]]; then fail "$name > /dev/full: message: ${err:0:300}"
  elif [[ $(grep -c . <<< "$err") -ne 1 ]]; then fail "$name > /dev/full: more than one line: ${err:0:300}"
  else pass "$name > /dev/full: exit 2, one sentence"; fi
}
full_stdout "list" "$apod" list
full_stdout "list --json" "$apod" list --json
full_stdout "list --runs" "$apod" list --runs --db "$tmp/h.db"
full_stdout "list --runs --json" "$apod" list --runs --json --db "$tmp/h.db"
for format in text json markdown; do
  full_stdout "compare --format $format" "$apod" compare c0 c1 --db "$tmp/h.db" --format "$format"
done
full_stdout "baseline show" "$apod" baseline show --db "$tmp/h.db"
full_stdout "export --out -" "$apod" export --db "$tmp/h.db" --out -
full_stdout "export --format csv" "$apod" export --db "$tmp/h.db" --format csv
full_stdout "report --format markdown" "$apod" report --db "$tmp/h.db" --format markdown
# The same commands still print when standard output takes it.
"$apod" list --runs --json --db "$tmp/h.db" > "$tmp/list.json" 2>/dev/null && grep -q '"c0"' "$tmp/list.json" \
  && pass "list --runs --json into a file" || fail "list --runs --json into a file lost its output"

# A closed pipe (`apod ... | head`): apod dies of SIGPIPE, quietly, as `head` users expect;
# where SIGPIPE is ignored, the write fails with EPIPE: exit 2 and one sentence.
closed_pipe() {  # closed_pipe IGNORE_SIGPIPE command...: prints "returncode|stderr"
  python3 - "$@" <<'EOF'
import os, signal, subprocess, sys
ignore, argv = sys.argv[1] == "1", sys.argv[2:]
r, w = os.pipe()
os.close(r)
p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=w, stderr=subprocess.PIPE,
                   preexec_fn=(lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ignore else None)
print(f"{p.returncode}|{p.stderr.decode(errors='replace').strip()}")
EOF
}
for cmd in "list --runs" "export --out -"; do
  got=$(closed_pipe 0 "$apod" $cmd --db "$tmp/h.db")
  [[ $got == "-13|" ]] && pass "$cmd into a closed pipe: died of SIGPIPE, nothing on stderr" \
    || fail "$cmd into a closed pipe: $got"
  got=$(closed_pipe 1 "$apod" $cmd --db "$tmp/h.db")
  [[ $got == "2|apod: error: cannot write to standard output: Broken pipe" ]] \
    && pass "$cmd into a closed pipe, SIGPIPE ignored: exit 2, one sentence" \
    || fail "$cmd into a closed pipe, SIGPIPE ignored: $got"
done

# A file-size limit with SIGXFSZ at its default action: apod itself must not die of it.
limited() {  # limited NAME KB command...
  local name=$1 kb=$2; shift 2
  local out code
  out=$( (ulimit -f "$kb"; "$@") 2>&1 ); code=$?
  if [[ $code -ne 2 ]]; then fail "$name under ulimit -f $kb: exit $code, wanted 2: ${out:0:300}"
  elif [[ $out != *"disk is full or a file-size limit"* && $out != *"a full disk, a file-size limit"* ]]; then
    fail "$name under ulimit -f $kb: unclear message: ${out:0:300}"
  else pass "$name under ulimit -f $kb: exit 2, '${out:0:140}...'"; fi
}
echo old > "$tmp/kept.json"
limited "export" 256 "$apod" export --db "$tmp/big.db" --out "$tmp/kept.json"
grep -qx old "$tmp/kept.json" && pass "export under the limit kept the old file" || fail "export under the limit replaced the old file"
no_temp "export under the limit left no temporary file" "$tmp" '.kept.json.*'
echo old > "$tmp/kept.html"
limited "report" 256 "$apod" report --db "$tmp/big.db" --out "$tmp/kept.html"
grep -qx old "$tmp/kept.html" && pass "report under the limit kept the old file" || fail "report under the limit replaced the old file"
no_temp "report under the limit left no temporary file" "$tmp" '.kept.html.*'
limited "import into a new database" 512 "$apod" import --db "$tmp/new.db" "$runs/nvidia-h100-20261123-repeat8.json.gz"
absent "import under the limit created no database" "$tmp/new.db"
no_temp "import under the limit left no temporary database" "$tmp" '.new.db.*'
cp "$tmp/h.db" "$tmp/h.orig"
limited "import into an existing database" 512 "$apod" import --db "$tmp/h.db" "$runs/nvidia-h100-20261123-repeat8.json.gz"
"$apod" export --db "$tmp/h.db" --out "$tmp/h.after.json" >/dev/null 2>&1
"$apod" export --db "$tmp/h.orig" --out "$tmp/h.before.json" >/dev/null 2>&1
same "import under the limit left the database as it was" "$tmp/h.before.json" "$tmp/h.after.json"
limited "merge into a new database" 512 "$apod" merge "$tmp/merged.db" "$tmp/big.db"
absent "merge under the limit created no database" "$tmp/merged.db"
no_temp "merge under the limit left no temporary database" "$tmp" '.merged.db.*'

# A signal while a temporary file exists: sent the moment the file (or a new database's WAL)
# appears. The process must die of that signal, the temporary files must be gone and the target
# must be as it was. Retried when the command finished before the file was seen.
signal_on() {  # signal_on SIGNAL DIR GLOB command...: prints "returncode seen"
  python3 - "$@" <<'EOF'
import fnmatch, os, signal, subprocess, sys, time
sig, folder, pattern, argv = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
# The signals at their default, whatever this test inherited (nohup, a background job).
default = lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)]
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, preexec_fn=default)
seen = 0
while p.poll() is None:
    if any(fnmatch.fnmatch(n, pattern) for n in os.listdir(folder)):
        p.send_signal(sig)
        seen = 1
        break
    time.sleep(0.0002)
print(p.wait(), seen)
EOF
}
killed_during() {  # killed_during NAME SIGNAL GLOB CLEANUP_GLOB command...
  local name=$1 sig=$2 glob=$3 cleanup=$4; shift 4
  local number got tries
  number=$(python3 -c "import signal; print(int(signal.$sig))")
  for tries in 1 2 3; do
    got=$(signal_on "$sig" "$tmp" "$glob" "$@")
    [[ $got == *" 1" ]] && break
  done
  if [[ $got != *" 1" ]]; then fail "$name: the temporary file was never seen ($got)"; return; fi
  [[ $got == "-$number 1" ]] && pass "$name: died of $sig" || fail "$name: exit '$got', wanted death by $sig"
  no_temp "$name: no temporary file left" "$tmp" "$cleanup"
}
echo old > "$tmp/out.json"
killed_during "SIGTERM during export" SIGTERM '.out.json.*' '.out.json.*' "$apod" export --db "$tmp/big.db" --out "$tmp/out.json"
grep -qx old "$tmp/out.json" && pass "SIGTERM during export kept the old file" || fail "SIGTERM during export replaced the old file"
killed_during "SIGINT during export" SIGINT '.out.json.*' '.out.json.*' "$apod" export --db "$tmp/big.db" --out "$tmp/out.json"
grep -qx old "$tmp/out.json" && pass "SIGINT during export kept the old file" || fail "SIGINT during export replaced the old file"
echo old > "$tmp/out.html.gz"
killed_during "SIGTERM during report" SIGTERM '.out.html.gz.*' '.out.html.gz.*' "$apod" report --db "$tmp/big.db" --out "$tmp/out.html.gz"
grep -qx old "$tmp/out.html.gz" && pass "SIGTERM during report kept the old file" || fail "SIGTERM during report replaced the old file"
for sig in SIGTERM SIGINT SIGHUP; do
  killed_during "$sig during an import creating a database" "$sig" '.fresh.db.new-*-wal' '.fresh.db*' \
    "$apod" import --db "$tmp/fresh.db" "$runs/nvidia-h100-20261123-repeat8.json.gz"
  absent "$sig during an import: no database created" "$tmp/fresh.db"
done
killed_during "SIGTERM during a merge creating a database" SIGTERM '.merged.db.new-*-wal' '.merged.db*' \
  "$apod" merge "$tmp/merged.db" "$tmp/big.db"
absent "SIGTERM during a merge: no database created" "$tmp/merged.db"

# Long names: the temporary name beside the longest legal target still fits NAME_MAX (255
# bytes). A database's own limit is 247 bytes: SQLite writes NAME-journal beside it.
long=$(printf 'a%.0s' {1..244}).db               # 247 bytes
utf8=$(printf '\xc3\xa9%.0s' {1..125}).json       # 125 two-byte characters and .json: 255 bytes
expect "export to a 255-byte name" 0 "" -- "$apod" export --db "$tmp/h.db" --out "$tmp/$utf8"
[[ -s $tmp/$utf8 ]] && pass "the 255-byte export exists" || fail "the 255-byte export is missing"
expect "import into a 247-byte name" 0 "" -- "$apod" import --db "$tmp/$long" "$tmp/two.json"
expect "list a 247-byte database" 0 "c1" -- "$apod" list --runs --db "$tmp/$long"
expect "merge into a 245-byte name" 0 "" -- "$apod" merge "$tmp/$(printf 'm%.0s' {1..245})" "$tmp/h.db"
expect "import into a 248-byte name" 2 "may be at most 247 bytes" -- "$apod" import --db "$tmp/b$long" "$tmp/two.json"
absent "the 248-byte database was not created" "$tmp/b$long"
no_temp "long names left no temporary file" "$tmp" '.*'

# --db naming what is not a regular file: refused at once, never opened (a FIFO used to hang).
mkfifo "$tmp/fifo"
ln -s fifo "$tmp/to-fifo"
python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$tmp/sock"
for db in "$tmp/fifo" "$tmp/to-fifo" "$tmp/sock" /dev/null /dev/zero; do
  shown=${db#$tmp/}
  expect "list --runs --db $shown" 2 "not a database file" -- timeout 10 "$apod" list --runs --db "$db"
  expect "export --db $shown" 2 "not a database file" -- timeout 10 "$apod" export --db "$db" --out "$tmp/x.json"
  expect "report --db $shown" 2 "not a database file" -- timeout 10 "$apod" report --db "$db" --out "$tmp/x.html"
  expect "import --db $shown" 2 "not a database file" -- timeout 10 "$apod" import --db "$db" "$tmp/two.json"
  expect "baseline show --db $shown" 2 "not a database file" -- timeout 10 "$apod" baseline show --db "$db"
  expect "compare --db $shown" 2 "not a database file" -- timeout 10 "$apod" compare --db "$db"
  expect "compare --baseline-db $shown" 2 "not a database file" -- timeout 10 "$apod" compare c0 --db "$tmp/h.db" --baseline-db "$db"
  expect "merge from $shown" 2 "not a database file" -- timeout 10 "$apod" merge "$tmp/m.db" "$db"
  expect "merge into $shown" 2 "not a database file" -- timeout 10 "$apod" merge "$db" "$tmp/h.db"
done
[[ -p $tmp/fifo && -S $tmp/sock && -c /dev/null ]] && pass "the FIFO, the socket and /dev/null are unchanged" \
  || fail "a refused --db was replaced"
absent "no database was created by the refused commands" "$tmp/m.db"

finish
