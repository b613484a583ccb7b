"""ResourceQuota end to end: real kubectl against `berth serve --sim-nodes 2`.
The quota controller counts what the namespace uses, the ResourceQuota
admission plugin refuses the pod that would exceed it with kube's message, and
a deleted pod gives its share back."""

import json
import unittest

from berth_server import BerthServer, wait_for


class QuotaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(["--sim-nodes", "2"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def kubectl(self, *args, **kwargs):
        return self.server.kubectl(*args, **kwargs)

    def used(self, name):
        quota = json.loads(self.kubectl("get", "resourcequota", name, "-o", "json").stdout)
        return quota.get("status", {}).get("used", {})

    def pod(self, name, cpu):
        return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                           "spec": {"containers": [{"name": "c", "image": "nginx",
                                                    "resources": {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}}]}})

    def test_quota_counts_refuses_and_is_replenished(self):
        self.kubectl("create", "quota", "compute", "--hard=pods=2,requests.cpu=1")
        wait_for(self, self.server, "the quota counted", lambda: self.used("compute") == {"pods": "0", "requests.cpu": "0"},
                 timeout=30, interval=0.2)
        self.kubectl("apply", "-f", "-", input=self.pod("a", "400m"))
        self.kubectl("apply", "-f", "-", input=self.pod("b", "400m"))
        refused = self.kubectl("apply", "-f", "-", input=self.pod("c", "400m"), check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn('pods "c" is forbidden: exceeded quota: compute, requested: pods=1,requests.cpu=400m, '
                      'used: pods=2,requests.cpu=800m, limited: pods=2,requests.cpu=1', refused.stderr)
        self.assertEqual(self.used("compute"), {"pods": "2", "requests.cpu": "800m"})
        table = self.kubectl("get", "quota", "compute").stdout
        self.assertIn("pods: 2/2, requests.cpu: 800m/1", table)
        # A deleted pod gives its share back (the controller recounts).
        self.kubectl("delete", "pod", "a", "--grace-period=0", "--force")
        wait_for(self, self.server, "pod a's share back",
                 lambda: self.used("compute") == {"pods": "1", "requests.cpu": "400m"}, timeout=60, interval=0.2)
        self.kubectl("apply", "-f", "-", input=self.pod("c", "400m"))


if __name__ == "__main__":
    unittest.main()
