"""The real kubectl (v1.32) with validation on: OpenAPI documents, server-side
field validation and `kubectl explain`, against berth serve."""

import json
import os
import sys
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

APP = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - {containerPort: 80, name: http}
        env:
        - {name: MODE, value: prod}
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {memory: 128Mi}
        readinessProbe:
          httpGet: {path: /, port: http}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: http}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  mode: prod
"""

TYPO = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: typo
spec:
  replicas: 1
  selector:
    matchLabels: {app: typo}
  template:
    metadata:
      labels: {app: typo}
    spec:
      containers:
      - name: c
        image: busybox:1.36
        imagePullPolicyy: Always
"""


class OpenApiKubectlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(extra_args=["--in-memory"]).start()
        cls.k = cls.server.kubectl

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def test_apply_with_validation_on_creates_and_then_leaves_unchanged(self):
        out = self.k("apply", "-f", "-", input=APP).stdout
        for expected in ["deployment.apps/web created", "service/web created", "configmap/web-config created"]:
            self.assertIn(expected, out)
        out = self.k("apply", "-f", "-", input=APP).stdout
        self.assertIn("deployment.apps/web unchanged", out)
        changed = APP.replace("replicas: 2", "replicas: 3").replace("mode: prod", "mode: test")
        out = self.k("apply", "-f", "-", input=changed).stdout
        self.assertIn("deployment.apps/web configured", out)
        self.assertIn("configmap/web-config configured", out)
        deployment = json.loads(self.k("get", "deployment", "web", "-o", "json").stdout)
        self.assertEqual(deployment["spec"]["replicas"], 3)
        self.assertEqual(deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"], 80)

    def test_unknown_field_fails_with_kubes_message(self):
        p = self.k("apply", "-f", "-", input=TYPO, check=False)
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertIn('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
                      'unknown field "spec.template.spec.containers[0].imagePullPolicyy"', p.stderr)
        self.assertEqual(self.k("get", "deployment", "typo", check=False).returncode, 1)

    def test_validate_warn_prints_the_warning_and_creates(self):
        manifest = TYPO.replace("name: typo", "name: warned", 1)
        p = self.k("apply", "--validate=warn", "-f", "-", input=manifest)
        self.assertIn('unknown field "spec.template.spec.containers[0].imagePullPolicyy"', p.stderr)
        self.assertIn("deployment.apps/warned created", p.stdout)

    def test_validate_false_ignores(self):
        manifest = TYPO.replace("name: typo", "name: ignored", 1)
        p = self.k("create", "--validate=false", "-f", "-", input=manifest)
        self.assertNotIn("unknown field", p.stderr)

    def test_explain_pod_containers(self):
        out = self.k("explain", "pods.spec.containers").stdout
        self.assertIn("KIND:", out)
        self.assertIn("Pod", out)
        self.assertIn("image", out)
        self.assertIn("imagePullPolicy", out)
        self.assertIn("<[]ContainerPort>", out)

    def test_explain_deployment_spec(self):
        out = self.k("explain", "deployment.spec").stdout
        self.assertIn("apps", out)
        for field in ["replicas", "selector", "template", "strategy"]:
            self.assertIn(field, out)

    def test_explain_nested_fields_of_every_kind(self):
        # Kinds without hand-written schemas have every field, typed, down
        # to the leaves (from the protobuf tables).
        cases = {
            "statefulset.spec.replicas": ("StatefulSet", "<integer>"),
            "statefulset.spec.volumeClaimTemplates.spec.storageClassName": ("StatefulSet", "<string>"),
            "job.spec.template.spec.containers.image": ("Job", "<string>"),
            "cronjob.spec.jobTemplate.spec.backoffLimit": ("CronJob", "<integer>"),
            "hpa.spec.metrics.resource.target.averageUtilization": ("HorizontalPodAutoscaler", "<integer>"),
            "ingress.spec.rules.http.paths.backend.service.port.number": ("Ingress", "<integer>"),
            "node.spec.taints.effect": ("Node", "<string>"),
            "pvc.spec.resources.requests": ("PersistentVolumeClaim", "<map[string]"),
            "crd.spec.names.shortNames": ("CustomResourceDefinition", "<[]string>"),
            "clusterrole.rules.verbs": ("ClusterRole", "<[]string>"),
            "lease.spec.holderIdentity": ("Lease", "<string>"),
        }
        for path, (kind, type_name) in cases.items():
            out = self.k("explain", path).stdout
            self.assertIn("KIND:       " + kind, out, path)
            self.assertIn("FIELD: " + path.rsplit(".", 1)[1] + " " + type_name, out, path)
        p = self.k("explain", "statefulset.spec.replicaz", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('field "replicaz" does not exist', p.stderr)

    def test_unknown_fields_of_other_kinds_are_refused_too(self):
        manifest = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: typo-sts}
spec:
  selector: {matchLabels: {app: s}}
  serviceName: s
  template:
    metadata: {labels: {app: s}}
    spec: {containers: [{name: c, image: nginx}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resource: {requests: {storage: 1Gi}}}
"""
        p = self.k("apply", "-f", "-", input=manifest, check=False)
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertIn('unknown field "spec.volumeClaimTemplates[0].spec.resource"', p.stderr)
        self.assertEqual(self.k("get", "statefulset", "typo-sts", check=False).returncode, 1)

    def test_openapi_v3_index_and_document(self):
        with urllib.request.urlopen(self.server.url + "/openapi/v3") as r:
            index = json.load(r)
        self.assertIn("api/v1", index["paths"])
        self.assertIn("apis/apps/v1", index["paths"])
        url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
        with urllib.request.urlopen(self.server.url + url) as r:
            doc = json.load(r)
        patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
        self.assertIn("fieldValidation", [p["name"] for p in patch["parameters"]])


if __name__ == "__main__":
    unittest.main()
