#!/usr/bin/env bash
# `apod confirm` on a GPU (issue 24): a slowdown that only re-measuring can settle, both ways.
# 1. Six runs of peak_copy make the history; a copy of the newest is stored with one point 4%
#    slower (its samples scaled): compare finds it by the light test only, so the run is
#    INCONCLUSIVE (exit 7) with the point unconfirmed. `apod confirm` re-measures peak_copy three
#    times in turn; the GPU is as fast as ever, so the final verdict is NO REGRESSION (exit 0).
# 2. The same copy confirmed while a second apod loads the GPU: the re-measures are slower too,
#    and the final verdict is REGRESSION (exit 1).
# Skipped (77) without a GPU.
set -u
apod=$1
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'kill $load 2>/dev/null; rm -rf "$tmp"' EXIT
load=
fail() { echo "FAIL $*"; exit 1; }
"$apod" run --only peak_copy --repeat 6 --label history --db "$tmp/h.db" > "$tmp/run.txt" 2>&1 ||
  fail "history runs: $(tail -5 "$tmp/run.txt")"
first=$("$apod" list --runs --json --db "$tmp/h.db" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
"$apod" baseline set "$first" --db "$tmp/h.db" > /dev/null || fail "baseline set"
"$apod" export --db "$tmp/h.db" --out "$tmp/all.json" || fail export
python3 - "$tmp/all.json" "$tmp/planted.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
run = doc["runs"][-1]
run["id"] = "feed" + run["id"][4:]
run["label"] = "one point 4% slower (planted)"
done = False
for m in run["measurements"]:
    if not done and m["metric"] == "effective_bandwidth" and m["params"].get("method") == "memcpy":
        m["samples"] = [s / 1.04 for s in m["samples"]]
        done = True
assert done, "no peak_copy memcpy point"
doc["runs"] = [run]
json.dump(doc, open(sys.argv[2], "w"))
PY
"$apod" import --db "$tmp/h.db" "$tmp/planted.json" 2> /dev/null || fail "import the planted run"
planted=$("$apod" list --runs --json --db "$tmp/h.db" | python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin) if r["id"].startswith("feed")][0])')
cp "$tmp/h.db" "$tmp/loaded.db"
out=$("$apod" compare --db "$tmp/h.db" pinned "$planted" 2>&1); code=$?
echo "$out" | head -1
[[ $code -eq 7 && $out == *"unconfirmed"* ]] || fail "compare: exit $code, wanted 7 with an unconfirmed point: $(echo "$out" | head -3)"
out=$("$apod" confirm --db "$tmp/h.db" pinned "$planted" 2>&1); code=$?
echo "$out" | head -1
[[ $code -eq 0 && $out == *"NO REGRESSION"* ]] || fail "confirm on an idle GPU: exit $code, wanted 0: $(echo "$out" | head -5)"
echo "ok   confirm settles a transient: no regression"
# A second apod keeps the GPU busy while confirm re-measures: the slowdown is real now.
( while true; do "$apod" run --only peak_copy --db "$tmp/load.db" > /dev/null 2>&1; done ) &
load=$!
sleep 3
out=$("$apod" confirm --db "$tmp/loaded.db" pinned "$planted" 2>&1); code=$?
kill $load 2>/dev/null; wait $load 2>/dev/null; load=
echo "$out" | head -1
[[ $code -eq 1 && $out == *"REGRESSION"* ]] || fail "confirm on a loaded GPU: exit $code, wanted 1: $(echo "$out" | head -5)"
echo "ok   confirm confirms a slowdown that persists: regression"
