"""`berth explain pod NAME` against `berth serve` with simulated nodes and
against a standalone scheduler's --listen endpoint: pending pods (too big,
tainted nodes, a missing label) and a placed pod, as a report and as JSON."""

import json
import subprocess
import time
import unittest
import urllib.error
import urllib.request

from berth_server import BERTH, BerthServer, free_port, wait_for

# Two plain nodes with 2 cpu; one 8-cpu node tainted and labelled for GPUs.
SIM_CONFIG = """groups:
- count: 2
  namePrefix: plain-
  cpu: "2"
  memory: 8Gi
  zones: [zone-a]
- count: 1
  namePrefix: gpu-
  cpu: "8"
  memory: 32Gi
  zones: [zone-b]
  labels: {accelerator: gpu}
  taints: [{key: gpu, value: "true", effect: NoSchedule}]
"""


def pod(name, cpu="100m", **spec):
    body = {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9",
                            "resources": {"requests": {"cpu": cpu}}}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": body}


def explain(server_url, *args):
    return subprocess.run([BERTH, "explain", "pod", *args, "--server", server_url],
                          capture_output=True, text=True, timeout=60)


def start_server(scheduler):
    server = BerthServer(extra_args=["--in-memory", "--seed", "1"], scheduler=scheduler)
    config = server.write_file("sim.yaml", SIM_CONFIG)
    server.extra_args = ["--sim-config", config] + server.extra_args
    server.start()
    wait_for(unittest.TestCase(), server, "three nodes",
             lambda: len(json.loads(server.kubectl("get", "nodes", "-o", "json").stdout)["items"]) == 3)
    return server


TOO_BIG_SUMMARY = "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 2 Insufficient cpu."

PENDING = [pod("too-big", cpu="16"),
           pod("gpu-only", nodeSelector={"accelerator": "gpu"}),
           pod("needs-ssd", nodeSelector={"disktype": "ssd"})]


