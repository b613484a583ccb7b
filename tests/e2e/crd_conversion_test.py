"""CustomResourceDefinition conversion webhooks end to end: a definition with
two versions whose objects differ (v1 spec.hostPort "host:port", v2
spec.host and spec.port, as kube's own conversion e2e test has them) and
strategy Webhook, its webhook an HTTPS server written here in Python. Objects
written in v2 are stored in v1 (the storage version), objects read in the
other version come back converted (get, list in one review, watch, update,
patch, delete) as kubectl and raw requests see them; a webhook that fails,
answers badly or is gone makes kube's InternalError, and definitions that
configure a webhook wrongly are refused with kube's messages."""

import json
import os
import sys
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import free_port, wait_for  # noqa: E402
from https_webhook import JsonWebhookServer, WebhookTestCase  # noqa: E402

GROUP = "stable.example.com"


class ConversionWebhook:
    """Paths: /convert converts between v1 and v2 and labels what it
    converts converted=yes; /fail answers Failure; /short answers no objects;
    /rename changes the object's name."""

    FAILURE = "the test webhook refuses to convert"

    def __init__(self, cert, key):
        self.http = JsonWebhookServer(cert, key, self.review)

    @property
    def reviews(self):
        """(path, ConversionReview) of every call."""
        return [(path, review) for path, _, review in self.http.requests]

    def review(self, path, full_path, review):
        return {"apiVersion": review["apiVersion"], "kind": "ConversionReview",
                "response": self.answer(full_path, review["request"])}

    def url(self, path):
        return self.http.url(path)

    def stop(self):
        self.http.stop()

    @staticmethod
    def convert(obj, desired):
        out = json.loads(json.dumps(obj))
        spec = out.setdefault("spec", {})
        if desired.endswith("/v2") and "hostPort" in spec:
            host, port = spec.pop("hostPort").split(":")
            spec.update(host=host, port=port)
        elif desired.endswith("/v1") and "host" in spec:
            spec["hostPort"] = f"{spec.pop('host')}:{spec.pop('port')}"
        out["apiVersion"] = desired
        out["metadata"].setdefault("labels", {})["converted"] = "yes"
        return out

    def answer(self, path, request):
        response = {"uid": request["uid"], "result": {"status": "Success"}}
        desired = request["desiredAPIVersion"]
        if path == "/fail":
            response["result"] = {"status": "Failure", "message": self.FAILURE}
        elif path == "/short":
            response["convertedObjects"] = []
        elif path == "/rename":
            objects = [self.convert(o, desired) for o in request["objects"]]
            for o in objects:
                o["metadata"]["name"] += "-renamed"
            response["convertedObjects"] = objects
        else:
            response["convertedObjects"] = [self.convert(o, desired) for o in request["objects"]]
        return response


def definition(plural, kind, conversion):
    def version(name, storage, properties):
        return {"name": name, "served": True, "storage": storage,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {p: {"type": "string"} for p in properties}}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": [version("v1", True, ["hostPort"]), version("v2", False, ["host", "port"])],
                     "conversion": conversion}}


