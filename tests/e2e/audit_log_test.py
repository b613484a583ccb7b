"""berth serve --audit-log-path: kubectl's requests appear as audit.k8s.io/v1
Events (Metadata level) with the authenticated user, verb, objectRef and
response code; health checks do not; a watch has both of its stages; the
Audit-ID header names the event; the in-process scheduler's bindings are
pods/binding creates by system:kube-scheduler, as a remote scheduler's are."""

import json
import os
import ssl
import subprocess
import time
import unittest
import urllib.request

from berth_server import BERTH, KUBECTL, BerthServer, free_port


class AuditLog(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer(extra_args=["--in-memory", "--sim-nodes", "1"], scheduler=True)
        tmp = self.server.tmp
        self.cert, key = os.path.join(tmp, "tls.crt"), os.path.join(tmp, "tls.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", self.cert], check=True, capture_output=True)
        tokens = self.server.write_file("tokens.csv", 't0ken,alice,uid-1\n')
        self.audit = os.path.join(tmp, "audit", "audit.log")
        self.server.extra_args += ["--tls-cert-file", self.cert, "--tls-private-key-file", key,
                                   "--token-file", tokens, "--audit-log-path", self.audit]
        # BerthServer probes /healthz over plain HTTP; this one serves https.
        self.log = open(self.server.log_path, "ab")
        self.server.log = self.log
        self.server.proc = subprocess.Popen(
            [BERTH, "serve", "--listen", f"127.0.0.1:{self.server.port}"] + self.server.extra_args,
            stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"https://127.0.0.1:{self.server.port}"
        self.context = ssl.create_default_context(cafile=self.cert)
        deadline = time.time() + 20
        while True:
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1, context=self.context).read()
                break
            except OSError:
                if time.time() > deadline or self.server.proc.poll() is not None:
                    raise RuntimeError("berth serve did not start: " + self.server.logs())
                time.sleep(0.05)

    def tearDown(self):
        self.server.stop()
        self.server.cleanup()

    def kubectl(self, *args, check=True):
        out = subprocess.run([KUBECTL, "--server", self.url, "--certificate-authority", self.cert,
                              "--token", "t0ken"] + list(args), capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, KUBECONFIG=os.path.join(self.server.tmp, "none"),
                                      HOME=self.server.tmp))
        if check:
            self.assertEqual(out.returncode, 0, out.stderr)
        return out

    def events(self):
        with open(self.audit) as f:
            return [json.loads(line) for line in f]

    def wait_for_events(self, predicate):
        deadline = time.time() + 20
        while True:
            events = self.events()
            if predicate(events) or time.time() > deadline:
                return events
            time.sleep(0.05)

    def test_kubectl_requests_are_audited(self):
        self.kubectl("create", "configmap", "audited", "--from-literal=k=v")
        self.kubectl("get", "configmap", "audited")
        self.kubectl("delete", "configmap", "audited")
        missing = self.kubectl("get", "configmap", "audited", check=False)
        self.assertNotEqual(missing.returncode, 0)

        ours = [e for e in self.events() if e.get("objectRef", {}).get("resource") == "configmaps"
                and e["objectRef"].get("name") == "audited"]  # not the root CA publisher's kube-root-ca.crt
        # (kubectl may GET the missing object more than once.)
        self.assertEqual([(e["verb"], e["responseStatus"]["code"]) for e in ours[:4]],
                         [("create", 201), ("get", 200), ("delete", 200), ("get", 404)])
        self.assertTrue(all((e["verb"], e["responseStatus"]["code"]) == ("get", 404) for e in ours[4:]))
        for e in ours:
            self.assertEqual((e["kind"], e["apiVersion"], e["level"], e["stage"]),
                             ("Event", "audit.k8s.io/v1", "Metadata", "ResponseComplete"))
            self.assertEqual(e["user"], {"username": "alice", "groups": ["system:authenticated"]})
            self.assertEqual(e["objectRef"], {"resource": "configmaps", "namespace": "default",
                                              "name": "audited", "apiVersion": "v1"})
            self.assertEqual(e["sourceIPs"], ["127.0.0.1"])
            self.assertTrue(e["userAgent"].startswith("kubectl/"), e["userAgent"])
            self.assertTrue(e["requestURI"].startswith("/api/v1/namespaces/default/configmaps"))
            self.assertLessEqual(e["requestReceivedTimestamp"], e["stageTimestamp"])
        self.assertEqual(ours[3]["responseStatus"]["reason"], "NotFound")
        self.assertEqual(len({e["auditID"] for e in ours}), len(ours))
        # The health checks (this test's own probes) are not audited.
        self.assertFalse([e for e in self.events() if e["requestURI"].startswith("/healthz")])
        os.stat(self.audit)  # created with the directory
        self.assertEqual(os.stat(self.audit).st_mode & 0o777, 0o600)

    def test_the_audit_id_header_names_the_event(self):
        req = urllib.request.Request(self.url + "/api/v1/namespaces/default/pods",
                                     headers={"Authorization": "Bearer t0ken"})
        with urllib.request.urlopen(req, context=self.context, timeout=10) as r:
            audit_id = r.headers["Audit-ID"]
        events = self.wait_for_events(lambda es: any(e["auditID"] == audit_id for e in es))
        [event] = [e for e in events if e["auditID"] == audit_id]
        self.assertEqual((event["verb"], event["objectRef"]["resource"]), ("list", "pods"))

    def test_a_watch_has_both_stages(self):
        self.kubectl("get", "configmaps", "--watch", "--request-timeout=1s", check=False)

        def stages(events):
            watches = [e for e in events if e["verb"] == "watch"]
            return [e["stage"] for e in watches if watches and e["auditID"] == watches[0]["auditID"]]

        events = self.wait_for_events(lambda es: len(stages(es)) == 2)
        self.assertEqual(stages(events), ["ResponseStarted", "ResponseComplete"])
        first = next(e for e in events if e["verb"] == "watch")
        self.assertEqual((first["objectRef"]["resource"], first["responseStatus"]["code"]), ("configmaps", 200))


    def test_the_in_process_scheduler_binds_through_pods_binding(self):
        self.kubectl("run", "bound", "--image=registry.k8s.io/pause:3.9", "--restart=Never")

        def bindings(events):
            return [e for e in events if e.get("objectRef", {}).get("subresource") == "binding"]

        [event] = bindings(self.wait_for_events(bindings))
        self.assertEqual((event["verb"], event["stage"], event["responseStatus"]["code"]),
                         ("create", "ResponseComplete", 201))
        self.assertEqual(event["user"]["username"], "system:kube-scheduler")
        self.assertEqual(event["objectRef"], {"resource": "pods", "subresource": "binding",
                                              "namespace": "default", "name": "bound", "apiVersion": "v1"})
        self.assertEqual(event["requestURI"], "/api/v1/namespaces/default/pods/bound/binding")
        self.assertEqual(event["userAgent"], "default-scheduler")
        node = self.kubectl("get", "pod", "bound", "-o", "jsonpath={.spec.nodeName}").stdout
        self.assertTrue(node, "the pod was not bound")


class AuditFlags(unittest.TestCase):
    def test_a_policy_file_is_refused_clearly(self):
        out = subprocess.run([BERTH, "serve", "--in-memory", "--listen", f"127.0.0.1:{free_port()}",
                              "--audit-log-path", "-", "--audit-policy-file", "/nonexistent/policy.yaml"],
                             capture_output=True, text=True, timeout=30)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--audit-policy-file is not supported", out.stderr)


if __name__ == "__main__":
    unittest.main()
