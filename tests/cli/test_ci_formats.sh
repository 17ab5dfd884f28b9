#!/usr/bin/env bash
# The formats CI systems read, each validated against its published schema or grammar:
#   apod compare --format junit    Jenkins' JUnit schema (junit-4.xsd, shipped by npm's
#                                   junit-processor, pinned in package.json) with xmllint
#                                   (Debian libxml2-utils)
#   apod export --format bmf       Bencher's BMF JSON schema (tests/cli/bmf.schema.json, from
#                                   https://bencher.dev/docs/reference/bencher-metric-format/)
#                                   with Debian's python3-jsonschema
#   apod export --format openmetrics  the OpenMetrics grammar as Debian's python3-prometheus-client
#                                   parses it (prometheus_client.openmetrics.parser)
# on a committed run (data/runs), a copy of it with one experiment planted 2x slower (so that
# <failure> appears), and a run whose stored names hold quotes, '<', '&' and control characters.
# ci/install-deps.sh installs the validators; a missing one fails the test. Usage: APOD ROOT
set -u
apod=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 passed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }
check() {  # check NAME WANT_CODE -- command...: the exit code, output shown on failure
  local name=$1 want=$2; shift 3
  local out code
  out=$("$@" 2>&1); code=$?
  if [[ $code -ne $want ]]; then fail "$name: exit $code (wanted $want): $out"; else ok "$name"; fi
}

# Debian's python3, where the Debian packages are (a python3 earlier on PATH may be another).
py=/usr/bin/python3
xsd=$root/node_modules/junit-processor/schemas/jenkins-junit.xsd
command -v xmllint >/dev/null || fail "xmllint missing (Debian libxml2-utils: ci/install-deps.sh)"
[[ -f $xsd ]] || fail "$xsd missing (npm ci: ci/install-deps.sh)"
$py -c 'import jsonschema, prometheus_client' 2>/dev/null ||
  fail "python3-jsonschema or python3-prometheus-client missing (ci/install-deps.sh)"

# The committed run, the same run with every stride_copy point 2x slower (a gross change: a
# regression even without history), and a run of hostile names (its copy 2x slower too).
$py - "$root/data/runs/nvidia-h200-20261122.json" "$tmp" <<'PY'
import copy, json, sys
doc = json.load(open(sys.argv[1]))
base = doc["runs"][0]
def slower(run, rid, experiment):
    run = copy.deepcopy(run)
    run["id"], run["label"] = rid, run["label"] + " slower"
    run["started_at"], run["finished_at"] = "2026-11-22T07:00:00.000Z", "2026-11-22T07:00:08.000Z"
    for m in run["measurements"]:
        if m["experiment"] == experiment:
            f = 0.5 if m["direction"] == "higher" else 2.0
            m["samples"] = [s * f for s in m["samples"]]
    return run
def write(name, runs):
    json.dump({"format": "apod-results", "schema_version": doc["schema_version"], "runs": runs},
              open(f"{sys.argv[2]}/{name}.json", "w"))
write("base", [base])
write("slow", [slower(base, "5105" + "0" * 28, "stride_copy")])
hostile = "q\"uo'te <tag> & amp \x1b[2J\x07 bell\u202e\u0085"
h = copy.deepcopy(base)
h["id"], h["label"] = "badbad" + "0" * 26, hostile
h["environment"]["host"] = hostile
for m in h["measurements"]:
    if m["experiment"] == "offset_copy":  # still gated: its class comes from the experiment
        m["params"][hostile] = hostile
        m.pop("comparability_key", None)  # other params: apod derives the key
write("hostile", [h])
write("hostile_slow", [slower(h, "badbad" + "1" * 26, "stride_copy")])
PY
"$apod" import --db "$tmp/r.db" "$tmp/base.json" "$tmp/slow.json" >/dev/null 2>&1 ||
  fail "import of the committed run and its slower copy"
"$apod" import --db "$tmp/h.db" "$tmp/hostile.json" "$tmp/hostile_slow.json" >/dev/null 2>&1 ||
  fail "import of the run of hostile names"
base=eec3d774 slow=5105 hbase=badbad0 hslow=badbad1

# Each JUnit report: valid against the XSD, its counts those of the test cases it holds, and a
# <failure> for the planted regression.
junit_counts() {  # junit_counts FILE: "ok" when every suite's counts match its test cases
  $py - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
bad = []
for s in root.iter("testsuite"):
    cases = s.findall("testcase")
    got = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
           "errors": sum(c.find("error") is not None for c in cases),
           "skipped": sum(c.find("skipped") is not None for c in cases)}
    bad += [f"{k}={s.get(k)} but {v} written" for k, v in got.items() if int(s.get(k)) != v]
