"""Admission webhooks end to end: a webhook server written here in Python
(HTTPS, its self-signed certificate given as caBundle) is registered with
kubectl through ValidatingWebhookConfiguration and
MutatingWebhookConfiguration objects, by URL and by Service; the API server
calls it for the requests its rules select and acts on its answers: a denial
is the client's error, a JSON patch changes the stored object, warnings reach
kubectl, a webhook that does not answer in time fails the request or is
ignored as its failurePolicy says, and a namespaceSelector skips namespaces."""

import base64
import json
import time
import unittest

from https_webhook import JsonWebhookServer, WebhookTestCase


class Webhook:
    """An HTTPS admission webhook on a free loopback port. Paths:
    /deny refuses objects labelled forbidden=true (code 403, with a message);
    /mutate labels the object mutated=yes with a JSON patch and warns;
    /add/KEY labels it KEY=yes;
    /slow answers after three seconds; every other path allows."""

    DENIED = "forbidden objects are not admitted"
    WARNING = "the test webhook labelled this object"

    def __init__(self, cert, key):
        self.http = JsonWebhookServer(cert, key, self.review)
        self.port = self.http.port

    @property
    def reviews(self):
        """(path, full path with query, AdmissionReview) of every call."""
        return self.http.requests

    def review(self, path, full_path, review):
        return {"apiVersion": review["apiVersion"], "kind": "AdmissionReview",
                "response": self.answer(path, review["request"])}

    def url(self, path):
        return self.http.url(path)

    def stop(self):
        self.http.stop()

    def answer(self, path, request):
        response = {"uid": request["uid"], "allowed": True}
        labels = ((request.get("object") or {}).get("metadata") or {}).get("labels") or {}
        if path == "/deny" and labels.get("forbidden") == "true":
            response.update(allowed=False, status={"code": 403, "message": self.DENIED})
        elif path == "/mutate" or path.startswith("/add/"):
            key = "mutated" if path == "/mutate" else path[len("/add/"):]
            op = [{"op": "add", "path": "/metadata/labels", "value": {key: "yes"}}] if not labels else \
                [{"op": "add", "path": f"/metadata/labels/{key}", "value": "yes"}]
            response.update(patchType="JSONPatch", patch=base64.b64encode(json.dumps(op).encode()).decode())
            if path == "/mutate":
                response["warnings"] = [self.WARNING]
        elif path == "/slow":
            time.sleep(3)
        return response


def configmap(name, namespace="default", labels=None):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {}}, "data": {"k": "v"}}


