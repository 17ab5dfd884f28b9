#!/usr/bin/env bash
# kill -9 of `apod run` on a GPU, then `apod run --resume`. A reference run gives each
# experiment's point count; then runs are killed with SIGKILL after different delays. After each
# kill the database must pass integrity_check, list the run as interrupted, and hold each stored
# experiment whole; `apod run --resume RUN` must then finish the same run with exactly the
# planned experiments, each once, every point verified. Skipped (77) where there is no GPU.
# APOD_KILL_DELAYS overrides the delays (seconds): a --quick run of these three experiments
# lasted under a second on an H200 (docs/reliability.md), so the default kills fall inside one.
# A point may fail only for the runner's clock check (samples under throttled clocks are left
# out); a point whose output did not verify fails the test.
set -u
apod=$1
if ! "$apod" device >/dev/null 2>&1; then echo "no CUDA-capable device: skipped"; exit 77; fi
command -v python3 >/dev/null || { echo "python3 is needed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/kill.db
only=offset_copy,fault_injection,stride_copy   # fault_injection without a fault: the control point
failures=0 kills=0 resumed=0 killed_before_run=0 finished_before_kill=0

inspect() {  # inspect MODE [RUN]: checks the database; prints the newest run's id and status
  python3 - "$db" "$1" "${2:-}" "$tmp/reference.json" <<'PY'
import json, sqlite3, sys
db, mode, run_id, reference = sys.argv[1:5]
con = sqlite3.connect(db)
if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok": print("FAIL integrity_check"); sys.exit(1)
want = json.load(open(reference)) if mode != "reference" else {}
row = con.execute("SELECT id, status, environment FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1").fetchone() \
    if not run_id else con.execute("SELECT id, status, environment FROM run WHERE id = ?", (run_id,)).fetchone()
if row is None: print("none none"); sys.exit(0)
rid, status, env = row
problems = []
counts = {}
for name, estatus, points, bad, why in con.execute(
        "SELECT e.name, e.status, count(m.id), "
        "  sum(m.verified = 0 OR (m.status != 'ok' AND coalesce(m.error, '') NOT LIKE '%throttled clocks%')), "
        "  group_concat(DISTINCT m.error) FROM experiment_run e "
        "LEFT JOIN measurement m ON m.experiment_run_id = e.id WHERE e.run_id = ? GROUP BY e.id", (rid,)):
    counts[name] = points
    if estatus != "complete" or bad: problems.append(f"{name}: {estatus}, {bad} failed points ({why})")
    if want and points != want.get(name): problems.append(f"{name}: {points} points, a whole one has {want.get(name)}")
    n_rows = con.execute("SELECT count(*) FROM sample s JOIN measurement m ON s.measurement_id = m.id "
                         "JOIN experiment_run e ON m.experiment_run_id = e.id WHERE e.run_id = ? AND e.name = ?",
                         (rid, name)).fetchone()[0]
    n_sum = con.execute("SELECT sum(m.n) FROM measurement m JOIN experiment_run e ON m.experiment_run_id = e.id "
                        "WHERE e.run_id = ? AND e.name = ?", (rid, name)).fetchone()[0] or 0
    if n_rows != n_sum: problems.append(f"{name}: {n_rows} sample rows, n sums to {n_sum}")
if mode == "reference":
    json.dump(counts, open(reference, "w"))
if mode == "resumed":
    plan = [p["name"] for p in json.loads(env)["plan"]]
    names = [r[0] for r in con.execute("SELECT name FROM experiment_run WHERE run_id = ? ORDER BY id", (rid,))]
    if sorted(names) != sorted(plan): problems.append(f"stored {names}, planned {plan}")
    if status not in ("complete", "partial"): problems.append(f"status {status} after resume")
    if len(json.loads(env).get("resumed", [])) < 1: problems.append("no resume recorded")
if problems: print("FAIL " + "; ".join(problems)); sys.exit(1)
print(rid, status, len(counts))
PY
}

"$apod" run --only $only --quick --db "$db" --label reference > "$tmp/ref.out" 2>&1 \
  || { echo "FAIL the reference run"; cat "$tmp/ref.out"; exit 1; }
inspect reference >/dev/null || { echo "FAIL reference run check"; exit 1; }
echo "reference points: $(cat "$tmp/reference.json")"

for delay in ${APOD_KILL_DELAYS:-0.15 0.25 0.35 0.45 0.55 0.65 0.75 0.9}; do
  "$apod" run --only $only --quick --db "$db" --label "kill-$delay" > "$tmp/run.out" 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  kills=$((kills + 1))
  # What `apod list --runs` shows; the newest run must not be 'running'.
  "$apod" list --runs --db "$db" > "$tmp/list.out" 2>&1 || { echo "FAIL list after kill at ${delay}s"; failures=$((failures + 1)); }
  grep -q " running " "$tmp/list.out" && { echo "FAIL a killed run is listed as running"; failures=$((failures + 1)); }
  read -r id status stored < <(inspect killed) || true
  if [[ $id == FAIL* || -z $id ]]; then echo "$id $status $stored (kill at ${delay}s)"; failures=$((failures + 1)); continue; fi
  if [[ $status == running ]]; then  # as stored: only a read-write open marks it; a listing shows it
    grep -q "^$id .* interrupted " "$tmp/list.out" && status=interrupted \
      || { echo "FAIL run $id of a killed runner is not listed as interrupted"; failures=$((failures + 1)); continue; }
  fi
  if [[ $status != interrupted ]]; then
    # Killed before the run began (CUDA start-up) or after it ended: nothing to resume.
    [[ $status == complete && $(grep -c "kill-$delay" "$tmp/list.out") -eq 1 ]] && finished_before_kill=$((finished_before_kill + 1)) \
      || killed_before_run=$((killed_before_run + 1))
    echo "kill at ${delay}s: newest run $status"
    continue
  fi
  echo "kill at ${delay}s: run $id interrupted with $stored experiment(s) stored"
  "$apod" run --resume "$id" --db "$db" > "$tmp/resume.out" 2>&1
  code=$?
  # 4: finished, but a point failed the clock check (inspect tells that from a wrong output)
  [[ $code -eq 0 || $code -eq 4 ]] || { echo "FAIL resume of $id: exit $code"; cat "$tmp/resume.out"; failures=$((failures + 1)); continue; }
  out=$(inspect resumed "$id") || { echo "$out"; failures=$((failures + 1)); continue; }
  resumed=$((resumed + 1))
  echo "  resumed: $out"
done
echo "kills: $kills (before the run row: $killed_before_run, after the run ended: $finished_before_kill), resumed to complete: $resumed, failures: $failures"
[[ $failures -eq 0 && $resumed -ge 1 ]]
