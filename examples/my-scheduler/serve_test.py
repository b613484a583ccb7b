"""my-scheduler's `serve` with MinScore enabled by min-score-config.yaml: a
pod is placed, a pod MinScore refuses is Pending with its reason, and the
plugin's metrics are on /metrics. Run by CTest (e2e_my_scheduler_serve) with
BERTH_BINARY pointing at my-scheduler."""

import json
import os
import sys
import unittest
import urllib.request

sys.path.insert(0, os.environ.get("BERTH_E2E_DIR", os.path.join(os.path.dirname(__file__), "../../tests/e2e")))
from berth_server import BerthServer, wait_for  # noqa: E402

CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "min-score-config.yaml")


def pod(name, cpu, group=None):
    labels = {"example.berth.dev/group": group} if group else {}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9",
                                     "resources": {"requests": {"cpu": cpu}}}]}}


class MySchedulerServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(scheduler=True, extra_args=[
            "--config", CONFIG, "--sim-nodes", "2", "--sim-cpu", "4"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read().decode()
            return json.loads(text) if text.startswith("{") else text

    def get_pod(self, name):
        return self.request("GET", f"/api/v1/namespaces/default/pods/{name}")

    def test_pods_of_a_group_are_placed_one_after_the_other(self):
        for name in ("lead", "follow"):
            self.request("POST", "/api/v1/namespaces/default/pods", pod(name, "500m", group="web"))
        for name in ("lead", "follow"):
            wait_for(self, self.server, f"{name} bound", lambda n=name: self.get_pod(n)["spec"].get("nodeName"))
        metrics = self.request("GET", "/metrics")
        self.assertIn("min_score_permit_total", metrics)
        self.assertIn("min_score_reserved_pods 0", metrics)

    def test_a_pod_leaving_too_little_cpu_free_is_pending_in_min_scores_words(self):
        self.request("POST", "/api/v1/namespaces/default/pods", pod("greedy", "3500m"))

        def reason():
            for c in self.get_pod("greedy").get("status", {}).get("conditions", []):
                if c.get("type") == "PodScheduled" and c.get("status") == "False":
                    return c.get("message")
            return None
        message = wait_for(self, self.server, "greedy's PodScheduled=False", reason)
        self.assertIn("2 node(s) would keep less than 25% of their cpu free", message)
        self.assertNotIn("nodeName", self.get_pod("greedy")["spec"])
        self.assertRegex(self.request("GET", "/metrics"), r"min_score_rejected_nodes_total [1-9]")


if __name__ == "__main__":
    unittest.main()
