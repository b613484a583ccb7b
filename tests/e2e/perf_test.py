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
            "PreferredTopologySpreading", "MixedSchedulingBasePod", "Unschedulable", "SchedulingSecrets",
            "SchedulingInTreePVs", "SchedulingMigratedInTreePVs", "SchedulingCSIPVs"]


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
        # At smoke sizes a measured phase lasts milliseconds: kube's
        # SchedulingThroughput (1 s windows) has no sample, and says so;
        # PhaseThroughput, the phase's own rate, is always there.
        phase = {i["labels"]["Name"]: i for i in doc["dataItems"] if i["labels"]["Metric"] == "PhaseThroughput"}
        windows = {i["labels"]["Name"]: i for i in doc["dataItems"]
                   if i["labels"]["Metric"] == "SchedulingThroughput"}
        notes = {n["Name"]: n["note"] for n in doc.get("notes", [])}
        for name in MUST_RUN:
            matches = [n for n in phase if n.startswith(name + "/500Nodes")]
            self.assertTrue(matches, f"{name}: no PhaseThroughput item")
            for n in matches:
                item = phase[n]
                self.assertEqual(item["unit"], "pods/s")
                self.assertGreater(item["data"]["Value"], 0, n)
                self.assertGreater(item["data"]["Pods"], 0, n)
                if n in windows:
                    self.assertEqual(set(windows[n]["data"]), {"Average", "Perc50", "Perc90", "Perc95", "Perc99"})
                    self.assertEqual(windows[n]["unit"], "pods/s")
                else:
                    self.assertIn("no complete 1 s window", notes[n])
        metrics = {i["labels"]["Metric"] for i in doc["dataItems"]}
        self.assertTrue({"scheduler_scheduling_attempt_duration_seconds",
                         "scheduler_pod_scheduling_duration_seconds", "PeakRSS"} <= metrics, metrics)
        attempts = [i for i in doc["dataItems"] if i["labels"]["Metric"] == "scheduler_scheduling_attempt_duration_seconds"]
        self.assertTrue(all(i["unit"] == "ms" and i["data"]["Perc99"] > 0 for i in attempts), attempts)

    def test_unsupported_workloads_say_why(self):
        p = perf("--json", "--scale", "0.05", "--workload", "SchedulingWithMixedChurn/1000Nodes")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["dataItems"], [])
        reasons = {u["Name"]: u["reason"] for u in doc["unsupported"]}
        self.assertIn("churn", reasons["SchedulingWithMixedChurn/1000Nodes"])

    def test_preemption_basic_runs_and_preempts(self):
        p = perf("--json", "--scale", "0.05", "--workload", "PreemptionBasic/500Nodes")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc.get("unsupported", []), [])
        phase = [i for i in doc["dataItems"] if i["labels"]["Metric"] == "PhaseThroughput"]
        # Every measured high-priority pod was bound, each after evicting low-priority ones.
        self.assertEqual([i["data"]["Pods"] for i in phase], [25])
        self.assertGreater(phase[0]["data"]["Value"], 0)

    def test_csi_migration_gates_are_honoured(self):
        # CSIMigration and CSIMigrationAWS are GA and locked on in kube: berth
        # counts in-tree EBS volumes as ebs.csi.aws.com ones, so the workload runs.
        # (Gates berth cannot honour are refused: tests/perf/workload_test.cc.)
        p = perf("--json", "--scale", "0.05", "--workload", "SchedulingMigratedInTreePVs/500Nodes")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc.get("unsupported", []), [])
        phase = [i for i in doc["dataItems"] if i["labels"]["Metric"] == "PhaseThroughput"]
        self.assertEqual([i["data"]["Pods"] for i in phase], [50])

    def test_measure_scale_multiplies_the_measured_pods(self):
        # SchedulingBasic/500Nodes at --scale 0.05 measures 50 pods; ×4 is 200.
        p = perf("--json", "--scale", "0.05", "--measure-scale", "4", "--workload", "SchedulingBasic/500Nodes")
        self.assertEqual(p.returncode, 0, p.stderr)
        phase = [i for i in json.loads(p.stdout)["dataItems"] if i["labels"]["Metric"] == "PhaseThroughput"]
        self.assertEqual([i["data"]["Pods"] for i in phase], [200])

    def test_table_output(self):
        p = perf("--scale", "0.02", "--workload", "SchedulingBasic/500Nodes")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("SchedulingBasic/500Nodes", p.stdout)
        self.assertIn("SchedulingThroughput", p.stdout)
        self.assertIn("no complete 1 s window", p.stdout)
        self.assertIn("Phase pods/s", p.stdout)

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
        p = perf("--measure-scale", "0.5")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--measure-scale", p.stderr)


if __name__ == "__main__":
    unittest.main()
