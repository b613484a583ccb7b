"""kubectl's typed `create` commands (protobuf bodies) against berth serve.

Each test runs one `kubectl create ...` as a user would and reads the stored
object back with `kubectl get -o json`. Run with:
  BERTH_BINARY=build/berth python3 -m unittest kubectl_create_test -v
"""

import base64
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

NS = "made"


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


if __name__ == "__main__":
    unittest.main()
