"""berth serve on etcd: two API servers on one etcd behave as one API, and
etcd killed and restarted under a write load loses nothing acknowledged."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from berth_server import BerthServer, free_port, wait_for

ETCD = "/usr/bin/etcd"


class Etcd:
    """etcd on free loopback ports with a data directory of its own."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="berth-e2e-etcd-")
        self.client_port = free_port()
        self.peer_port = free_port()
        self.proc = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.client_port}"

    def start(self):
        peer = f"http://127.0.0.1:{self.peer_port}"
        with open(os.path.join(self.tmp, "etcd.log"), "ab") as log:
            self.proc = subprocess.Popen(
                [ETCD, "--name", "e2e", "--data-dir", os.path.join(self.tmp, "data"),
                 "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                 "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                 "--initial-cluster", f"e2e={peer}"],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.url + "/health", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("etcd did not start")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=20)

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


def request(server, method, path, body=None, timeout=15):
    """(status, decoded body) of one request."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server.url + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def configmap(name, value="1"):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": value}}


CMS = "/api/v1/namespaces/default/configmaps"


@unittest.skipUnless(os.access(ETCD, os.X_OK), f"{ETCD} is missing: install etcd-server")
class EtcdBackendTest(unittest.TestCase):
    def setUp(self):
        self.etcd = Etcd().start()
        # No controllers: nor ServiceAccount admission, which needs their accounts.
        args = ["--etcd-servers", self.etcd.url, "--no-controllers", "--disable-admission-plugins", "ServiceAccount"]
        self.a = BerthServer(args).start()
        self.b = BerthServer(args).start()

    def tearDown(self):
        for s in (self.a, self.b):
            s.stop()
            s.cleanup()
        self.etcd.cleanup()

    def test_two_servers_are_one_api(self):
        # A watch through B, from the revision B lists at.
        code, listed = request(self.b, "GET", CMS)
        self.assertEqual(code, 200, listed)
        rv = listed["metadata"]["resourceVersion"]
        watch = urllib.request.urlopen(self.b.url + CMS + f"?watch=1&resourceVersion={rv}", timeout=20)

        # A write through A is seen by B's watch and by B's reads.
        code, created = request(self.a, "POST", CMS, configmap("shared"))
        self.assertEqual(code, 201, created)
        event = json.loads(watch.readline())
        self.assertEqual(event["type"], "ADDED")
        self.assertEqual(event["object"]["metadata"]["name"], "shared")
        self.assertEqual(event["object"]["metadata"]["resourceVersion"],
                         created["metadata"]["resourceVersion"])
        watch.close()
        code, got = request(self.b, "GET", CMS + "/shared")
        self.assertEqual(code, 200, got)
        self.assertEqual(got["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"])

        # Optimistic concurrency across them: an update through A makes B's copy stale.
        got["data"]["v"] = "from-a"
        code, updated = request(self.a, "PUT", CMS + "/shared", got)
        self.assertEqual(code, 200, updated)
        stale = dict(got, data={"v": "from-b"})
        code, status = request(self.b, "PUT", CMS + "/shared", stale)
        self.assertEqual(code, 409, status)
        self.assertEqual(status["reason"], "Conflict")
        # A create of the same name through B: AlreadyExists.
        code, status = request(self.b, "POST", CMS, configmap("shared"))
        self.assertEqual(code, 409, status)
        self.assertEqual(status["reason"], "AlreadyExists")

    def test_etcd_killed_and_restarted_loses_nothing_acknowledged(self):
        acknowledged, slowest, failures = [], [0.0], []
        stop = threading.Event()

        def writer(who):
            i = 0
            while not stop.is_set():
                i += 1
                started = time.time()
                try:
                    code, body = request(self.a, "POST", CMS, configmap(f"load-{who}-{i}"), timeout=30)
                except OSError as e:  # no answer at all would be a failure of the contract
                    code, body = 0, str(e)
                slowest[0] = max(slowest[0], time.time() - started)
                if code == 201:
                    acknowledged.append(f"load-{who}-{i}")
                else:
                    failures.append(code)
                    time.sleep(0.05)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(2)]
        for t in threads:
            t.start()
        time.sleep(1.5)
        self.etcd.kill()
        time.sleep(1.5)
        self.etcd.start()
        time.sleep(2)
        stop.set()
        for t in threads:
            t.join(timeout=60)

        self.assertGreater(len(acknowledged), 10)
        self.assertTrue(failures, "writes while etcd was down should have failed")
        self.assertTrue(all(code in (503, 504) for code in failures), failures)
        self.assertLess(slowest[0], 15, "every request answered within a bounded time")

        # Every acknowledged write is there, through both servers.
        for server in (self.a, self.b):
            def names():
                code, listed = request(server, "GET", CMS)
                return code == 200 and {i["metadata"]["name"] for i in listed["items"]}
            present = wait_for(self, server, "the acknowledged configmaps",
                               lambda: (lambda n: n if n and set(acknowledged) <= n else None)(names()),
                               timeout=30)
            self.assertLessEqual(set(acknowledged), present)


if __name__ == "__main__":
    unittest.main()
