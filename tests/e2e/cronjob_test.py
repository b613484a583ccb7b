"""CronJobs and Deployment progress deadlines end to end: real kubectl against
`berth serve` (scheduler, controllers and a simulated node in process).

The CronJob runs on the wall clock (the server has no test clock): a
`*/1 * * * *` schedule fires at the next minute, so the first test waits up
to two minutes. A Deployment whose pods can never be scheduled stands for an
image that never becomes ready: its rollout makes no progress either."""

import datetime
import json
import time
import unittest

from berth_server import BerthServer, wait_for


class CronJobTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(["--sim-nodes", "1"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def get_json(self, *args):
        return json.loads(self.server.kubectl("get", *args, "-o", "json").stdout)

    def wait(self, what, predicate, timeout=60):
        return wait_for(self, self.server, what, predicate, timeout, interval=0.5)

    def test_every_minute_creates_a_job_named_for_its_minute(self):
        self.server.kubectl("create", "cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *",
                            "--", "date")

        def owned_jobs():
            jobs = self.get_json("jobs")["items"]
            return [j for j in jobs
                    if any(r.get("kind") == "CronJob" and r.get("name") == "tick" and r.get("controller")
                           for r in j["metadata"].get("ownerReferences", []))
                    and "cronjob.kubernetes.io/instantiate" not in j["metadata"].get("annotations", {})]

        # The next minute boundary is at most 60 s away; generous for a loaded machine.
        jobs = self.wait("a Job of the CronJob", owned_jobs, timeout=150)
        job = jobs[0]
        scheduled = job["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"]
        when = datetime.datetime.strptime(scheduled, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
        self.assertEqual(when.second, 0, scheduled)
        self.assertEqual(job["metadata"]["name"], f"tick-{int(when.timestamp()) // 60}")
        self.assertEqual(job["spec"]["template"]["spec"]["containers"][0]["image"], "busybox")

        def status_lists_it():
            status = self.get_json("cronjob", "tick").get("status", {})
            names = [r["name"] for r in status.get("active", [])]
            return status if job["metadata"]["name"] in names else None

        status = self.wait("the Job in status.active", status_lists_it)
        self.assertEqual(status["lastScheduleTime"], scheduled)
        table = self.server.kubectl("get", "cronjob", "tick").stdout
        self.assertIn("*/1 * * * *", table)
        events = self.server.kubectl("get", "events", "--field-selector", "involvedObject.name=tick").stdout
        self.assertIn("SuccessfulCreate", events)
        self.assertIn("Created job " + job["metadata"]["name"], events)

    def test_create_job_from_cronjob(self):
        self.server.kubectl("create", "cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *",
                            "--", "echo", "hi")
        out = self.server.kubectl("create", "job", "nightly-now", "--from=cronjob/nightly").stdout
        self.assertIn("job.batch/nightly-now created", out)
        job = self.get_json("job", "nightly-now")
        self.assertEqual(job["metadata"]["annotations"].get("cronjob.kubernetes.io/instantiate"), "manual")
        cronjob = self.get_json("cronjob", "nightly")
        refs = job["metadata"]["ownerReferences"]
        self.assertEqual([(r["kind"], r["name"], r["uid"]) for r in refs],
                         [("CronJob", "nightly", cronjob["metadata"]["uid"])])
        self.assertEqual(job["spec"]["template"]["spec"]["containers"][0]["command"], ["echo", "hi"])
        # The controller did not make it: kube's controller says so, and starts nothing itself.
        self.wait("the UnexpectedJob event", lambda: "UnexpectedJob" in self.server.kubectl(
            "get", "events", "--field-selector", "involvedObject.name=nightly").stdout)
        self.assertEqual(self.get_json("cronjob", "nightly").get("status", {}).get("active"), None)

    def test_rollout_status_fails_once_the_progress_deadline_passes(self):
        deployment = {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {
                "replicas": 2, "progressDeadlineSeconds": 5,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    # No node has this label: the pods stay Pending, never ready.
                    "spec": {"nodeSelector": {"example.com/no-such-node": "true"},
                             "containers": [{"name": "c", "image": "nginx"}]}}}}
        started = time.time()
        self.server.kubectl("apply", "-f", "-", input=json.dumps(deployment))
        p = self.server.kubectl("rollout", "status", "deployment/web", "--timeout=120s", check=False, timeout=180)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn('error: deployment "web" exceeded its progress deadline', p.stderr)
        self.assertGreaterEqual(time.time() - started, 5, "timed out before its deadline")
        condition = [c for c in self.get_json("deployment", "web")["status"]["conditions"]
                     if c["type"] == "Progressing"][0]
        self.assertEqual((condition["status"], condition["reason"]), ("False", "ProgressDeadlineExceeded"))
        self.assertRegex(condition["message"], r'^ReplicaSet "web-[a-z0-9]+" has timed out progressing\.$')


if __name__ == "__main__":
    unittest.main()
