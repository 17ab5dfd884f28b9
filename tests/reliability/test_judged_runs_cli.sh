#!/usr/bin/env bash
# The right data is judged, through the binary (issue 19): keys, states and dates from a document
# are derived or checked, never trusted; --batch, run ids and config entries are never silently
# ambiguous; --baseline-db is never silently ignored; a run from the future is never "the newest";
# what export writes, import reads; prices outside a plausible range are refused.
set -u
apod=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }
source "$here/cli_checks.sh"

# doc.py OUT [--id ID] [--batch B] [--started T] [--finished T] [--gpu NAME] [--scale F]
#        [--status S] [--version V] [--key K] [--runs N]: an apod-results document of offset_copy
# runs, 3 points of 9 samples each (fixed values: two documents built alike hold the same run).
cat > "$tmp/doc.py" <<'PY'
import argparse, json
p = argparse.ArgumentParser()
p.add_argument("out"); p.add_argument("--id", default="a1"); p.add_argument("--batch")
p.add_argument("--started", default="2026-01-01T00:00:00.000Z")
p.add_argument("--finished", default="2026-01-01T00:10:00.000Z")
p.add_argument("--gpu", default="NVIDIA H100 80GB HBM3"); p.add_argument("--scale", type=float, default=1)
p.add_argument("--status", default="complete"); p.add_argument("--version", type=int, default=1)
p.add_argument("--key"); p.add_argument("--extra-depth", type=int, default=0)
p.add_argument("--sample", type=float)
a = p.parse_args()
env = {"gpu_state": {"driver_branch": "580"}}
if a.batch: env["repeat"] = {"index": 1, "count": 2, "batch": a.batch}
ms = []
for offset in range(3):
    extra = {}
    for _ in range(a.extra_depth): extra = {"n": extra}
    samples = [a.scale * (1000 + offset + 0.5 * i) for i in range(9)]
    if a.sample is not None: samples[0] = a.sample
    m = {"experiment": "offset_copy", "params": {"offset": offset}, "metric": "effective_bandwidth",
         "unit": "GB/s", "direction": "higher", "samples": samples, "verified": True, "extra": extra}
    if a.key: m["comparability_key"] = a.key
    ms.append(m)
run = {"id": a.id, "label": "judged", "started_at": a.started, "status": a.status,
       "finished_at": None if a.status in ("running", "interrupted") else a.finished,
       "environment": env, "device": {"name": a.gpu, "uuid": "GPU-judged"},
       "experiments": [{"name": "offset_copy", "version": a.version, "status": "complete",
                        "started_at": a.started}],
       "measurements": ms}
json.dump({"format": "apod-results", "schema_version": 2, "runs": [run]}, open(a.out, "w"))
PY
doc() { python3 "$tmp/doc.py" "$@"; }

# --- Derive, don't trust: a stored comparability key that disagrees with the content ----------
doc "$tmp/base.json" --id b0
"$apod" import --db "$tmp/h.db" "$tmp/base.json" >/dev/null 2>&1 || { echo "FAIL base import"; exit 1; }
cp "$tmp/h.db" "$tmp/h.orig"
"$apod" export --db "$tmp/h.db" --out "$tmp/exported.json" 2>/dev/null
key=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['measurements'][0]['comparability_key'])" "$tmp/exported.json")
[[ $key =~ ^[0-9a-f]{16}$ ]] && pass "a document without keys is given derived keys" || fail "no derived key: '$key'"
doc "$tmp/forged-key.json" --id f1 --key 0123456789abcdef
expect import_forged_key 2 "comparability key" -- "$apod" import --db "$tmp/h.db" "$tmp/forged-key.json"
# Another GPU model and another experiment version, with the keys of the H100 run kept.
doc "$tmp/relabelled.json" --id f2 --gpu "NVIDIA H200" --version 9 --key "$key"
expect import_relabelled_keeping_keys 2 "comparability key" -- "$apod" import --db "$tmp/h.db" "$tmp/relabelled.json"
same "database unchanged by the forged documents" "$tmp/h.db" "$tmp/h.orig"
# Relabelled without keys: a run of another GPU, judged against nothing (exit 2), never "same".
doc "$tmp/relabelled-nokey.json" --id f3 --gpu "NVIDIA H200" --version 9
cp "$tmp/h.db" "$tmp/k.db"
"$apod" import --db "$tmp/k.db" "$tmp/relabelled-nokey.json" >/dev/null 2>&1
expect compare_relabelled 2 "nothing compared" -- "$apod" compare --db "$tmp/k.db" b0 f3

