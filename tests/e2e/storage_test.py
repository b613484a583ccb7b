"""Volumes and zones end to end, as a user sees them with real kubectl against
`berth serve` (scheduler, PV controller, simulated CSI provisioner and
kubelets in process; nodes in three zones): a WaitForFirstConsumer claim
follows its pod's zone; a pod whose Immediate claim has nothing to bind stays
Pending with kube's message until a volume appears; an unhealthy volume is
avoided; a StatefulSet as users write it (volumeClaimTemplates on a class
naming a real provisioner) ends Running with every claim Bound, and scales
down and up with its claims kept per the retention policy."""

import json
import subprocess
import unittest

from berth_server import BERTH, BerthServer, wait_for

SIM_CONFIG = """groups:
- count: 6
  namePrefix: node-
  zones: [zone-a, zone-b, zone-c]
  storageClasses: [gp3]
  storageCapacity: 50Gi
"""

GP3 = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gp3"},
       "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
       "reclaimPolicy": "Delete", "parameters": {"type": "gp3"}}

STATEFULSET = """
apiVersion: v1
kind: Service
metadata:
  name: db
spec:
  clusterIP: None
  selector:
    app: db
  ports:
  - port: 5432
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 3
  selector:
    matchLabels:
      app: db
  persistentVolumeClaimRetentionPolicy:
    whenScaled: Retain
    whenDeleted: Retain
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: postgres
        image: postgres:16
        ports:
        - containerPort: 5432
        volumeMounts:
        - name: data
          mountPath: /var/lib/postgresql/data
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: ["ReadWriteOnce"]
      storageClassName: gp3
      resources:
        requests:
          storage: 5Gi
"""


def pod(name, claim, node_selector=None):
    spec = {"containers": [{"name": "c", "image": "busybox", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}],
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def claim(name, storage_class, size="1Gi"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "resources": {"requests": {"storage": size}}}}


def volume(name, storage_class, size="2Gi", zone=None, annotations=None):
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
          "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                   "storageClassName": storage_class, "csi": {"driver": "static.example.com", "volumeHandle": name}}}
    if zone:
        pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}
    if annotations:
        pv["metadata"]["annotations"] = annotations
    return pv


class StorageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        server = BerthServer(scheduler=True)
        config = server.write_file("sim.yaml", SIM_CONFIG)
        server.extra_args = ["--sim-config", config] + server.extra_args
        cls.server = server.start()
        cls.server.kubectl("apply", "-f", "-", input=json.dumps(GP3))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def setUp(self):
        self.ns = self.id().rsplit(".", 1)[-1].replace("_", "-")[:60]
        self.kubectl("create", "namespace", self.ns)

    def kubectl(self, *args, **kwargs):
        return self.server.kubectl(*args, **kwargs)

    def apply(self, obj):
        text = obj if isinstance(obj, str) else json.dumps(obj)
        self.kubectl("apply", "-n", self.ns, "-f", "-", input=text)

    def get(self, *args):
        result = self.kubectl("get", "-n", self.ns, *args, "-o", "json", check=False)
        return json.loads(result.stdout) if result.returncode == 0 else None

    def wait(self, what, predicate, timeout=60):
        return wait_for(self, self.server, what, predicate, timeout, interval=0.2)

    def running(self, name):
        p = self.get("pod", name)
        return p if p and p["status"].get("phase") == "Running" else None

    def node_zone(self, node):
        return self.get("node", node)["metadata"]["labels"]["topology.kubernetes.io/zone"]

    def test_wait_for_first_consumer_claim_follows_the_pods_zone(self):
        self.apply(claim("data", "gp3"))
        # Nothing is provisioned before a pod uses the claim.
        self.wait("the WaitForFirstConsumer event", lambda: "WaitForFirstConsumer" in self.kubectl(
            "get", "events", "-n", self.ns, "--field-selector", "involvedObject.name=data").stdout)
        self.assertEqual(self.get("pvc", "data")["status"]["phase"], "Pending")
        self.apply(pod("app", "data", {"topology.kubernetes.io/zone": "zone-c"}))
        p = self.wait("the pod Running", lambda: self.running("app"))
        self.assertEqual(self.node_zone(p["spec"]["nodeName"]), "zone-c")
        pvc = self.wait("the claim Bound", lambda: (lambda c: c if c["status"].get("phase") == "Bound" else None)(
            self.get("pvc", "data")))
        self.assertEqual(pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"], p["spec"]["nodeName"])
        pv = self.get("pv", pvc["spec"]["volumeName"])
        terms = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
        self.assertEqual(terms[0]["matchExpressions"][0]["values"], ["zone-c"])

    def test_unbound_immediate_claim_keeps_its_pod_pending_until_a_volume_appears(self):
        self.apply(claim("later", "manual-" + self.ns))
        self.apply(pod("waits", "later"))
        message = "pod has unbound immediate PersistentVolumeClaims"
        self.wait("kube's message on the pending pod", lambda: message in json.dumps(
            self.get("pod", "waits")["status"].get("conditions", [])))
        self.assertEqual(self.get("pod", "waits")["status"]["phase"], "Pending")
        self.apply(volume("pv-" + self.ns, "manual-" + self.ns, zone="zone-b"))
        p = self.wait("the pod Running once the volume bound", lambda: self.running("waits"))
        self.assertEqual(self.node_zone(p["spec"]["nodeName"]), "zone-b")

    def test_an_unhealthy_volume_is_avoided(self):
        cls = "static-" + self.ns
        self.apply({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": cls},
                    "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"})
        # Both fit in the same zone: the smaller one would be chosen, but it is marked unhealthy.
        self.apply(volume("small-" + self.ns, cls, size="1Gi", zone="zone-b"))
        self.apply(volume("big-" + self.ns, cls, size="5Gi", zone="zone-b"))
        subprocess.run([BERTH, "sim", "volume-health", "small-" + self.ns, "false", "--server", self.server.url],
                       check=True, capture_output=True, text=True)
        self.apply(claim("c", cls))
        self.apply(pod("user", "c"))
        p = self.wait("the pod Running", lambda: self.running("user"))
        self.assertEqual(self.get("pvc", "c")["spec"]["volumeName"], "big-" + self.ns)
        self.assertEqual(self.node_zone(p["spec"]["nodeName"]), "zone-b")

    def test_a_statefulset_with_claim_templates_runs_and_scales(self):
        self.apply(STATEFULSET)
        self.kubectl("rollout", "status", "-n", self.ns, "statefulset/db", "--timeout=120s")
        claims = self.wait("three claims Bound", lambda: (lambda items: items if len(items) == 3 and all(
            c["status"].get("phase") == "Bound" for c in items) else None)(self.get("pvc")["items"]))
        self.assertEqual(sorted(c["metadata"]["name"] for c in claims), ["data-db-0", "data-db-1", "data-db-2"])
        for i in range(3):
            p = self.running(f"db-{i}")
            self.assertIsNotNone(p, f"db-{i}")
            c = self.get("pvc", f"data-db-{i}")
            # Each claim was provisioned in its pod's zone.
            pv = self.get("pv", c["spec"]["volumeName"])
            zones = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"]
            self.assertEqual(zones, [self.node_zone(p["spec"]["nodeName"])], f"db-{i}")
        self.kubectl("scale", "-n", self.ns, "statefulset/db", "--replicas=1")
        self.wait("scaled down to db-0", lambda: [p["metadata"]["name"] for p in self.get("pods")["items"]] == ["db-0"])
        # whenScaled: Retain keeps the claims; scaling up again reuses them.
        self.assertEqual(len(self.get("pvc")["items"]), 3)
        self.kubectl("scale", "-n", self.ns, "statefulset/db", "--replicas=3")
        self.kubectl("rollout", "status", "-n", self.ns, "statefulset/db", "--timeout=120s")
        self.assertEqual(sorted(c["metadata"]["name"] for c in self.get("pvc")["items"]),
                         ["data-db-0", "data-db-1", "data-db-2"])


if __name__ == "__main__":
    unittest.main()
