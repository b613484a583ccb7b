"""berth perf on kube-scheduler's own scheduler_perf workloads (smoke sizes:
the 500Nodes workloads with every count scaled down)."""

import json
import os
import subprocess
import unittest

from berth_server import BERTH

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIG = os.path.join(REPO, "..", "shared", "scheduler_perf", "performance-config.yaml")

MUST_RUN = ["SchedulingBasic", "SchedulingNodeAffinity", "SchedulingPodAntiAffinity", "SchedulingPodAffinity",
            "SchedulingPreferredPodAffinity", "SchedulingPreferredPodAntiAffinity", "TopologySpreading",
            "PreferredTopologySpreading", "MixedSchedulingBasePod", "Unschedulable", "SchedulingSecrets"]


def perf(*args):
    return subprocess.run([BERTH, "perf", "--config", CONFIG, *args], capture_output=True, text=True, timeout=300)


@unittest.skipUnless(os.path.exists(CONFIG), f"scheduler_perf workloads not found at {CONFIG}")
class PerfTest(unittest.TestCase):
    def test_must_run_workloads_at_500_nodes_smoke_size(self):
        args = ["--json", "--scale", "0.05"]
        for name in MUST_RUN:
            args += ["--workload", f"{name}/500Nodes"]
        p = perf(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["version"], "v1")
        self.assertNotIn("unsupported", doc, doc.get("unsupported"))
        throughput = {i["labels"]["Name"]: i for i in doc["dataItems"]
                      if i["labels"]["Metric"] == "SchedulingThroughput"}
        for name in MUST_RUN:
            matches = [n for n in throughput if n.startswith(name + "/500Nodes")]
            self.assertTrue(matches, f"{name}: no SchedulingThroughput item")
            for n in matches:
                item = throughput[n]
                self.assertEqual(item["unit"], "pods/s")
                self.assertEqual(set(item["data"]), {"Average", "Perc50", "Perc90", "Perc95", "Perc99"})
                self.assertGreater(item["data"]["Average"], 0, n)
        metrics = {i["labels"]["Metric"] for i in doc["dataItems"]}
        self.assertTrue({"scheduler_scheduling_attempt_duration_seconds",
                         "scheduler_pod_scheduling_duration_seconds", "PeakRSS"} <= metrics, metrics)
        attempts = [i for i in doc["dataItems"] if i["labels"]["Metric"] == "scheduler_scheduling_attempt_duration_seconds"]
        self.assertTrue(all(i["unit"] == "ms" and i["data"]["Perc99"] > 0 for i in attempts), attempts)

    def test_unsupported_workloads_say_why(self):
        p = perf("--json", "--scale", "0.05", "--workload", "SchedulingInTreePVs/500Nodes",
                 "--workload", "PreemptionBasic/500Nodes", "--workload", "SchedulingWithMixedChurn/1000Nodes")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["dataItems"], [])
        reasons = {u["Name"]: u["reason"] for u in doc["unsupported"]}
        self.assertIn("persistentVolume", reasons["SchedulingInTreePVs/500Nodes"])
        self.assertIn("preemption", reasons["PreemptionBasic/500Nodes"])
        self.assertIn("churn", reasons["SchedulingWithMixedChurn/1000Nodes"])

    def test_table_output(self):
        p = perf("--scale", "0.02", "--workload", "SchedulingBasic/500Nodes")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("SchedulingBasic/500Nodes", p.stdout)
        self.assertIn("avg pod/s", p.stdout)

    def test_errors_name_the_flag(self):
        p = perf("--workload", "NoSuchWorkload")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--workload NoSuchWorkload", p.stderr)
        p = subprocess.run([BERTH, "perf", "--config", "/nonexistent.yaml"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--config /nonexistent.yaml", p.stderr)
        p = perf("--scale", "3")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--scale", p.stderr)


if __name__ == "__main__":
    unittest.main()
