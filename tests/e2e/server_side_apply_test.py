"""`kubectl apply --server-side` (v1.32) against berth serve: managers, conflicts, force."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: %d
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: nginx:1.25
        ports:
        - containerPort: 80
"""

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              color: {type: string}
              parts:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    count: {type: integer}
"""

WIDGET = """
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
%s
"""


class ServerSideApplyTest(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer().start()
        self.addCleanup(self.server.cleanup)
        self.addCleanup(self.server.stop)

    def apply(self, name, text, *extra, check=True):
        path = self.server.write_file(name, text)
        return self.server.kubectl("apply", "--server-side", "-f", path, *extra, check=check)

    def managed_fields(self, *resource):
        out = self.server.kubectl("get", *resource, "-o", "json", "--show-managed-fields").stdout
        return {(e["manager"], e["operation"]): e for e in json.loads(out)["metadata"]["managedFields"]}

    def test_two_managers_conflict_and_force(self):
        p = self.apply("d1.yaml", DEPLOYMENT % 2)
        self.assertIn("deployment.apps/web serverside-applied", p.stdout)
        managers = self.managed_fields("deployment", "web")
        self.assertIn(("kubectl", "Apply"), managers)
        fields = managers[("kubectl", "Apply")]["fieldsV1"]
        self.assertEqual(fields["f:spec"]["f:replicas"], {})
        self.assertIn('k:{"name":"c"}', fields["f:spec"]["f:template"]["f:spec"]["f:containers"])

        # Applying the same configuration again changes nothing.
        rv = json.loads(self.server.kubectl("get", "deployment", "web", "-o", "json").stdout)[
            "metadata"]["resourceVersion"]
        self.apply("d1.yaml", DEPLOYMENT % 2)
        again = json.loads(self.server.kubectl("get", "deployment", "web", "-o", "json").stdout)
        self.assertEqual(again["metadata"]["resourceVersion"], rv)

        # Another manager setting replicas differently conflicts.
        p = self.apply("d2.yaml", DEPLOYMENT % 3, "--field-manager=other", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas', p.stderr)
        replicas = self.server.kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}").stdout
        self.assertEqual(replicas, "2")

        # --force-conflicts takes it: both managers are recorded, replicas moved.
        self.apply("d2.yaml", DEPLOYMENT % 3, "--field-manager=other", "--force-conflicts")
        replicas = self.server.kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}").stdout
        self.assertEqual(replicas, "3")
        managers = self.managed_fields("deployment", "web")
        self.assertIn(("kubectl", "Apply"), managers)
        self.assertIn(("other", "Apply"), managers)
        self.assertNotIn("f:replicas", managers[("kubectl", "Apply")]["fieldsV1"]["f:spec"])
        self.assertIn("f:replicas", managers[("other", "Apply")]["fieldsV1"]["f:spec"])
        shown = self.server.kubectl("get", "deployment", "web", "-o", "yaml", "--show-managed-fields").stdout
        self.assertIn("manager: other", shown)
        self.assertIn("operation: Apply", shown)

    def test_apply_conflicts_with_an_update_manager(self):
        # Ownership is tracked from the first apply on (berth records no
        # managedFields for objects never applied server-side).
        self.apply("d.yaml", DEPLOYMENT % 2)
        self.server.kubectl("patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"replicas":4}}')
        self.assertIn(("kubectl-patch", "Update"), self.managed_fields("deployment", "web"))
        p = self.apply("d2.yaml", DEPLOYMENT % 2, check=False)
        self.assertIn('conflict with "kubectl-patch" using apps/v1: .spec.replicas', p.stderr)
        # The same value as the updater's is no conflict: ownership is shared.
        self.apply("d3.yaml", DEPLOYMENT % 4)

    def test_custom_resource(self):
        k = self.server.kubectl
        k("apply", "-f", self.server.write_file("crd.yaml", CRD))
        k("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=10s")
        self.apply("w1.yaml", WIDGET % "  size: 3\n  color: red")
        p = self.apply("w2.yaml", WIDGET % "  color: blue", "--field-manager=painter", check=False)
        self.assertIn('conflict with "kubectl": .spec.color', p.stderr)
        # The first manager drops color; the painter can then set it.
        self.apply("w1.yaml", WIDGET % "  size: 3")
        got = json.loads(k("get", "widget", "w1", "-o", "json").stdout)
        self.assertEqual(got["spec"], {"size": 3})
        self.apply("w2.yaml", WIDGET % "  color: blue", "--field-manager=painter")
        got = json.loads(k("get", "widget", "w1", "-o", "json").stdout)
        self.assertEqual(got["spec"], {"size": 3, "color": "blue"})
        managers = self.managed_fields("widget", "w1")
        self.assertEqual(managers[("painter", "Apply")]["fieldsV1"], {"f:spec": {"f:color": {}}})

        # A list the schema keys by name merges item by item, one owner each.
        self.apply("w1.yaml", WIDGET % "  size: 3\n  parts: [{name: a, count: 1}]")
        self.apply("w2.yaml", WIDGET % "  color: blue\n  parts: [{name: b, count: 2}]", "--field-manager=painter")
        got = json.loads(k("get", "widget", "w1", "-o", "json").stdout)
        self.assertEqual(got["spec"]["parts"], [{"name": "a", "count": 1}, {"name": "b", "count": 2}])
        managers = self.managed_fields("widget", "w1")
        self.assertIn('k:{"name":"b"}', managers[("painter", "Apply")]["fieldsV1"]["f:spec"]["f:parts"])


if __name__ == "__main__":
    unittest.main()
