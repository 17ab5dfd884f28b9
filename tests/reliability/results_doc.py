#!/usr/bin/env python3
"""Writes an apod-results document for the reliability shell tests.
usage: results_doc.py RUN_ID SAMPLES [RUNS]  (RUNS runs with ids RUN_ID0, RUN_ID1, ... when given)"""
import json
import random
import sys


def run(run_id, samples):
    values = [random.uniform(100.0, 200.0) for _ in range(samples)]
    return {"id": run_id, "label": "reliability", "started_at": "2026-01-01T00:00:00.000Z",
            "finished_at": "2026-01-01T00:00:01.000Z", "status": "complete",
            "device": {"name": "GPU", "uuid": "GPU-reliability"},
            "experiments": [{"name": "offset_copy", "version": 1, "status": "complete", "wall_s": 1.0}],
            "measurements": [{"experiment": "offset_copy", "params": {"offset": 0}, "metric": "effective_bandwidth",
                              "unit": "GB/s", "samples": values, "verified": True}]}


run_id, samples = sys.argv[1], int(sys.argv[2])
runs = [run(run_id, samples)] if len(sys.argv) < 4 else [run(f"{run_id}{i:x}", samples) for i in range(int(sys.argv[3]))]
json.dump({"format": "apod-results", "schema_version": 2, "runs": runs}, sys.stdout)
