"""Scheduling scenarios through `berth serve` with real kubectl: manifests of
nodes and pods, and the placement or FailedScheduling message kube would give."""

import json
import subprocess
import time
import unittest

from berth_server import BERTH, BerthServer


def node(name, cpu="4", memory="8Gi", labels=None, taints=None):
    labels = dict(labels or {})
    labels.setdefault("kubernetes.io/hostname", name)
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints or []},
        "status": {
            "capacity": {"cpu": cpu, "memory": memory, "pods": "110"},
            "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod(name, cpu="100m", labels=None, **spec):
    body = {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9",
                            "resources": {"requests": {"cpu": cpu}}}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": body}


class SchedulerScenarios(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(extra_args=["--in-memory", "--seed", "1"], scheduler=True).start()
        nodes = [
            node("small", cpu="1", labels={"zone": "a", "disk": "hdd"}),
            node("big", cpu="8", labels={"zone": "a", "disk": "hdd"}),
            node("ssd", cpu="4", labels={"zone": "b", "disk": "ssd"}),
            node("gpu", cpu="4", labels={"zone": "b", "disk": "hdd"},
                 taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        ]
        for n in nodes:
            cls.apply(n)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    @classmethod
    def apply(cls, obj):
        cls.server.kubectl("apply", "-f", "-", input=json.dumps(obj))

    def node_of(self, name, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            out = self.server.kubectl("get", "pod", name, "-o", "jsonpath={.spec.nodeName}").stdout
            if out:
                return out
            time.sleep(0.05)
        return ""

    def test_resource_pressure_picks_the_node_with_room(self):
        self.apply(pod("needs-two-cpus", cpu="2", nodeSelector={"zone": "a"}))
        self.assertEqual(self.node_of("needs-two-cpus"), "big")
        # kube-scheduler's event, as `kubectl describe pod` shows it.
        deadline = time.time() + 10
        described = ""
        while time.time() < deadline and "Scheduled" not in described:
            described = self.server.kubectl("describe", "pod", "needs-two-cpus").stdout
            time.sleep(0.05)
        self.assertRegex(described, r"Normal\s+Scheduled\s+\S+\s+default-scheduler\s+"
                                    r"Successfully assigned default/needs-two-cpus to big")

    def test_node_selector(self):
        self.apply(pod("wants-ssd", nodeSelector={"disk": "ssd"}))
        self.assertEqual(self.node_of("wants-ssd"), "ssd")

    def test_taints_keep_pods_off_unless_tolerated(self):
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu"]}]}]}}}
        self.apply(pod("untolerated", affinity=affinity))
        self.apply(pod("tolerated", affinity=affinity, tolerations=[
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]))
        self.assertEqual(self.node_of("tolerated"), "gpu")
        self.assertEqual(self.node_of("untolerated", timeout=1), "")
        message = self.wait_for_failed_scheduling("untolerated")
        self.assertEqual(
            message,
            "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
            "3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: "
            "4 Preemption is not helpful for scheduling..")

    def test_node_affinity_operators(self):
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["b"]},
                {"key": "disk", "operator": "NotIn", "values": ["hdd"]}]}]}}}
        self.apply(pod("zone-b-not-hdd", affinity=affinity))
        self.assertEqual(self.node_of("zone-b-not-hdd"), "ssd")

    def test_anti_affinity_spreads_replicas_across_hosts(self):
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        for i in range(3):
            self.apply(pod(f"cache-{i}", labels={"app": "cache"}, affinity=anti))
        nodes = [self.node_of(f"cache-{i}") for i in range(3)]
        self.assertNotIn("", nodes)
        self.assertEqual(len(set(nodes)), 3, nodes)
        self.assertNotIn("gpu", nodes)

    def test_topology_spread_balances_zones(self):
        spread = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                   "labelSelector": {"matchLabels": {"app": "spread"}}}]
        names = [f"spread-{i}" for i in range(4)]
        for name in names:
            self.apply(pod(name, labels={"app": "spread"}, topologySpreadConstraints=spread))
            self.assertNotEqual(self.node_of(name), "")
        zones = {"small": "a", "big": "a", "ssd": "b", "gpu": "b"}
        placed = [zones[self.node_of(n)] for n in names]
        self.assertEqual(sorted(placed), ["a", "a", "b", "b"])

    def wait_for_failed_scheduling(self, name, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            events = json.loads(self.server.kubectl(
                "get", "events", "--field-selector", f"involvedObject.name={name}", "-o", "json").stdout)
            for e in events["items"]:
                if e["reason"] == "FailedScheduling":
                    return e["message"]
            time.sleep(0.05)
        self.fail(f"no FailedScheduling event for {name}")

    def test_a_pod_too_big_for_every_node_is_pending_with_kubes_message(self):
        self.apply(pod("too-big", cpu="100"))
        message = self.wait_for_failed_scheduling("too-big")
        self.assertEqual(message,
                         "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
                         "3 Insufficient cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful "
                         "for scheduling, 3 No preemption victims found for incoming pod..")
        status = json.loads(self.server.kubectl("get", "pod", "too-big", "-o", "json").stdout)["status"]
        condition = [c for c in status["conditions"] if c["type"] == "PodScheduled"][0]
        self.assertEqual(condition["status"], "False")
        self.assertEqual(condition["reason"], "Unschedulable")
        self.assertEqual(condition["message"], message)
        self.assertEqual(status["phase"], "Pending")
        described = self.server.kubectl("describe", "pod", "too-big").stdout
        self.assertIn("FailedScheduling", described)
        self.assertIn("Insufficient cpu", described)


if __name__ == "__main__":
    unittest.main()


class StandaloneScheduler(unittest.TestCase):
    """`berth scheduler --server URL` against a berth API server that runs none."""

    def setUp(self):
        import subprocess
        from berth_server import BERTH
        self.server = BerthServer(extra_args=["--in-memory"]).start()  # no in-process scheduler
        self.log = open(self.server.tmp + "/scheduler.log", "wb")
        self.scheduler = subprocess.Popen([BERTH, "scheduler", "--server", self.server.url, "--seed", "3",
                                           "--listen", "127.0.0.1:0"],
                                          stdout=self.log, stderr=subprocess.STDOUT)

    def tearDown(self):
        self.scheduler.terminate()
        self.assertEqual(self.scheduler.wait(timeout=20), 0)
        self.log.close()
        self.server.stop()
        self.server.cleanup()

    def test_binds_over_http_and_reports_failures(self):
        k = self.server.kubectl
        k("apply", "-f", "-", input=json.dumps(node("n1", cpu="2")))
        k("apply", "-f", "-", input=json.dumps(pod("fits", cpu="1")))
        k("apply", "-f", "-", input=json.dumps(pod("too-big", cpu="3")))
        deadline = time.time() + 15
        bound = ""
        while time.time() < deadline and not bound:
            bound = k("get", "pod", "fits", "-o", "jsonpath={.spec.nodeName}").stdout
            time.sleep(0.05)
        self.assertEqual(bound, "n1")
        message = ""
        while time.time() < deadline and not message:
            events = json.loads(k("get", "events", "--field-selector", "involvedObject.name=too-big",
                                  "-o", "json").stdout)["items"]
            message = next((e["message"] for e in events if e["reason"] == "FailedScheduling"), "")
            time.sleep(0.05)
        self.assertEqual(message, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
                                  "available: 1 No preemption victims found for incoming pod..")
        status = json.loads(k("get", "pod", "too-big", "-o", "json").stdout)["status"]
        condition = [c for c in status["conditions"] if c["type"] == "PodScheduled"][0]
        self.assertEqual((condition["status"], condition["reason"]), ("False", "Unschedulable"))
        # A node added later lets the waiting pod through (the watch delivers it).
        k("apply", "-f", "-", input=json.dumps(node("n2", cpu="8")))
        bound = ""
        deadline = time.time() + 20
        while time.time() < deadline and not bound:
            bound = k("get", "pod", "too-big", "-o", "jsonpath={.spec.nodeName}").stdout
            time.sleep(0.1)
        self.assertEqual(bound, "n2")
        # Both bindings recorded the event Scheduled, over HTTP too.
        scheduled = []
        while time.time() < deadline and len(scheduled) < 2:
            scheduled = sorted(e["message"] for e in json.loads(k(
                "get", "events", "--field-selector", "reason=Scheduled", "-o", "json").stdout)["items"])
            time.sleep(0.05)
        self.assertEqual(scheduled, ["Successfully assigned default/fits to n1",
                                     "Successfully assigned default/too-big to n2"])

    def test_serves_health_and_metrics_on_its_own_port(self):
        import re
        import urllib.request
        port = None
        deadline = time.time() + 20
        while time.time() < deadline and port is None:
            with open(self.server.tmp + "/scheduler.log") as f:
                m = re.search(r"serving /healthz[^\n]* on http://127\.0\.0\.1:(\d+)", f.read())
            port = m and int(m.group(1))
            time.sleep(0.05)
        self.assertIsNotNone(port, "the scheduler's log names its port")
        base = "http://127.0.0.1:%d" % port
        self.assertEqual(urllib.request.urlopen(base + "/healthz", timeout=10).read(), b"ok")
        k = self.server.kubectl
        k("apply", "-f", "-", input=json.dumps(node("n1", cpu="2")))
        k("apply", "-f", "-", input=json.dumps(pod("fits", cpu="1")))
        scheduled = 'scheduler_schedule_attempts_total{result="scheduled",profile="default-scheduler"} 1'
        text = ""
        deadline = time.time() + 20
        while time.time() < deadline and scheduled not in text.splitlines():
            text = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
            time.sleep(0.1)
        attempts = [line for line in text.splitlines() if line.startswith("scheduler_schedule_attempts_total{")]
        self.assertIn(scheduled, attempts)
        with self.assertRaises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "/nothing-here", timeout=10)
        self.assertEqual(missing.exception.code, 404)


