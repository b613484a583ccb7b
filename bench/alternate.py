#!/usr/bin/env python3
"""Runs two commands alternately, run by run (old, new, new, old, ...), and
prints each run's figures and the medians: how BENCHMARKS.md compares two
binaries on this shared, noisy machine.

usage: bench/alternate.py ROUNDS LABEL -- OLD_CMD... --- NEW_CMD...

Each run's output is read for its numbers: a JSON object (or the first of a
list, as `berth bench --json` prints), scheduler_perf's JSON document (`berth
perf --json`: each data item as "<Metric>.<field>"), or `berth api-bench`'s
table ("<metric> <value> <unit>" lines). The process CPU of each run (user +
system, every thread) and its wall time are added. Other output is kept as
its tail."""
import json, re, resource, statistics, subprocess, sys, time


def numbers(stdout):
    """The figures of one run's output, by name."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        found = {}
        for line in stdout.splitlines():
            m = re.match(r"^\s*(.+?)\s+(-?[0-9.]+)\s+\S*\s*$", line)
            if m:
                found[m.group(1)] = float(m.group(2))
        return found
    if isinstance(doc, list):
        doc = doc[0]
    if "dataItems" in doc:
        return {f"{item['labels'].get('Metric', '?')}.{k}": v for item in doc["dataItems"]
                for k, v in item.get("data", {}).items() if isinstance(v, (int, float))}
    return {k: v for k, v in doc.items() if isinstance(v, (int, float))}

rounds = int(sys.argv[1]); label = sys.argv[2]
rest = sys.argv[4:]
split = rest.index("---")
cmds = {"old": rest[:split], "new": rest[split + 1:]}
results = {"old": [], "new": []}
for r in range(rounds):
    for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.time()
        out = subprocess.run(cmds[name], capture_output=True, text=True)
        wall = time.time() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rec = {"rc": out.returncode, "wall_s": wall, "process_cpu_s": cpu}
        found = numbers(out.stdout)
        rec.update(found)
        if not found:
            rec["stdout_tail"] = out.stdout[-400:]
        if out.returncode != 0:
            rec["stderr"] = out.stderr[-400:]
        results[name].append(rec)
        print(label, name, r, json.dumps(rec), flush=True)
for name in ("old", "new"):
    keys = sorted({k for rec in results[name] for k, v in rec.items() if isinstance(v, (int, float))})
    med = {k: statistics.median([rec[k] for rec in results[name] if k in rec]) for k in keys}
    print(label, name, "MEDIAN", json.dumps(med), flush=True)
