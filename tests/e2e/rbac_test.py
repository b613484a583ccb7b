"""--authorization-mode=RBAC with real kubectl over https and bearer tokens:
an admin (group system:masters) and a view-only user (bound to kube's `view`
ClusterRole) — view lists but cannot create, with kube's 403 message;
`kubectl auth can-i` answers for each token; anonymous requests are
system:anonymous; the in-process scheduler still binds pods as
system:kube-scheduler."""

import json
import os
import ssl
import subprocess
import time
import unittest
import urllib.error
import urllib.request

from berth_server import BERTH, KUBECTL, BerthServer, wait_for


class RbacTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(extra_args=["--in-memory", "--sim-nodes", "1"], scheduler=True)
        tmp = cls.server.tmp
        cls.cert = os.path.join(tmp, "tls.crt")
        key = os.path.join(tmp, "tls.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", cls.cert], check=True, capture_output=True)
        tokens = cls.server.write_file("tokens.csv", 'admin-token,admin,1,"system:masters"\nview-token,viewer,2\nlead-token,lead,3\n')
        cls.server.log = open(cls.server.log_path, "ab")
        cls.server.proc = subprocess.Popen(
            [BERTH, "serve", "--listen", f"127.0.0.1:{cls.server.port}", "--tls-cert-file", cls.cert,
             "--tls-private-key-file", key, "--token-file", tokens, "--authorization-mode", "RBAC"]
            + cls.server.extra_args, stdout=cls.server.log, stderr=subprocess.STDOUT)
        cls.url = f"https://127.0.0.1:{cls.server.port}"
        cls.context = ssl.create_default_context(cafile=cls.cert)
        deadline = time.time() + 30
        while True:
            try:
                if cls.get("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                raise RuntimeError("berth serve did not start:\n" + cls.server.logs()[-3000:])
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    @classmethod
    def get(cls, path, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            with urllib.request.urlopen(urllib.request.Request(cls.url + path, headers=headers),
                                        context=cls.context, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def kubectl(self, token, *args):
        env = dict(os.environ, KUBECONFIG=os.path.join(self.server.tmp, "none"), HOME=self.server.tmp)
        return subprocess.run([KUBECTL, "--server", self.url, "--certificate-authority", self.cert,
                               "--token", token, *args], capture_output=True, text=True, timeout=60, env=env)

    def test_view_lists_but_cannot_create_and_can_i_answers(self):
        bound = self.kubectl("admin-token", "create", "clusterrolebinding", "viewer-view", "--clusterrole=view",
                             "--user=viewer")
        self.assertEqual(bound.returncode, 0, bound.stderr)
        # The binding reaches the authorizer through a watch: a moment later.
        wait_for(self, self.server, "viewer to list pods",
                 lambda: self.kubectl("view-token", "get", "pods").returncode == 0)
        denied = self.kubectl("view-token", "create", "configmap", "c", "--from-literal=k=v")
        self.assertNotEqual(denied.returncode, 0)
        self.assertIn('configmaps is forbidden: User "viewer" cannot create '
                      'resource "configmaps" in API group "" in the namespace "default"', denied.stderr)
        denied = self.kubectl("view-token", "run", "web", "--image=nginx")
        self.assertIn('Error from server (Forbidden): pods is forbidden: User "viewer" cannot create '
                      'resource "pods" in API group "" '
                      'in the namespace "default"', denied.stderr)

        for token, verb, answer in (("view-token", "create", "no"), ("view-token", "list", "yes"),
                                    ("admin-token", "create", "yes")):
            out = self.kubectl(token, "auth", "can-i", verb, "pods")
            self.assertEqual(out.stdout.strip(), answer, (token, verb, out.stderr))
            self.assertEqual(out.returncode, 0 if answer == "yes" else 1)
        self.assertEqual(self.kubectl("view-token", "auth", "can-i", "get", "secrets").stdout.strip(), "no")
        listed = self.kubectl("view-token", "auth", "can-i", "--list")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn("pods/log", listed.stdout)
        self.assertIn("selfsubjectaccessreviews.authorization.k8s.io", listed.stdout)
        whoami = self.kubectl("view-token", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
        self.assertEqual(whoami.stdout, "viewer", whoami.stderr)

    def test_a_namespace_admin_cannot_grant_what_it_lacks(self):
        for args in (("create", "namespace", "team"),
                     ("create", "rolebinding", "lead-admin", "--clusterrole=admin", "--user=lead", "-n", "team")):
            out = self.kubectl("admin-token", *args)
            self.assertEqual(out.returncode, 0, out.stderr)
        wait_for(self, self.server, "lead to create a role in team",
                 lambda: self.kubectl("lead-token", "create", "role", "pod-reader", "--verb=get", "--resource=pods",
                                      "-n", "team").returncode == 0)
        out = self.kubectl("lead-token", "create", "role", "node-reader", "--verb=list", "--resource=nodes",
                           "-n", "team")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn('roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "lead" '
                      '(groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
                      '{APIGroups:[""], Resources:["nodes"], Verbs:["list"]}', out.stderr)
        out = self.kubectl("lead-token", "create", "rolebinding", "grab", "--clusterrole=cluster-admin",
                           "--user=lead", "-n", "team")
        self.assertIn("is attempting to grant RBAC permissions not currently held", out.stderr)

    def test_anonymous_requests_are_system_anonymous(self):
        self.assertEqual(self.get("/healthz"), (200, "ok"))
        code, body = self.get("/api/v1/namespaces/default/pods")
        self.assertEqual(code, 403)
        self.assertEqual(json.loads(body)["message"],
                         'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" '
                         'in the namespace "default"')
        self.assertEqual(self.get("/api/v1/namespaces/default/pods", token="nobody")[0], 401)

    def test_in_process_scheduler_binds_as_system_kube_scheduler(self):
        out = self.kubectl("admin-token", "run", "scheduled", "--image=nginx")
        self.assertEqual(out.returncode, 0, out.stderr)
        wait_for(self, self.server, "the pod to be bound",
                 lambda: self.kubectl("admin-token", "get", "pod", "scheduled",
                                      "-o", "jsonpath={.spec.nodeName}").stdout)


if __name__ == "__main__":
    unittest.main()
