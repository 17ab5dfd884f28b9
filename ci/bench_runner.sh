#!/usr/bin/env bash
# Benchmark of the runner itself (docs/performance.md): wall time of the full default matrix and
# of --quick on GPU 0, each experiment's share, read back from the runs the runner stored.
# Usage: ci/bench_runner.sh [APOD_BINARY] [OUT_DIR]   (needs a GPU; python3 for the table)
set -euo pipefail
apod=${1:-build/apod}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
db="$out/bench.db"
for mode in full quick; do
  flags=(); [[ $mode == quick ]] && flags=(--quick)
  start=$EPOCHREALTIME
  "$apod" run --db "$db" --label "bench $mode" "${flags[@]}" > "$out/$mode.txt" || true
  end=$EPOCHREALTIME
  python3 -c "print('$mode', $end - $start)" >> "$out/process_wall_s.txt"
  # A partial run names its failed points in the summary; keep them beside the table.
  grep -E '^    (error|failed|\.\.\.)' "$out/$mode.txt" | sed "s/^/$mode: /" >> "$out/failures.txt" || true
done
"$apod" export --db "$db" --out "$out/bench.json"
python3 - "$out/bench.json" "$out/process_wall_s.txt" <<'PY'
import json, sys
from datetime import datetime
doc = json.load(open(sys.argv[1]))
process = dict(line.split() for line in open(sys.argv[2]))
def ts(s): return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")
for run in doc["runs"]:
    mode = run["label"].split()[-1]
    wall = (ts(run["finished_at"]) - ts(run["started_at"])).total_seconds()
    print(f"\n{run['label']} on {run['device']['name']}: run {wall:.1f} s stored, process {float(process[mode]):.1f} s, status {run['status']}")
    print("| experiment | wall s | points | samples | noisy |\n|---|---:|---:|---:|---:|")
    for e in run["experiments"]:
        ms = [m for m in run["measurements"] if m["experiment"] == e["name"]]
        print(f"| {e['name']} | {e['wall_s']:.2f} | {len(ms)} | {sum(m['n'] for m in ms)} | {sum(1 for m in ms if m.get('noisy'))} |")
PY
[[ -s "$out/failures.txt" ]] && { echo; cat "$out/failures.txt"; }
exit 0
