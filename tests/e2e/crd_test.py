"""CustomResourceDefinitions against berth serve with real kubectl and the
Python client: a definition applied with validation on is served, its
objects are defaulted, pruned and validated by their schema, print their
additionalPrinterColumns, have a status subresource, explain, list and
watch; deleting the definition deletes them, and a restart serves them
again. A second definition of the group asking for a name the first holds
is not accepted."""

import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer, wait_for  # noqa: E402

from kubernetes import client, watch  # noqa: E402

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: myapps.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: myapps
    singular: myapp
    kind: MyApp
    shortNames: [ma]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.availableReplicas
    additionalPrinterColumns:
    - name: Image
      type: string
      jsonPath: .spec.image
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Available
      type: integer
      jsonPath: .status.availableReplicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        description: MyApp runs an image with some replicas.
        type: object
        properties:
          spec:
            type: object
            description: What the application should look like.
            required: [image]
            properties:
              image:
                type: string
                description: The container image to run.
                minLength: 1
              replicas:
                type: integer
                minimum: 0
                maximum: 10
                default: 1
              port:
                x-kubernetes-int-or-string: true
                anyOf:
                - type: integer
                - type: string
              tier:
                type: string
                enum: [frontend, backend]
              owner:
                type: string
                pattern: '(?i)^[a-z]+$'
          status:
            type: object
            properties:
              availableReplicas:
                type: integer
"""

APP = """
apiVersion: example.com/v1
kind: MyApp
metadata:
  name: web
spec:
  image: nginx:1.25
  port: http
