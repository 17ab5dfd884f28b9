#!/usr/bin/env python3
"""The table of docs/method.md's "Models against measurements": for every chart the catalog
declares with a model, how far the measurements of each committed batch lie from it.

    apod list --json > catalog.json
    ci/model_residuals.py catalog.json data/runs/nvidia-h100-*-explain.json.gz \
        data/runs/nvidia-h200-*-explain.json.gz

Reads the catalog's own declarations (which metric, which model, which bound, which points) and
the runner's output; names no experiment. Each point's residual is its median (the runner's, over its used samples) over the model's
figure, less one, per run; the table gives the typical (median) and the worst |residual| over
every point of every run of the batch, and where the worst lies. Exit 2 on unreadable input.
"""
import gzip
import json
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def ok(m):
    return m.get("verified") and not m.get("error") and m.get("median") is not None


def drawn(chart, m):
    if m["metric"] != chart["metric"] or not ok(m):
        return False
    only = chart.get("only")
    if only and only.get("param"):
        return m["params"].get(only["param"]) == only["value"]
    return True


def model_of(chart, m, experiment):
    if chart.get("model_extra"):
        v = m.get("extra", {}).get(chart["model_extra"])
        return v if isinstance(v, (int, float)) and v else None
    for other in experiment["measurements"]:
        if other["metric"] == chart["model_metric"] and other["params"] == m["params"] and ok(other):
            return other["median"]
    return None


def residuals(declaration, chart, runs):
    out = []
    for run in runs:
        for e in run["experiments"]:
            if e["name"] != declaration["name"] or e.get("version", 1) != declaration["version"]:
                continue
            measurements = [m for m in run["measurements"] if m["experiment"] == e["name"]]
            view = {"measurements": measurements}
            for m in measurements:
                if not drawn(chart, m):
                    continue
                model = model_of(chart, m, view)
                if model:
                    out.append((m["median"] / model - 1, m["params"]))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    try:
        catalog = load(argv[1])
        batches = [(p, load(p)) for p in argv[2:]]
    except (OSError, ValueError) as error:
        print(f"model_residuals: {error}", file=sys.stderr)
        return 2
    gpus = []
    for path, doc in batches:
        runs = doc["runs"]
        gpus.append((runs[0]["device"]["name"] if runs else path, runs))
    head = "| experiment | model | stated bound |" + "".join(
        f" {g}: typical / worst (at) |" for g, _ in gpus)
    print(head)
    print("|" + " --- |" * (3 + len(gpus)))
    for d in catalog["experiments"]:
        for chart in d.get("charts", []):
            if not (chart.get("model_extra") or chart.get("model_metric")):
                continue
            bound = chart.get("model_bound") or 0
            row = f"| {d['name']} | {chart['model_label']} | " + (
                f"±{bound * 100:g}%" if bound else "none") + " |"
            for _, runs in gpus:
                r = residuals(d, chart, runs)
                if not r:
                    row += " no point |"
                    continue
                typical = statistics.median(abs(x) for x, _ in r)
                worst, where = max(r, key=lambda t: abs(t[0]))
                at = ", ".join(f"{k}={v}" for k, v in where.items())
                row += f" {typical * 100:.1f}% / {worst * 100:+.1f}% ({at}) |"
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
