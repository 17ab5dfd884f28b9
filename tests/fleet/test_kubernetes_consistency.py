#!/usr/bin/env python3
"""The Kubernetes example (ci/fleet/kubernetes-indexed-job.yaml) runs the same steps as the Slurm
recipe that tests/fleet/test_slurm_recipe.sh runs on a real scheduler: its pods call
ci/fleet/night-task.sh and night-merge.sh, every variable it sets is one those scripts read, both
Jobs share the night's directory, the merge waits on the night Job, and the stand-in it names
exists. No cluster is needed. Usage: test_kubernetes_consistency.py SOURCE_ROOT"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
fleet = root / "ci" / "fleet"
text = (fleet / "kubernetes-indexed-job.yaml").read_text().replace("@NIGHT@", "2026-11-23")
results = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    results.append(ok)


try:  # the manifest parses (where PyYAML is installed; the checks below need no parser)
    import yaml
    check("manifest_parses", len(list(yaml.safe_load_all(text))) == 2)
except ImportError:
    print("note: PyYAML not installed, the manifest is checked by its lines only")

documents = text.split("\n---\n")
check("two_jobs", len(documents) == 2, f"{len(documents)} documents")
names = [re.search(r"^  name: (\S+)$", d, re.M) for d in documents]
check("job_names_valid", all(n and re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", n[1])
                             for n in names), str([n and n[1] for n in names]))
commands = [re.findall(r'^\s+command: \["(ci/fleet/[^"]+)"\]$', d, re.M) for d in documents]
check("steps_are_the_recipe_scripts",
      commands == [["ci/fleet/night-task.sh"], ["ci/fleet/night-merge.sh"]], str(commands))
check("night_job_indexed", "completionMode: Indexed" in documents[0])
check("merge_waits_for_night_job",
      names[0] is not None and f'"job/{names[0][1]}"' in documents[1])

env = [dict(re.findall(r'- \{name: (\w+), value: "([^"]*)"\}', d)) for d in documents]
for variables, script in zip(env, ["night-task.sh", "night-merge.sh"]):
    source = (fleet / script).read_text()
    unread = [v for v in variables if "${" + v not in source]
    check(f"{script}_reads_every_variable_set", not unread, f"never read: {unread}")
check("jobs_share_the_night_directory",
      "APOD_RESULTS" in env[0] and env[0].get("APOD_RESULTS") == env[1].get("APOD_RESULTS"),
      str([e.get("APOD_RESULTS") for e in env]))

# The stand-in the comments name (for a cluster without GPUs) is the one the Slurm test uses.
standins = re.findall(r"/apod/(tests/fleet/\S+)", text)
check("standin_exists", bool(standins) and all((root / s).is_file() for s in standins),
      str(standins))
check("standin_variable_read", "${APOD_RUN" in (fleet / "night-task.sh").read_text())

print(f"{results.count(True)} passed, {results.count(False)} failed")
sys.exit(0 if all(results) else 1)
