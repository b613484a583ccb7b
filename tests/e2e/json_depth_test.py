"""Objects nest as deep as Kubernetes lets them: Go's JSON decoder behind kube
stops at 10,000 levels, Boost.JSON's default at 32. A CRD whose schema nests
deeper than 32 levels (any CRD that embeds a pod template does) and a custom
resource with 9,000 levels of free-form data are created, read, listed,
patched, recovered after a restart and deleted; 10,001 levels are a 400."""

import json
import time
import unittest
import urllib.error
import urllib.request

from berth_server import BerthServer, wait_for


def request(url, method="GET", body=None, content_type="application/json", accept="application/json"):
    req = urllib.request.Request(url, data=body, method=method,
                                 headers={"Content-Type": content_type, "Accept": accept})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def nested_schema(levels):
    """An object schema with `levels` nested object properties named `a`."""
    schema = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def nested_value(levels):
    """Text of `levels` nested objects {"a":{"a":…{}}} (no recursion in Python)."""
    return '{"a":' * (levels - 1) + "{}" + "}" * (levels - 1)


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "deeps.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "deeps", "singular": "deep", "kind": "Deep", "listKind": "DeepList"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    # 25 nested properties: about 60 levels of JSON in the CRD.
                    "status": nested_schema(25),
                },
            }},
        }],
    },
}


class JsonDepthTest(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer().start()

    def tearDown(self):
        self.server.stop()
        self.server.cleanup()

    def test_deep_objects_are_served_as_kube_serves_them(self):
        s = self.server
        s.kubectl("apply", "-f", "-", input=json.dumps(CRD))
        stored = json.loads(s.kubectl("get", "crd", "deeps.example.com", "-o", "json").stdout)
        self.assertIn("status", stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"])
        base = s.url + "/apis/example.com/v1/namespaces/default/deeps"
        wait_for(self, s, "the custom resource to be served", lambda: request(base)[0] == 200)

        levels = 9000  # + the object and its spec: 9,002 levels
        body = '{"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"d"},"spec":' + nested_value(levels) + "}"
        code, text = request(base, "POST", body.encode())
        self.assertEqual(code, 201, text[:500])

        code, text = request(base + "/d")
        self.assertEqual(code, 200, text[:500])
        self.assertEqual(text.count('{"a":'), levels - 1)

        code, text = request(base, accept="application/json;as=Table;v=v1;g=meta.k8s.io")
        self.assertEqual(code, 200, text[:500])
        self.assertEqual([row["cells"][0] for row in json.loads(text)["rows"]], ["d"])

        code, text = request(base + "/d", "PATCH", b'{"spec":{"b":1}}', "application/merge-patch+json")
        self.assertEqual(code, 200, text[:500])
        self.assertIn('"b":1', text)
        self.assertEqual(text.count('{"a":'), levels - 1)

        # The log and the snapshot give it back after a restart.
        s.stop()
        s.start()
        code, text = request(base + "/d")
        self.assertEqual(code, 200, text[:500])
        self.assertEqual(text.count('{"a":'), levels - 1)

        too_deep = '{"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"e"},"spec":' + nested_value(10000) + "}"
        code, text = request(base, "POST", too_deep.encode())
        self.assertEqual(code, 400, text[:500])
        self.assertEqual(json.loads(text)["reason"], "BadRequest")
        self.assertEqual(request(s.url + "/healthz")[0], 200)

        code, text = request(base + "/d", "DELETE")
        self.assertEqual(code, 200, text[:500])


if __name__ == "__main__":
    unittest.main()
