"""Scheduling with volumes through `berth serve` and real kubectl: a pod whose
claim does not exist stays Pending with kube's message, and a pod whose claim
is bound to a local PersistentVolume lands on the volume's node."""

import json
import time
import unittest

from berth_server import BerthServer, wait_for


def node(name):
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod_with_claim(name, claim):
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
        },
    }


class VolumeScheduling(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(extra_args=["--in-memory", "--seed", "1"], scheduler=True).start()
        for name in ("n1", "n2", "n3"):
            cls.apply(node(name))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    @classmethod
    def apply(cls, obj):
        cls.server.kubectl("apply", "-f", "-", input=json.dumps(obj))

    def pod_field(self, name, path):
        return self.server.kubectl("get", "pod", name, "-o", "jsonpath=" + path).stdout

    def test_missing_claim_keeps_the_pod_pending_with_kubes_message(self):
        self.apply(pod_with_claim("orphan", "missing"))

        def condition():
            out = self.pod_field("orphan", '{.status.conditions[?(@.type=="PodScheduled")]}')
            return json.loads(out) if out else None

        cond = wait_for(self, self.server, "PodScheduled=False", condition, timeout=30)
        self.assertEqual(cond["status"], "False")
        self.assertEqual(cond["reason"], "Unschedulable")
        self.assertIn('0/3 nodes are available: persistentvolumeclaim "missing" not found.', cond["message"])
        self.assertEqual(self.pod_field("orphan", "{.spec.nodeName}"), "")
        self.assertEqual(self.pod_field("orphan", "{.status.phase}"), "Pending")

    def test_pre_bound_local_volume_pins_its_pod(self):
        # A local volume on n2 and a claim bound to it, as the PV controller
        # leaves such a pair (spec.volumeName, bind-completed).
        self.apply({
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": "local-n2"},
            "spec": {
                "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "storageClassName": "local", "persistentVolumeReclaimPolicy": "Retain",
                "local": {"path": "/mnt/disks/1"},
                "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
                             "namespace": "default", "name": "pinned"},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}]}},
            },
        })
        self.apply({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "pinned", "namespace": "default",
                         "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                     "volumeName": "local-n2", "resources": {"requests": {"storage": "1Gi"}}},
        })
        # Several pods on the same claim: every one lands on n2, never elsewhere.
        for i in range(3):
            self.apply(pod_with_claim(f"pinned-{i}", "pinned"))
        for i in range(3):
            placed = wait_for(self, self.server, f"pinned-{i} bound",
                              lambda: self.pod_field(f"pinned-{i}", "{.spec.nodeName}"), timeout=30)
            self.assertEqual(placed, "n2")


if __name__ == "__main__":
    unittest.main()
