"""Jobs end to end: real kubectl against `berth serve --sim-nodes` (scheduler,
Job and TTL-after-finished controllers, simulated kubelets in process). Pods
finish through the simulated kubelet's sim.berth.dev/run-duration annotation."""

import json
import unittest
import urllib.error
import urllib.request

from berth_server import BerthServer, wait_for

RUN_DURATION = "sim.berth.dev/run-duration"


def job(name, spec, run_duration="1s"):
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": dict(spec, template={
            "metadata": {"annotations": {RUN_DURATION: run_duration}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]},
        }),
    }


class JobTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(["--sim-nodes", "3"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def get(self, path):
        with urllib.request.urlopen(self.server.url + path, timeout=10) as r:
            return json.loads(r.read())

    def apply(self, obj):
        self.server.kubectl("apply", "-f", "-", input=json.dumps(obj))

    def job_pods(self, name):
        return self.get(f"/api/v1/namespaces/default/pods?labelSelector=batch.kubernetes.io/job-name%3D{name}")["items"]

    def test_parallel_job_reaches_its_completions(self):
        self.apply(job("parallel", {"completions": 6, "parallelism": 3}))
        # Never more than parallelism running at once, sampled while it runs.
        most = 0

        def done():
            nonlocal most
            pods = self.job_pods("parallel")
            active = [p for p in pods if p.get("status", {}).get("phase") not in ("Succeeded", "Failed")]
            most = max(most, len(active))
            return self.get("/apis/batch/v1/namespaces/default/jobs/parallel").get("status", {}).get("succeeded") == 6
        wait_for(self, self.server, "6 succeeded pods", done, timeout=120)
        self.assertLessEqual(most, 3)
        self.server.kubectl("wait", "--for=condition=complete", "job/parallel", "--timeout=120s", timeout=150)
        status = self.get("/apis/batch/v1/namespaces/default/jobs/parallel")["status"]
        self.assertEqual(status["succeeded"], 6)
        self.assertIn("completionTime", status)
        pods = self.job_pods("parallel")
        self.assertEqual(len(pods), 6)
        self.assertTrue(all(p["status"]["phase"] == "Succeeded" for p in pods))
        self.assertTrue(all("batch.kubernetes.io/job-tracking" not in p["metadata"].get("finalizers", [])
                            for p in pods))
        out = self.server.kubectl("get", "job", "parallel").stdout
        self.assertIn("6/6", out)

    def test_kubectl_create_job_runs_to_completion(self):
        # kubectl create job builds the Job; the annotation that makes the
        # simulated container exit is added before it is sent.
        manifest = json.loads(self.server.kubectl(
            "create", "job", "oneshot", "--image=busybox", "--dry-run=client", "-o", "json").stdout)
        manifest["spec"]["template"].setdefault("metadata", {})["annotations"] = {RUN_DURATION: "1s"}
        self.server.kubectl("create", "-f", "-", input=json.dumps(manifest))
        self.server.kubectl("wait", "--for=condition=complete", "job/oneshot", "--timeout=120s", timeout=150)
        events = self.server.kubectl("get", "events", "--field-selector", "involvedObject.name=oneshot").stdout
        self.assertIn("SuccessfulCreate", events)
        self.assertIn("Completed", events)

    def test_indexed_job_pods_carry_their_indexes(self):
        self.apply(job("indexed", {"completions": 4, "parallelism": 2, "completionMode": "Indexed"}))
        self.server.kubectl("wait", "--for=condition=complete", "job/indexed", "--timeout=120s", timeout=150)
        pods = self.job_pods("indexed")
        indexes = sorted(int(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]) for p in pods)
        self.assertEqual(indexes, [0, 1, 2, 3])
        for p in pods:
            ix = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
            self.assertEqual(p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"], ix)
            self.assertEqual(p["spec"]["hostname"], f"indexed-{ix}")
        status = self.get("/apis/batch/v1/namespaces/default/jobs/indexed")["status"]
        self.assertEqual(status["completedIndexes"], "0-3")

    def test_finished_job_with_ttl_disappears(self):
        self.apply(job("short-lived", {"completions": 1, "ttlSecondsAfterFinished": 2}))
        self.server.kubectl("wait", "--for=condition=complete", "job/short-lived", "--timeout=120s", timeout=150)

        def gone():
            try:
                self.get("/apis/batch/v1/namespaces/default/jobs/short-lived")
                return False
            except urllib.error.HTTPError as e:
                return e.code == 404
        wait_for(self, self.server, "the Job deleted after its TTL", gone, timeout=60)
        wait_for(self, self.server, "its pods deleted", lambda: not self.job_pods("short-lived"), timeout=60)


if __name__ == "__main__":
    unittest.main()
