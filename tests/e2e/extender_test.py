"""Scheduler extenders end to end: `berth serve --config` names two extenders
written here in Python (http.server) as one would write them for
kube-scheduler; pods created with kubectl land where they say, a pod the
filter turns down everywhere waits with the extender's reason, and a binder
extender binds the pods whose resource it manages through the API. Over
HTTPS, the extender's certificate is verified against tlsConfig's CA."""

import base64
import json
import os
import ssl
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from berth_server import BerthServer, free_port, wait_for


class Extender:
    """A kube-scheduler extender on a free loopback port. filter: nodes
    labelled reserved=true are turned down with a reason, and every node for
    pods labelled reject-all=true; prioritize: node "favourite" scores 10, the
    others 0; bind: POSTs the Binding to the API server."""

    RESERVED = "node is reserved by the test extender"
    REJECTED = "the test extender turns this pod down"

    def __init__(self, tls_files=None):
        """tls_files: (certificate, key) to serve HTTPS with."""
        self.calls = []  # (verb, args)
        self.scheme = "https" if tls_files else "http"
        self.connections = 0
        self.api = None  # the API server's URL, for bind
        extender = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the scheduler's client expects

            def setup(self):
                super().setup()
                extender.connections += 1

            def log_message(self, *args):
                pass

            def do_POST(self):
                args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                verb = self.path.rsplit("/", 1)[-1]
                extender.calls.append((verb, args))
                answer = getattr(extender, verb)(args)
                body = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        if tls_files:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls_files)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"{self.scheme}://127.0.0.1:{self.port}/scheduler"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def filter(self, args):
        pod = args["Pod"]
        reject_all = pod["metadata"].get("labels", {}).get("reject-all") == "true"
        kept, failed = [], {}
        for node in args["Nodes"]["items"]:
            name = node["metadata"]["name"]
            if reject_all:
                failed[name] = self.REJECTED
            elif node["metadata"].get("labels", {}).get("reserved") == "true":
                failed[name] = self.RESERVED
            else:
                kept.append(node)
        return {"Nodes": {"items": kept}, "FailedNodes": failed, "Error": ""}

    def prioritize(self, args):
        return [{"Host": n["metadata"]["name"], "Score": 10 if n["metadata"]["name"] == "favourite" else 0}
                for n in args["Nodes"]["items"]]

    def bind(self, args):
        binding = {"apiVersion": "v1", "kind": "Binding",
                   "metadata": {"name": args["PodName"], "namespace": args["PodNamespace"]},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": args["Node"]}}
        request = urllib.request.Request(
            f"{self.api}/api/v1/namespaces/{args['PodNamespace']}/pods/{args['PodName']}/binding",
            data=json.dumps(binding).encode(), headers={"Content-Type": "application/json"}, method="POST")
        try:
            urllib.request.urlopen(request, timeout=10).read()
            return {"Error": ""}
        except OSError as e:
            return {"Error": f"binding failed: {e}"}


def node(name, labels=None):
    labels = dict(labels or {})
    labels.setdefault("kubernetes.io/hostname", name)
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                       "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(name, labels=None, widgets=0):
    resources = {"requests": {"cpu": "100m"}}
    if widgets:  # an extended resource: limits equal to requests
        resources["requests"]["example.com/widget"] = str(widgets)
        resources["limits"] = {"example.com/widget": str(widgets)}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9", "resources": resources}]}}


class ExtenderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.extender = Extender()
        cls.binder = Extender()
        cls.server = BerthServer(["--in-memory", "--seed", "1"], scheduler=True)
        config = cls.server.write_file("scheduler.yaml", f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: {cls.extender.url}
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 5
  httpTimeout: 10s
- urlPrefix: {cls.binder.url}
  bindVerb: bind
  managedResources:
  - name: example.com/widget
    ignoredByScheduler: true
""")
        cls.server.extra_args += ["--config", config]
        cls.server.start()
        cls.binder.api = cls.server.url
        for n in [node("plain"), node("favourite"), node("reserved", {"reserved": "true"})]:
            cls.apply(n)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()
        cls.extender.stop()
        cls.binder.stop()

    @classmethod
    def apply(cls, obj):
        cls.server.kubectl("apply", "-f", "-", input=json.dumps(obj))

    def get(self, name):
        return json.loads(self.server.kubectl("get", "pod", name, "-o", "json").stdout)

    def node_of(self, name):
        return wait_for(self, self.server, f"{name} bound", lambda: self.get(name)["spec"].get("nodeName"), timeout=20)

    def test_pods_land_where_the_extender_says(self):
        for i in range(3):
            self.apply(pod(f"web-{i}"))
        for i in range(3):
            self.assertEqual(self.node_of(f"web-{i}"), "favourite")
        # The extender's filter was given every node the plugins passed, and its
        # prioritize only those it kept.
        asked = [args for verb, args in self.extender.calls
                 if verb == "prioritize" and args["Pod"]["metadata"]["name"] == "web-0"]
        self.assertTrue(asked)
        self.assertEqual(sorted(n["metadata"]["name"] for n in asked[0]["Nodes"]["items"]), ["favourite", "plain"])
        # One kept-alive connection carries the calls (a few at most, with concurrent cycles).
        self.assertLessEqual(self.extender.connections, 4)

    def test_a_pod_the_extender_turns_down_everywhere_waits_with_its_reason(self):
        self.apply(pod("turned-down", labels={"reject-all": "true"}))

        def condition():
            for c in self.get("turned-down")["status"].get("conditions", []):
                if c["type"] == "PodScheduled" and c["status"] == "False":
                    return c
            return None

        c = wait_for(self, self.server, "PodScheduled=False", condition, timeout=20)
        self.assertEqual(c["reason"], "Unschedulable")
        self.assertIn(f"0/3 nodes are available: 3 {Extender.REJECTED}.", c["message"])
        self.assertEqual(self.get("turned-down")["spec"].get("nodeName"), None)

    def test_the_binder_extender_binds_the_pods_it_manages(self):
        # example.com/widget is ignored by the scheduler (no node offers it):
        # the binder extender is interested in this pod and binds it.
        self.apply(pod("widget", widgets=1))
        self.assertEqual(self.node_of("widget"), "favourite")
        binds = [args for verb, args in self.binder.calls if verb == "bind"]
        self.assertEqual(len(binds), 1)
        self.assertEqual({k: binds[0][k] for k in ("PodName", "PodNamespace", "Node")},
                         {"PodName": "widget", "PodNamespace": "default", "Node": "favourite"})
        self.assertEqual(binds[0]["PodUID"], self.get("widget")["metadata"]["uid"])
        # Other pods are not the binder's.
        self.apply(pod("ordinary"))
        self.node_of("ordinary")
        self.assertEqual([a["PodName"] for v, a in self.binder.calls if v == "bind"], ["widget"])

    def test_extender_calls_are_in_the_metrics(self):
        self.apply(pod("counted"))
        self.node_of("counted")

        def count():
            text = urllib.request.urlopen(self.server.url + "/metrics", timeout=5).read().decode()
            prefix = ('scheduler_extender_request_duration_seconds_count{extender="' + self.extender.url +
                      '",verb="filter",result="success"} ')
            for line in text.splitlines():
                if line.startswith(prefix):
                    return int(float(line[len(prefix):]))
            return 0

        self.assertGreaterEqual(wait_for(self, self.server, "filter calls counted", count), 1)


def self_signed(directory, name):
    """A certificate for 127.0.0.1 and localhost, and its key: (cert, key) paths."""
    cert, key = os.path.join(directory, name + ".crt"), os.path.join(directory, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=extender", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


class HttpsExtenderTest(unittest.TestCase):
    """An extender served over HTTPS: verified against caData (base64, as Go
    reads []byte) it filters as over HTTP; one whose certificate is not
    signed by the configured CA fails every attempt of the pods it is
    interested in, with the TLS error."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="berth-e2e-tls-")
        cert, key = self_signed(cls.tmp, "extender")
        other_cert, _ = self_signed(cls.tmp, "other")
        cls.extender = Extender(tls_files=(cert, key))
        cls.untrusted = Extender(tls_files=(cert, key))
        with open(cert, "rb") as f:
            ca_data = base64.b64encode(f.read()).decode()
        cls.server = BerthServer(["--in-memory"], scheduler=True)
        config = cls.server.write_file("scheduler.yaml", f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: {cls.extender.url}
  filterVerb: filter
  tlsConfig:
    caData: {ca_data}
- urlPrefix: {cls.untrusted.url}
  filterVerb: filter
  tlsConfig:
    caFile: {other_cert}
  managedResources:
  - name: example.com/untrusted
    ignoredByScheduler: true
""")
        cls.server.extra_args += ["--config", config]
        cls.server.start()
        for n in [node("plain"), node("reserved", {"reserved": "true"})]:
            cls.server.kubectl("apply", "-f", "-", input=json.dumps(n))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()
        cls.extender.stop()
        cls.untrusted.stop()
        subprocess.run(["rm", "-rf", cls.tmp])

    def get(self, name):
        return json.loads(self.server.kubectl("get", "pod", name, "-o", "json").stdout)

    def test_a_verified_https_extender_filters(self):
        for i in range(2):
            self.server.kubectl("apply", "-f", "-", input=json.dumps(pod(f"tls-{i}")))
        for i in range(2):
            self.assertEqual(wait_for(self, self.server, "bound",
                                      lambda: self.get(f"tls-{i}")["spec"].get("nodeName"), timeout=20), "plain")
        self.assertTrue([v for v, _ in self.extender.calls if v == "filter"])
        self.assertFalse(self.untrusted.calls)  # not interested in these pods

    def test_an_extender_whose_certificate_is_not_trusted_fails_the_attempt(self):
        p = pod("untrusted")
        p["spec"]["containers"][0]["resources"] = {"requests": {"example.com/untrusted": "1"},
                                                   "limits": {"example.com/untrusted": "1"}}
        self.server.kubectl("apply", "-f", "-", input=json.dumps(p))

        def failed():
            for c in self.get("untrusted")["status"].get("conditions", []):
                if c["type"] == "PodScheduled" and c["status"] == "False":
                    return c
            return None

        c = wait_for(self, self.server, "PodScheduled=False", failed, timeout=20)
        self.assertEqual(c["reason"], "SchedulerError")
        self.assertIn(f'Post "{self.untrusted.url}/filter": tls handshake', c["message"])
        self.assertIn("certificate verify failed", c["message"])
        self.assertFalse(self.untrusted.calls)  # no request got through


if __name__ == "__main__":
    unittest.main()
