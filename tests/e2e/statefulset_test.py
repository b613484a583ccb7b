"""StatefulSets end to end: real kubectl against `berth serve --sim-nodes 2`
(scheduler, controllers, provisioner and simulated kubelets in process). The
claim templates name no class: the default StorageClass is theirs (kube's
DefaultStorageClass admission) and its claims are provisioned for the node
the scheduler picks."""

import json
import unittest

from berth_server import BerthServer, wait_for

STATEFUL_SET = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 3
  selector: {matchLabels: {app: web}}
  persistentVolumeClaimRetentionPolicy: {whenScaled: Delete, whenDeleted: Retain}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.25"}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
"""


class StatefulSetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(["--sim-nodes", "2"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def kubectl(self, *args, **kw):
        return self.server.kubectl(*args, **kw)

    def wait(self, what, predicate, timeout=60):
        return wait_for(self, self.server, what, predicate, timeout, interval=0.1)

    def names(self, kind):
        out = self.kubectl("get", kind, "-o", "json").stdout
        return sorted(o["metadata"]["name"] for o in json.loads(out)["items"]
                      if "deletionTimestamp" not in o["metadata"])

    def running(self):
        pods = json.loads(self.kubectl("get", "pods", "-o", "json").stdout)["items"]
        return sorted(p["metadata"]["name"] for p in pods
                      if p["status"].get("phase") == "Running" and "deletionTimestamp" not in p["metadata"])

    def test_scale_with_claims_and_rolling_update(self):
        self.kubectl("apply", "-f", "-", input=STATEFUL_SET)
        want = ["web-0", "web-1", "web-2"]
        self.wait("three pods Running", lambda: self.running() == want or None)
        self.assertEqual(self.names("pvc"), ["www-web-0", "www-web-1", "www-web-2"])
        pod = json.loads(self.kubectl("get", "pod", "web-1", "-o", "json").stdout)
        self.assertEqual(pod["spec"]["hostname"], "web-1")
        self.assertEqual(pod["spec"]["subdomain"], "web")
        self.assertEqual(pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"], "web-1")
        claim_volume = [v for v in pod["spec"]["volumes"] if v["name"] == "www"][0]
        self.assertEqual(claim_volume["persistentVolumeClaim"]["claimName"], "www-web-1")

        # whenScaled: Delete: the claims of the pods scaled away go with them.
        self.kubectl("scale", "sts", "web", "--replicas=1")
        self.wait("scaled down to web-0", lambda: self.names("pods") == ["web-0"] or None)
        self.wait("claims of scaled-down pods deleted",
                  lambda: self.names("pvc") == ["www-web-0"] or None)
        self.kubectl("scale", "sts", "web", "--replicas=2")
        self.wait("scaled up again", lambda: self.running() == ["web-0", "web-1"] or None)
        self.assertEqual(self.names("pvc"), ["www-web-0", "www-web-1"])

        # A rolling update that `kubectl rollout status` sees finish.
        self.kubectl("set", "image", "sts/web", "nginx=nginx:1.26")
        status = self.kubectl("rollout", "status", "sts/web", "--timeout=60s", timeout=90)
        self.assertIn("roll out complete", status.stdout)
        sts = json.loads(self.kubectl("get", "sts", "web", "-o", "json").stdout)
        self.assertEqual(sts["status"]["updatedReplicas"], 2)
        self.assertEqual(sts["status"]["currentRevision"], sts["status"]["updateRevision"])
        for name in ["web-0", "web-1"]:
            pod = json.loads(self.kubectl("get", "pod", name, "-o", "json").stdout)
            self.assertEqual(pod["spec"]["containers"][0]["image"], "nginx:1.26")
            self.assertEqual(pod["metadata"]["labels"]["controller-revision-hash"],
                             sts["status"]["updateRevision"])
        history = self.kubectl("rollout", "history", "sts/web").stdout
        self.assertRegex(history, r"(?m)^1\s")
        self.assertRegex(history, r"(?m)^2\s")

        # Undo goes back to the first template.
        self.kubectl("rollout", "undo", "sts/web")
        self.kubectl("rollout", "status", "sts/web", "--timeout=60s", timeout=90)
        self.wait("pods back on nginx:1.25", lambda: all(
            json.loads(self.kubectl("get", "pod", n, "-o", "json", check=False).stdout or "{}")
            .get("spec", {}).get("containers", [{}])[0].get("image") == "nginx:1.25"
            for n in ["web-0", "web-1"]) or None)

        # whenDeleted: Retain: the claims outlive the set.
        self.kubectl("delete", "sts", "web")
        self.wait("pods gone", lambda: self.names("pods") == [] or None)
        self.assertEqual(self.names("pvc"), ["www-web-0", "www-web-1"])


if __name__ == "__main__":
    unittest.main()
