"""kubectl's typed `create` commands (protobuf bodies) against berth serve.

Each test runs one `kubectl create ...` as a user would and reads the stored
object back with `kubectl get -o json`. `kubectl run`, `create -f` and
`replace` send JSON; the kinds no kubectl command sends in protobuf, and
protobuf DeleteOptions, are posted as client-go would write them (Pb below). Run with:
  BERTH_BINARY=build/berth python3 -m unittest kubectl_create_test -v
"""

import base64
import json
import os
import struct
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

NS = "made"
PROTOBUF = "application/vnd.kubernetes.protobuf"


class Pb:
    """A protobuf message written field by field, as Go's generated code writes one."""

    def __init__(self):
        self.data = b""

    def _varint(self, v):
        v &= (1 << 64) - 1
        out = b""
        while True:
            out += bytes([(v & 0x7F) | (0x80 if v > 0x7F else 0)])
            v >>= 7
            if not v:
                return out

    def _len(self, field, payload):
        self.data += self._varint(field << 3 | 2) + self._varint(len(payload)) + payload
        return self

    def str(self, field, s):
        return self._len(field, s.encode() if isinstance(s, str) else s)

    def int(self, field, v):
        self.data += self._varint(field << 3) + self._varint(v)
        return self

    def bool(self, field, b):
        return self.int(field, 1 if b else 0)

    def double(self, field, d):
        self.data += self._varint(field << 3 | 1) + struct.pack("<d", d)
        return self

    def msg(self, field, m):
        return self._len(field, m.data)

    def entry(self, field, key, value):
        """A map entry; `value` a string or a Pb message."""
        return self.msg(field, Pb().str(1, key).msg(2, value) if isinstance(value, Pb)
                        else Pb().str(1, key).str(2, value))

    def quantity_entry(self, field, key, q):
        return self.entry(field, key, Pb().str(1, q))


def envelope(api_version, kind, raw):
    """kube's protobuf body: "k8s\0" then runtime.Unknown{typeMeta, raw}."""
    return b"k8s\0" + Pb().msg(1, Pb().str(1, api_version).str(2, kind)).msg(2, raw).data


def meta(name):
    """ObjectMeta as client-go writes a new object's (zero scalars included)."""
    return Pb().str(1, name).str(2, "").str(3, "").int(7, 0).msg(8, Pb())


class KubectlCreateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer().start()
        cls.k = cls.server.kubectl
        cls.k("create", "namespace", NS)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def create(self, *args):
        """Runs `kubectl create -n NS ARGS`; returns its stdout."""
        return self.k("create", "-n", NS, *args).stdout

    def get(self, resource, name, namespaced=True):
        args = ["get", resource, name, "-o", "json"] + (["-n", NS] if namespaced else [])
        return json.loads(self.k(*args).stdout)

    def test_configmap_from_literals_and_files(self):
        text = self.server.write_file("game.properties", "lives=3\n")
        blob = self.server.write_file("blob.bin", "")
        with open(blob, "wb") as f:
            f.write(b"\xff\x00\xfe")
        out = self.create("configmap", "cm", "--from-literal=k=v", "--from-literal=empty=",
                          f"--from-file={text}", f"--from-file={blob}")
        self.assertIn("configmap/cm created", out)
        cm = self.get("configmap", "cm")
        self.assertEqual(cm["data"], {"k": "v", "empty": "", "game.properties": "lives=3\n"})
        self.assertEqual(cm["binaryData"], {"blob.bin": base64.b64encode(b"\xff\x00\xfe").decode()})
        self.assertNotIn("immutable", cm)

    def test_secret_generic_keeps_bytes_as_base64(self):
        key = self.server.write_file("ssh.key", "")
        with open(key, "wb") as f:
            f.write(b"\x00\x01secret\xff")
        self.create("secret", "generic", "generic", "--from-literal=user=admin", f"--from-file={key}",
                    "--type=example.com/thing")
        s = self.get("secret", "generic")
        self.assertEqual(s["type"], "example.com/thing")
        self.assertEqual(base64.b64decode(s["data"]["user"]), b"admin")
        self.assertEqual(base64.b64decode(s["data"]["ssh.key"]), b"\x00\x01secret\xff")

    def test_secret_tls(self):
        cert = os.path.join(self.server.tmp, "tls.crt")
        key = os.path.join(self.server.tmp, "tls.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=berth.test", "-keyout", key, "-out", cert],
                       check=True, capture_output=True)
        self.create("secret", "tls", "tls", f"--cert={cert}", f"--key={key}")
        s = self.get("secret", "tls")
        self.assertEqual(s["type"], "kubernetes.io/tls")
        with open(cert, "rb") as f:
            self.assertEqual(base64.b64decode(s["data"]["tls.crt"]), f.read())
        with open(key, "rb") as f:
            self.assertEqual(base64.b64decode(s["data"]["tls.key"]), f.read())

    def test_secret_docker_registry(self):
        self.create("secret", "docker-registry", "regcred", "--docker-server=registry.test",
                    "--docker-username=u", "--docker-password=p", "--docker-email=u@test")
        s = self.get("secret", "regcred")
        self.assertEqual(s["type"], "kubernetes.io/dockerconfigjson")
        config = json.loads(base64.b64decode(s["data"][".dockerconfigjson"]))
        self.assertEqual(config["auths"]["registry.test"]["username"], "u")

    def test_service_clusterip(self):
        self.create("service", "clusterip", "web", "--tcp=80:8080", "--tcp=443:https")
        svc = self.get("service", "web")
        self.assertEqual(svc["spec"]["type"], "ClusterIP")
        self.assertEqual(svc["spec"]["selector"], {"app": "web"})
        ports = {p["name"]: p for p in svc["spec"]["ports"]}
        self.assertEqual(ports["80-8080"]["port"], 80)
        self.assertEqual(ports["80-8080"]["targetPort"], 8080)  # IntOrString: an int
        self.assertEqual(ports["80-8080"]["protocol"], "TCP")
        self.assertEqual(ports["443-https"]["targetPort"], "https")  # IntOrString: a name

    def test_service_clusterip_headless(self):
        self.create("service", "clusterip", "headless", "--clusterip=None", "--tcp=5432")
        svc = self.get("service", "headless")
        self.assertEqual(svc["spec"]["clusterIP"], "None")
        self.assertEqual(svc["spec"]["ports"][0]["targetPort"], 5432)

    def test_service_nodeport(self):
        self.create("service", "nodeport", "np", "--tcp=80:8080", "--node-port=30080")
        svc = self.get("service", "np")
        self.assertEqual(svc["spec"]["type"], "NodePort")
        self.assertEqual(svc["spec"]["ports"][0]["nodePort"], 30080)
        self.assertEqual(svc["spec"]["ports"][0]["targetPort"], 8080)

    def test_service_loadbalancer(self):
        self.create("service", "loadbalancer", "lb", "--tcp=443:8443")
        svc = self.get("service", "lb")
        self.assertEqual(svc["spec"]["type"], "LoadBalancer")
        self.assertEqual(svc["spec"]["ports"][0]["port"], 443)

    def test_service_externalname(self):
        self.create("service", "externalname", "ext", "--external-name=db.example.com")
        svc = self.get("service", "ext")
        self.assertEqual(svc["spec"]["type"], "ExternalName")
        self.assertEqual(svc["spec"]["externalName"], "db.example.com")

    def test_serviceaccount(self):
        self.assertIn("serviceaccount/robot created", self.create("serviceaccount", "robot"))
        sa = self.get("serviceaccount", "robot")
        self.assertEqual(sa["metadata"]["name"], "robot")
        self.assertEqual(sa["metadata"]["namespace"], NS)

    def test_job_with_a_command(self):
        self.create("job", "once", "--image=busybox", "--", "sh", "-c", "echo hi")
        job = self.get("job", "once")
        pod = job["spec"]["template"]["spec"]
        self.assertEqual(pod["restartPolicy"], "Never")
        self.assertEqual(pod["containers"][0]["image"], "busybox")
        self.assertEqual(pod["containers"][0]["command"], ["sh", "-c", "echo hi"])

    def test_cronjob_and_a_job_from_it(self):
        self.create("cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *",
                    "--restart=OnFailure", "--", "date")
        cj = self.get("cronjob", "tick")
        self.assertEqual(cj["spec"]["schedule"], "*/1 * * * *")
        template = cj["spec"]["jobTemplate"]
        self.assertEqual(template["metadata"]["name"], "tick")
        pod = template["spec"]["template"]["spec"]
        self.assertEqual(pod["restartPolicy"], "OnFailure")
        self.assertEqual(pod["containers"][0]["command"], ["date"])

        # --from sends the stored CronJob's whole job template back as protobuf.
        self.assertIn("job.batch/tick-manual created", self.create("job", "tick-manual", "--from=cronjob/tick"))
        job = self.get("job", "tick-manual")
        self.assertEqual(job["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"], "manual")
        owner = job["metadata"]["ownerReferences"][0]
        self.assertEqual((owner["kind"], owner["name"], owner["uid"], owner["controller"]),
                         ("CronJob", "tick", cj["metadata"]["uid"], True))
        self.assertEqual(job["spec"]["template"]["spec"]["containers"][0]["command"], ["date"])

    def test_ingress(self):
        self.create("ingress", "site", "--class=nginx", "--default-backend=fallback:80",
                    "--rule=shop.test/cart=cart:8080", "--rule=shop.test/api/*=api:http,tls=shop-cert",
                    "--annotation=team=web")
        ing = self.get("ingress", "site")
        spec = ing["spec"]
        self.assertEqual(ing["metadata"]["annotations"]["team"], "web")
        self.assertEqual(spec["ingressClassName"], "nginx")
        self.assertEqual(spec["defaultBackend"], {"service": {"name": "fallback", "port": {"number": 80}}})
        self.assertEqual(spec["tls"], [{"hosts": ["shop.test"], "secretName": "shop-cert"}])
        paths = [p for rule in spec["rules"] for p in rule["http"]["paths"]]
        self.assertEqual({r["host"] for r in spec["rules"]}, {"shop.test"})
        self.assertIn({"path": "/cart", "pathType": "Exact",
                       "backend": {"service": {"name": "cart", "port": {"number": 8080}}}}, paths)
        self.assertIn({"path": "/api/", "pathType": "Prefix",
                       "backend": {"service": {"name": "api", "port": {"name": "http"}}}}, paths)

    def test_role(self):
        self.create("role", "reader", "--verb=get,list", "--resource=pods,deployments.apps",
                    "--resource-name=one")
        rules = self.get("role", "reader")["rules"]
        self.assertIn({"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"],
                       "resourceNames": ["one"]}, rules)
        self.assertIn({"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["deployments"],
                       "resourceNames": ["one"]}, rules)

    def test_rolebinding(self):
        self.create("rolebinding", "readers", "--role=reader", "--user=ann", "--group=devs",
                    f"--serviceaccount={NS}:robot")
        rb = self.get("rolebinding", "readers")
        self.assertEqual(rb["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"})
        self.assertIn({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "ann"}, rb["subjects"])
        self.assertIn({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "devs"}, rb["subjects"])
        self.assertIn({"kind": "ServiceAccount", "name": "robot", "namespace": NS}, rb["subjects"])

    def test_clusterrole(self):
        self.k("create", "clusterrole", "logs", "--verb=get", "--non-resource-url=/logs/*")
        self.assertEqual(self.get("clusterrole", "logs", namespaced=False)["rules"],
                         [{"verbs": ["get"], "nonResourceURLs": ["/logs/*"]}])
        self.k("create", "clusterrole", "monitoring", "--aggregation-rule=example.com/aggregate=true")
        cr = self.get("clusterrole", "monitoring", namespaced=False)
        self.assertEqual(cr["aggregationRule"],
                         {"clusterRoleSelectors": [{"matchLabels": {"example.com/aggregate": "true"}}]})

    def test_clusterrolebinding(self):
        self.k("create", "clusterrolebinding", "ann-view", "--clusterrole=view", "--user=ann")
        crb = self.get("clusterrolebinding", "ann-view", namespaced=False)
        self.assertEqual(crb["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                          "name": "view"})
        self.assertEqual(crb["subjects"], [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "ann"}])

    def test_quota(self):
        self.create("quota", "small", "--hard=cpu=1,pods=2,requests.memory=1Gi")
        self.assertEqual(self.get("resourcequota", "small")["spec"]["hard"],
                         {"cpu": "1", "pods": "2", "requests.memory": "1Gi"})
        self.create("quota", "besteffort", "--hard=pods=5", "--scopes=BestEffort")
        self.assertEqual(self.get("resourcequota", "besteffort")["spec"]["scopes"], ["BestEffort"])
        # Enforced (ResourceQuota admission): gone again, or the namespace's
        # other tests' pods, which request nothing, would be refused.
        self.k("delete", "-n", NS, "resourcequota", "small", "besteffort")

    def test_poddisruptionbudget(self):
        self.create("poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=50%")
        spec = self.get("pdb", "pdb")["spec"]
        self.assertEqual(spec["minAvailable"], "50%")
        self.assertEqual(spec["selector"], {"matchLabels": {"app": "web"}})

    def test_priorityclass(self):
        self.k("create", "priorityclass", "high", "--value=1000", "--description=important",
               "--preemption-policy=Never")
        pc = self.get("priorityclass", "high", namespaced=False)
        self.assertEqual((pc["value"], pc["description"], pc["preemptionPolicy"]), (1000, "important", "Never"))

    def test_deployment(self):
        self.create("deployment", "api", "--image=nginx:1.27", "--replicas=2", "--port=80")
        d = self.get("deployment", "api")
        self.assertEqual(d["spec"]["replicas"], 2)
        c = d["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual((c["image"], c["ports"]), ("nginx:1.27", [{"containerPort": 80, "protocol": "TCP"}]))

    def test_autoscale_posts_autoscaling_v1_read_back_as_v2(self):
        # kubectl autoscale sends an autoscaling/v1 HorizontalPodAutoscaler in protobuf.
        self.create("deployment", "scaled", "--image=nginx:1.27")
        out = self.k("autoscale", "deployment", "scaled", "-n", NS, "--min=2", "--max=5", "--cpu-percent=80").stdout
        self.assertIn("horizontalpodautoscaler.autoscaling/scaled autoscaled", out)
        v1 = self.get("horizontalpodautoscalers.v1.autoscaling", "scaled")
        self.assertEqual((v1["apiVersion"], v1["spec"]["minReplicas"], v1["spec"]["maxReplicas"],
                          v1["spec"]["targetCPUUtilizationPercentage"]), ("autoscaling/v1", 2, 5, 80))
        v2 = self.get("hpa", "scaled")  # the preferred version, v2
        self.assertEqual(v2["apiVersion"], "autoscaling/v2")
        self.assertEqual(v2["spec"]["metrics"], [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}])
        table = self.k("get", "hpa", "scaled", "-n", NS).stdout
        self.assertIn("Deployment/scaled", table)

    def test_events_are_served_by_both_event_apis(self):
        manifest = json.dumps({
            "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "scaled.1"},
            "eventTime": "2024-05-01T10:00:00.000000Z", "reportingController": "example.com/scaler",
            "reportingInstance": "scaler-1", "action": "Scale", "reason": "Scaled", "type": "Normal",
            "regarding": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": NS, "name": "web"},
            "note": "scaled web to 3"})
        self.k("create", "-n", NS, "-f", "-", input=manifest)
        core = self.get("events", "scaled.1")
        self.assertEqual((core["apiVersion"], core["message"], core["involvedObject"]["name"]),
                         ("v1", "scaled web to 3", "web"))
        listed = json.loads(self.k("get", "events.events.k8s.io", "-n", NS, "-o", "json").stdout)
        mine = [e for e in listed["items"] if e["metadata"]["name"] == "scaled.1"]
        self.assertEqual(len(mine), 1, listed)
        self.assertEqual((mine[0]["apiVersion"], mine[0]["note"]), ("events.k8s.io/v1", "scaled web to 3"))
        table = self.k("get", "events.events.k8s.io", "-n", NS).stdout
        self.assertIn("scaled web to 3", table)
        self.assertIn("scaled web to 3", self.k("events", "-n", NS).stdout)

    def test_an_invalid_deployment_is_named_with_its_group(self):
        body = json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bad"},
                           "spec": {"replicas": -1, "selector": {"matchLabels": {"app": "bad"}},
                                    "template": {"metadata": {"labels": {"app": "bad"}},
                                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        status, answer = self.post(f"/apis/apps/v1/namespaces/{NS}/deployments", body.encode(),
                                   content_type="application/json")
        self.assertEqual(status, 422, answer)
        self.assertTrue(answer["message"].startswith('Deployment.apps "bad" is invalid: spec.replicas: '), answer)
        # kubectl prints the kind from the Status details, as against kube.
        p = self.k("create", "-n", NS, "-f", "-", input=body, check=False)
        self.assertIn('The Deployment "bad" is invalid', p.stderr)

    def test_dry_run_server_returns_the_object_without_storing_it(self):
        for args in (["configmap", "dry-cm", "--from-literal=a=b"],
                     ["service", "clusterip", "dry-svc", "--tcp=80:8080"],
                     ["job", "dry-job", "--image=busybox"],
                     ["cronjob", "dry-cj", "--image=busybox", "--schedule=@hourly"],
                     ["role", "dry-role", "--verb=get", "--resource=pods"]):
            out = self.k("create", "-n", NS, "--dry-run=server", "-o", "json", *args).stdout
            obj = json.loads(out)
            name = args[2] if args[0] == "service" else args[1]
            self.assertEqual(obj["metadata"]["name"], name)
            kind = args[0] if args[0] != "service" else "service"
            p = self.k("get", kind, name, "-n", NS, check=False)
            self.assertIn("NotFound", p.stderr, f"{args} was stored")

    def test_run_creates_the_pod_it_describes(self):
        # kubectl run posts the pod as JSON (kubectl 1.32; -v=8 shows its Content-Type).
        out = self.k("run", "-n", NS, "runner", "--image=busybox:1.36", "--labels=app=runner,tier=x",
                     "--env=MODE=fast", "--port=8080", "--restart=Never", "--", "sleep", "3600").stdout
        self.assertIn("pod/runner created", out)
        pod = self.get("pod", "runner")
        self.assertEqual(pod["metadata"]["labels"], {"app": "runner", "tier": "x"})
        c = pod["spec"]["containers"][0]
        self.assertEqual((c["name"], c["image"], c["args"]), ("runner", "busybox:1.36", ["sleep", "3600"]))
        self.assertEqual(c["env"], [{"name": "MODE", "value": "fast"}])
        self.assertEqual(c["ports"], [{"containerPort": 8080, "protocol": "TCP"}])
        self.assertEqual(pod["spec"]["restartPolicy"], "Never")

    def test_create_and_replace_from_a_file(self):
        # kubectl create -f and replace -f send JSON (kubectl 1.32 has no protobuf path for them).
        manifest = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n"
                    "  replicas: {replicas}\n  serviceName: db\n  selector:\n    matchLabels: {{app: db}}\n"
                    "  template:\n    metadata:\n      labels: {{app: db}}\n    spec:\n"
                    "      containers: [{{name: db, image: postgres:16}}]\n")
        path = self.server.write_file("db.yaml", manifest.format(replicas=1))
        self.assertIn("statefulset.apps/db created", self.k("create", "-n", NS, "-f", path).stdout)
        self.server.write_file("db.yaml", manifest.format(replicas=3))
        self.assertIn("statefulset.apps/db replaced", self.k("replace", "-n", NS, "-f", path).stdout)
        self.assertEqual(self.get("statefulset", "db")["spec"]["replicas"], 3)

    def post(self, path, body, content_type=PROTOBUF, method="POST"):
        """Sends `body` to the server; returns (HTTP status, JSON answer)."""
        req = urllib.request.Request(self.server.url + path, data=body, method=method,
                                     headers={"Content-Type": content_type, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def test_protobuf_bodies_of_kinds_beyond_kubectls_create_commands(self):
        # What client-go programs (controllers, operators) send: a pod, a
        # statefulset with a claim template, a lease, a CRD.
        probe = Pb().msg(1, Pb().msg(3, Pb().msg(1, Pb().int(1, 0).int(2, 5432).str(3, "")))).int(2, 3)
        container = (Pb().str(1, "db").str(2, "postgres:16").msg(8, Pb().quantity_entry(2, "memory", "256Mi"))
                     .msg(11, probe).msg(15, Pb().int(4, 0)))
        pod_spec = (Pb().msg(1, Pb().str(1, "scratch").msg(2, Pb().msg(2, Pb().str(1, "Memory"))))
                    .msg(2, container).str(3, "Always").int(4, 0)
                    .msg(33, Pb().int(1, 1).str(2, "kubernetes.io/hostname").str(3, "ScheduleAnyway"))
                    .msg(38, Pb().str(1, "example.com/wait")))
        status, pod = self.post(f"/api/v1/namespaces/{NS}/pods",
                                envelope("v1", "Pod", Pb().msg(1, meta("pb-pod")).msg(2, pod_spec)))
        self.assertEqual(status, 201, pod)
        spec = self.get("pod", "pb-pod")["spec"]
        c = spec["containers"][0]
        self.assertEqual(c["resources"], {"requests": {"memory": "256Mi"}})
        self.assertEqual(c["readinessProbe"]["tcpSocket"], {"port": 5432})
        self.assertEqual(c["securityContext"], {"runAsUser": 0})
        # Besides the service account's token volume (ServiceAccount admission).
        self.assertEqual([v for v in spec["volumes"] if not v["name"].startswith("kube-api-access-")],
                         [{"name": "scratch", "emptyDir": {"medium": "Memory"}}])
        self.assertEqual(spec["terminationGracePeriodSeconds"], 0)
        self.assertEqual(spec["schedulingGates"], [{"name": "example.com/wait"}])
        self.assertEqual(spec["topologySpreadConstraints"][0]["whenUnsatisfiable"], "ScheduleAnyway")

        template = Pb().msg(1, Pb().entry(11, "app", "pb")).msg(2, Pb().msg(2, Pb().str(1, "c").str(2, "nginx")))
        claim = Pb().msg(1, Pb().str(1, "data")).msg(2, Pb().str(1, "ReadWriteOnce")
                                                        .msg(2, Pb().quantity_entry(2, "storage", "1Gi")))
        sts_spec = (Pb().int(1, 0).msg(2, Pb().entry(1, "app", "pb")).msg(3, template).msg(4, claim)
                    .str(5, "pb").msg(10, Pb().str(1, "Delete").str(2, "Retain")).msg(11, Pb().int(1, 5)))
        status, sts = self.post(f"/apis/apps/v1/namespaces/{NS}/statefulsets",
                                envelope("apps/v1", "StatefulSet", Pb().msg(1, meta("pb-sts")).msg(2, sts_spec)))
        self.assertEqual(status, 201, sts)
        spec = self.get("statefulset", "pb-sts")["spec"]
        self.assertEqual(spec["replicas"], 0)
        self.assertEqual(spec["volumeClaimTemplates"][0]["spec"]["resources"], {"requests": {"storage": "1Gi"}})
        self.assertEqual(spec["persistentVolumeClaimRetentionPolicy"], {"whenDeleted": "Delete", "whenScaled": "Retain"})
        self.assertEqual(spec["ordinals"], {"start": 5})

        lease_spec = Pb().str(1, "me").int(2, 15).msg(4, Pb().int(1, 1700000000).int(2, 250000000))
        status, lease = self.post(f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases",
                                  envelope("coordination.k8s.io/v1", "Lease",
                                           Pb().msg(1, meta("pb-lease")).msg(2, lease_spec)))
        self.assertEqual(status, 201, lease)
        spec = self.get("lease", "pb-lease")["spec"]
        self.assertEqual((spec["holderIdentity"], spec["leaseDurationSeconds"], spec["renewTime"]),
                         ("me", 15, "2023-11-14T22:13:20.250000Z"))

        schema = (Pb().str(5, "object")
                  .entry(29, "spec", Pb().str(5, "object")
                         .entry(29, "size", Pb().str(5, "integer").double(9, 10).double(11, 1))
                         .entry(29, "labels", Pb().str(5, "object")
                                .msg(30, Pb().bool(1, False).msg(2, Pb().str(5, "string"))))))
        version = Pb().str(1, "v1").bool(2, True).bool(3, True).msg(4, Pb().msg(1, schema))
        crd_spec = (Pb().str(1, "pb.example.com").msg(3, Pb().str(1, "gadgets").str(2, "gadget").str(4, "Gadget"))
                    .str(4, "Namespaced").msg(7, version))
        status, crd = self.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition",
                                         Pb().msg(1, meta("gadgets.pb.example.com")).msg(2, crd_spec)))
        self.assertEqual(status, 201, crd)
        stored = self.get("crd", "gadgets.pb.example.com", namespaced=False)
        spec_schema = stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        self.assertEqual(spec_schema["properties"]["labels"]["additionalProperties"], {"type": "string"})
        self.assertEqual(spec_schema["properties"]["size"], {"type": "integer", "maximum": 10, "minimum": 1})

    def test_protobuf_delete_options_are_honoured(self):
        self.create("configmap", "pb-del", "--from-literal=a=b")
        uid = self.get("configmap", "pb-del")["metadata"]["uid"]
        path = f"/api/v1/namespaces/{NS}/configmaps/pb-del"
        # preconditions.uid that does not match: Conflict, nothing deleted.
        status, answer = self.post(path, envelope("v1", "DeleteOptions", Pb().msg(2, Pb().str(1, "other"))),
                                   method="DELETE")
        self.assertEqual((status, answer["reason"]), (409, "Conflict"), answer)
        # dryRun: All answers as if deleted and keeps the object.
        status, answer = self.post(path, envelope("v1", "DeleteOptions", Pb().str(5, "All")), method="DELETE")
        self.assertEqual(status, 200, answer)
        self.get("configmap", "pb-del")
        # orphanDependents beside a propagationPolicy is invalid, as in kube.
        status, answer = self.post(path, envelope("v1", "DeleteOptions", Pb().bool(3, True).str(4, "Orphan")),
                                   method="DELETE")
        self.assertEqual((status, answer["reason"]), (422, "Invalid"), answer)
        # The matching uid, gracePeriodSeconds 0: deleted.
        status, answer = self.post(path, envelope("v1", "DeleteOptions", Pb().int(1, 0).msg(2, Pb().str(1, uid))),
                                   method="DELETE")
        self.assertEqual(status, 200, answer)
        p = self.k("get", "configmap", "pb-del", "-n", NS, check=False)
        self.assertIn("NotFound", p.stderr)


if __name__ == "__main__":
    unittest.main()
