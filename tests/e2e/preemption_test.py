"""Preemption end to end with real kubectl on simulated nodes: a low-priority
deployment fills the cluster, a high-priority one arrives and runs; each
victim gets kube's Preempted event; the victims' replacements wait; a pod
with preemptionPolicy Never waits with kube's message; metrics count it."""

import json
import time
import unittest
import urllib.request

from berth_server import BerthServer, wait_for


class PreemptionTest(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer(["--sim-nodes", "2", "--sim-cpu", "2", "--sim-memory", "4Gi", "--seed", "5"],
                                  scheduler=True).start()

    def tearDown(self):
        self.server.stop()
        self.server.cleanup()

    def k(self, *args, **kw):
        return self.server.kubectl(*args, **kw)

    def apply(self, obj):
        self.k("apply", "-f", "-", input=json.dumps(obj))

    def deployment(self, name, replicas, cpu, priority_class):
        self.apply({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
                    "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                             "template": {"metadata": {"labels": {"app": name}},
                                          "spec": {"priorityClassName": priority_class,
                                                   "containers": [{"name": "c", "image": "nginx",
                                                                   "resources": {"requests": {"cpu": cpu}}}]}}}})

    def pods(self, app):
        return json.loads(self.k("get", "pods", "-l", f"app={app}", "-o", "json").stdout)["items"]

    def wait(self, what, predicate, timeout=60):
        return wait_for(self, self.server, what, predicate, timeout, interval=0.1)

    def test_a_high_priority_deployment_preempts_a_low_priority_one(self):
        self.k("create", "priorityclass", "low", "--value=100")
        self.k("create", "priorityclass", "high", "--value=1000")
        self.deployment("filler", 4, "900m", "low")
        self.wait("4 filler pods running",
                  lambda: sum(p["status"].get("phase") == "Running" for p in self.pods("filler")) == 4)

        self.deployment("urgent", 2, "1", "high")
        self.wait("2 urgent pods running",
                  lambda: sum(p["status"].get("phase") == "Running" for p in self.pods("urgent")) == 2)
        urgent = self.pods("urgent")
        self.assertEqual(sorted(p["spec"]["nodeName"] for p in urgent), ["sim-node-0", "sim-node-1"])
        uids = {p["metadata"]["uid"] for p in urgent}

        # Each urgent pod evicted one filler (two would leave no room for anything else).
        def preempted():
            found = [e for e in json.loads(self.k("get", "events", "-o", "json").stdout)["items"]
                     if e["reason"] == "Preempted"]
            return found if len(found) >= 2 else None
        events = self.wait("Preempted events", preempted)
        self.assertEqual(len(events), 2)
        for e in events:
            self.assertEqual(e["type"], "Normal")
            self.assertEqual(e["source"]["component"], "default-scheduler")
            self.assertRegex(e["message"], r"^Preempted by pod [0-9a-f-]+ on node sim-node-[01]$")
            self.assertIn(e["message"].split()[3], uids)
        listed = self.k("get", "events", "--field-selector", "reason=Preempted").stdout
        self.assertIn("Preempted", listed)

        # The fillers' ReplicaSet replaced its victims; the replacements wait,
        # unable to preempt the higher priority.
        def pending_replacements():
            pending = [p for p in self.pods("filler") if not p["spec"].get("nodeName")]
            return pending if len(pending) == 2 else None
        pending = self.wait("2 pending fillers", pending_replacements)
        for p in pending:
            message = [c for c in p["status"].get("conditions", []) if c["type"] == "PodScheduled"]
            self.assertTrue(message and message[0]["status"] == "False", p["status"])

        with urllib.request.urlopen(self.server.url + "/metrics", timeout=10) as r:
            metrics = r.read().decode()
        self.assertRegex(metrics, r"(?m)^scheduler_preemption_attempts_total [1-9]")
        self.assertRegex(metrics, r'(?m)^scheduler_preemption_victims_count [2-9]')

    def test_preemption_policy_never_waits_with_kubes_message(self):
        self.k("create", "priorityclass", "low", "--value=100")
        self.apply({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                    "metadata": {"name": "polite"}, "value": 1000, "preemptionPolicy": "Never"})
        self.deployment("filler", 4, "900m", "low")
        self.wait("4 filler pods running",
                  lambda: sum(p["status"].get("phase") == "Running" for p in self.pods("filler")) == 4)
        self.deployment("polite", 1, "1", "polite")

        def failed():
            events = json.loads(self.k("get", "events", "--field-selector", "reason=FailedScheduling",
                                       "-o", "json").stdout)["items"]
            return next((e["message"] for e in events if e["involvedObject"]["name"].startswith("polite")), None)
        message = self.wait("FailedScheduling for polite", failed)
        self.assertEqual(message, "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to "
                                  "preemptionPolicy=Never..")
        self.assertEqual(sum(p["status"].get("phase") == "Running" for p in self.pods("filler")), 4)


if __name__ == "__main__":
    unittest.main()
