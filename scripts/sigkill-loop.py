#!/usr/bin/env python3
"""SIGKILL loop: is every acknowledged write still there after `berth serve` is killed?

Each round starts `berth serve` on the same data directory, runs mixed creates,
merge patches, bindings and deletes of pods from many connections (one thread
and one keep-alive connection per worker, each worker owning its own pods),
SIGKILLs the server at a random moment, restarts it, and compares the pods it
lists with what was acknowledged:

  created → present; patched → the last acknowledged label value; bound → on
  the acknowledged node; deleted → gone. A write whose response was cut off by
  the kill may have happened or not: either state is accepted, and the next
  round continues from what the server shows.

Prints one JSON line (rounds, writes acknowledged, writes cut off, losses) and
exits 1 when anything acknowledged was lost.

  scripts/sigkill-loop.py --berth build/berth --rounds 8
"""

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

NAMESPACE = "crash"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, berth, data_dir, log_path):
        self.berth, self.data_dir, self.log_path = berth, data_dir, log_path
        self.port = free_port()
        self.proc = None

    def start(self, timeout=30):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.berth, "serve", "--listen", f"127.0.0.1:{self.port}", "--data-dir", self.data_dir,
             "--no-scheduler", "--no-controllers"],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        started = time.time()
        while time.time() - started < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"berth serve exited with {self.proc.returncode}; see {self.log_path}")
            try:
                status, _ = request(self.port, "GET", "/readyz", timeout=1)
                if status == 200:
                    return time.time() - started
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("berth serve did not become ready; see " + self.log_path)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def request(port, method, path, body=None, content_type="application/json", timeout=10, conn=None):
    own = conn is None
    if own:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Content-Type": content_type} if body is not None else {}
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        if own:
            conn.close()


# A pod's state as the test models it: None (absent) or (label v, nodeName or "").
def apply(state, op):
    kind, arg = op
    if kind == "create":
        return (0, "")
    if kind == "patch":
        return (arg, state[1])
    if kind == "bind":
        return (state[0], arg)
    if kind == "delete":
        return None
    raise ValueError(kind)


class Worker(threading.Thread):
    """Owns pods w<id>-<n>; writes until its connection fails (the kill)."""

    def __init__(self, wid, port, states, rng, stop):
        super().__init__(daemon=True)
        self.wid, self.port, self.states, self.rng, self.stop = wid, port, states, rng, stop
        self.acknowledged = 0
        self.cut_off = None  # (name, op) whose response never came
        self.unexpected = []

    def pick(self):
        name = f"w{self.wid}-{self.rng.randrange(12)}"
        state = self.states.get(name)
        if state is None:
            return name, ("create", None)
        choices = ["patch", "patch", "delete"] + (["bind"] if not state[1] else [])
        kind = self.rng.choice(choices)
        if kind == "patch":
            return name, ("patch", state[0] + 1)
        if kind == "bind":
            return name, ("bind", f"node-{self.rng.randrange(4)}")
        return name, ("delete", None)

    def send(self, conn, name, op):
        base = f"/api/v1/namespaces/{NAMESPACE}/pods"
        kind, arg = op
        if kind == "create":
            body = {"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": name, "labels": {"v": "0"}},
                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
            return request(self.port, "POST", base, body, conn=conn), 201
        if kind == "patch":
            body = {"metadata": {"labels": {"v": str(arg)}}}
            return request(self.port, "PATCH", f"{base}/{name}", body,
                           content_type="application/merge-patch+json", conn=conn), 200
        if kind == "bind":
            body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
                    "target": {"apiVersion": "v1", "kind": "Node", "name": arg}}
            return request(self.port, "POST", f"{base}/{name}/binding", body, conn=conn), 201
        return request(self.port, "DELETE", f"{base}/{name}?gracePeriodSeconds=0", conn=conn), 200

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        while not self.stop.is_set():
            name, op = self.pick()
            try:
                (status, body), want = self.send(conn, name, op)
            except (OSError, http.client.HTTPException):
                self.cut_off = (name, op)
                return
            if status != want:
                self.unexpected.append(f"{op[0]} {name}: {status} {body[:200]!r}")
                return
            self.states[name] = apply(self.states.get(name), op)
            self.acknowledged += 1


