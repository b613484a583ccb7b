#!/usr/bin/env python3
"""Scheduler failover: the time from the leader's death (SIGKILL) to the next
binding by the replica that takes over.

usage: bench/failover.py [--berth build/berth] [--runs 5] [-- ELECTION FLAGS...]

Starts `berth serve --in-memory --no-scheduler` on a free port, one node and
two `berth scheduler` replicas (with the given --leader-elect-* flags; kube's
defaults if none). Each run: wait until both replicas have been up a few
retry periods (plus a random part of one), kill the Lease's holder, create a pod at once, and time until
the pod has a node; then start a replica again in place of the dead one.
Prints each run and the median as JSON."""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(url, method="GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--berth", default="build/berth")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("election", nargs="*", help="--leader-elect-* flags for both replicas")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="berth-failover-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    logs = open(os.path.join(tmp, "log"), "ab")
    server = subprocess.Popen([args.berth, "serve", "--in-memory", "--no-scheduler", "--listen", f"127.0.0.1:{port}",
                               "--data-dir", os.path.join(tmp, "data")], stdout=logs, stderr=subprocess.STDOUT)
    replicas = []
    try:
        deadline = time.time() + 20
        while True:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=1).read()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        request(url + "/api/v1/nodes", "POST", {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"capacity": {"cpu": "64", "memory": "64Gi", "pods": "110"},
                       "allocatable": {"cpu": "64", "memory": "64Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}})

        def start_replica(n):
            log = os.path.join(tmp, f"replica-{n}.log")
            proc = subprocess.Popen([args.berth, "scheduler", "--server", url] + args.election,
                                    stdout=open(log, "wb"), stderr=subprocess.STDOUT)
            while True:
                with open(log) as f:
                    m = re.search(r"competing for lease \S+ as (\S+)", f.read())
                if m:
                    return {"proc": proc, "identity": m.group(1)}
                if proc.poll() is not None:
                    raise RuntimeError(open(log).read())
                time.sleep(0.02)

        def holder():
            lease = request(url + "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler")
            return lease["spec"].get("holderIdentity")

        def create_pod(name):
            request(url + "/api/v1/namespaces/default/pods", "POST", {
                "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [{"name": "c", "image": "pause"}]}})

        def bound(name, timeout):
            deadline = time.time() + timeout
            while time.time() < deadline:
                if request(url + "/api/v1/namespaces/default/pods/" + name)["spec"].get("nodeName"):
                    return time.time()
                time.sleep(0.01)
            raise RuntimeError(f"pod {name} not bound in {timeout} s")

        replicas = [start_replica(0), start_replica(1)]
        started = 2
        create_pod("warm-up")
        bound("warm-up", 60)
        results = []
        for run in range(args.runs):
            # Both replicas in their steady rhythm, and the kill at a random
            # point of the leader's renewal period.
            time.sleep(5 + random.uniform(0, 2.5))
            leader_id = holder()
            leader = next(r for r in replicas if r["identity"] == leader_id)
            leader["proc"].send_signal(signal.SIGKILL)
            killed_at = time.time()
            leader["proc"].wait()
            name = f"after-kill-{run}"
            create_pod(name)
            seconds = bound(name, 120) - killed_at
            new_leader = holder()
            results.append(round(seconds, 3))
            print(json.dumps({"run": run, "failover_s": round(seconds, 3),
                              "new_leader_is_other": new_leader not in (None, leader_id)}), flush=True)
            replicas.remove(leader)
            replicas.append(start_replica(started))
            started += 1
        print(json.dumps({"election": args.election or "defaults", "runs": results,
                          "median_s": statistics.median(results)}))
    finally:
        for r in replicas:
            if r["proc"].poll() is None:
                r["proc"].terminate()
                r["proc"].wait()
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
