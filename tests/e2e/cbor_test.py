"""application/cbor against berth serve over HTTP, with a small CBOR codec of
its own (the interpreter has no cbor module): CBOR request bodies, CBOR
answers (objects, Status errors, watch sequences) and JSON-RPC bindings sent
as base64-encoded CBOR."""

import base64
import json
import os
import struct
import sys
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

SELF_DESCRIBED = b"\xd9\xd9\xf7"


def _head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    for info, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
        if n < 1 << (8 * struct.calcsize(fmt)):
            return bytes([major << 5 | info]) + struct.pack(fmt, n)
    raise ValueError(n)


def encode(value):
    """RFC 8949 with text strings, as a generic client writes it (berth must
    read text strings as well as kube's byte strings)."""
    if value is None:
        return b"\xf6"
    if value is True:
        return b"\xf5"
    if value is False:
        return b"\xf4"
    if isinstance(value, int):
        return _head(0, value) if value >= 0 else _head(1, -1 - value)
    if isinstance(value, float):
        return b"\xfb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode()
        return _head(3, len(data)) + data
    if isinstance(value, (bytes, bytearray)):
        return _head(2, len(value)) + bytes(value)
    if isinstance(value, list):
        return _head(4, len(value)) + b"".join(encode(v) for v in value)
    if isinstance(value, dict):
        return _head(5, len(value)) + b"".join(encode(k) + encode(v) for k, v in value.items())
    raise TypeError(type(value))


def decode_one(data, pos=0):
    """One item at `pos`: (value, next position). Byte strings become str, as
    kube's decoder reads them into unstructured objects."""
    ib = data[pos]
    pos += 1
    major, info = ib >> 5, ib & 31
    if info < 24:
        arg = info
    elif info <= 27:
        size = 1 << (info - 24)
        arg = int.from_bytes(data[pos:pos + size], "big")
        if major == 7:
            raw = data[pos:pos + size]
            pos += size
            if size == 2:
                return struct.unpack(">e", raw)[0], pos
            if size == 4:
                return struct.unpack(">f", raw)[0], pos
            return struct.unpack(">d", raw)[0], pos
        pos += size
    else:
        raise ValueError(f"unsupported additional information {info}")
    if major == 0:
        return arg, pos
    if major == 1:
        return -1 - arg, pos
    if major in (2, 3):
        return data[pos:pos + arg].decode(), pos + arg
    if major == 4:
        out = []
        for _ in range(arg):
            v, pos = decode_one(data, pos)
            out.append(v)
        return out, pos
    if major == 5:
        out = {}
        for _ in range(arg):
            k, pos = decode_one(data, pos)
            v, pos = decode_one(data, pos)
            out[k] = v
        return out, pos
    if major == 6:
        return decode_one(data, pos)  # tags: the content
    return {20: False, 21: True, 22: None}[info], pos


def decode(data):
    value, pos = decode_one(data)
    assert pos == len(data), f"{len(data) - pos} trailing bytes"
    return value


def decode_sequence(data):
    pos, out = 0, []
    while pos < len(data):
        value, pos = decode_one(data, pos)
        out.append(value)
    return out


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}


class CborTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def request(self, method, path, body=None, content_type="application/json",
                accept="application/json", timeout=10):
        req = urllib.request.Request(self.server.url + path, data=body, method=method,
                                     headers={"Content-Type": content_type, "Accept": accept})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.headers.get("Content-Type"), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type"), e.read()

    def rpc(self, call):
        status, _, body = self.request("POST", "/rpc", json.dumps(call).encode())
        self.assertEqual(status, 200)
        return json.loads(body)

    def test_create_with_cbor_body_and_read_back_in_cbor(self):
        status, ctype, body = self.request("POST", "/api/v1/namespaces/default/pods",
                                           SELF_DESCRIBED + encode(pod("cbor-a")),
                                           content_type="application/cbor")
        self.assertEqual(status, 201, body)
        self.assertEqual(ctype, "application/json")
        status, ctype, body = self.request("GET", "/api/v1/namespaces/default/pods/cbor-a",
                                           accept="application/cbor")
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "application/cbor")
        self.assertTrue(body.startswith(SELF_DESCRIBED))
        got = decode(body)
        self.assertEqual(got["metadata"]["name"], "cbor-a")
        self.assertEqual(got["spec"]["containers"][0]["image"], "nginx:1.25")
        # The same object as JSON.
        _, _, as_json = self.request("GET", "/api/v1/namespaces/default/pods/cbor-a")
        self.assertEqual(got, json.loads(as_json))
        # A create answered in CBOR: the object once written, then the name taken.
        for expected in (201, 409):
            status, ctype, body = self.request("POST", "/api/v1/namespaces/default/pods",
                                               SELF_DESCRIBED + encode(pod("cbor-b")),
                                               content_type="application/cbor", accept="application/cbor")
            self.assertEqual(status, expected, body)
            self.assertEqual(ctype, "application/cbor")
            answer = decode(body)
            if expected == 201:
                self.assertEqual(answer["metadata"]["name"], "cbor-b")
                self.assertTrue(answer["metadata"]["resourceVersion"])
            else:
                self.assertEqual(answer["reason"], "AlreadyExists")

    def test_errors_are_cbor_status(self):
        status, ctype, body = self.request("GET", "/api/v1/namespaces/default/pods/none",
                                           accept="application/cbor")
        self.assertEqual(status, 404)
        self.assertEqual(ctype, "application/cbor")
        self.assertEqual(decode(body)["reason"], "NotFound")
        # Duplicate keys are refused.
        dup = SELF_DESCRIBED + b"\xa2" + encode("kind") + encode("Pod") + encode("kind") + encode("Pod")
        status, _, body = self.request("POST", "/api/v1/namespaces/default/pods", dup,
                                       content_type="application/cbor", accept="application/cbor")
        self.assertEqual(status, 400)
        self.assertIn("duplicate map key", decode(body)["message"])

    def test_watch_is_a_cbor_sequence(self):
        self.request("POST", "/api/v1/namespaces/default/pods", encode(pod("cbor-w")),
                     content_type="application/cbor")
        status, ctype, body = self.request(
            "GET", "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dcbor-w",
            accept="application/cbor")
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "application/cbor;stream=watch")
        events = decode_sequence(body)
        self.assertEqual([e["type"] for e in events], ["ADDED"])
        self.assertEqual(events[0]["object"]["metadata"]["name"], "cbor-w")

    def test_jsonrpc_bind_with_cbor_binding(self):
        self.request("POST", "/api/v1/namespaces/default/pods", json.dumps(pod("cbor-b")).encode())
        binding = {"apiVersion": "v1", "kind": "Binding",
                   "metadata": {"name": "cbor-b", "namespace": "default"},
                   "target": {"kind": "Node", "name": "node-1"}}
        params = {"encoding": "cbor-base64",
                  "binding": base64.b64encode(SELF_DESCRIBED + encode(binding)).decode()}
        answer = self.rpc({"jsonrpc": "2.0", "method": "bind.pod", "params": params, "id": "req-1"})
        self.assertEqual(answer["id"], "req-1")
        self.assertEqual(answer["result"]["spec"]["nodeName"], "node-1")

        binding["metadata"]["annotations"] = {"pad": "x" * (65 * 1024)}
        params["binding"] = base64.b64encode(encode(binding)).decode()
        answer = self.rpc({"jsonrpc": "2.0", "method": "bind.pod", "params": params, "id": 42})
        self.assertEqual(answer["id"], 42)
        self.assertEqual(answer["error"]["code"], -32602)
        self.assertIn("65536 bytes", answer["error"]["message"])

        params["binding"] = "%%%"
        answer = self.rpc({"jsonrpc": "2.0", "method": "unbind.pod", "params": params, "id": 43})
        self.assertEqual(answer["id"], 43)
        self.assertEqual(answer["error"]["code"], -32602)


if __name__ == "__main__":
    unittest.main()
