"""Clients for real clusters: `berth serve` over TLS with a token file and a
client CA, reached by real kubectl and by `berth scheduler` through
kubeconfigs, with a CA and a token, and with a client certificate. Wrong
trust and missing credentials are refused."""

import base64
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

from berth_server import BERTH, KUBECTL, BerthServer, free_port, wait_for

MAKE_CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "make-test-certs.sh")


class TlsBerthServer(BerthServer):
    """berth serve with --tls-cert-file, --token-file and --client-ca-file."""

    def __init__(self, certs, token_file):
        super().__init__(extra_args=[
            "--in-memory", "--tls-cert-file", os.path.join(certs, "server.crt"),
            "--tls-private-key-file", os.path.join(certs, "server.key"),
            "--client-ca-file", os.path.join(certs, "ca.crt"), "--token-file", token_file])
        self.ca = os.path.join(certs, "ca.crt")

    @property
    def url(self):
        return f"https://127.0.0.1:{self.port}"

    def start(self):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [BERTH, "serve", "--listen", f"127.0.0.1:{self.port}", "--data-dir", self.data_dir]
            + self.extra_args, stdout=self.log, stderr=subprocess.STDOUT)
        context = ssl.create_default_context(cafile=self.ca)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"berth serve exited: {self.logs()}")
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1, context=context).read()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("berth serve did not become healthy: " + self.logs())


def kubeconfig(server, cluster, user):
    return json.dumps({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "berth", "cluster": dict(server=server, **cluster)}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "c", "context": {"cluster": "berth", "user": "u"}}],
        "current-context": "c"})