class Bench(unittest.TestCase):
    """berth bench at a small size: it schedules through the real path and checks
    its own result (every pod bound once, no node over-committed) and exits 1
    when that fails."""

    def test_small_cluster_all_bound_with_figures(self):
        p = subprocess.run([BERTH, "bench", "--nodes=4", "--pods=300", "--concurrent=1,4", "--json",
                            "--node-max-pods=100"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = json.loads(p.stdout)
        self.assertEqual([r["concurrent"] for r in runs], [1, 4])
        for r in runs:
            self.assertNotIn("error", r)
            self.assertGreater(r["throughput_pods_per_sec"], 0)
            self.assertGreater(r["cpu_per_pod_us"], 0)
            # The output states the cluster's shape and the store it ran on.
            self.assertEqual((r["node_cpu"], r["node_memory"], r["node_max_pods"]), ("16", "64Gi", 100))
            self.assertEqual(r["store"], "durable")
            self.assertEqual((r["bound"], r["unbound"]), (300, 0))
        # 300 pods on 4 nodes of 100 pods each fit; 500 do not, and the bench
        # says how many were left, as soon as only those are left.
        start = time.monotonic()
        p = subprocess.run([BERTH, "bench", "--nodes=4", "--pods=500", "--concurrent=2", "--node-max-pods=100",
                            "--store=memory", "--timeout=100"], capture_output=True, text=True, timeout=120)
        self.assertLess(time.monotonic() - start, 60)
        self.assertEqual(p.returncode, 1)
        self.assertIn("100 of 500 pods were left unbound", p.stderr)