class ExplainOnServe(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = start_server(scheduler=True)
        for p in PENDING + [pod("small")]:
            cls.server.kubectl("apply", "-f", "-", input=json.dumps(p))
        cls.node = wait_for(cls(), cls.server, "small to be bound",
                            lambda: cls.server.kubectl("get", "pod", "small", "-o",
                                                       "jsonpath={.spec.nodeName}").stdout)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def explain_json(self, name):
        p = explain(self.server.url, name, "--output", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_too_big_pod_report_says_by_how_much(self):
        p = explain(self.server.url, "too-big")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Pod default/too-big (schedulerName default-scheduler): Pending", p.stdout)
        self.assertIn(TOO_BIG_SUMMARY, p.stdout)
        self.assertIn("What would make it fit:", p.stdout)
        # The plain node without `small` is the closest (one plugin fails, the smallest shortfall);
        # the 8-cpu node fails two plugins: last.
        lines = [line for line in p.stdout.splitlines() if line.startswith("  - node ")]
        self.assertEqual(len(lines), 3, p.stdout)
        self.assertRegex(lines[0], r"node plain-\d: cpu: short by 14 \(the pod requests 16, 2 free of 2 allocatable\); "
                                   r"more than the node has: no eviction can make room")
        self.assertEqual(lines[2], "  - node gpu-0: add a toleration for taint gpu=true:NoSchedule (or remove the "
                                   "taint); cpu: short by 8 (the pod requests 16, 8 free of 8 allocatable); more than "
                                   "the node has: no eviction can make room")
        self.assertIn("Preemption: would not help", p.stdout)

    def test_tainted_nodes_need_a_toleration(self):
        e = self.explain_json("gpu-only")
        self.assertEqual(e["summary"], "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: true}, "
                                       "2 node(s) didn't match Pod's node affinity/selector.")
        self.assertIn("node gpu-0: add a toleration for taint gpu=true:NoSchedule (or remove the taint)",
                      e["suggestions"])
        gpu = next(n for n in e["nodes"] if n["name"] == "gpu-0")
        self.assertEqual(gpu["status"]["plugin"], "TaintToleration")
        self.assertEqual(e["reasonCounts"], {"node(s) had untolerated taint {gpu: true}": 1,
                                             "node(s) didn't match Pod's node affinity/selector": 2})

    def test_missing_label_is_named(self):
        e = self.explain_json("needs-ssd")
        self.assertTrue(e["summary"].startswith("0/3 nodes are available: "), e["summary"])
        self.assertIn("node lacks label disktype=ssd (nodeSelector)", " ".join(e["suggestions"]))
        plain = next(n for n in e["nodes"] if n["name"] == "plain-0")
        self.assertEqual([f["plugin"] for f in plain["filters"] if f["code"] not in ("Success", "Skip")],
                         ["NodeAffinity"])

    def test_placed_pod_is_explained_on_its_node(self):
        e = self.explain_json("small")
        self.assertEqual(e["phase"], "Bound")
        self.assertEqual(e["nodeName"], self.node)
        self.assertTrue(e["summary"].startswith(f"bound to {self.node}; it still fits there"), e["summary"])
        self.assertEqual(e["suggestions"], [])
        # Both plain nodes fit 100m (the GPU node's taint keeps it out), with totals summed from the cells.
        self.assertEqual(sorted(row["node"] for row in e["scores"]), ["plain-0", "plain-1"])
        for row in e["scores"]:
            self.assertEqual(row["total"], sum(c["normalized"] * c["weight"] for c in row["plugins"]))
        self.assertIn(e["selection"]["chosen"], [row["node"] for row in e["scores"]])
        # The cycle that placed it is remembered: two feasible nodes then too.
        self.assertEqual(e["decision"]["node"], self.node)
        self.assertEqual(e["decision"]["feasibleNodes"], 2)
        p = explain(self.server.url, "small")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"Bound on {self.node}", p.stdout)
        self.assertIn("Score (2 feasible nodes", p.stdout)
        self.assertRegex(p.stdout, r"Selection \(TopScore\): \S+")
        self.assertRegex(p.stdout, r"When it was scheduled \(\d+s ago\): " + self.node + " among 2 feasible nodes")

    def test_unknown_pod_is_not_found(self):
        p = explain(self.server.url, "nope", "-n", "default")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.strip(), 'Error from server (NotFound): pods "nope" not found')
        with self.assertRaises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(self.server.url + "/debug/explain/namespaces/default/pods/nope", timeout=10)
        self.assertEqual(raised.exception.code, 404)
        self.assertEqual(json.loads(raised.exception.read())["reason"], "NotFound")

    def test_endpoint_answers_the_contract(self):
        with urllib.request.urlopen(self.server.url + "/debug/explain/namespaces/default/pods/too-big",
                                    timeout=10) as r:
            body = json.loads(r.read())
        self.assertIsInstance(body["summary"], str)
        self.assertIsInstance(body["suggestions"], list)
        self.assertTrue(body["suggestions"])


class ExplainOnStandaloneScheduler(unittest.TestCase):
    def setUp(self):
        self.server = start_server(scheduler=False)
        self.log_path = self.server.tmp + "/scheduler.log"
        self.log = open(self.log_path, "wb")
        self.port = free_port()
        self.scheduler = subprocess.Popen([BERTH, "scheduler", "--server", self.server.url, "--seed", "3",
                                           "--listen", f"127.0.0.1:{self.port}"],
                                          stdout=self.log, stderr=subprocess.STDOUT)

    def tearDown(self):
        self.scheduler.terminate()
        self.assertEqual(self.scheduler.wait(timeout=20), 0)
        self.log.close()
        self.server.stop()
        self.server.cleanup()

    def test_explains_from_the_schedulers_own_endpoint(self):
        url = f"http://127.0.0.1:{self.port}"
        self.server.kubectl("apply", "-f", "-", input=json.dumps(pod("too-big", cpu="16")))

        def answered():
            p = explain(url, "too-big", "-o", "json")
            return p.returncode == 0 and json.loads(p.stdout)
        e = wait_for(self, self.server, "the scheduler to know the pod", answered, timeout=30, interval=0.2)
        self.assertEqual(e["summary"], TOO_BIG_SUMMARY)
        self.assertTrue(any("cpu: short by 14 " in s for s in e["suggestions"]), e["suggestions"])
        p = explain(url, "nope")
        self.assertEqual(p.returncode, 1)
        self.assertIn('pods "nope" not found', p.stderr)


if __name__ == "__main__":
    unittest.main()
