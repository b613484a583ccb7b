"""PodDisruptionBudgets, eviction and graceful termination end to end: real
kubectl against `berth serve --sim-nodes` (scheduler, the disruption
controller and simulated kubelets in process). Each test has a server of its
own, since kubectl drain evicts every pod of a node."""

import json
import time
import unittest
import urllib.request

from berth_server import BerthServer, wait_for

VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."


class DisruptionTest(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer(["--sim-nodes", "2"], scheduler=True).start()

    def tearDown(self):
        self.server.stop()
        self.server.cleanup()

    def get(self, path):
        try:
            with urllib.request.urlopen(self.server.url + path, timeout=10) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return None
            raise

    def wait(self, what, predicate, timeout=30):
        return wait_for(self, self.server, what, predicate, timeout)

    def running(self, selector):
        pods = self.get(f"/api/v1/namespaces/default/pods?labelSelector={selector}")["items"]
        return [p for p in pods if p["status"].get("phase") == "Running" and "deletionTimestamp" not in p["metadata"]]

    def budget_status(self, name):
        pdb = self.get(f"/apis/policy/v1/namespaces/default/poddisruptionbudgets/{name}")
        return pdb.get("status", {}) if pdb else {}

    def deployment_with_budget(self, name, replicas, *budget_flags):
        self.server.kubectl("create", "deployment", name, "--image=nginx", f"--replicas={replicas}")
        self.server.kubectl("create", "pdb", name, f"--selector=app={name}", *budget_flags)
        self.wait(f"{replicas} {name} pods running", lambda: len(self.running(f"app={name}")) == replicas)
        self.wait(f"budget {name} to count them",
                  lambda: self.budget_status(name).get("currentHealthy") == replicas
                  and self.budget_status(name).get("observedGeneration") == 1)

    def test_get_pdb_prints_kubectls_columns(self):
        self.deployment_with_budget("web", 3, "--min-available=2")
        self.server.kubectl("create", "pdb", "web-pct", "--selector=app=web", "--max-unavailable=25%")
        self.wait("the second budget's status", lambda: self.budget_status("web-pct").get("expectedPods") == 3)
        out = self.server.kubectl("get", "pdb").stdout.splitlines()
        self.assertEqual(out[0].split(), ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED",
                                          "DISRUPTIONS", "AGE"])
        rows = {line.split()[0]: line.split()[1:4] for line in out[1:]}
        self.assertEqual(rows["web"], ["2", "N/A", "1"])
        # 25% of 3 rounds up to 1 unavailable: 2 desired, 1 allowed.
        self.assertEqual(rows["web-pct"], ["N/A", "25%", "1"])
        status = self.budget_status("web")
        self.assertEqual((status["expectedPods"], status["desiredHealthy"], status["disruptionsAllowed"]), (3, 2, 1))
        condition = next(c for c in status["conditions"] if c["type"] == "DisruptionAllowed")
        self.assertEqual((condition["status"], condition["reason"]), ("True", "SufficientPods"))

    def test_drain_waits_for_the_budget(self):
        self.deployment_with_budget("db", 2, "--min-available=2")
        node = self.running("app=db")[0]["spec"]["nodeName"]
        blocked = self.server.kubectl("drain", node, "--ignore-daemonsets", "--timeout=7s", check=False)
        self.assertNotEqual(blocked.returncode, 0, blocked.stdout)
        self.assertIn(VIOLATION, blocked.stdout + blocked.stderr)
        self.assertIn("global timeout reached: 7s", blocked.stderr)
        self.assertTrue(self.get(f"/api/v1/nodes/{node}")["spec"].get("unschedulable"))
        self.assertEqual(len(self.running("app=db")), 2)  # nothing was evicted

        # Two more replicas (on the other node: this one is cordoned) leave room for the evictions.
        self.server.kubectl("scale", "deployment", "db", "--replicas=4")
        self.wait("the budget to allow two disruptions", lambda: self.budget_status("db").get("disruptionsAllowed") == 2)
        drained = self.server.kubectl("drain", node, "--ignore-daemonsets", "--timeout=60s", check=False)
        self.assertEqual(drained.returncode, 0, drained.stdout + drained.stderr)
        self.assertIn(f"node/{node} drained", drained.stdout)
        self.assertIn("evicted", drained.stdout)
        left = self.get(f"/api/v1/pods?fieldSelector=spec.nodeName%3D{node}")["items"]
        self.assertEqual(left, [])
        self.wait("the budget to see the replacements", lambda: self.budget_status("db").get("currentHealthy") == 4)

    def test_terminating_pod_waits_for_its_grace_period(self):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "slow", "annotations": {"sim.berth.dev/stop-duration": "1m"}},
               "spec": {"terminationGracePeriodSeconds": 5, "containers": [{"name": "c", "image": "nginx"}]}}
        quick = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "quick"},
                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
        for p in (pod, quick):
            self.server.kubectl("apply", "-f", "-", input=json.dumps(p))
        self.wait("both pods running", lambda: all(
            (self.get(f"/api/v1/namespaces/default/pods/{n}") or {}).get("status", {}).get("phase") == "Running"
            for n in ("slow", "quick")))

        start = time.time()
        self.server.kubectl("delete", "pod", "quick")  # waits until it is gone
        self.assertLess(time.time() - start, 3)

        start = time.time()
        self.server.kubectl("delete", "pod", "slow", "--wait=false")
        time.sleep(1)
        self.assertIn("Terminating", self.server.kubectl("get", "pod", "slow").stdout)
        self.wait("the slow pod to go", lambda: self.get("/api/v1/namespaces/default/pods/slow") is None, timeout=20)
        elapsed = time.time() - start
        self.assertGreater(elapsed, 3.5)
        self.assertLess(elapsed, 8)


if __name__ == "__main__":
    unittest.main()
