"""Hostile and careless input against berth serve: values of the wrong type
are refused with kube's decoder message (and nothing is stored), pod fields
kube's validation refuses are refused, and no request gets a 500."""

import json
import os
import sys
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: two
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
"""


def pod(name, **spec):
    body = {"containers": [{"name": "c", "image": "nginx"}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


class ValidationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def request(self, method, path, body=None, content_type="application/json"):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request(self.server.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def names(self, path):
        status, listed = self.request("GET", path)
        self.assertEqual(status, 200, listed)
        return [item["metadata"]["name"] for item in listed["items"]]

    def test_kubectl_apply_of_replicas_two_is_refused_and_nothing_stored(self):
        self.server.kubectl("apply", "-f", "-", input=DEPLOYMENT.replace("web}", "ok}", 1).replace("two", "1"))
        p = self.server.kubectl("apply", "-f", "-", input=DEPLOYMENT, check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string '
                      'into Go struct field DeploymentSpec.spec.replicas of type int32', p.stderr)
        self.assertIn("BadRequest", p.stderr)
        names = self.names("/apis/apps/v1/namespaces/default/deployments")
        self.assertIn("ok", names)
        self.assertNotIn("web", names)
        # The Python client, which decodes every field by its type, lists them.
        from kubernetes import client
        config = client.Configuration()
        config.host = self.server.url
        apps = client.AppsV1Api(client.ApiClient(config))
        listed = apps.list_namespaced_deployment("default").items
        replicas = {d.metadata.name: d.spec.replicas for d in listed}
        self.assertEqual(replicas["ok"], 1)
        self.assertNotIn("web", replicas)

    def test_wrong_types_in_a_pod_are_refused(self):
        cases = [
            ("grace", {"terminationGracePeriodSeconds": "long"},
             "json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of "
             "type int64"),
            ("prio", {"priority": "hi"},
             "json: cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32"),
            ("prio-high", {"priority": "high"},
             "json: cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32"),
        ]
        for name, spec, message in cases:
            status, answer = self.request("POST", "/api/v1/namespaces/default/pods", pod(name, **spec))
            self.assertEqual(status, 400, answer)
            self.assertEqual(answer["reason"], "BadRequest")
            self.assertEqual(answer["message"], 'Pod in version "v1" cannot be handled as a Pod: ' + message)
        stored = self.names("/api/v1/namespaces/default/pods")
        for name, _, _ in cases:
            self.assertNotIn(name, stored)

    def test_a_patch_to_a_wrong_type_changes_nothing(self):
        status, created = self.request("POST", "/api/v1/namespaces/default/configmaps",
                                       {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"},
                                        "data": {"a": "1"}})
        self.assertEqual(status, 201, created)
        status, answer = self.request("PATCH", "/api/v1/namespaces/default/configmaps/cm", {"data": {"a": 2}},
                                      "application/merge-patch+json")
        self.assertEqual(status, 422, answer)
        self.assertIn("json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
                      answer["message"])
        status, current = self.request("GET", "/api/v1/namespaces/default/configmaps/cm")
        self.assertEqual(current["data"], {"a": "1"})
        self.assertEqual(current["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"])

    def test_the_issues_pods_are_refused_with_kubes_messages(self):
        cases = [
            ("maybe", {"tolerations": [{"key": "k", "operator": "Maybe"}]},
             'spec.tolerations[0].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"'),
            ("near", {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Near",
                                                             "values": ["a"]}]}]}}}},
             "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
             'matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator'),
            ("skew", {"topologySpreadConstraints": [{"maxSkew": -1, "topologyKey": "zone",
                                                     "whenUnsatisfiable": "DoNotSchedule"}]},
             "spec.topologySpreadConstraints[0].maxSkew: Invalid value: -1: must be greater than zero"),
        ]
        for name, spec, cause in cases:
            status, answer = self.request("POST", "/api/v1/namespaces/default/pods", pod(name, **spec))
            self.assertEqual(status, 422, answer)
            self.assertEqual(answer["reason"], "Invalid")
            self.assertEqual(answer["message"], f'Pod "{name}" is invalid: {cause}')
        stored = self.names("/api/v1/namespaces/default/pods")
        for name, _, _ in cases:
            self.assertNotIn(name, stored)

    def test_hostile_requests_never_get_a_500(self):
        status, _ = self.request("POST", "/apis/apps/v1/namespaces/default/deployments",
                                 {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                                  "spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
                                           "template": {"metadata": {"labels": {"a": "b"}},
                                                        "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
        self.assertEqual(status, 201)
        status, _ = self.request("POST", "/api/v1/namespaces/default/pods", pod("bound"))
        self.assertEqual(status, 201)
        scale = "/apis/apps/v1/namespaces/default/deployments/d/scale"
        hostile = [
            ("POST", "/api/v1/namespaces/default/pods/bound/binding",
             {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bound"}, "target": {"name": ""}}),
            ("POST", "/api/v1/namespaces/default/pods/bound/binding", {"target": 5}),
            ("PUT", scale, {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d"},
                            "spec": {"replicas": 1.5}}),
            ("PUT", scale, {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d"},
                            "spec": {"replicas": "two"}}),
            ("POST", "/api/v1/namespaces/default/pods", pod("p1", containers=[{"name": "c", "image": "i",
                                                                            "resources": {"limits": {"cpu": []}}}])),
            ("POST", "/api/v1/namespaces/default/pods", pod("p2", activeDeadlineSeconds=1e300)),
            ("POST", "/api/v1/namespaces/default/pods", pod("p3", containers=[{"name": "c", "image": "i",
                                                                            "ports": [{"containerPort": 99.5}]}])),
            ("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
             {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "x"},
              "value": 1.5}),
            ("POST", "/api/v1/namespaces/default/pods", pod("p4", tolerations=[{"key": "k", "tolerationSeconds": "x"}])),
            ("POST", "/apis/batch/v1/namespaces/default/jobs",
             {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
              "spec": {"parallelism": 1e10, "template": {"spec": {"containers": []}}}}),
        ]
        for method, path, body in hostile:
            status, answer = self.request(method, path, body)
            self.assertGreaterEqual(status, 400, (method, path, body, answer))
            self.assertLess(status, 500, (method, path, body, answer))
        status, current = self.request("GET", scale)
        self.assertEqual(current["spec"]["replicas"], 1)


if __name__ == "__main__":
    unittest.main()
