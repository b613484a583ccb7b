#!/usr/bin/env python3
"""Runs `berth api-bench` with two binaries alternately (old, new, new, old, ...)
and prints each run's figures and the medians, as bench/alternate.py does for
commands that print JSON (api-bench prints a table).

usage: bench/alternate_api.py ROUNDS OLD_BERTH NEW_BERTH [API_BENCH_ARGS...]
default arguments: --creates 30000 --gets 10000 --watchers 20 --watch-events 500 --api-only"""
import json, re, statistics, subprocess, sys

rounds = int(sys.argv[1])
binaries = {"old": sys.argv[2], "new": sys.argv[3]}
args = sys.argv[4:] or ["--creates", "30000", "--gets", "10000", "--watchers", "20",
                        "--watch-events", "500", "--api-only"]
figures = {
    "creates/s": r"pod creates/s.*?([\d.]+) creates/s",
    "server_cpu_us": r"server CPU per create\s+([\d.]+)",
    "rss_growth_mib": r"RSS growth per 100k pods\s+([\d.]+)",
    "gets/s": r"GET pod/s.*?([\d.]+) gets/s",
    "events/s": r"events delivered/s.*?([\d.]+) events/s",
}
results = {"old": [], "new": []}
for r in range(rounds):
    for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
        out = subprocess.run([binaries[name], "api-bench"] + args, capture_output=True, text=True).stdout
        rec = {k: float(m.group(1)) for k, p in figures.items() if (m := re.search(p, out))}
        results[name].append(rec)
        print(name, r, json.dumps(rec), flush=True)
for name in results:
    for k in figures:
        values = sorted(x[k] for x in results[name] if k in x)
        if values:
            print(name, k, "median", statistics.median(values), values, flush=True)
