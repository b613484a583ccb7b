"""The PersistentVolume controller and the simulated CSI provisioner end to end,
with real kubectl against `berth serve` (simulated nodes in three zones, capacity
from --sim-config): an Immediate claim binds to a volume created after it; a
dynamically provisioned claim gets a volume in its class's zone; deleting the
claim removes a volume whose policy is Delete."""

import json
import os
import subprocess
import unittest

from berth_server import BERTH, BerthServer, wait_for

SIM_CONFIG = """groups:
- count: 3
  namePrefix: node-
  zones: [zone-a, zone-b, zone-c]
  storageClasses: [zonal]
  storageCapacity: 10Gi
"""

CLAIM = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "static"},
         "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                  "resources": {"requests": {"storage": "1Gi"}}}}
VOLUME = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-late"},
          "spec": {"capacity": {"storage": "2Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
                   "hostPath": {"path": "/tmp/pv-late"}}}
CLASS = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "zonal"},
         "provisioner": "ebs.csi.aws.com", "reclaimPolicy": "Delete",
         "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone",
                                                            "values": ["zone-b"]}]}]}
DYNAMIC = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "dynamic"},
           "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "zonal",
                    "resources": {"requests": {"storage": "3Gi"}}}}


class VolumeBinderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        server = BerthServer()
        config = server.write_file("sim.yaml", SIM_CONFIG)
        server.extra_args = ["--sim-config", config] + server.extra_args
        cls.server = server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def kubectl(self, *args, **kwargs):
        return self.server.kubectl(*args, **kwargs)

    def get(self, *args):
        result = self.kubectl("get", *args, "-o", "json", check=False)
        return json.loads(result.stdout) if result.returncode == 0 else None

    def phase(self, *args):
        o = self.get(*args)
        return o and o.get("status", {}).get("phase")

    def test_binding_provisioning_and_reclaim(self):
        # An Immediate claim with nothing to bind stays Pending, then binds to a volume created after it.
        self.kubectl("apply", "-f", "-", input=json.dumps(CLAIM))
        wait_for(self, self.server, "the claim's FailedBinding event",
                 lambda: "no persistent volumes available for this claim and no storage class is set"
                 in self.kubectl("get", "events", "--field-selector", "involvedObject.name=static").stdout,
                 timeout=30, interval=0.2)
        self.assertEqual(self.phase("pvc", "static"), "Pending")
        self.kubectl("apply", "-f", "-", input=json.dumps(VOLUME))
        wait_for(self, self.server, "the claim bound", lambda: self.phase("pvc", "static") == "Bound",
                 timeout=30, interval=0.2)
        claim = self.get("pvc", "static")
        self.assertEqual(claim["spec"]["volumeName"], "pv-late")
        annotations = claim["metadata"]["annotations"]
        self.assertEqual(annotations["pv.kubernetes.io/bind-completed"], "yes")
        self.assertIn("scheduler.berth.dev/bound-at", annotations)
        self.assertEqual(claim["metadata"]["finalizers"], ["kubernetes.io/pvc-protection"])
        self.assertEqual(self.phase("pv", "pv-late"), "Bound")

        # A provisioned claim gets a volume in the class's zone; capacity is published.
        self.kubectl("apply", "-f", "-", input=json.dumps(CLASS))
        self.kubectl("apply", "-f", "-", input=json.dumps(DYNAMIC))
        wait_for(self, self.server, "the provisioned claim bound", lambda: self.phase("pvc", "dynamic") == "Bound",
                 timeout=30, interval=0.2)
        claim = self.get("pvc", "dynamic")
        volume_name = claim["spec"]["volumeName"]
        self.assertEqual(volume_name, "pvc-" + claim["metadata"]["uid"])
        volume = self.get("pv", volume_name)
        self.assertEqual(volume["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"], "ebs.csi.aws.com")
        term = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
        self.assertEqual((term["key"], term["values"]), ("topology.kubernetes.io/zone", ["zone-b"]))
        wait_for(self, self.server, "zone-b's capacity reduced",
                 lambda: (self.get("csistoragecapacity", "sim-zonal-zone-b", "-n", "kube-system") or {})
                 .get("capacity") == "7Gi", timeout=30, interval=0.2)

        # Deleting the claim removes its volume (reclaimPolicy Delete) and gives the room back.
        self.kubectl("delete", "pvc", "dynamic")
        wait_for(self, self.server, "the provisioned volume deleted",
                 lambda: self.kubectl("get", "pv", volume_name, check=False).returncode != 0,
                 timeout=30, interval=0.2)
        wait_for(self, self.server, "zone-b's capacity back",
                 lambda: (self.get("csistoragecapacity", "sim-zonal-zone-b", "-n", "kube-system") or {})
                 .get("capacity") == "10Gi", timeout=30, interval=0.2)

        # berth sim volume-health marks a volume unhealthy.
        out = subprocess.run([BERTH, "sim", "volume-health", "pv-late", "false", "--server", self.server.url],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.strip(), "persistentvolume/pv-late unhealthy")
        self.assertEqual(self.get("pv", "pv-late")["metadata"]["annotations"]["sim.berth.dev/volume-healthy"], "false")


if __name__ == "__main__":
    unittest.main()
