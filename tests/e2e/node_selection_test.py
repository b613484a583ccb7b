"""Node selection as a profile setting, end to end: examples/scheduler-config/
weighted-by-labels.yaml loaded by `berth serve --config` and by `berth
scheduler --config`; pods of its two profiles placed by real kubectl
manifests; the weighted profile's placements tested by chi-square against the
normalised label scores."""

import json
import os
import subprocess
import time
import unittest

from berth_server import BERTH, BerthServer, wait_for

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "scheduler-config",
                       "weighted-by-labels.yaml")
BANDWIDTH = "example.com/memory-bandwidth"
# The example's values (high 10, medium 5, low 2) normalised as the plugin does: the best node gets 100.
EXPECTED = {"high": 100, "medium": 50, "low": 20}


def node(name, bandwidth=None):
    labels = {"kubernetes.io/hostname": name}
    if bandwidth:
        labels[BANDWIDTH] = bandwidth
    room = {"cpu": "1000", "memory": "1000Gi", "pods": "10000"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": room, "allocatable": room,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pods(prefix, count, scheduler_name):
    return {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{prefix}-{i}", "namespace": "default"},
         "spec": {"schedulerName": scheduler_name,
                  "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9"}]}}
        for i in range(count)]}


def create(server, command, obj):
    """kubectl apply/create of a List in one call."""
    server.kubectl(command, "-f", "-", input=json.dumps(obj))


def chi_square(counts, weights, n):
    total = sum(weights.values())
    return sum((counts.get(k, 0) - n * w / total) ** 2 / (n * w / total) for k, w in weights.items())


class NodeSelectionProfiles(unittest.TestCase):
    """Both profiles of the example in `berth serve`."""

    def setUp(self):
        self.server = BerthServer(extra_args=["--in-memory", "--seed", "11", "--config", EXAMPLE],
                                  scheduler=True).start()
        nodes = [node("n-high", "high"), node("n-medium", "medium"), node("n-low", "low"), node("n-plain")]
        create(self.server, "apply", {"apiVersion": "v1", "kind": "List", "items": nodes})

    def tearDown(self):
        self.server.stop()
        self.server.cleanup()

    def placements(self, prefix, count):
        """pod name → node, once all `count` pods named prefix-* are bound."""
        def bound():
            items = json.loads(self.server.kubectl("get", "pods", "-o", "json").stdout)["items"]
            mine = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in items
                    if p["metadata"]["name"].startswith(prefix + "-")}
            return mine if len(mine) == count and all(mine.values()) else None
        return wait_for(self, self.server, f"{count} {prefix} pods bound", bound, timeout=60, interval=0.5)

    def test_weighted_profile_draws_by_label_scores_and_default_profile_does_not(self):
        n = 400
        create(self.server, "create", pods("weighted", n, "weighted-scheduler"))
        placed = self.placements("weighted", n)
        counts = {}
        for node_name in placed.values():
            tier = node_name.removeprefix("n-")
            counts[tier] = counts.get(tier, 0) + 1
        # A node scoring 0 is never drawn while others score more.
        self.assertNotIn("plain", counts, counts)
        # 2 degrees of freedom: P(chi2 > 18.42) = 0.0001 when the draw follows the scores.
        # Drawing uniformly over the three, or always the best, gives chi2 > 100.
        self.assertLess(chi_square(counts, EXPECTED, n), 18.42, counts)

        # The default profile in the same process: kube's scores (the labels
        # count for nothing there), so the node without a bandwidth label is
        # as good as any and gets pods too.
        create(self.server, "create", pods("plain", 40, "default-scheduler"))
        plain = self.placements("plain", 40)
        self.assertIn("n-plain", set(plain.values()), plain)

    def test_a_pod_for_no_profile_is_left_alone(self):
        create(self.server, "create", pods("nobody", 1, "no-such-scheduler"))
        create(self.server, "create", pods("marker", 1, "weighted-scheduler"))
        self.placements("marker", 1)
        stray = json.loads(self.server.kubectl("get", "pod", "nobody-0", "-o", "json").stdout)
        self.assertEqual(stray["spec"].get("nodeName"), None)
        self.assertEqual(stray["status"].get("conditions"), None)  # not even reported unschedulable


class StandaloneSchedulerConfig(unittest.TestCase):
    """`berth scheduler --config` reads the same profiles; a mistake stops it with the field path."""

    def setUp(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()  # no in-process scheduler

    def tearDown(self):
        self.server.stop()
        self.server.cleanup()

    def test_weighted_profile_over_http(self):
        k = self.server.kubectl
        create(self.server, "apply", {"apiVersion": "v1", "kind": "List", "items": [
            node("n-high", "high"), node("n-plain")]})
        log = open(os.path.join(self.server.tmp, "scheduler.log"), "wb")
        scheduler = subprocess.Popen([BERTH, "scheduler", "--server", self.server.url, "--seed", "4",
                                      "--config", EXAMPLE], stdout=log, stderr=subprocess.STDOUT)
        try:
            create(self.server, "create", pods("w", 20, "weighted-scheduler"))

            def bound():
                items = json.loads(k("get", "pods", "-o", "json").stdout)["items"]
                nodes = [p["spec"].get("nodeName") for p in items]
                return nodes if len(nodes) == 20 and all(nodes) else None
            nodes = wait_for(self, self.server, "20 pods bound by berth scheduler", bound, timeout=30, interval=0.2)
            # Only the labelled node scores above 0, so the weighted draw never picks the other.
            self.assertEqual(set(nodes), {"n-high"})
        finally:
            scheduler.terminate()
            self.assertEqual(scheduler.wait(timeout=20), 0)
            log.close()

    def test_a_misspelt_strategy_is_refused_at_start(self):
        bad = os.path.join(self.server.tmp, "bad.yaml")
        with open(EXAMPLE) as f:
            text = f.read()
        with open(bad, "w") as f:
            f.write(text.replace("strategy: WeightedRandom", "strategy: Weighted"))
        p = subprocess.run([BERTH, "scheduler", "--server", self.server.url, "--config", bad],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 1)
        self.assertIn('profiles[1].pluginConfig[NodeSelection].args: strategy: Unsupported value: "Weighted": '
                      'supported values: "TopScore", "WeightedRandom"', p.stderr)


if __name__ == "__main__":
    unittest.main()