# --- Runs are immutable once complete ---------------------------------------------------------
doc "$tmp/doubled.json" --id b0 --scale 2
expect import_changed_complete_run 2 "--on-conflict" -- "$apod" import --db "$tmp/h.db" "$tmp/doubled.json"
same "stored complete run unchanged" "$tmp/h.db" "$tmp/h.orig"
doc "$tmp/int.json" --id c0 --status interrupted
doc "$tmp/forged-resume.json" --id c0 --scale 2
cp "$tmp/h.db" "$tmp/i.db"
"$apod" import --db "$tmp/i.db" "$tmp/int.json" >/dev/null 2>&1
cp "$tmp/i.db" "$tmp/i.orig"
expect complete_copy_with_other_samples 2 "differ" -- "$apod" import --db "$tmp/i.db" "$tmp/forged-resume.json"
same "interrupted run not replaced by a forged completion" "$tmp/i.db" "$tmp/i.orig"
expect replace_says_what_differs 0 "samples" -- "$apod" import --db "$tmp/i.db" --on-conflict replace "$tmp/forged-resume.json"

# --- Dates are bounded ------------------------------------------------------------------------
doc "$tmp/future.json" --id d9 --started 9999-01-01T00:00:00.000Z --finished 9999-01-01T00:10:00.000Z
expect import_future_run 2 "after this machine's clock" -- "$apod" import --db "$tmp/h.db" "$tmp/future.json"
doc "$tmp/backwards.json" --id d8 --started 2026-01-02T00:00:00.000Z --finished 2026-01-01T00:00:00.000Z
expect import_finished_before_started 2 "before it started" -- "$apod" import --db "$tmp/h.db" "$tmp/backwards.json"
doc "$tmp/nodate.json" --id d7 --started tomorrow
expect import_not_a_date 2 "UTC time" -- "$apod" import --db "$tmp/h.db" "$tmp/nodate.json"
same "database unchanged by the misdated documents" "$tmp/h.db" "$tmp/h.orig"
# A run from the future that reached a database by another way (its writer's clock) is not
# taken for the newest: the default candidate is the newest run that is not ahead of the clock.
doc "$tmp/tonight.json" --id e1 --started 2026-01-05T00:00:00.000Z --finished 2026-01-05T00:10:00.000Z
doc "$tmp/later.json" --id e2 --started 2026-01-06T00:00:00.000Z --finished 2026-01-06T00:10:00.000Z
cp "$tmp/h.db" "$tmp/f.db"
"$apod" import --db "$tmp/f.db" "$tmp/tonight.json" "$tmp/later.json" >/dev/null 2>&1
python3 - "$tmp/f.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE run SET started_at = '9999-01-06T00:00:00.000Z', finished_at = '9999-01-06T00:10:00.000Z' WHERE id = 'e2'")
db.commit()
PY
expect compare_skips_future_run 0 "not taken for the newest" -- "$apod" compare --db "$tmp/f.db" b0
out=$("$apod" compare --db "$tmp/f.db" --format json b0 2>/dev/null)
[[ $out == *'"e1"'* && $out != *'"e2"'* ]] && pass "the newest run within the clock is judged" || fail "judged the wrong run: ${out:0:300}"

# --- No silent ambiguity ----------------------------------------------------------------------
cp "$tmp/h.orig" "$tmp/b.db"
doc "$tmp/bA1.json" --id 1a --batch bA --started 2026-01-02T00:00:00.000Z --finished 2026-01-02T00:10:00.000Z
doc "$tmp/bA2.json" --id 1b --batch bA --started 2026-01-02T01:00:00.000Z --finished 2026-01-02T01:10:00.000Z
doc "$tmp/bB1.json" --id 2a --batch bB --started 2026-01-03T00:00:00.000Z --finished 2026-01-03T00:10:00.000Z
"$apod" import --db "$tmp/b.db" "$tmp/bA1.json" "$tmp/bA2.json" "$tmp/bB1.json" >/dev/null 2>&1
expect batch_empty 2 "names no batch" -- "$apod" compare --db "$tmp/b.db" --batch "" b0
expect batch_ambiguous 2 "bA, bB" -- "$apod" compare --db "$tmp/b.db" --batch b b0
expect batch_unknown 2 "its batches are" -- "$apod" compare --db "$tmp/b.db" --batch zz b0
expect batch_unique_prefix 0 "" -- "$apod" compare --db "$tmp/b.db" --batch bA b0
# A run whose id is the prefix of another's is named by its full id; a shorter prefix is
# ambiguous and names both.
doc "$tmp/p1.json" --id abc --started 2026-01-04T00:00:00.000Z --finished 2026-01-04T00:10:00.000Z
doc "$tmp/p2.json" --id abcd --started 2026-01-04T01:00:00.000Z --finished 2026-01-04T01:10:00.000Z
"$apod" import --db "$tmp/b.db" "$tmp/p1.json" "$tmp/p2.json" >/dev/null 2>&1
expect full_id_that_is_a_prefix 0 "" -- "$apod" compare --db "$tmp/b.db" b0 abc
expect ambiguous_prefix_names_candidates 2 "abc, abcd" -- "$apod" compare --db "$tmp/b.db" b0 ab
expect empty_run_id 2 "empty run id" -- "$apod" compare --db "$tmp/b.db" b0 ""
"$apod" export --db "$tmp/b.db" --run abcd --run abc --run abcd --out "$tmp/twice.json" 2>/dev/null
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['runs']))" "$tmp/twice.json")
[[ $n == 2 ]] && pass "a run named twice is exported once" || fail "export wrote $n runs for abcd and abc"
expect reimport_export 0 "already present" -- "$apod" import --db "$tmp/b.db" "$tmp/twice.json"
echo '{"experiments": {"ofset_copy": {"threshold": 0.1}}}' > "$tmp/typo.json"
expect config_unknown_experiment 2 "ofset_copy" -- "$apod" compare --db "$tmp/b.db" --config "$tmp/typo.json" b0 1a
echo '{"experiments": {"offset_copy": {"threshold": 0.1, "treshold": 0.5}}}' > "$tmp/key.json"
expect config_unknown_key 2 "treshold" -- "$apod" compare --db "$tmp/b.db" --config "$tmp/key.json" b0 1a

