"""Profiles and logs of a running `berth serve`: a CPU profile under a little
load read by Debian's google-pprof, the sampled heap, --profiling=false, and
kube's log lines (-v 2's "Successfully bound pod to node", --logging-format=json)."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

from berth_server import BERTH, BerthServer, wait_for

PPROF = shutil.which("google-pprof") or "/usr/bin/google-pprof"


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9",
                                     "resources": {"requests": {"cpu": "10m"}}}]}}


def get(url, timeout=60):
    """(status, body bytes) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def create_pod(server, name):
    req = urllib.request.Request(server.url + "/api/v1/namespaces/default/pods",
                                 data=json.dumps(pod(name)).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        r.read()


class Profiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(extra_args=["--in-memory", "--sim-nodes", "20", "-v", "2"],
                                 scheduler=True).start()
        cls.tmp = tempfile.mkdtemp(prefix="berth-pprof-")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def pprof_text(self, path):
        p = subprocess.run([PPROF, "--text", BERTH, path], capture_output=True, text=True, timeout=240)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        return p.stdout

    def test_cpu_profile_under_load_names_berth_functions(self):
        stop = threading.Event()
        created = []

        def load():
            i = 0
            while not stop.is_set():
                create_pod(self.server, f"load-{i}")
                created.append(i)
                get(self.server.url + "/api/v1/pods")
                i += 1

        worker = threading.Thread(target=load)
        worker.start()
        try:
            result = {}
            profiler = threading.Thread(
                target=lambda: result.update(got=get(self.server.url + "/debug/pprof/profile?seconds=4")))
            profiler.start()
            # One profile at a time: another asked meanwhile is refused.
            time.sleep(1)
            status, body = get(self.server.url + "/debug/pprof/profile?seconds=1")
            self.assertEqual(status, 409, body)
            self.assertIn(b"cpu profiling already in use", body)
            profiler.join(timeout=60)
        finally:
            stop.set()
            worker.join(timeout=60)
        self.assertGreater(len(created), 0)
        status, profile = result["got"]
        self.assertEqual(status, 200, profile[:500])
        path = os.path.join(self.tmp, "cpu.prof")
        with open(path, "wb") as f:
            f.write(profile)
        text = self.pprof_text(path)
        self.assertRegex(text, r"Total: \d+ samples")
        self.assertRegex(text, r"berth::", text[:3000])

    def test_bad_seconds_is_a_bad_request(self):
        status, body = get(self.server.url + "/debug/pprof/profile?seconds=lots")
        self.assertEqual(status, 400, body)
        self.assertEqual(json.loads(body)["reason"], "BadRequest")

    def test_heap_profile_parses(self):
        for i in range(20):
            create_pod(self.server, f"heap-{i}")
        status, profile = get(self.server.url + "/debug/pprof/heap")
        self.assertEqual(status, 200, profile[:500])
        self.assertRegex(profile.decode(errors="replace").splitlines()[0],
                         r"^heap profile: +\d+: +\d+ \[ *\d+: +\d+\] @ heap_v2/524288$")
        path = os.path.join(self.tmp, "heap.prof")
        with open(path, "wb") as f:
            f.write(profile)
        text = self.pprof_text(path)
        self.assertRegex(text, r"Total: [\d.]+ MB")

    def test_index_lists_the_profiles(self):
        status, body = get(self.server.url + "/debug/pprof/")
        self.assertEqual(status, 200)
        self.assertIn(b'href="profile"', body)
        self.assertIn(b'href="heap"', body)

    def test_v2_logs_successful_bindings_with_pod_and_node(self):
        create_pod(self.server, "logged")
        line = wait_for(self, self.server, "the binding's log line", lambda: next(
            (l for l in self.server.logs().splitlines()
             if '"Successfully bound pod to node"' in l and 'pod="default/logged"' in l), None), timeout=60)
        self.assertRegex(line, r'^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [\w.]+:\d+\] "Successfully bound pod to node" '
                               r'pod="default/logged" node="[^"]+" evaluatedNodes=\d+ feasibleNodes=\d+$')


class NoProfilingJsonLogs(unittest.TestCase):
    def test_profiling_off_and_json_logs(self):
        server = BerthServer(extra_args=["--in-memory", "--sim-nodes", "2", "--profiling=false",
                                         "--logging-format=json", "--v=2"], scheduler=True).start()
        try:
            status, _ = get(server.url + "/debug/pprof/profile?seconds=1")
            self.assertEqual(status, 404)
            status, _ = get(server.url + "/debug/pprof/heap")
            self.assertEqual(status, 404)
            create_pod(server, "json-logged")

            def bound():
                for l in server.logs().splitlines():
                    if "json-logged" in l and "Successfully bound" in l:
                        return l
                return None
            line = wait_for(self, server, "the binding's JSON log line", bound, timeout=60)
            entry = json.loads(line)
            self.assertEqual(entry["msg"], "Successfully bound pod to node")
            self.assertEqual(entry["v"], 2)
            self.assertIsInstance(entry["ts"], float)
            self.assertEqual(entry["pod"], {"name": "json-logged", "namespace": "default"})
            self.assertTrue(entry["node"])
        finally:
            server.stop()
            logs = server.logs()
            server.cleanup()
        # Every line berth wrote is kube's JSON (ts, msg; v on all but errors).
        lines = [l for l in logs.splitlines() if l.strip()]
        self.assertGreater(len(lines), 3)
        for l in lines:
            entry = json.loads(l)
            self.assertIn("ts", entry)
            self.assertIn("msg", entry)
            self.assertTrue("v" in entry or "err" in entry, l)


if __name__ == "__main__":
    unittest.main()