"""


class CrdTest(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer().start()
        self.addCleanup(self.server.cleanup)
        self.addCleanup(self.server.stop)
        k = self.server.kubectl
        k("apply", "-f", self.server.write_file("crd.yaml", CRD))
        k("wait", "--for=condition=Established", "crd/myapps.example.com", "--timeout=10s")

    def get(self, *args):
        return json.loads(self.server.kubectl("get", *args, "-o", "json").stdout)

    def test_objects_are_defaulted_validated_printed_and_explained(self):
        k = self.server.kubectl
        crd = self.get("crd", "myapps.example.com")
        self.assertEqual({c["type"] for c in crd["status"]["conditions"]}, {"NamesAccepted", "Established"})
        self.assertEqual(crd["status"]["storedVersions"], ["v1"])

        k("apply", "-f", self.server.write_file("app.yaml", APP))
        app = self.get("ma", "web")
        self.assertEqual(app["spec"]["replicas"], 1)  # the schema's default
        self.assertEqual(app["spec"]["port"], "http")
        self.assertEqual(app["metadata"]["generation"], 1)

        # Validation on: an unknown field is refused, in kube's words.
        bad = APP.replace("port: http", "port: http\n  extra: 1")
        p = k("apply", "-f", self.server.write_file("bad.yaml", bad), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('unknown field "spec.extra"', p.stderr)
        # Off: the field is pruned.
        k("apply", "--validate=false", "-f", self.server.write_file("bad.yaml", bad))
        self.assertNotIn("extra", self.get("ma", "web")["spec"])

        # pattern is Go's syntax (RE2): (?i) is a flag, not an error.
        k("apply", "-f", self.server.write_file("cased.yaml", APP.replace("name: web", "name: cased").replace(
            "port: http", "owner: Ops")))
        self.assertEqual(self.get("ma", "cased")["spec"]["owner"], "Ops")
        k("delete", "myapp", "cased")
        invalid = APP.replace("name: web", "name: big").replace("port: http",
                                                                 "replicas: 50\n  tier: middle\n  owner: ops-1")
        p = k("apply", "-f", self.server.write_file("invalid.yaml", invalid), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("spec.replicas: Invalid value: 50: spec.replicas in body should be less than or equal to 10",
                      p.stderr)
        self.assertIn('spec.tier: Unsupported value: "middle": supported values: "frontend", "backend"', p.stderr)
        self.assertIn('spec.owner: Invalid value: "ops-1": spec.owner in body should match \'(?i)^[a-z]+$\'', p.stderr)

        # The status subresource: only status changes there, the main resource keeps it.
        k("patch", "myapp", "web", "--subresource=status", "--type=merge", "-p",
          '{"status":{"availableReplicas":2},"spec":{"replicas":5}}')
        app = self.get("ma", "web")
        self.assertEqual(app["status"]["availableReplicas"], 2)
        self.assertEqual(app["spec"]["replicas"], 1)
        k("patch", "myapp", "web", "--type=merge", "-p", '{"spec":{"replicas":2}}')
        app = self.get("ma", "web")
        self.assertEqual(app["metadata"]["generation"], 2)
        self.assertEqual(app["status"]["availableReplicas"], 2)

        # The scale subresource at the definition's paths (kubectl scale finds it in discovery).
        k("scale", "myapp", "web", "--replicas=3")
        self.assertEqual(self.get("ma", "web")["spec"]["replicas"], 3)
        table = k("get", "myapps").stdout.splitlines()
        self.assertEqual(table[0].split(), ["NAME", "IMAGE", "REPLICAS", "AVAILABLE", "AGE"])
        self.assertEqual(table[1].split()[:4], ["web", "nginx:1.25", "3", "2"])
        self.assertIn("myapp.example.com/web", k("get", "all").stdout)

        explained = k("explain", "myapps.spec").stdout
        self.assertIn("What the application should look like.", explained)
        self.assertIn("image", explained)

    def test_python_client_lists_and_watches_custom_objects(self):
        config = client.Configuration()
        config.host = self.server.url
        api = client.CustomObjectsApi(client.ApiClient(config))
        events = []
        ready = threading.Event()

        def follow():
            w = watch.Watch()
            ready.set()
            for event in w.stream(api.list_namespaced_custom_object, "example.com", "v1", "default", "myapps",
                                  timeout_seconds=5):
                events.append((event["type"], event["object"]["metadata"]["name"]))
                if len(events) == 2:
                    w.stop()

        t = threading.Thread(target=follow)
        t.start()
        ready.wait()
        time.sleep(0.3)
        api.create_namespaced_custom_object("example.com", "v1", "default", "myapps",
                                            {"apiVersion": "example.com/v1", "kind": "MyApp",
                                             "metadata": {"name": "a"}, "spec": {"image": "busybox"}})
        api.delete_namespaced_custom_object("example.com", "v1", "default", "myapps", "a")
        t.join(timeout=10)
        self.assertEqual(events, [("ADDED", "a"), ("DELETED", "a")])
        api.create_namespaced_custom_object("example.com", "v1", "default", "myapps",
                                            {"apiVersion": "example.com/v1", "kind": "MyApp",
                                             "metadata": {"name": "b"}, "spec": {"image": "busybox"}})
        listed = api.list_namespaced_custom_object("example.com", "v1", "default", "myapps")
        self.assertEqual([i["metadata"]["name"] for i in listed["items"]], ["b"])
        self.assertEqual(listed["items"][0]["spec"]["replicas"], 1)

    def test_a_restart_serves_them_again_and_deleting_the_definition_deletes_them(self):
        k = self.server.kubectl
        k("apply", "-f", self.server.write_file("app.yaml", APP))
        self.server.stop()
        self.server.start()
        self.assertEqual(self.get("ma", "web")["spec"]["image"], "nginx:1.25")
        k("delete", "crd", "myapps.example.com", "--timeout=20s")
        p = k("get", "crd", "myapps.example.com", check=False)
        self.assertIn("NotFound", p.stderr)
        # Created again, it starts empty.
        k("apply", "-f", self.server.write_file("crd.yaml", CRD))
        k("wait", "--for=condition=Established", "crd/myapps.example.com", "--timeout=10s")
        wait_for(self, self.server, "an empty list",
                 lambda: self.get("myapps")["items"] == [] or None, timeout=10)

    def test_every_served_version_reads_the_same_objects(self):
        k = self.server.kubectl
        crd = self.get("crd", "myapps.example.com")
        v2 = json.loads(json.dumps(crd["spec"]["versions"][0]))
        v2["name"] = "v2"
        v2["storage"] = False
        crd["spec"]["versions"].append(v2)
        del crd["status"]
        k("replace", "-f", self.server.write_file("crd2.json", json.dumps(crd)))
        wait_for(self, self.server, "v2 served",
                 lambda: k("get", "myapps.v2.example.com", check=False).returncode == 0 or None, timeout=10)
        k("apply", "-f", self.server.write_file("app.yaml", APP))
        self.assertEqual(self.get("myapps.v2.example.com", "web")["apiVersion"], "example.com/v2")
        self.assertEqual([i["apiVersion"] for i in self.get("myapps.v2.example.com")["items"]], ["example.com/v2"])
        self.assertEqual(self.get("myapps.v1.example.com", "web")["apiVersion"], "example.com/v1")
        self.assertEqual(self.get("crd", "myapps.example.com")["status"]["storedVersions"], ["v1"])

    def test_a_name_another_definition_holds_is_not_accepted(self):
        # Its plural is the first definition's singular.
        taken = CRD.replace("name: myapps.example.com", "name: myapp.example.com").replace(
            "plural: myapps", "plural: myapp").replace("singular: myapp", "singular: other").replace(
            "kind: MyApp", "kind: Other").replace("shortNames: [ma]", "shortNames: [oth]")
        k = self.server.kubectl
        k("apply", "-f", self.server.write_file("taken.yaml", taken))
        jsonpath = 'jsonpath={range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\\n"}{end}'

        def refused():
            out = k("get", "crd", "myapp.example.com", "-o", jsonpath).stdout
            return out if "NamesAccepted=False" in out else None

        conditions = wait_for(self, self.server, "NamesAccepted False", refused, timeout=10)
        self.assertIn('NamesAccepted=False PluralConflict: "myapp" is already in use', conditions)
        self.assertIn("Established=False NotAccepted: not all names are accepted", conditions)
        # Not served: kubectl finds no resource "other".
        self.assertNotEqual(k("get", "oth", check=False).returncode, 0)

    def test_an_invalid_definition_is_refused_in_kubes_words(self):
        bad = CRD.replace("name: myapps.example.com", "name: apps.example.com").replace(
            "storage: true", "storage: false")
        p = self.server.kubectl("apply", "-f", self.server.write_file("bad-crd.yaml", bad), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('metadata.name: Invalid value: "apps.example.com": must be spec.names.plural+"."+spec.group',
                      p.stderr)
        self.assertIn("must have exactly one version marked as storage version", p.stderr)

    def test_conversion_defaults_to_none_and_a_webhook_is_kept(self):
        """What a conversion webhook does is crd_conversion_test's; here, that kubectl's definition keeps it."""
        self.assertEqual(self.get("crd", "myapps.example.com")["spec"]["conversion"], {"strategy": "None"})
        hooked = CRD.replace("name: myapps.example.com", "name: hooked.example.com").replace(
            "plural: myapps", "plural: hooked").replace("singular: myapp", "singular: hook").replace(
            "kind: MyApp", "kind: Hooked").replace("shortNames: [ma]", "shortNames: [hk]").replace(
            "  versions:\n", "  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n"
            "      clientConfig:\n        url: https://127.0.0.1:1/convert\n  versions:\n", 1)
        self.server.kubectl("apply", "-f", self.server.write_file("hooked.yaml", hooked))
        conversion = self.get("crd", "hooked.example.com")["spec"]["conversion"]
        self.assertEqual(conversion["strategy"], "Webhook")
        self.assertEqual(conversion["webhook"]["clientConfig"]["url"], "https://127.0.0.1:1/convert")
        self.server.kubectl("delete", "crd", "hooked.example.com")

if __name__ == "__main__":
    unittest.main()