# --baseline-db holding a run with the id of one in --db, every figure doubled: once silently
# ignored (the --db copy was judged as the baseline). Now exit 2, naming the run.
"$apod" import --db "$tmp/other.db" "$tmp/doubled.json" >/dev/null 2>&1
expect baseline_db_same_id_other_content 2 "with different contents" -- "$apod" compare --db "$tmp/b.db" --baseline-db "$tmp/other.db" b0 1a
cp "$tmp/h.orig" "$tmp/same.db"
expect baseline_db_same_copy 0 "" -- "$apod" compare --db "$tmp/b.db" --baseline-db "$tmp/same.db" b0 1a

# --- What apod writes, apod reads -------------------------------------------------------------
# An extra nested so deep that an exported document would pass the import's nesting bound only
# without its run around it: refused at import (as at store time), never exported unreadable.
doc "$tmp/deep.json" --id 0d --extra-depth 60
expect import_extra_too_deep_for_export 2 "deeper than" -- "$apod" import --db "$tmp/h.db" "$tmp/deep.json"
cp "$tmp/h.orig" "$tmp/d.db"
python3 - "$tmp/d.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
extra = {}
for _ in range(62): extra = {"n": extra}
db.execute("UPDATE measurement SET extra = ?", (json.dumps(extra),))
db.commit()
PY
expect export_of_a_too_deep_stored_extra 2 "deeper than" -- "$apod" export --db "$tmp/d.db" --out "$tmp/deep-out.json"
[[ ! -e $tmp/deep-out.json ]] && pass "no unreadable document written" || fail "an unreadable export was written"
expect merge_of_a_too_deep_stored_extra 2 "deeper than" -- "$apod" merge "$tmp/merged.db" "$tmp/d.db"
cp "$tmp/h.orig" "$tmp/u.db"
python3 - "$tmp/u.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE run SET label = CAST(X'6c6162656cff' AS TEXT)")
db.commit()
PY
expect export_invalid_utf8_label 0 "" -- "$apod" export --db "$tmp/u.db" --out "$tmp/u.json"
expect reimport_invalid_utf8_label_export 0 "" -- "$apod" import --db "$tmp/u2.db" "$tmp/u.json"

# --- Edge numbers -----------------------------------------------------------------------------
doc "$tmp/huge.json" --id 0e --sample 1.7e308
expect import_sample_near_dbl_max 2 "overflow" -- "$apod" import --db "$tmp/h.db" "$tmp/huge.json"
for price in 5e-324 1e308 0.001; do
  echo "{\"NVIDIA H100 80GB HBM3\": $price}" > "$tmp/prices.json"
  expect "price_$price" 2 "plausible range" -- "$apod" report --db "$tmp/h.db" --prices "$tmp/prices.json" --out "$tmp/r.html"
done
echo '{"NVIDIA H100 80GB HBM3": 30000}' > "$tmp/prices.json"
expect price_plausible 0 "" -- "$apod" report --db "$tmp/h.db" --prices "$tmp/prices.json" --out "$tmp/r.html"
same "database unchanged by the refused documents" "$tmp/h.db" "$tmp/h.orig"

finish
