"""berth serve's limits and security, seen by clients: 413 for large bodies,
431 for large headers, 429 beyond --max-mutating-requests-inflight, bearer
tokens, TLS, a taken port, bad flags, --event-ttl, and Prometheus metrics."""

import json
import os
import socket
import ssl
import subprocess
import threading
import time
import unittest
import urllib.error
import urllib.request

from berth_server import BERTH, KUBECTL, BerthServer, free_port


def request(url, method="GET", body=None, headers=None, context=None):
    req = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def pod_json(name):
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                       "spec": {"containers": [{"name": "c", "image": "nginx"}]}}).encode()


class Limits(unittest.TestCase):
    def tearDown(self):
        self.server.stop()
        self.server.cleanup()

    def test_large_bodies_get_413_with_a_status(self):
        self.server = BerthServer(extra_args=["--in-memory", "--max-request-body-bytes", "1024"]).start()
        big = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
                          "data": {"k": "v" * 4096}}).encode()
        code, _, body = request(self.server.url + "/api/v1/namespaces/default/pods", "POST", big,
                                {"Content-Type": "application/json"})
        self.assertEqual(code, 413)
        status = json.loads(body)
        self.assertEqual((status["kind"], status["reason"], status["code"]), ("Status", "RequestEntityTooLarge", 413))
        # A small body still works.
        code, _, _ = request(self.server.url + "/api/v1/namespaces/default/pods", "POST", pod_json("small"),
                             {"Content-Type": "application/json"})
        self.assertEqual(code, 201)

    def test_an_8_mib_body_is_answered_413_at_the_default_limit(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
                           "data": {"k": "v" * (8 << 20)}}).encode()
        code, _, text = request(self.server.url + "/api/v1/namespaces/default/configmaps", "POST", body,
                                {"Content-Type": "application/json"})
        self.assertEqual(code, 413)
        self.assertEqual(json.loads(text)["message"], "Request entity too large: limit is 3145728")

    def test_deeply_nested_json_is_a_400_not_a_crash(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()
        deep = "[" * 1_000_000 + "]" * 1_000_000  # 2 MB, within the body limit
        body = ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":' + deep + "}").encode()
        for path in ("/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps/deep"):
            code, _, text = request(self.server.url + path, "POST" if path.endswith("maps") else "PUT", body,
                                    {"Content-Type": "application/json"})
            self.assertEqual(code, 400, text)
            self.assertEqual(json.loads(text)["reason"], "BadRequest")
        code, _, text = request(self.server.url + "/api/v1/namespaces/default/configmaps/deep", "PATCH",
                                ('{"x":' + deep + "}").encode(), {"Content-Type": "application/merge-patch+json"})
        self.assertIn(code, (400, 404), text)
        self.assertEqual(request(self.server.url + "/healthz")[0], 200)

    def test_a_header_over_1_mib_gets_431(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=20) as s:
            s.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        self.assertTrue(answer.startswith(b"HTTP/1.1 431 "), answer[:100])
        # A header of 480 KiB is within kube's limit.
        code, _, _ = request(self.server.url + "/api/v1/namespaces",
                             headers={f"X-Big-{i}": "a" * 60000 for i in range(8)})
        self.assertEqual(code, 200)
        # One field longer than berth can hold is refused, and the server lives on.
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=20) as s:
            s.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n")
            self.assertTrue(s.recv(100).startswith(b"HTTP/1.1 431 "))
        code, _, _ = request(self.server.url + "/api/v1/namespaces")
        self.assertEqual(code, 200)

    def test_requests_beyond_the_inflight_limit_get_429(self):
        # Durable writes wait for their fsync, so 32 concurrent creates overlap.
        self.server = BerthServer(extra_args=["--max-mutating-requests-inflight", "1"])
        audit_path = os.path.join(self.server.tmp, "audit.log")
        self.server.extra_args += ["--audit-log-path", audit_path]
        self.server.start()
        results = []
        lock = threading.Lock()

        def create(i):
            code, headers, body = request(self.server.url + "/api/v1/namespaces/default/pods", "POST",
                                          pod_json(f"p-{i}"), {"Content-Type": "application/json"})
            with lock:
                results.append((code, headers, body))

        for round_ in range(5):
            threads = [threading.Thread(target=create, args=(round_ * 100 + i,)) for i in range(32)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if any(code == 429 for code, _, _ in results):
                break
        busy = [(h, b) for code, h, b in results if code == 429]
        self.assertTrue(busy, "no request was refused with 429")
        headers, body = busy[0]
        self.assertEqual(headers.get("Retry-After"), "1")
        self.assertEqual(json.loads(body)["reason"], "TooManyRequests")
        self.assertTrue(all(code in (201, 429) for code, _, _ in results))
        self.assertEqual(json.loads(body)["message"], "Too many requests, please try again later.")
        # Reads have their own limit (--max-requests-inflight, 400).
        code, _, _ = request(self.server.url + "/api/v1/namespaces/default/pods")
        self.assertEqual(code, 200)
        _, _, metrics = request(self.server.url + "/metrics")
        dropped = [l for l in metrics.splitlines() if l.startswith('apiserver_dropped_requests_total{request_kind="mutating"}')]
        self.assertEqual(len(dropped), 1, metrics)
        self.assertEqual(float(dropped[0].split()[1]), len(busy))
        self.assertIn('apiserver_current_inflight_requests{request_kind="readOnly"}', metrics)
        self.assertIn('apiserver_current_inflight_requests{request_kind="mutating"}', metrics)
        # Each refused request is in the audit log, as kube audits them.
        self.server.stop()
        with open(audit_path) as f:
            events = [json.loads(line) for line in f]
        refused = [e for e in events if e["responseStatus"]["code"] == 429]
        self.assertEqual(len(refused), len(busy))
        self.assertTrue(all(e["verb"] == "create" and e["objectRef"]["resource"] == "pods" and
                            e["stage"] == "ResponseComplete" for e in refused), refused[:2])

    def test_system_masters_are_served_beyond_the_inflight_limit(self):
        # kube's exemption: a system:masters user gets an answer when others get 429.
        self.server = BerthServer(extra_args=["--max-mutating-requests-inflight", "1"])
        tokens = os.path.join(self.server.tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write('root-token,root,1,"system:masters"\nuser-token,user,2\n')
        self.server.extra_args += ["--token-file", tokens]
        self.server.start()
        codes = {"root-token": [], "user-token": []}
        lock = threading.Lock()

        def create(token, i):
            code, _, _ = request(self.server.url + "/api/v1/namespaces/default/pods", "POST",
                                 pod_json(f"{token[:4]}-{i}"),
                                 {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            with lock:
                codes[token].append(code)

        for round_ in range(5):
            threads = [threading.Thread(target=create, args=(token, round_ * 100 + i))
                       for i in range(16) for token in ("root-token", "user-token")]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if 429 in codes["user-token"]:
                break
        self.assertIn(429, codes["user-token"], "the limit was never reached")
        self.assertEqual(set(codes["root-token"]), {201}, codes["root-token"])
        _, _, metrics = request(self.server.url + "/metrics", headers={"Authorization": "Bearer root-token"})
        dropped = [l for l in metrics.splitlines() if l.startswith('apiserver_dropped_requests_total{request_kind="mutating"}')]
        self.assertEqual(float(dropped[0].split()[1]), codes["user-token"].count(429))

    def test_bearer_tokens(self):
        self.server = BerthServer(extra_args=["--in-memory"])
        path = os.path.join(self.server.tmp, "tokens.csv")
        with open(path, "w") as f:
            f.write('s3cret,alice,uid-1,"admins"\n')
        self.server.extra_args += ["--token-file", path]
        self.server.start()  # /healthz stays open to anonymous clients, as in kube
        code, _, body = request(self.server.url + "/api/v1/namespaces")
        self.assertEqual(code, 401)
        self.assertEqual(json.loads(body)["reason"], "Unauthorized")
        code, _, _ = request(self.server.url + "/api/v1/namespaces", headers={"Authorization": "Bearer wrong"})
        self.assertEqual(code, 401)
        code, _, _ = request(self.server.url + "/api/v1/namespaces", headers={"Authorization": "Bearer s3cret"})
        self.assertEqual(code, 200)
        # kubectl sends tokens only over https: test_tls drives it with one.
        denied = self.server.kubectl("get", "namespaces", check=False)
        self.assertNotEqual(denied.returncode, 0)
        self.assertIn("provide credentials", denied.stderr)

    def test_tls(self):
        self.server = BerthServer(extra_args=["--in-memory"])
        cert = os.path.join(self.server.tmp, "tls.crt")
        key = os.path.join(self.server.tmp, "tls.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", cert], check=True, capture_output=True)
        tokens = os.path.join(self.server.tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write("t0ken,bob,uid-2\n")
        self.server.extra_args += ["--tls-cert-file", cert, "--tls-private-key-file", key, "--token-file", tokens]
        # BerthServer probes /healthz over plain HTTP; start the process by hand.
        log = open(self.server.log_path, "ab")
        self.server.log = log
        self.server.proc = subprocess.Popen(
            [BERTH, "serve", "--listen", f"127.0.0.1:{self.server.port}"] + self.server.extra_args,
            stdout=log, stderr=subprocess.STDOUT)
        url = f"https://127.0.0.1:{self.server.port}"
        context = ssl.create_default_context(cafile=cert)
        import time
        deadline = time.time() + 20
        while True:
            try:
                code, _, body = request(url + "/healthz", context=context)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.assertEqual((code, body), (200, "ok"))
        # kubectl over https without credentials would prompt for a password: give it the token.
        out = subprocess.run([KUBECTL, "--server", url, "--certificate-authority", cert, "--token", "t0ken",
                              "get", "namespaces",
                              "-o", "name"], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, KUBECONFIG=os.path.join(self.server.tmp, "none"),
                                      HOME=self.server.tmp))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("namespace/default", out.stdout)

    def test_a_taken_port_is_a_clear_error(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()
        second = subprocess.run([BERTH, "serve", "--in-memory", "--listen", f"127.0.0.1:{self.server.port}"],
                                capture_output=True, text=True, timeout=30)
        self.assertNotEqual(second.returncode, 0)
        self.assertIn(f"127.0.0.1:{self.server.port}", second.stderr)
        self.assertIn("address already in use", second.stderr.lower())

    def test_a_second_server_on_the_same_data_directory_is_refused(self):
        self.server = BerthServer().start()
        self.server.kubectl("create", "configmap", "kept", "--from-literal=k=v")
        second = subprocess.run([BERTH, "serve", "--data-dir", self.server.data_dir,
                                 "--listen", f"127.0.0.1:{free_port()}"],
                                capture_output=True, text=True, timeout=30)
        self.assertNotEqual(second.returncode, 0)
        self.assertIn(f"data directory {self.server.data_dir} is in use by PID {self.server.proc.pid}",
                      second.stderr)
        restore = subprocess.run([BERTH, "store", "restore", "--data-dir", self.server.data_dir,
                                  "--to-revision", "1"], capture_output=True, text=True, timeout=30)
        self.assertNotEqual(restore.returncode, 0)
        self.assertIn(f"is in use by PID {self.server.proc.pid}", restore.stderr)
        # The first server goes on serving what it stored.
        self.assertEqual(self.server.kubectl("get", "configmap", "kept", "-o", "jsonpath={.data.k}").stdout, "v")

    def test_a_bad_duration_flag_is_a_clear_error(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()
        for flag in ("--event-ttl", "--node-monitor-grace-period"):
            out = subprocess.run([BERTH, "serve", "--in-memory", "--listen", f"127.0.0.1:{free_port()}",
                                  flag, ".5x"], capture_output=True, text=True, timeout=30)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn(f"{flag} .5x: expected a duration", out.stderr)

    def test_an_unknown_command_is_named(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()
        for args, word, path in ((["frob"], "frob", "berth"), (["store", "frob"], "frob", "berth store"),
                                 (["sim", "node-sideways"], "node-sideways", "berth sim")):
            out = subprocess.run([BERTH] + args, capture_output=True, text=True, timeout=10)
            self.assertEqual(out.returncode, 2)
            self.assertIn(f'berth: unknown command "{word}" for "{path}"', out.stderr)

    def test_events_expire_after_the_event_ttl(self):
        self.server = BerthServer(extra_args=["--in-memory", "--event-ttl", "1s"]).start()
        event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"}, "reason": "Test",
                 "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"}}
        status, _, body = request(self.server.url + "/api/v1/namespaces/default/events", "POST",
                                  json.dumps(event).encode(), {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body)
        deadline = time.time() + 20
        while time.time() < deadline:
            status, _, _ = request(self.server.url + "/api/v1/namespaces/default/events/e1")
            if status == 404:
                break
            time.sleep(0.1)
        self.assertEqual(status, 404)

    def test_metrics_are_prometheus_text_with_kube_names(self):
        self.server = BerthServer(extra_args=["--in-memory"], scheduler=True).start()
        for i in range(3):
            request(self.server.url + "/api/v1/namespaces/default/pods", "POST", pod_json(f"m-{i}"),
                    {"Content-Type": "application/json"})
        request(self.server.url + "/api/v1/namespaces/default/pods")
        code, headers, text = request(self.server.url + "/metrics")
        self.assertEqual(code, 200)
        self.assertTrue(headers.get("Content-Type", "").startswith("text/plain"))
        lines = text.splitlines()
        self.assertIn('apiserver_request_total{verb="POST",dry_run="",group="",version="v1",resource="pods",'
                      'subresource="",scope="namespace",component="apiserver",code="201"} 3', lines)
        self.assertTrue(any(l.startswith('apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",'
                                         'resource="pods",subresource="",scope="namespace",'
                                         'component="apiserver",code="200"}')
                            for l in lines))
        self.assertIn("# TYPE scheduler_schedule_attempts_total counter", lines)
        # Every sample line is NAME{LABELS} VALUE with a declared family.
        families = {l.split()[2] for l in lines if l.startswith("# TYPE ")}
        for l in lines:
            if not l or l.startswith("#"):
                continue
            name = l.split("{")[0].split(" ")[0]
            base = name
            for suffix in ("_bucket", "_sum", "_count"):
                if name.endswith(suffix) and name[: -len(suffix)] in families:
                    base = name[: -len(suffix)]
            self.assertIn(base, families, l)
            float(l.rsplit(" ", 1)[1])


if __name__ == "__main__":
    unittest.main()
