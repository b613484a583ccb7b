"""/openapi/v2 in protobuf, as real kubectl (v1.32) reads it: `kubectl apply`
of a `kind: List` with validation on (the default) validates the List's items
on the client against that document, so it needs it; a typo inside an item
is refused by kubectl itself before anything is sent. The document follows
CustomResourceDefinitions, and answers Accept and If-None-Match as kube."""

import json
import os
import sys
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer, wait_for  # noqa: E402

PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PROTOBUF_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def list_manifest(suffix, replicas=1, deployment_spec_extra=""):
    return f"""
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {{name: cm-{suffix}}}
  data: {{mode: prod}}
- apiVersion: v1
  kind: Service
  metadata: {{name: svc-{suffix}}}
  spec:
    selector: {{app: web-{suffix}}}
    ports:
    - {{name: http, port: 80, targetPort: 8080}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web-{suffix}}}
  spec:
    replicas: {replicas}{deployment_spec_extra}
    selector:
      matchLabels: {{app: web-{suffix}}}
    template:
      metadata:
        labels: {{app: web-{suffix}}}
      spec:
        containers:
        - name: web
          image: nginx:1.25
          ports:
          - {{containerPort: 8080}}
          resources:
            requests: {{cpu: 100m, memory: 64Mi}}
          readinessProbe:
            httpGet: {{path: /, port: 8080}}
"""


CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
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
              cronSpec: {type: string}
              image: {type: string, nullable: true}
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  known: {type: string}
"""


def crontab_list(name, spec):
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": name}, "spec": spec}]})


class OpenApiV2KubectlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(extra_args=["--in-memory"]).start()
        cls.k = cls.server.kubectl

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def get(self, accept, if_none_match=None):
        request = urllib.request.Request(self.server.url + "/openapi/v2", headers={"Accept": accept})
        if if_none_match:
            request.add_header("If-None-Match", if_none_match)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def test_apply_of_a_list_with_validation_on_creates_then_leaves_unchanged(self):
        p = self.k("apply", "-f", "-", input=list_manifest("a"))
        for expected in ["configmap/cm-a created", "service/svc-a created", "deployment.apps/web-a created"]:
            self.assertIn(expected, p.stdout)
        self.assertNotIn("validat", p.stderr)
        p = self.k("apply", "-f", "-", input=list_manifest("a"))
        self.assertIn("deployment.apps/web-a unchanged", p.stdout)
        p = self.k("apply", "-f", "-", input=list_manifest("a", replicas=3))
        self.assertIn("deployment.apps/web-a configured", p.stdout)
        deployment = json.loads(self.k("get", "deployment", "web-a", "-o", "json").stdout)
        self.assertEqual(deployment["spec"]["replicas"], 3)

    def test_a_list_with_an_unknown_field_is_refused_by_kubectls_validation(self):
        p = self.k("apply", "-f", "-", input=list_manifest("b", deployment_spec_extra="\n    replicaz: 2"),
                   check=False)
        self.assertNotEqual(p.returncode, 0, p.stdout)
        # kubectl's own schema validation (not the server's strict decoding):
        # it names the definition, and nothing of the List was sent.
        self.assertIn('error validating data: ValidationError(Deployment.spec): unknown field "replicaz" in '
                      'io.k8s.api.apps.v1.DeploymentSpec; if you choose to ignore these errors, turn validation '
                      'off with --validate=false', p.stderr)
        self.assertNotIn("strict decoding error", p.stderr)
        self.assertEqual(self.k("get", "configmap", "cm-b", check=False).returncode, 1)
        self.assertEqual(self.k("get", "deployment", "web-b", check=False).returncode, 1)

        # With validation off the server's strict field validation does not
        # apply either (kubectl sends fieldValidation=Ignore): created.
        p = self.k("apply", "--validate=false", "-f", "-",
                   input=list_manifest("b", deployment_spec_extra="\n    replicaz: 2"))
        self.assertIn("deployment.apps/web-b created", p.stdout)

    def test_custom_resources_in_a_list_are_validated_against_their_schema(self):
        self.k("apply", "-f", "-", input=CRD)
        self.k("wait", "--for=condition=Established", "crd/crontabs.stable.example.com", "--timeout=60s")
        # kubectl caches discovery; the schema is in the v2 document once the
        # definition is served.
        wait_for(self, self.server, "the CronTab schema in /openapi/v2",
                 lambda: b"com.example.stable.v1.CronTab" in self.get(PROTOBUF)[2], timeout=60, interval=0.5)

        ok = crontab_list("ok", {"cronSpec": "* * * * */5", "image": None, "extra": {"anything": {"goes": 1}}})
        p = self.k("apply", "-f", "-", input=ok)
        self.assertIn("crontab.stable.example.com/ok created", p.stdout)

        bad = crontab_list("bad", {"cronSpec": "* * * * */5", "imagee": "x"})
        p = self.k("apply", "-f", "-", input=bad, check=False)
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertIn('ValidationError(CronTab.spec): unknown field "imagee" in com.example.stable.v1.CronTab.spec',
                      p.stderr)
        self.assertEqual(self.k("get", "crontab", "bad", check=False).returncode, 1)

    def test_the_document_negotiates_its_form_and_revalidates_by_etag(self):
        status, headers, body = self.get(PROTOBUF)
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], PROTOBUF_TYPE)
        self.assertEqual(headers["Vary"], "Accept")
        self.assertTrue(body.startswith(b"\x0a\x032.0"), body[:16])  # field 1 (swagger) = "2.0"
        etag = headers["ETag"]

        status, headers, body = self.get("application/json")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "application/json")
        self.assertEqual(json.loads(body)["swagger"], "2.0")
        self.assertEqual(headers["ETag"], etag, "one ETag for both forms, as kube")

        status, headers, body = self.get(PROTOBUF, if_none_match=etag)
        self.assertEqual(status, 304)
        self.assertEqual(body, b"")
        self.assertEqual(self.get("text/html")[0], 406)


if __name__ == "__main__":
    unittest.main()
