"""Families of Kubernetes behaviour its own conformance suite checks, as
kubectl meets them against `berth serve --sim-nodes`: every namespace's
default ServiceAccount and kube-root-ca.crt, ReplicationControllers (pods,
`kubectl scale rc`), a quantity written as a JSON number, the simulated
kubelet's admission (a hostPort taken) and containers running their known
commands, and defaults kube applies (a RoleBinding without roleRef.apiGroup,
a volume with only a name), the label naming each namespace, a Service whose
type changes, the verbose health checks, what a container's `env` prints, a
StatefulSet scaled through protobuf, a review asked for as a Table, a quota
refusing a ReplicationController's pod, a custom resource's defaults on
read, an image that cannot exist, an rc deleted orphaning or in the
foreground, and pods running as their ServiceAccount with a token the server
issues (`kubectl create token`), accepts and reviews, and `kubectl get
componentstatuses`."""

import json
import unittest
import urllib.error
import urllib.request

from berth_server import BerthServer, wait_for


class ConformanceClassesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(["--sim-nodes", "2"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def get(self, *args):
        p = self.server.kubectl("get", *args, "-o", "json", check=False)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def apply(self, manifest):
        return self.server.kubectl("apply", "-f", "-", input=json.dumps(manifest))

    def wait(self, what, predicate, timeout=60):
        return wait_for(self, self.server, what, predicate, timeout, interval=0.2)

    def test_every_namespace_gets_its_default_service_account_and_root_ca(self):
        self.server.kubectl("create", "namespace", "fresh")
        sa = self.wait("the default ServiceAccount", lambda: self.get("serviceaccount", "default", "-n", "fresh"))
        self.assertEqual(sa["metadata"]["namespace"], "fresh")
        cm = self.wait("kube-root-ca.crt", lambda: self.get("configmap", "kube-root-ca.crt", "-n", "fresh"))
        self.assertIn("ca.crt", cm["data"])
        self.assertIn("kubernetes.io/description", cm["metadata"]["annotations"])
        # Deleted: it comes back.
        self.server.kubectl("delete", "serviceaccount", "default", "-n", "fresh")
        self.wait("the default ServiceAccount again",
                  lambda: (s := self.get("serviceaccount", "default", "-n", "fresh")) and
                  s["metadata"]["uid"] != sa["metadata"]["uid"])

    def test_a_namespace_is_selectable_by_its_name_label(self):
        self.server.kubectl("create", "namespace", "labelled")
        found = self.get("namespaces", "-l", "kubernetes.io/metadata.name=labelled")["items"]
        self.assertEqual([n["metadata"]["name"] for n in found], ["labelled"])
        # kubectl cannot take it away.
        self.server.kubectl("label", "namespace", "labelled", "kubernetes.io/metadata.name-")
        self.assertEqual(self.get("namespace", "labelled")["metadata"]["labels"]["kubernetes.io/metadata.name"],
                         "labelled")

    def test_a_service_changed_from_external_name_gets_an_address_and_node_port(self):
        self.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ext"},
                    "spec": {"type": "ExternalName", "externalName": "example.com"}})
        self.assertNotIn("clusterIP", self.get("service", "ext")["spec"])
        self.server.kubectl("patch", "service", "ext", "--type=merge", "-p", json.dumps(
            {"spec": {"type": "NodePort", "externalName": None, "ports": [{"name": "http", "port": 80}]}}))
        spec = self.get("service", "ext")["spec"]
        self.assertTrue(spec["clusterIP"].startswith("10.96."), spec)
        node_port = spec["ports"][0]["nodePort"]
        self.assertTrue(30000 <= node_port <= 32767, spec)
        self.server.kubectl("patch", "service", "ext", "--type=merge", "-p", json.dumps(
            {"spec": {"type": "ExternalName", "externalName": "example.org"}}))
        spec = self.get("service", "ext")["spec"]
        self.assertNotIn("clusterIP", spec)
        self.assertNotIn("nodePort", spec["ports"][0])

    def test_health_checks_are_listed_when_verbose(self):
        out = self.server.kubectl("get", "--raw", "/readyz?verbose").stdout
        self.assertEqual(out.splitlines(), ["[+]ping ok", "[+]store ok", "readyz check passed"])
        self.assertEqual(self.server.kubectl("get", "--raw", "/livez/ping").stdout, "ok")
        failed = self.server.kubectl("get", "--raw", "/livez/nothing", check=False)
        self.assertNotEqual(failed.returncode, 0)

    def test_a_replication_controller_gets_its_pods_and_scales(self):
        self.apply({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "web"},
                    "spec": {"replicas": 2, "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        rc = self.get("rc", "web")
        self.assertEqual(rc["spec"]["selector"], {"app": "web"})  # defaulted from the template
        self.wait("two ready replicas", lambda: (r := self.get("rc", "web")) and
                  r.get("status", {}).get("readyReplicas") == 2)
        self.server.kubectl("scale", "rc", "web", "--replicas=3")
        self.wait("three ready replicas", lambda: (r := self.get("rc", "web")) and
                  r.get("status", {}).get("readyReplicas") == 3)
        pods = self.get("pods", "-l", "app=web")["items"]
        self.assertEqual(len(pods), 3)
        for pod in pods:
            owner = pod["metadata"]["ownerReferences"][0]
            self.assertEqual((owner["kind"], owner["name"], owner["controller"]), ("ReplicationController", "web", True))

    def test_a_quantity_written_as_a_number_is_kubes_canonical_string(self):
        self.apply({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
                    "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
                        "metadata": {"labels": {"app": "agent"}},
                        "spec": {"containers": [{"name": "c", "image": "busybox",
                                                 "resources": {"requests": {"cpu": 0.15}}}]}}}})
        ds = self.get("daemonset", "agent")
        self.assertEqual(ds["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], "150m")
        self.wait("a pod per node", lambda: (d := self.get("daemonset", "agent")) and
                  d.get("status", {}).get("numberReady") == 2)

    def test_a_pod_bound_where_its_host_port_is_taken_is_rejected_by_the_kubelet(self):
        def pod(name):
            return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                    "spec": {"nodeName": "sim-node-0", "containers": [{"name": "c", "image": "nginx",
                             "ports": [{"containerPort": 80, "hostPort": 18080}]}]}}
        self.apply(pod("port-first"))
        self.wait("the first pod running", lambda: (p := self.get("pod", "port-first")) and
                  p["status"].get("phase") == "Running")
        self.apply(pod("port-second"))
        rejected = self.wait("the second pod rejected", lambda: (p := self.get("pod", "port-second")) and
                             p["status"].get("phase") == "Failed" and p)
        self.assertEqual(rejected["status"]["reason"], "NodePorts")
        self.assertEqual(rejected["status"]["message"], "Pod was rejected: Predicate NodePorts failed: "
                         "node(s) didn't have free ports for the requested pod ports")

    def test_a_container_runs_its_known_command(self):
        self.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "exits-three"},
                    "spec": {"restartPolicy": "Never", "containers": [
                        {"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 1; exit 3"]}]}})
        pod = self.wait("the pod to fail", lambda: (p := self.get("pod", "exits-three")) and
                        p["status"].get("phase") == "Failed" and p)
        self.assertEqual(pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 3)

    def test_defaults_kube_applies_instead_of_refusing(self):
        self.apply({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                    "metadata": {"name": "readers"},
                    "roleRef": {"kind": "ClusterRole", "name": "view"},
                    "subjects": [{"kind": "User", "name": "alice"}]})
        rb = self.get("rolebinding", "readers")
        self.assertEqual(rb["roleRef"]["apiGroup"], "rbac.authorization.k8s.io")
        self.assertEqual(rb["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io")
        self.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "scratch"},
                    "spec": {"volumes": [{"name": "tmp"}],
                             "containers": [{"name": "c", "image": "busybox",
                                             "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}]}]}})
        self.assertEqual(self.get("pod", "scratch")["spec"]["volumes"][0], {"name": "tmp", "emptyDir": {}})


    def request(self, method, path, body=None, headers=None):
        r = urllib.request.Request(self.server.url + path, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(r, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    # kube's e2e Secrets, ConfigMap, Downward API and Variable Expansion specs
    # run `sh -c env` and look for NAME=value in the log.
    def test_a_container_prints_the_environment_the_kubelet_gives_it(self):
        self.server.kubectl("create", "secret", "generic", "env-secret", "--from-literal=data-1=value-1")
        self.server.kubectl("create", "configmap", "env-config", "--from-literal=data-2=value-2")
        self.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "foo-service"},
                    "spec": {"ports": [{"port": 8765}]}})
        self.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "env-printer"},
                    "spec": {"restartPolicy": "Never", "containers": [{
                        "name": "c", "image": "busybox", "command": ["sh", "-c", "env; echo \"$(FOO)\""],
                        "envFrom": [{"prefix": "CM_", "configMapRef": {"name": "env-config"}}],
                        "env": [{"name": "SECRET_DATA", "valueFrom": {"secretKeyRef": {"name": "env-secret",
                                                                                         "key": "data-1"}}},
                                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                                {"name": "FOO", "value": "foo-value"},
                                {"name": "FOOBAR", "value": "$(FOO);;$(POD_NAME)"}]}]}})
        self.wait("the pod to succeed", lambda: (p := self.get("pod", "env-printer")) and
                  p["status"].get("phase") == "Succeeded")
        lines = self.server.kubectl("logs", "env-printer").stdout.splitlines()
        for expected in ["SECRET_DATA=value-1", "CM_data-2=value-2", "POD_NAME=env-printer",
                         "FOOBAR=foo-value;;env-printer", "HOSTNAME=env-printer", "foo-value"]:
            self.assertIn(expected, lines)
        service = self.get("service", "foo-service")
        self.assertIn("FOO_SERVICE_SERVICE_HOST=" + service["spec"]["clusterIP"], lines)
        self.assertIn("FOO_SERVICE_PORT_8765_TCP_PROTO=tcp", lines)
        self.assertTrue(any(line.startswith("KUBERNETES_SERVICE_HOST=") for line in lines), lines)

    # client-go's UpdateScale sends the Scale in protobuf.
    def test_a_statefulset_is_scaled_by_a_protobuf_scale(self):
        self.apply({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
                    "spec": {"replicas": 1, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                             "template": {"metadata": {"labels": {"app": "db"}},
                                          "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})

        def varint(n):
            out = b""
            while True:
                low, n = n & 0x7F, n >> 7
                if not n:
                    return out + bytes([low])
                out += bytes([low | 0x80])

        def field(number, data):
            return varint(number << 3 | 2) + varint(len(data)) + data

        meta = field(1, b"db") + field(3, b"default")
        scale = field(1, meta) + field(2, varint(1 << 3) + varint(3))  # spec.replicas = 3
        envelope = b"k8s\x00" + field(1, field(1, b"autoscaling/v1") + field(2, b"Scale")) + field(2, scale)
        path = "/apis/apps/v1/namespaces/default/statefulsets/db/scale"
        code, body = self.request("PUT", path, envelope, {"Content-Type": "application/vnd.kubernetes.protobuf",
                                                          "Accept": "application/vnd.kubernetes.protobuf, */*"})
        self.assertEqual(code, 200, body)
        self.assertEqual(json.loads(body)["spec"]["replicas"], 3)
        self.assertEqual(self.get("statefulset", "db")["spec"]["replicas"], 3)
        code, body = self.request("PUT", path, b"k8s\x00\xff", {"Content-Type": "application/vnd.kubernetes.protobuf"})
        self.assertEqual(code, 400, body)
        self.assertEqual(self.get("statefulset", "db")["spec"]["replicas"], 3)

    def test_a_review_asked_for_as_a_table_is_not_acceptable(self):
        review = json.dumps({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                             "spec": {"nonResourceAttributes": {"path": "/", "verb": "get"}}}).encode()
        path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
        table = "application/json;as=Table;v=v1;g=meta.k8s.io"
        code, body = self.request("POST", path, review, {"Content-Type": "application/json", "Accept": table})
        self.assertEqual(code, 406, body)
        self.assertEqual(json.loads(body)["reason"], "NotAcceptable")
        code, body = self.request("POST", path, review, {"Content-Type": "application/json",
                                                         "Accept": table + ", application/json"})
        self.assertEqual(code, 201, body)
        self.assertTrue(json.loads(body)["status"]["allowed"])

    def test_deprecated_fields_are_warned_about_and_the_write_goes_ahead(self):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "warned", "annotations": {"scheduler.alpha.kubernetes.io/critical-pod": ""}},
               "spec": {"nodeSelector": {"beta.kubernetes.io/os": "linux"},
                        "containers": [{"name": "c", "image": "httpd", "env": [
                            {"name": "A", "value": "1"}, {"name": "A", "value": "2"}]}]}}
        created = self.server.kubectl("create", "-f", "-", input=json.dumps(pod))
        self.addCleanup(self.server.kubectl, "delete", "pod", "warned", "--wait=false")
        self.assertIn('Warning: spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; '
                      'use "kubernetes.io/os" instead', created.stderr)
        self.assertIn('Warning: metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: '
                      'non-functional in v1.16+; use the "priorityClassName" field instead', created.stderr)
        self.assertIn('Warning: spec.containers[0].env[1]: hides previous definition of "A", '
                      'which may be dropped when using apply', created.stderr)
        self.assertEqual(self.get("pod", "warned")["metadata"]["name"], "warned")
        # A Deployment warns about its template on create, not on a write that leaves its spec alone.
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "warned"},
                      "spec": {"selector": {"matchLabels": {"app": "warned"}}, "template": {
                          "metadata": {"labels": {"app": "warned"}},
                          "spec": {"containers": [{"name": "c", "image": "httpd"}],
                                   "volumes": [{"name": "g", "gitRepo": {"repository": "https://example.com/r"}}]}}}}
        created = self.server.kubectl("create", "-f", "-", input=json.dumps(deployment))
        self.addCleanup(self.server.kubectl, "delete", "deployment", "warned")
        self.assertIn("Warning: spec.template.spec.volumes[0].gitRepo: deprecated in v1.11", created.stderr)
        labelled = self.server.kubectl("label", "deployment", "warned", "seen=yes")
        self.assertNotIn("Warning", labelled.stderr)

    # kube's e2e ServiceAccounts specs: "should allow opting out of API token
    # automount", "should create a serviceAccountToken and ensure a successful
    # TokenReview", and the issuer discovery documents.
    def test_pods_run_as_their_service_account_with_a_token_the_server_accepts(self):
        self.server.kubectl("create", "namespace", "tokens")
        self.server.kubectl("run", "plain", "--image=httpd", "-n", "tokens")
        spec = self.get("pod", "plain", "-n", "tokens")["spec"]
        self.assertEqual(spec["serviceAccountName"], "default")
        [volume] = spec["volumes"]
        self.assertTrue(volume["name"].startswith("kube-api-access-"), volume)
        self.assertEqual([s for source in volume["projected"]["sources"] for s in source],
                         ["serviceAccountToken", "configMap", "downwardAPI"])
        self.assertEqual(spec["containers"][0]["volumeMounts"],
                         [{"name": volume["name"], "readOnly": True,
                           "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}])
        self.apply({"apiVersion": "v1", "kind": "ServiceAccount", "automountServiceAccountToken": False,
                    "metadata": {"name": "quiet", "namespace": "tokens"}})
        self.server.kubectl("run", "quiet", "--image=httpd", "-n", "tokens", "--overrides",
                            json.dumps({"spec": {"serviceAccountName": "quiet"}}))
        self.assertNotIn("volumes", self.get("pod", "quiet", "-n", "tokens")["spec"])
        refused = self.server.kubectl("run", "stray", "--image=httpd", "-n", "tokens", "--overrides",
                                      json.dumps({"spec": {"serviceAccountName": "nobody"}}), check=False)
        self.assertIn('error looking up service account tokens/nobody: serviceaccount "nobody" not found',
                      refused.stderr)

        token = self.server.kubectl("create", "token", "quiet", "-n", "tokens").stdout.strip()
        code, body = self.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                  json.dumps({"apiVersion": "authentication.k8s.io/v1",
                                              "kind": "SelfSubjectReview"}).encode(),
                                  {"Content-Type": "application/json", "Authorization": "Bearer " + token})
        self.assertEqual(code, 201, body)
        self.assertEqual(json.loads(body)["status"]["userInfo"]["username"], "system:serviceaccount:tokens:quiet")
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}
        reviewed = json.loads(self.server.kubectl("create", "-f", "-", "-o", "json",
                                                  input=json.dumps(review)).stdout)
        self.assertTrue(reviewed["status"]["authenticated"], reviewed)
        self.assertIn("system:serviceaccounts:tokens", reviewed["status"]["user"]["groups"])
        # The account gone, its token is worth nothing.
        self.server.kubectl("delete", "serviceaccount", "quiet", "-n", "tokens")
        code, _ = self.request("GET", "/api/v1/namespaces", headers={"Authorization": "Bearer " + token})
        self.assertEqual(code, 401)

        code, body = self.request("GET", "/.well-known/openid-configuration")
        self.assertEqual(code, 200, body)
        issuer = json.loads(body)
        code, body = self.request("GET", "/openid/v1/jwks")
        self.assertEqual(code, 200, body)
        self.assertEqual(issuer["issuer"], "https://kubernetes.default.svc.cluster.local")
        self.assertEqual([k["alg"] for k in json.loads(body)["keys"]], ["RS256"])

    # kube's tokens controller: the kubernetes.io/service-account-token
    # Secrets users make (kube no longer makes them) get a legacy token the
    # server accepts while the Secret and its account are there.
    def test_a_token_secret_gets_a_legacy_token_the_server_accepts(self):
        import base64
        self.server.kubectl("create", "namespace", "legacy")
        self.server.kubectl("create", "serviceaccount", "robot", "-n", "legacy")
        account = self.get("serviceaccount", "robot", "-n", "legacy")

        def token_secret(name, account_name):
            self.apply({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
                        "metadata": {"name": name, "namespace": "legacy",
                                     "annotations": {"kubernetes.io/service-account.name": account_name}}})
        token_secret("robot-token", "robot")
        secret = self.wait("the token filled in", lambda: (s := self.get("secret", "robot-token", "-n", "legacy"))
                           and "token" in s.get("data", {}) and s)
        self.assertEqual(base64.b64decode(secret["data"]["namespace"]).decode(), "legacy")
        self.assertEqual(secret["metadata"]["annotations"]["kubernetes.io/service-account.uid"],
                         account["metadata"]["uid"])
        token = base64.b64decode(secret["data"]["token"]).decode()
        payload = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        self.assertEqual(payload["iss"], "kubernetes/serviceaccount")
        self.assertEqual(payload["kubernetes.io/serviceaccount/secret.name"], "robot-token")
        self.assertEqual(payload["sub"], "system:serviceaccount:legacy:robot")

        code, body = self.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                                  json.dumps({"apiVersion": "authentication.k8s.io/v1",
                                              "kind": "SelfSubjectReview"}).encode(),
                                  {"Content-Type": "application/json", "Authorization": "Bearer " + token})
        self.assertEqual(code, 201, body)
        self.assertEqual(json.loads(body)["status"]["userInfo"]["username"], "system:serviceaccount:legacy:robot")
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}

        def reviewed():
            return json.loads(self.server.kubectl("create", "-f", "-", "-o", "json",
                                                  input=json.dumps(review)).stdout)["status"]
        self.assertTrue(reviewed()["authenticated"])
        # A token that is not its Secret's any more is refused.
        self.server.kubectl("patch", "secret", "robot-token", "-n", "legacy", "--type", "merge", "-p",
                            json.dumps({"data": {"token": base64.b64encode(b"replaced").decode()}}))
        self.assertEqual(reviewed().get("error"), "Token does not match server's copy")

        # A token Secret of no account goes; so do an account's when it goes.
        token_secret("ghost-token", "ghost")
        self.wait("the ghost's Secret deleted", lambda: self.get("secret", "ghost-token", "-n", "legacy") is None)
        self.server.kubectl("delete", "serviceaccount", "robot", "-n", "legacy")
        self.wait("the robot's Secret deleted", lambda: self.get("secret", "robot-token", "-n", "legacy") is None)

    # An aggregated APIService (the Python client's e2e suite creates one) is
    # stored and listed, never available: berth does not proxy to it.
    def test_an_apiservice_backed_by_a_service_is_stored_and_answers_503(self):
        service = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                   "metadata": {"name": "v1alpha1.wardle.example.com"},
                   "spec": {"group": "wardle.example.com", "version": "v1alpha1", "groupPriorityMinimum": 2000,
                            "versionPriority": 200, "insecureSkipTLSVerify": True,
                            "service": {"namespace": "default", "name": "api"}}}
        self.server.kubectl("create", "-f", "-", input=json.dumps(service))
        again = self.server.kubectl("create", "-f", "-", input=json.dumps(service), check=False)
        self.assertIn('apiservices.apiregistration.k8s.io "v1alpha1.wardle.example.com" already exists', again.stderr)
        stored = self.get("apiservice", "v1alpha1.wardle.example.com")
        [available] = [c for c in stored["status"]["conditions"] if c["type"] == "Available"]
        self.assertEqual((available["status"], available["reason"]), ("False", "AggregationNotSupported"))
        self.assertIn("False (AggregationNotSupported)",
                      self.server.kubectl("get", "apiservice", "v1alpha1.wardle.example.com").stdout)
        code, body = self.request("GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders")
        self.assertEqual(code, 503, body)
        self.assertEqual(json.loads(body)["reason"], "ServiceUnavailable")
        self.assertIn("APIService v1alpha1.wardle.example.com", json.loads(body)["message"])
        # Discovery lists its group as kube's aggregator lists one that does not answer.
        code, body = self.request("GET", "/apis")
        listed = {g["name"]: g for g in json.loads(body)["groups"]}
        self.assertEqual(listed["wardle.example.com"]["preferredVersion"]["groupVersion"],
                         "wardle.example.com/v1alpha1")
        code, body = self.request("GET", "/apis", headers={
            "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"})
        [wardle] = [g for g in json.loads(body)["items"] if g["metadata"]["name"] == "wardle.example.com"]
        self.assertEqual(wardle["versions"], [{"version": "v1alpha1", "resources": [], "freshness": "Stale"}])
        code, body = self.request("GET", "/apis/wardle.example.com")
        self.assertEqual((code, json.loads(body)["kind"]), (200, "APIGroup"))
        local = self.get("apiservice", "v1.apps")
        self.assertEqual([c["status"] for c in local["status"]["conditions"] if c["type"] == "Available"], ["True"])
        self.server.kubectl("delete", "apiservice", "v1alpha1.wardle.example.com")
        code, _ = self.request("GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders")
        self.assertEqual(code, 404)
        code, body = self.request("GET", "/apis")
        self.assertNotIn("wardle.example.com", [g["name"] for g in json.loads(body)["groups"]])

    def test_component_statuses_show_the_control_planes_health(self):
        shown = self.server.kubectl("get", "componentstatuses")
        self.assertIn("Warning: v1 ComponentStatus is deprecated in v1.19+", shown.stderr)
        rows = [line.split() for line in shown.stdout.splitlines()]
        self.assertEqual(rows[0], ["NAME", "STATUS", "MESSAGE", "ERROR"])
        self.assertEqual({row[0]: row[1] for row in rows[1:]},
                         {"scheduler": "Healthy", "controller-manager": "Healthy", "etcd-0": "Healthy"})
        etcd = json.loads(self.server.kubectl("get", "cs", "etcd-0", "-o", "json").stdout)
        self.assertEqual(etcd["conditions"], [{"type": "Healthy", "status": "True",
                                               "message": '{"health":"true","reason":""}'}])

    def test_a_replication_controller_over_its_quota_reports_the_failure(self):
        self.server.kubectl("create", "namespace", "quota-rc")
        self.server.kubectl("create", "quota", "two-pods", "--hard=pods=2", "-n", "quota-rc")
        self.wait("the quota counted", lambda: (q := self.get("quota", "two-pods", "-n", "quota-rc")) and
                  q.get("status", {}).get("used") == {"pods": "0"})
        self.server.kubectl("apply", "-n", "quota-rc", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "condition-test"},
            "spec": {"replicas": 3, "template": {"metadata": {"labels": {"name": "condition-test"}},
                                                 "spec": {"containers": [{"name": "c", "image": "httpd"}]}}}}))

        def failure():
            rc = self.get("rc", "condition-test", "-n", "quota-rc")
            found = [c for c in rc.get("status", {}).get("conditions", []) if c["type"] == "ReplicaFailure"]
            return found[0] if found else None
        condition = self.wait("the ReplicaFailure condition", failure)
        self.assertEqual((condition["status"], condition["reason"]), ("True", "FailedCreate"))
        self.assertIn("exceeded quota: two-pods", condition["message"])
        self.assertEqual(len(self.get("pods", "-n", "quota-rc")["items"]), 2)
        self.server.kubectl("scale", "rc", "condition-test", "--replicas=2", "-n", "quota-rc")
        self.wait("the condition gone", lambda: failure() is None)

    def test_a_custom_resource_shows_defaults_added_after_it_was_stored(self):
        def crd(default):
            spec = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
            if default:
                spec["properties"]["b"]["default"] = default
            return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": "gadgets.defaults.example.com"},
                    "spec": {"group": "defaults.example.com", "scope": "Namespaced",
                             "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                                 "openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}}]}}
        self.apply(crd(None))
        self.wait("the resource served", lambda: self.server.kubectl(
            "get", "gadgets", check=False).returncode == 0)
        self.apply({"apiVersion": "defaults.example.com/v1", "kind": "Gadget", "metadata": {"name": "g"},
                    "spec": {"a": "x"}})
        self.assertEqual(self.get("gadget", "g")["spec"], {"a": "x"})
        self.apply(crd("B"))
        self.wait("the default on read", lambda: self.get("gadget", "g")["spec"] == {"a": "x", "b": "B"})
        listed = self.get("gadgets")["items"]
        self.assertEqual(listed[0]["spec"], {"a": "x", "b": "B"})
        code, body = self.request("GET", "/apis/defaults.example.com/v1/namespaces/default/gadgets"
                                         "?watch=1&timeoutSeconds=1")
        self.assertEqual(code, 200, body)
        event = json.loads(body.decode().splitlines()[0])
        self.assertEqual((event["type"], event["object"]["spec"]), ("ADDED", {"a": "x", "b": "B"}))

    # kube's buildKubeNative: in Swagger 2.0, a definition that keeps unknown
    # fields at its root is an object and nothing more.
    def test_a_custom_resource_without_a_schema_is_an_object_in_openapi_v2(self):
        self.apply({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": "blobs.open.example.com"},
                    "spec": {"group": "open.example.com", "scope": "Namespaced",
                             "names": {"plural": "blobs", "singular": "blob", "kind": "Blob"},
                             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                                 "openAPIV3Schema": {"type": "object",
                                                     "x-kubernetes-preserve-unknown-fields": True}}}]}})

        def definition():
            code, body = self.request("GET", "/openapi/v2", headers={"Accept": "application/json"})
            return json.loads(body)["definitions"].get("com.example.open.v1.Blob") if code == 200 else None
        found = self.wait("the definition published", definition)
        self.assertEqual(found["type"], "object")
        self.assertNotIn("properties", found)
        self.server.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "open.example.com/v1", "kind": "Blob", "metadata": {"name": "b"},
            "a": {"b": [{"c": "d"}]}}))
        self.assertEqual(self.get("blob", "b")["a"], {"b": [{"c": "d"}]})


    def test_an_image_that_cannot_exist_is_never_pulled(self):
        self.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "no-image"},
                    "spec": {"containers": [{"name": "c", "image": "webserver:404"}]}})
        pod = self.wait("the pull to back off", lambda: (p := self.get("pod", "no-image")) and
                        p["status"].get("containerStatuses") and
                        p["status"]["containerStatuses"][0]["state"].get("waiting", {}).get("reason") ==
                        "ImagePullBackOff" and p)
        self.assertEqual(pod["status"]["phase"], "Pending")
        self.assertFalse(pod["status"]["containerStatuses"][0]["ready"])
        events = self.server.kubectl("get", "events", "--field-selector", "involvedObject.name=no-image").stdout
        self.assertIn("ErrImagePull", events)

    def test_a_replication_controller_is_deleted_orphaning_or_in_the_foreground(self):
        for name in ("orphaning", "foreground"):
            self.apply({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": name},
                        "spec": {"replicas": 2, "template": {"metadata": {"labels": {"gc": name}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
            self.wait(name + "'s pods", lambda: len(self.get("pods", "-l", "gc=" + name)["items"]) == 2)
        self.server.kubectl("delete", "rc", "orphaning", "--cascade=orphan", "--wait=true")
        pods = self.get("pods", "-l", "gc=orphaning")["items"]
        self.assertEqual(len(pods), 2)
        for pod in pods:
            self.assertNotIn("ownerReferences", pod["metadata"])
        self.server.kubectl("delete", "rc", "foreground", "--cascade=foreground", "--wait=true")
        self.assertIsNone(self.get("rc", "foreground"))
        self.wait("the foreground rc's pods gone", lambda: not self.get("pods", "-l", "gc=foreground")["items"])


if __name__ == "__main__":
    unittest.main()