def observed_pods(port):
    status, body = request(port, "GET", f"/api/v1/namespaces/{NAMESPACE}/pods", timeout=30)
    if status != 200:
        raise RuntimeError(f"list pods: {status} {body[:300]!r}")
    pods = {}
    for item in json.loads(body)["items"]:
        meta = item["metadata"]
        pods[meta["name"]] = (int(meta.get("labels", {}).get("v", "-1")), item["spec"].get("nodeName", ""))
    return pods


def run(berth, rounds, workers, seed, min_run, max_run, keep=False):
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="berth-sigkill-")
    data_dir = os.path.join(tmp, "data")
    log_path = os.path.join(tmp, "berth.log")
    server = Server(berth, data_dir, log_path)
    states = [dict() for _ in range(workers)]  # per worker: name → state
    summary = {"rounds": 0, "workers": workers, "acknowledged_writes": 0, "cut_off_writes": 0,
               "cut_off_applied": 0, "lost": [], "unexpected": [], "restart_seconds_max": 0.0,
               "seed": seed}
    started = time.time()
    try:
        server.start()
        status, body = request(server.port, "POST", "/api/v1/namespaces",
                               {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        if status not in (201, 409):
            raise RuntimeError(f"create namespace: {status} {body!r}")
        # The account its pods run as (ServiceAccount admission), made as the
        # serviceaccount controller would: the loop runs no controllers.
        status, body = request(server.port, "POST", f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts",
                               {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})
        if status not in (201, 409):
            raise RuntimeError(f"create service account: {status} {body!r}")
        for _ in range(rounds):
            stop = threading.Event()
            threads = [Worker(w, server.port, states[w], random.Random(rng.random()), stop)
                       for w in range(workers)]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(min_run, max_run))
            server.kill()  # at a random moment, requests in flight
            stop.set()
            for t in threads:
                t.join(timeout=30)
            restart = server.start()
            summary["restart_seconds_max"] = max(summary["restart_seconds_max"], round(restart, 3))
            pods = observed_pods(server.port)
            for w, t in enumerate(threads):
                summary["acknowledged_writes"] += t.acknowledged
                summary["unexpected"] += t.unexpected
                cut = t.cut_off
                if cut:
                    summary["cut_off_writes"] += 1
                for name in sorted(set(states[w]) | {n for n in pods if n.startswith(f"w{w}-")}):
                    acked = states[w].get(name)
                    allowed = [acked]
                    if cut and cut[0] == name:
                        allowed.append(apply(acked, cut[1]))
                    seen = pods.get(name)
                    if seen not in allowed:
                        summary["lost"].append(
                            f"round {summary['rounds'] + 1}: {name}: acknowledged {acked}, "
                            f"cut off {cut[1] if cut and cut[0] == name else None}, found {seen}")
                    elif cut and cut[0] == name and seen != acked:
                        summary["cut_off_applied"] += 1
                    # The next round goes on from what the server holds.
                    if seen is None:
                        states[w].pop(name, None)
                    else:
                        states[w][name] = seen
            summary["rounds"] += 1
    finally:
        server.stop()
        summary["seconds"] = round(time.time() - started, 1)
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            summary["data_dir"] = tmp
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--berth", default=os.environ.get("BERTH_BINARY", "build/berth"))
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--min-run", type=float, default=0.3, help="least seconds of writes before a kill")
    parser.add_argument("--max-run", type=float, default=3.0, help="most seconds of writes before a kill")
    parser.add_argument("--keep", action="store_true", help="keep the data directory and log")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    summary = run(args.berth, args.rounds, args.workers, seed, args.min_run, args.max_run, args.keep)
    print(json.dumps(summary))
    return 1 if summary["lost"] or summary["unexpected"] else 0


if __name__ == "__main__":
    sys.exit(main())