class KubeconfigClients(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="berth-kubeconfig-")
        cls.certs = os.path.join(cls.tmp, "certs")
        os.makedirs(cls.certs)
        subprocess.run(["bash", MAKE_CERTS, cls.certs], check=True, timeout=60)
        token_file = os.path.join(cls.tmp, "tokens.csv")
        with open(token_file, "w") as f:
            f.write('sched-token,system:kube-scheduler,uid-1,"system:masters"\n')
        cls.server = TlsBerthServer(cls.certs, token_file).start()
        url = cls.server.url
        # A CA file named relative to the kubeconfig, and a token.
        cls.token_config = cls.write("token.kubeconfig", kubeconfig(
            url, {"certificate-authority": "certs/ca.crt"}, {"token": "sched-token"}))
        # The CA inline, and a client certificate from files.
        with open(os.path.join(cls.certs, "ca.crt"), "rb") as f:
            ca_data = base64.b64encode(f.read()).decode()
        cls.cert_config = cls.write("cert.kubeconfig", kubeconfig(
            url, {"certificate-authority-data": ca_data},
            {"client-certificate": "certs/client.crt", "client-key": "certs/client.key"}))
        # (kubectl would prompt for a password with no credentials at all.)
        cls.bad_token_config = cls.write("bad-token.kubeconfig", kubeconfig(
            url, {"certificate-authority": "certs/ca.crt"}, {"token": "not-in-the-token-file"}))
        cls.wrong_ca_config = cls.write("wrong-ca.kubeconfig", kubeconfig(
            url, {"certificate-authority": "certs/other-ca.crt"}, {"token": "sched-token"}))

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def write(cls, name, text):
        path = os.path.join(cls.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def env(self):
        return dict(os.environ, HOME=self.tmp, KUBECONFIG=os.path.join(self.tmp, "none"))

    def kubectl(self, config, *args, input=None, check=True):
        cmd = [KUBECTL, "--kubeconfig", config, "--cache-dir", os.path.join(self.tmp, "kube-cache")] + list(args)
        p = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=60, env=self.env())
        if check and p.returncode != 0:
            self.fail(f"{' '.join(cmd)}: {p.stderr}\n{self.server.logs()[-2000:]}")
        return p

    def test_kubectl_with_a_token_and_with_a_client_certificate(self):
        who = json.loads(self.kubectl(self.token_config, "auth", "whoami", "-o", "json").stdout)
        self.assertEqual(who["status"]["userInfo"]["username"], "system:kube-scheduler")
        who = json.loads(self.kubectl(self.cert_config, "auth", "whoami", "-o", "json").stdout)
        self.assertEqual(who["status"]["userInfo"]["username"], "alice")
        self.assertEqual(who["status"]["userInfo"]["groups"], ["dev", "ops", "system:authenticated"])
        names = self.kubectl(self.cert_config, "get", "namespaces", "-o", "name").stdout.split()
        self.assertIn("namespace/kube-system", names)

    def test_kubectl_with_an_unknown_token_or_the_wrong_ca_is_refused(self):
        p = self.kubectl(self.bad_token_config, "get", "pods", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("You must be logged in to the server (Unauthorized)", p.stderr)
        p = self.kubectl(self.wrong_ca_config, "get", "pods", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("certificate signed by unknown authority", p.stderr)

    def run_scheduler_until_bound(self, config, pod_name):
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                           "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                           "conditions": [{"type": "Ready", "status": "True"}]}}
        self.kubectl(self.token_config, "apply", "-f", "-", input=json.dumps(node))
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod_name, "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9"}]}}
        self.kubectl(self.token_config, "create", "-f", "-", input=json.dumps(pod))
        log_path = os.path.join(self.tmp, pod_name + "-scheduler.log")
        with open(log_path, "wb") as log:
            sched = subprocess.Popen([BERTH, "scheduler", "--kubeconfig", config], stdout=log,
                                     stderr=subprocess.STDOUT, env=self.env())
        try:
            def node_name():
                p = self.kubectl(self.token_config, "get", "pod", pod_name, "-o",
                                 "jsonpath={.spec.nodeName}", check=False)
                return p.stdout.strip()
            self.assertEqual(wait_for(self, self.server, f"{pod_name} bound", node_name, timeout=60), "n1")
        finally:
            sched.terminate()
            sched.wait(timeout=30)
        with open(log_path) as f:
            self.assertIn("scheduling for " + self.server.url, f.read())

    def test_scheduler_dashboard_reads_through_the_kubeconfig(self):
        """berth scheduler --listen passes the dashboard's reads on to an
        HTTPS server that wants a token, with the kubeconfig's CA and token;
        its own endpoint asks for none."""
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "dash-node"},
                "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
        self.kubectl(self.token_config, "apply", "-f", "-", input=json.dumps(node))
        port = free_port()
        log_path = os.path.join(self.tmp, "dashboard-scheduler.log")
        with open(log_path, "wb") as log:
            sched = subprocess.Popen([BERTH, "scheduler", "--kubeconfig", self.token_config,
                                      "--listen", f"127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT,
                                     env=self.env())
        url = f"http://127.0.0.1:{port}"

        def get(path):
            try:
                with urllib.request.urlopen(url + path, timeout=10) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as e:
                return e.code, e.read()
            except OSError:
                return None, b""
        try:
            wait_for(self, self.server, "the scheduler's /healthz", lambda: get("/healthz")[0] == 200, timeout=60)
            status, body = get("/api/v1/nodes")
            self.assertEqual(status, 200, body)
            self.assertIn("dash-node", [n["metadata"]["name"] for n in json.loads(body)["items"]])
            status, body = get("/api/v1/nodes/dash-node")
            self.assertEqual((status, json.loads(body)["metadata"]["name"]), (200, "dash-node"))
            # A watch from the list's resourceVersion streams through too.
            rv = json.loads(get("/api/v1/nodes")[1])["metadata"]["resourceVersion"]
            with urllib.request.urlopen(f"{url}/api/v1/nodes?watch=1&resourceVersion={rv}&timeoutSeconds=20",
                                        timeout=30) as stream:
                node["metadata"]["labels"] = {"seen": "yes"}
                self.kubectl(self.token_config, "apply", "-f", "-", input=json.dumps(node))
                event = json.loads(stream.readline())
            self.assertEqual((event["type"], event["object"]["metadata"]["labels"]["seen"]), ("MODIFIED", "yes"))
        finally:
            sched.terminate()
            sched.wait(timeout=30)
            self.kubectl(self.token_config, "delete", "node", "dash-node", check=False)

    def test_scheduler_binds_through_a_kubeconfig_with_a_token(self):
        self.run_scheduler_until_bound(self.token_config, "by-token")

    def test_scheduler_binds_through_a_kubeconfig_with_a_client_certificate(self):
        self.run_scheduler_until_bound(self.cert_config, "by-cert")

    def test_scheduler_refuses_a_server_its_ca_did_not_sign(self):
        p = subprocess.run([BERTH, "scheduler", "--kubeconfig", self.wrong_ca_config], capture_output=True,
                           text=True, timeout=60, env=self.env())
        self.assertEqual(p.returncode, 1)
        self.assertIn("tls: failed to verify certificate", p.stderr)

    def test_bad_kubeconfig_names_the_file_and_key(self):
        bad = self.write("bad.kubeconfig", kubeconfig(self.server.url, {"certificate-authority": "missing.crt"}, {}))
        p = subprocess.run([BERTH, "scheduler", "--kubeconfig", bad], capture_output=True, text=True, timeout=60,
                           env=self.env())
        self.assertEqual(p.returncode, 1)
        self.assertIn(bad + ": clusters[berth].certificate-authority: open ", p.stderr)


if __name__ == "__main__":
    unittest.main()