class AdmissionWebhookTest(WebhookTestCase):
    make_webhook = Webhook

    def apply(self, obj, check=True):
        return self.kubectl("apply", "-f", "-", input=json.dumps(obj), check=check)

    def create(self, obj, check=True):
        return self.kubectl("create", "-f", "-", input=json.dumps(obj), check=check)

    def hook(self, name, client_config, namespaces=("hooked",), resources=("configmaps",), **extra):
        """One webhook for CREATE and UPDATE of `resources` in namespaces labelled hooked=true."""
        h = {"name": name, "clientConfig": dict(client_config, caBundle=self.ca_bundle),
             "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                        "resources": list(resources)}],
             "namespaceSelector": {"matchLabels": {"hooked": "true"}},
             "sideEffects": "None", "admissionReviewVersions": ["v1"]}
        h.update(extra)
        return h

    def configuration(self, kind, name, hooks):
        self.apply({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                    "metadata": {"name": name}, "webhooks": hooks})
        self.addCleanup(self.kubectl, "delete", kind.lower(), name)

    def namespace(self, name, hooked):
        self.apply({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": name, "labels": {"hooked": "true" if hooked else "false"}}})

    def test_a_validating_webhook_denies_with_its_message(self):
        self.namespace("v-hooked", True)
        self.namespace("v-plain", False)
        hook = self.hook("deny.example.com", {"url": self.webhook.url("/deny")})
        self.configuration("ValidatingWebhookConfiguration", "deny", [hook])
        # Stored defaults, as kube sets them.
        stored = json.loads(self.kubectl("get", "validatingwebhookconfiguration", "deny", "-o", "json").stdout)
        self.assertEqual(stored["webhooks"][0]["failurePolicy"], "Fail")
        self.assertEqual(stored["webhooks"][0]["matchPolicy"], "Equivalent")
        self.assertEqual(stored["webhooks"][0]["timeoutSeconds"], 10)
        self.assertEqual(stored["webhooks"][0]["rules"][0]["scope"], "*")

        refused = self.create(configmap("bad", "v-hooked", {"forbidden": "true"}), check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn(f'admission webhook "deny.example.com" denied the request: {Webhook.DENIED}', refused.stderr)
        self.assertIn("(Forbidden)", refused.stderr)
        self.assertNotEqual(self.kubectl("get", "configmap", "bad", "-n", "v-hooked", check=False).returncode, 0)
        # Allowed objects pass; the selector skips the other namespace.
        self.create(configmap("good", "v-hooked"))
        self.create(configmap("bad", "v-plain", {"forbidden": "true"}))
        asked = [r for p, _, r in self.webhook.reviews if p == "/deny" and r["request"]["namespace"].startswith("v-")]
        self.assertEqual(sorted(r["request"]["name"] for r in asked), ["bad", "good"])
        request = asked[0]["request"]
        self.assertEqual(request["operation"], "CREATE")
        self.assertEqual(request["resource"], {"group": "", "version": "v1", "resource": "configmaps"})
        self.assertEqual(request["namespace"], "v-hooked")
        self.assertFalse(any(r["request"]["namespace"] == "v-plain" for r in asked))
        # The call carries the hook's timeout, as kube's client does.
        self.assertTrue(all(full.endswith("?timeout=10s") for p, full, _ in self.webhook.reviews if p == "/deny"))

    def test_a_mutating_webhook_patches_and_warns(self):
        self.namespace("m-hooked", True)
        hook = self.hook("mutate.example.com", {"url": self.webhook.url("/mutate")})
        self.configuration("MutatingWebhookConfiguration", "mutate", [hook])
        created = self.create(configmap("patched", "m-hooked", {"app": "x"}))
        self.assertIn(f"Warning: {Webhook.WARNING}", created.stderr)
        stored = json.loads(self.kubectl("get", "configmap", "patched", "-n", "m-hooked", "-o", "json").stdout)
        self.assertEqual(stored["metadata"]["labels"], {"app": "x", "mutated": "yes"})
        # A dry run asks the webhook too (sideEffects None) and stores nothing.
        self.kubectl("create", "--dry-run=server", "-f", "-", input=json.dumps(configmap("dry", "m-hooked")))
        self.assertNotEqual(self.kubectl("get", "configmap", "dry", "-n", "m-hooked", check=False).returncode, 0)
        dry = [r for p, _, r in self.webhook.reviews if p == "/mutate" and r["request"]["name"] == "dry"]
        self.assertTrue(dry and dry[0]["request"]["dryRun"])

    def test_a_webhook_is_reinvoked_if_a_later_one_changed_the_object(self):
        self.namespace("r-hooked", True)
        first = self.hook("first.example.com", {"url": self.webhook.url("/add/first")}, reinvocationPolicy="IfNeeded")
        second = self.hook("second.example.com", {"url": self.webhook.url("/add/second")})
        self.configuration("MutatingWebhookConfiguration", "reinvoke", [first, second])
        self.create(configmap("twice", "r-hooked"))
        stored = json.loads(self.kubectl("get", "configmap", "twice", "-n", "r-hooked", "-o", "json").stdout)
        self.assertEqual(stored["metadata"]["labels"], {"first": "yes", "second": "yes"})
        seen = [r["request"]["object"]["metadata"].get("labels", {}) for p, _, r in self.webhook.reviews
                if p == "/add/first" and r["request"]["name"] == "twice"]
        # Called, then called again on the object the second webhook changed.
        self.assertEqual(seen, [{}, {"first": "yes", "second": "yes"}])

    def test_a_webhook_that_does_not_answer_in_time_fails_or_is_ignored(self):
        self.namespace("t-hooked", True)
        failing = self.hook("slow-fail.example.com", {"url": self.webhook.url("/slow")}, timeoutSeconds=1)
        self.configuration("ValidatingWebhookConfiguration", "slow-fail", [failing])
        started = time.time()
        refused = self.create(configmap("late", "t-hooked"), check=False)
        self.assertLess(time.time() - started, 3)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn('failed calling webhook "slow-fail.example.com"', refused.stderr)
        self.assertIn("context deadline exceeded", refused.stderr)
        self.doCleanups()  # deletes slow-fail
        ignored = self.hook("slow-ignore.example.com", {"url": self.webhook.url("/slow")},
                            timeoutSeconds=1, failurePolicy="Ignore")
        self.configuration("ValidatingWebhookConfiguration", "slow-ignore", [ignored])
        self.create(configmap("late", "t-hooked"))

    def test_a_webhook_named_by_service(self):
        self.namespace("hooks", False)
        self.namespace("s-hooked", True)
        # An ExternalName Service (Endpoints may not name loopback addresses):
        # called at its name on the reference's port, verified as the
        # Service's DNS name.
        self.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "webhook", "namespace": "hooks"},
                    "spec": {"type": "ExternalName", "externalName": "localhost"}})
        hook = self.hook("service.example.com", {"service": {"name": "webhook", "namespace": "hooks",
                                                             "path": "/deny", "port": self.webhook.port}})
        self.configuration("ValidatingWebhookConfiguration", "by-service", [hook])
        refused = self.create(configmap("bad", "s-hooked", {"forbidden": "true"}), check=False)
        self.assertIn(f'admission webhook "service.example.com" denied the request: {Webhook.DENIED}',
                      refused.stderr)
        # A Service that is gone fails the request (failurePolicy Fail).
        self.kubectl("delete", "service", "webhook", "-n", "hooks")
        refused = self.create(configmap("other", "s-hooked"), check=False)
        self.assertIn('failed calling webhook "service.example.com"', refused.stderr)
        self.assertIn('service "webhook" not found', refused.stderr)

    def test_configurations_are_validated(self):
        bad = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
               "metadata": {"name": "invalid"},
               "webhooks": [{"name": "no-dots", "clientConfig": {"url": "http://127.0.0.1/x"},
                             "sideEffects": "Unknown", "admissionReviewVersions": ["v1"]}]}
        refused = self.create(bad, check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("webhooks[0].name", refused.stderr)
        self.assertIn("webhooks[0].clientConfig.url", refused.stderr)
        self.assertIn("webhooks[0].sideEffects", refused.stderr)
        self.assertNotEqual(self.kubectl("get", "validatingwebhookconfiguration", "invalid",
                                         check=False).returncode, 0)

    def test_kubectl_lists_the_new_kinds(self):
        hook = self.hook("allow.example.com", {"url": self.webhook.url("/allow")})
        self.configuration("ValidatingWebhookConfiguration", "listed", [hook])
        table = self.kubectl("get", "validatingwebhookconfigurations").stdout
        self.assertRegex(table, r"NAME\s+WEBHOOKS\s+AGE")
        self.assertRegex(table, r"listed\s+1\s+")
        services = self.kubectl("get", "apiservices").stdout
        self.assertRegex(services, r"v1\.apps\s+Local\s+True")
        self.assertRegex(services, r"v1\.\s+Local\s+True")

    def test_kube_system_holds_the_extension_authentication_objects(self):
        self.kubectl("get", "configmap", "extension-apiserver-authentication", "-n", "kube-system")
        role = json.loads(self.kubectl("get", "role", "extension-apiserver-authentication-reader",
                                       "-n", "kube-system", "-o", "json").stdout)
        self.assertEqual(role["rules"], [{"apiGroups": [""], "resources": ["configmaps"],
                                          "resourceNames": ["extension-apiserver-authentication"],
                                          "verbs": ["get", "list", "watch"]}])
        binding = json.loads(self.kubectl("get", "rolebinding", "system::extension-apiserver-authentication-reader",
                                          "-n", "kube-system", "-o", "json").stdout)
        self.assertEqual(binding["roleRef"]["name"], "extension-apiserver-authentication-reader")


if __name__ == "__main__":
    unittest.main()
