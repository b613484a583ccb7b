"""The endpoint controllers end to end: real kubectl against `berth serve
--sim-nodes 3` (scheduler, controllers and simulated kubelets in process). A
Deployment behind a Service gets EndpointSlices and an Endpoints object that
follow scaling, and lose them with the Service."""

import json
import unittest

from berth_server import BerthServer, wait_for


class EndpointsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(["--sim-nodes", "3", "--sim-zones", "2"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def kubectl(self, *args, **kwargs):
        return self.server.kubectl(*args, **kwargs).stdout

    def wait(self, what, predicate, timeout=90):
        return wait_for(self, self.server, what, predicate, timeout, interval=0.2)

    def slices(self, service):
        out = self.kubectl("get", "endpointslices", "-l", f"kubernetes.io/service-name={service}", "-o", "json")
        return json.loads(out)["items"]

    def slice_endpoints(self, service):
        """(address, ready, zone) of every endpoint of the Service's slices."""
        return sorted((e["addresses"][0], e["conditions"].get("ready"), e.get("zone"))
                      for s in self.slices(service) for e in (s.get("endpoints") or []))

    def pod_ips(self, selector):
        pods = json.loads(self.kubectl("get", "pods", "-l", selector, "-o", "json"))["items"]
        return sorted(p["status"]["podIP"] for p in pods
                      if p.get("status", {}).get("podIP") and "deletionTimestamp" not in p["metadata"]
                      and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", [])))

    def describe_endpoints(self, service):
        for line in self.kubectl("describe", "svc", service).splitlines():
            if line.startswith("Endpoints:"):
                value = line.split(":", 1)[1].strip()
                return sorted(value.split(",")) if value and value != "<none>" else []
        self.fail("kubectl describe svc shows no Endpoints line")

    def test_deployment_behind_a_service(self):
        self.kubectl("create", "deployment", "web", "--image=nginx", "--replicas=3")
        self.kubectl("expose", "deployment", "web", "--port=80", "--target-port=8080")
        ips = self.wait("3 ready pods", lambda: (lambda ips: ips if len(ips) == 3 else None)(self.pod_ips("app=web")))

        # One slice with the three pods, ready, each in its node's zone.
        endpoints = self.wait("3 ready endpoints in the slices",
                              lambda: (lambda e: e if [a for a, ready, _ in e if ready] == ips else None)(
                                  self.slice_endpoints("web")))
        self.assertEqual([a for a, _, _ in endpoints], ips)
        self.assertTrue(all(zone in ("zone-a", "zone-b") for _, _, zone in endpoints), endpoints)
        slices = self.slices("web")
        self.assertEqual(len(slices), 1)
        s = slices[0]
        self.assertTrue(s["metadata"]["name"].startswith("web-"))
        self.assertEqual(s["addressType"], "IPv4")
        self.assertEqual(s["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"],
                         "endpointslice-controller.k8s.io")
        self.assertEqual(s["metadata"]["ownerReferences"][0]["kind"], "Service")
        self.assertEqual([p["port"] for p in s["ports"]], [8080])
        self.assertIn("endpoints.kubernetes.io/last-change-trigger-time", s["metadata"].get("annotations", {}))

        # kubectl's tables.
        table = self.kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=web").splitlines()
        self.assertEqual(table[0].split(), ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"])
        row = table[1].split()
        self.assertEqual(row[1:3], ["IPv4", "8080"])
        self.assertEqual(sorted(row[3].split(",")), ips)
        table = self.kubectl("get", "endpoints", "web").splitlines()
        self.assertEqual(table[0].split(), ["NAME", "ENDPOINTS", "AGE"])
        self.assertEqual(sorted(table[1].split()[1].split(",")), sorted(f"{ip}:8080" for ip in ips))
        self.assertEqual(self.describe_endpoints("web"), sorted(f"{ip}:8080" for ip in ips))

        # Scaling down is followed.
        self.kubectl("scale", "deployment", "web", "--replicas=1")
        left = self.wait("one pod left", lambda: (lambda ips: ips if len(ips) == 1 else None)(self.pod_ips("app=web")))
        self.wait("one endpoint left", lambda: [a for a, _, _ in self.slice_endpoints("web")] == left)
        self.wait("describe svc showing one endpoint", lambda: self.describe_endpoints("web") == [f"{left[0]}:8080"])
        endpoints_object = json.loads(self.kubectl("get", "endpoints", "web", "-o", "json"))
        self.assertEqual(endpoints_object["metadata"]["labels"]["endpointslice.kubernetes.io/skip-mirror"], "true")

        # The Service goes, and its slices and Endpoints with it.
        self.kubectl("delete", "service", "web")
        self.wait("the slices gone", lambda: self.slices("web") == [])
        self.wait("the Endpoints gone",
                  lambda: self.server.kubectl("get", "endpoints", "web", check=False).returncode != 0)

    def test_unready_pods_and_selectorless_services(self):
        # Readiness through a readiness gate: the simulated kubelet reports the
        # pod Ready only while the gate's condition is True, as kube's does.
        self.server.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lone", "labels": {"app": "lone"}},
            "spec": {"readinessGates": [{"conditionType": "example.com/serving"}],
                     "containers": [{"name": "c", "image": "nginx"}]}}))
        gate = lambda status: json.dumps({"status": {"conditions": [
            {"type": "example.com/serving", "status": status, "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})
        self.wait("lone bound", lambda: json.loads(self.kubectl("get", "pod", "lone", "-o", "json"))
                  .get("status", {}).get("podIP"))
        self.kubectl("patch", "pod", "lone", "--subresource=status", "--type=strategic", "-p", gate("True"))
        self.wait("lone ready", lambda: self.pod_ips("app=lone"))
        self.kubectl("create", "service", "clusterip", "lone", "--tcp=80:8080")
        self.wait("lone ready in its slice", lambda: [r for _, r, _ in self.slice_endpoints("lone")] == [True])
        # The gate turns False: the pod turns unready.
        self.kubectl("patch", "pod", "lone", "--subresource=status", "--type=strategic", "-p", gate("False"))
        self.wait("lone not ready in its slice", lambda: [r for _, r, _ in self.slice_endpoints("lone")] == [False])
        self.wait("lone not ready in its Endpoints", lambda: "notReadyAddresses" in json.loads(
            self.kubectl("get", "endpoints", "lone", "-o", "json")).get("subsets", [{}])[0])
        # A Service without a selector gets neither slices nor Endpoints.
        self.server.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "manual"},
            "spec": {"ports": [{"port": 80}]}}))
        self.wait("lone's Endpoints", lambda: self.server.kubectl("get", "endpoints", "lone", check=False).returncode == 0)
        self.assertEqual(self.slices("manual"), [])
        self.assertNotEqual(self.server.kubectl("get", "endpoints", "manual", check=False).returncode, 0)
        self.assertEqual(self.describe_endpoints("manual"), [])


if __name__ == "__main__":
    unittest.main()
