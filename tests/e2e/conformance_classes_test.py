"""Families of Kubernetes behaviour its own conformance suite checks, as
kubectl meets them against `berth serve --sim-nodes`: every namespace's
default ServiceAccount and kube-root-ca.crt, ReplicationControllers (pods,
`kubectl scale rc`), a quantity written as a JSON number, the simulated
kubelet's admission (a hostPort taken) and containers running their known
commands, and defaults kube applies (a RoleBinding without roleRef.apiGroup,
a volume with only a name), the label naming each namespace, a Service whose
type changes, and the verbose health checks."""

import json
import unittest

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


if __name__ == "__main__":
    unittest.main()