class CrdConversionWebhookTest(WebhookTestCase):
    make_webhook = ConversionWebhook

    def webhook_conversion(self, path, review_versions=("v1",)):
        return {"strategy": "Webhook",
                "webhook": {"clientConfig": {"url": self.webhook.url(path), "caBundle": self.ca_bundle},
                            "conversionReviewVersions": list(review_versions)}}

    def serve(self, plural, kind, path, review_versions=("v1",)):
        """Creates the definition and waits until both versions are served."""
        crd = definition(plural, kind, self.webhook_conversion(path, review_versions))
        self.kubectl("create", "-f", "-", input=json.dumps(crd))
        wait_for(self, self.server, f"{plural} served",
                 lambda: self.kubectl("get", f"{plural}.v2.{GROUP}", check=False).returncode == 0)

    def request(self, method, path, body=None, content_type="application/json"):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server.url + path, data=data, method=method,
                                     headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def reviews_since(self, start):
        return [review for _, review in self.webhook.reviews[start:]]

    def test_objects_are_stored_in_the_storage_version_and_read_in_any(self):
        self.serve("widgets", "Widget", "/convert")
        v1 = {"apiVersion": f"{GROUP}/v1", "kind": "Widget",
              "metadata": {"name": "w1", "namespace": "default"}, "spec": {"hostPort": "localhost:8080"}}
        self.kubectl("create", "-f", "-", input=json.dumps(v1))
        # Read in v2: converted by the webhook, asked in a v1 ConversionReview.
        start = len(self.webhook.reviews)
        got = json.loads(self.kubectl("get", f"widgets.v2.{GROUP}", "w1", "-o", "json").stdout)
        self.assertEqual(got["apiVersion"], f"{GROUP}/v2")
        self.assertEqual(got["spec"], {"host": "localhost", "port": "8080"})
        self.assertEqual(got["metadata"]["labels"], {"converted": "yes"})
        review = self.reviews_since(start)[0]
        self.assertEqual(review["apiVersion"], "apiextensions.k8s.io/v1")
        self.assertEqual(review["request"]["desiredAPIVersion"], f"{GROUP}/v2")
        self.assertEqual([o["apiVersion"] for o in review["request"]["objects"]], [f"{GROUP}/v1"])
        # Read in v1, the version it is stored in: no conversion.
        start = len(self.webhook.reviews)
        got = json.loads(self.kubectl("get", f"widgets.v1.{GROUP}", "w1", "-o", "json").stdout)
        self.assertEqual(got["spec"], {"hostPort": "localhost:8080"})
        self.assertEqual(self.reviews_since(start), [])

        # Written in v2: converted to v1 before it is stored, the answer in v2.
        v2 = {"apiVersion": f"{GROUP}/v2", "kind": "Widget",
              "metadata": {"name": "w2", "namespace": "default"}, "spec": {"host": "example.org", "port": "443"}}
        start = len(self.webhook.reviews)
        status, created = self.request("POST", f"/apis/{GROUP}/v2/namespaces/default/widgets", v2)
        self.assertEqual(status, 201, created)
        self.assertEqual(created["apiVersion"], f"{GROUP}/v2")
        self.assertEqual(created["spec"], {"host": "example.org", "port": "443"})
        desired = [r["request"]["desiredAPIVersion"] for r in self.reviews_since(start)]
        self.assertEqual(desired, [f"{GROUP}/v1", f"{GROUP}/v2"])
        status, stored = self.request("GET", f"/apis/{GROUP}/v1/namespaces/default/widgets/w2")
        self.assertEqual(stored["spec"], {"hostPort": "example.org:443"})
        self.assertEqual(stored["metadata"]["uid"], created["metadata"]["uid"])

        # A list in v2 converts every object not in v2 in one review.
        start = len(self.webhook.reviews)
        listed = json.loads(self.kubectl("get", f"widgets.v2.{GROUP}", "-o", "json").stdout)
        self.assertEqual(sorted(i["spec"]["host"] for i in listed["items"]), ["example.org", "localhost"])
        self.assertTrue(all(i["apiVersion"] == f"{GROUP}/v2" for i in listed["items"]))
        self.assertEqual([len(r["request"]["objects"]) for r in self.reviews_since(start)], [2])

        # A merge patch through v2 changes the stored v1 object.
        self.kubectl("patch", f"widgets.v2.{GROUP}", "w1", "--type", "merge", "-p", '{"spec":{"port":"9090"}}')
        status, stored = self.request("GET", f"/apis/{GROUP}/v1/namespaces/default/widgets/w1")
        self.assertEqual(stored["spec"], {"hostPort": "localhost:9090"})

        # A watch in v2 sends the objects converted.
        with urllib.request.urlopen(self.server.url + f"/apis/{GROUP}/v2/namespaces/default/widgets"
                                    "?watch=true&timeoutSeconds=1&sendInitialEvents=true"
                                    "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
                                    timeout=30) as r:
            events = [json.loads(line) for line in r.read().decode().splitlines() if line]
        added = [e["object"] for e in events if e["type"] == "ADDED"]
        self.assertEqual(sorted(o["spec"]["port"] for o in added), ["443", "9090"])
        self.assertTrue(all(o["apiVersion"] == f"{GROUP}/v2" for o in added))

        # Deleting through v2 answers the object in v2.
        status, deleted = self.request("DELETE", f"/apis/{GROUP}/v2/namespaces/default/widgets/w2")
        self.assertEqual(status, 200, deleted)
        self.assertEqual(deleted["spec"], {"host": "example.org", "port": "443"})

    def test_a_v1beta1_only_webhook_gets_a_v1beta1_review(self):
        self.serve("gizmos", "Gizmo", "/convert", review_versions=("v1beta1",))
        self.kubectl("create", "-f", "-", input=json.dumps(
            {"apiVersion": f"{GROUP}/v1", "kind": "Gizmo", "metadata": {"name": "g", "namespace": "default"},
             "spec": {"hostPort": "a:1"}}))
        start = len(self.webhook.reviews)
        got = json.loads(self.kubectl("get", f"gizmos.v2.{GROUP}", "g", "-o", "json").stdout)
        self.assertEqual(got["spec"], {"host": "a", "port": "1"})
        self.assertEqual(self.reviews_since(start)[0]["apiVersion"], "apiextensions.k8s.io/v1beta1")

    def test_a_failing_webhook_is_an_internal_error_and_nothing_is_stored(self):
        for plural, kind, path, why in [
                ("sprockets", "Sprocket", "/fail", "failed: " + ConversionWebhook.FAILURE),
                ("cogs", "Cog", "/short", "returned 0 objects, expected 1"),
                ("levers", "Lever", "/rename", "returned invalid object: must have the same name: l != l-renamed")]:
            with self.subTest(path=path):
                self.serve(plural, kind, path)
                v1 = {"apiVersion": f"{GROUP}/v1", "kind": kind,
                      "metadata": {"name": kind[0].lower(), "namespace": "default"}, "spec": {"hostPort": "h:1"}}
                # Stored as written: v1 is the storage version, nothing to convert.
                self.kubectl("create", "-f", "-", input=json.dumps(v1))
                status, answer = self.request("GET", f"/apis/{GROUP}/v2/namespaces/default/{plural}/{kind[0].lower()}")
                self.assertEqual(status, 500, answer)
                self.assertEqual(answer["reason"], "InternalError")
                self.assertEqual(answer["message"],
                                 f"conversion webhook for {GROUP}/v1, Kind={kind} {why}")
                p = self.kubectl("get", f"{plural}.v2.{GROUP}", check=False)
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(f"conversion webhook for {GROUP}/v1, Kind={kind}List", p.stderr)
                # A write in v2 cannot be stored: refused, nothing created.
                v2 = {"apiVersion": f"{GROUP}/v2", "kind": kind,
                      "metadata": {"name": "other", "namespace": "default"}, "spec": {"host": "h", "port": "2"}}
                status, answer = self.request("POST", f"/apis/{GROUP}/v2/namespaces/default/{plural}", v2)
                self.assertEqual(status, 500, answer)
                status, _ = self.request("GET", f"/apis/{GROUP}/v1/namespaces/default/{plural}/other")
                self.assertEqual(status, 404)

    def test_a_webhook_that_is_gone_is_named_in_the_error(self):
        crd = definition("ratchets", "Ratchet", {
            "strategy": "Webhook",
            "webhook": {"clientConfig": {"url": f"https://127.0.0.1:{free_port()}/convert",
                                         "caBundle": self.ca_bundle},
                        "conversionReviewVersions": ["v1"]}})
        self.kubectl("create", "-f", "-", input=json.dumps(crd))
        wait_for(self, self.server, "ratchets served",
                 lambda: self.kubectl("get", f"ratchets.v1.{GROUP}", check=False).returncode == 0)
        self.kubectl("create", "-f", "-", input=json.dumps(
            {"apiVersion": f"{GROUP}/v1", "kind": "Ratchet", "metadata": {"name": "r", "namespace": "default"},
             "spec": {"hostPort": "h:1"}}))
        status, answer = self.request("GET", f"/apis/{GROUP}/v2/namespaces/default/ratchets/r")
        self.assertEqual(status, 500, answer)
        url = crd["spec"]["conversion"]["webhook"]["clientConfig"]["url"]
        self.assertTrue(answer["message"].startswith(
            f"conversion webhook for {GROUP}/v1, Kind=Ratchet failed: Post \"{url}\": "), answer["message"])

    def test_definitions_configuring_a_webhook_wrongly_are_refused(self):
        cases = [
            ({"strategy": "Webhook"},
             "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook"),
            ({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "http://127.0.0.1/x"},
                                                 "conversionReviewVersions": ["v1"]}},
             "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": "
             "'https' is the only allowed URL scheme; desired format: https://host[/path]"),
            ({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://127.0.0.1/x"},
                                                 "conversionReviewVersions": ["v3"]}},
             "spec.conversion.conversionReviewVersions: Invalid value: []string{\"v3\"}: "
             "must include at least one of v1, v1beta1"),
            ({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://127.0.0.1/x"}}},
             "spec.conversion.conversionReviewVersions: Required value"),
            ({"strategy": "None", "webhook": {"clientConfig": {"url": "https://127.0.0.1/x"}}},
             "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook"),
            ({"strategy": "Lenses"},
             "spec.conversion.strategy: Unsupported value: \"Lenses\": supported values: \"None\", \"Webhook\""),
        ]
        for conversion, message in cases:
            with self.subTest(conversion=conversion):
                status, answer = self.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                              definition("refused", "Refused", conversion))
                self.assertEqual(status, 422, answer)
                self.assertIn(message, answer["message"])
        status, _ = self.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/refused.{GROUP}")
        self.assertEqual(status, 404)
        # A Service reference defaults to port 443.
        service = definition("services-ref", "ServicesRef", {
            "strategy": "Webhook",
            "webhook": {"clientConfig": {"service": {"namespace": "default", "name": "converter", "path": "/c"}},
                        "conversionReviewVersions": ["v1"]}})
        status, created = self.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", service)
        self.assertEqual(status, 201, created)
        self.assertEqual(created["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"], 443)
        # preserveUnknownFields is refused as kube's v1 refuses it.
        crd = definition("keepers", "Keeper", {"strategy": "None"})
        crd["spec"]["preserveUnknownFields"] = True
        status, answer = self.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        self.assertEqual(status, 422, answer)
        self.assertIn("spec.preserveUnknownFields: Invalid value: true: cannot set to true", answer["message"])


if __name__ == "__main__":
    unittest.main()
