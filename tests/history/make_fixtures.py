#!/usr/bin/env python3
"""Writes the synthetic histories the step detector is measured on (tests/history/fixtures/).

Each history is 40 runs of one headline figure with Gaussian noise; some carry one injected step
(a lasting change of known size and sign at a known run), some carry single-run spikes that
revert, some carry both, some neither. Seeded, so the fixtures are reproducible; rerun with
`python3 tests/history/make_fixtures.py` after changing it, and commit the output.
"""
import json
import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def history(rnd, noise_rel, step_rel, spikes):
    level = rnd.uniform(50, 5000)
    n = 40
    step_at = rnd.randint(8, n - 4) if step_rel else None
    values = []
    for i in range(n):
        v = level * (1 + step_rel) if step_at is not None and i >= step_at else level
        values.append(v * (1 + rnd.gauss(0, noise_rel)))
    spike_at = []
    for _ in range(spikes):
        j = rnd.randint(3, n - 1)
        if step_at is not None and abs(j - step_at) <= 2:
            continue  # keep spikes away from the step so "which run starts the step" stays exact
        values[j] *= 1 + rnd.choice([-1, 1]) * rnd.uniform(0.10, 0.30)
        spike_at.append(j)
    return {"noise_rel": noise_rel, "step_rel": step_rel, "step_at": step_at, "spikes_at": sorted(spike_at),
            "values": values}


def main():
    rnd = random.Random(20261122)
    os.makedirs(OUT, exist_ok=True)
    for noise in (0.005, 0.01, 0.02):
        cases = []
        for step in (0.0, 0.03, 0.05, 0.10, 0.20):
            for sign in ((1,) if step == 0 else (1, -1)):
                for k in range(20):
                    cases.append(history(rnd, noise, sign * step, spikes=k % 3))
        with open(os.path.join(OUT, f"noise_{int(noise * 1000):03d}permille.json"), "w") as f:
            json.dump({"description": "synthetic histories for the step detector (make_fixtures.py)",
                       "seed": 20261122, "noise_rel": noise, "histories": cases}, f, indent=0)


if __name__ == "__main__":
    main()