total = sum(int(s.get("tests")) for s in root.iter("testsuite"))
if int(root.get("tests")) != total:
    bad.append(f"testsuites tests={root.get('tests')} but {total}")
print("; ".join(bad) or "ok")
PY
}
for db in r h; do
  [[ $db == r ]] && pair=("$base" "$slow") || pair=("$hbase" "$hslow")
  "$apod" compare "${pair[@]}" --db "$tmp/$db.db" --format junit >"$tmp/$db.xml" 2>"$tmp/$db.err"
  code=$?
  [[ $code -eq 1 ]] && ok "junit_$db: exit 1 (regression)" || fail "junit_$db: exit $code: $(head -3 "$tmp/$db.err")"
  check "junit_${db}_xsd" 0 -- xmllint --noout --schema "$xsd" "$tmp/$db.xml"
  counts=$(junit_counts "$tmp/$db.xml" 2>&1)
  [[ $counts == ok ]] && ok "junit_${db}_counts" || fail "junit_${db}_counts: $counts"
  grep -q '<failure type="regression" message="regression: 2.00x slower' "$tmp/$db.xml" &&
    ok "junit_${db}_failure" || fail "junit_${db}_failure: no <failure> for the 2x slowdown"
done
grep -q '<testcase classname="offset_copy" name="[^"]*q&quot;uo&apos;te &lt;tag&gt; &amp; amp \\x1b\[2J\\x07 bell\\u202e\\u0085' "$tmp/h.xml" &&
  ok "junit_hostile_escaped" || fail "junit_hostile_escaped: $(grep -m1 -o 'q&quot;[^"]*' "$tmp/h.xml")"

# BMF: Bencher's schema, lower <= value <= upper, one benchmark per point that has a figure.
bmf_check() {  # bmf_check FILE
  $py - "$1" "$root/tests/cli/bmf.schema.json" <<'PY'
import json, sys, jsonschema
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
measures = [m for b in doc.values() for m in b.values()]
assert measures, "no measure"
for m in measures:
    assert m["lower_value"] <= m["value"] <= m["upper_value"], m
print(len(measures))
PY
}
for db in r h; do
  [[ $db == r ]] && run=$base || run=$hbase
  "$apod" export --db "$tmp/$db.db" --run "$run" --format bmf --out "$tmp/$db.bmf.json" 2>/dev/null
  n=$(bmf_check "$tmp/$db.bmf.json" 2>&1)
  [[ $n == 82 ]] && ok "bmf_$db: schema, 82 measures" || fail "bmf_$db: $n"
done
check bmf_several_runs_refused 2 -- "$apod" export --db "$tmp/r.db" --run "$base" --run "$slow" --format bmf
"$apod" export --db "$tmp/r.db" --format bmf --out "$tmp/newest.json" 2>"$tmp/newest.err"
grep -q "the newest of 2 runs, $slow" "$tmp/newest.err" && ok "bmf_newest_said" ||
  fail "bmf_newest_said: $(cat "$tmp/newest.err")"

# OpenMetrics: the parser enforces the grammar (metadata before samples, a family once, the unit
# as the name's suffix, escapes, # EOF); every label set appears once in its family.
om_check() {  # om_check FILE
  $py - "$1" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()))
samples = 0
for f in families:
    assert f.type == "gauge", f.name
    seen = set()
    for s in f.samples:
        key = tuple(sorted(s.labels.items()))
        assert key not in seen, ("repeated label set", f.name, key)
        seen.add(key)
        assert {"device", "gpu_uuid", "host", "run", "experiment"} <= s.labels.keys(), s.labels
    samples += len(f.samples)
hostile = "q\"uo'te <tag> & amp \\x1b[2J\\x07 bell\\u202e\\u0085"
if any(hostile in s.labels.values() for f in families for s in f.samples):
    print("hostile", end=" ")
print(samples)
PY
}
"$apod" export --db "$tmp/r.db" --run "$base" --format openmetrics --out "$tmp/r.om" 2>/dev/null
n=$(om_check "$tmp/r.om" 2>&1)
[[ $n == 82 ]] && ok "openmetrics_r: grammar, 82 samples" || fail "openmetrics_r: $n"
"$apod" export --db "$tmp/h.db" --run "$hbase" --format openmetrics --out "$tmp/h.om" 2>/dev/null
n=$(om_check "$tmp/h.om" 2>&1)
[[ $n == "hostile 82" ]] && ok "openmetrics_hostile: grammar, names kept as visible text" ||
  fail "openmetrics_hostile: $n"
grep -q '^# UNIT apod_effective_bandwidth_gb_per_s gb_per_s$' "$tmp/r.om" && ok "openmetrics_unit" ||
  fail "openmetrics_unit: $(grep -m3 '^# ' "$tmp/r.om")"

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
