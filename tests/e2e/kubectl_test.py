"""The real kubectl (v1.32) against berth serve."""

import json
import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer, KUBECTL  # noqa: E402

MANIFEST = """
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels:
    disk: hdd
    topology.kubernetes.io/zone: z1
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True"}
  nodeInfo: {kubeletVersion: v1.32.0}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
  labels: {app: web, tier: front}
spec:
  containers:
  - name: c
    image: nginx:1.25
    resources:
      requests: {cpu: 100m, memory: 64Mi}
---
apiVersion: v1
kind: Pod
metadata:
  name: db
  namespace: shop
  labels: {app: db}
spec:
  nodeName: node-a
  containers:
  - name: c
    image: postgres:16
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: c
        image: busybox:1.36
"""


class KubectlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer().start()
        cls.k = cls.server.kubectl
        p = cls.k("apply", "-f", "-", input=MANIFEST)
        cls.apply_output = p.stdout

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def test_version_reports_kubernetes_minor_32(self):
        out = self.k("version", "-o", "json").stdout
        server = json.loads(out)["serverVersion"]
        self.assertEqual(server["major"], "1")
        self.assertEqual(server["minor"], "32")
        self.assertIn("berth", server["gitVersion"])

    def test_api_resources_lists_short_names(self):
        out = self.k("api-resources").stdout
        for short, resource in [("po", "pods"), ("no", "nodes"), ("ns", "namespaces"),
                                ("pv", "persistentvolumes"), ("pvc", "persistentvolumeclaims"),
                                ("sc", "storageclasses"), ("pc", "priorityclasses"),
                                ("pdb", "poddisruptionbudgets"), ("rs", "replicasets"),
                                ("deploy", "deployments"), ("ev", "events")]:
            line = [l for l in out.splitlines() if l.split()[:1] == [resource]]
            self.assertTrue(line, f"{resource} missing from:\n{out}")
            self.assertIn(short, line[0].split())

    def test_apply_created_every_document(self):
        for expected in ["namespace/shop created", "node/node-a created", "pod/web created",
                         "pod/db created", "deployment.apps/api created"]:
            self.assertIn(expected, self.apply_output)

    def test_apply_again_is_unchanged(self):
        out = self.k("apply", "-f", "-", input=MANIFEST).stdout
        self.assertIn("pod/web unchanged", out)

    def test_get_pods_wide_shows_kube_columns(self):
        out = self.k("get", "pods", "-n", "shop", "-o", "wide").stdout
        header = out.splitlines()[0].split()
        self.assertEqual(header[:5], ["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
        self.assertIn("NODE", header)
        db = [l for l in out.splitlines() if l.startswith("db ")][0]
        self.assertIn("node-a", db)
        self.assertIn("Pending", db)

    def test_get_nodes_shows_status_and_version(self):
        out = self.k("get", "nodes").stdout
        self.assertEqual(out.splitlines()[0].split(), ["NAME", "STATUS", "ROLES", "AGE", "VERSION"])
        self.assertRegex(out, r"node-a\s+Ready\s+<none>\s+\S+\s+v1.32.0")

    def test_get_json_and_yaml(self):
        pod = json.loads(self.k("get", "pod", "web", "-n", "shop", "-o", "json").stdout)
        self.assertEqual(pod["metadata"]["labels"]["app"], "web")
        self.assertEqual(pod["spec"]["schedulerName"], "default-scheduler")
        self.assertEqual(pod["status"]["phase"], "Pending")
        self.assertTrue(pod["metadata"]["uid"])
        self.assertTrue(pod["metadata"]["resourceVersion"])
        out = self.k("get", "pod", "web", "-n", "shop", "-o", "yaml").stdout
        self.assertIn("name: web", out)

    def test_label_and_field_selectors(self):
        out = self.k("get", "pods", "-A", "-l", "app in (web,db)", "-o", "name").stdout.split()
        self.assertEqual(sorted(out), ["pod/db", "pod/web"])
        out = self.k("get", "pods", "-A", "--field-selector", "spec.nodeName=node-a",
                     "-o", "name").stdout.split()
        self.assertEqual(out, ["pod/db"])
        out = self.k("get", "pods", "-n", "shop", "-l", "tier=front", "-o", "name").stdout.split()
        self.assertEqual(out, ["pod/web"])
        p = self.k("get", "pods", "-A", "--field-selector", "spec.bogus=x", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("field label not supported", p.stderr)

    def test_get_missing_pod_is_not_found(self):
        p = self.k("get", "pod", "nope", "-n", "shop", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('Error from server (NotFound): pods "nope" not found', p.stderr)

    def test_describe_pod_and_node(self):
        out = self.k("describe", "pod", "web", "-n", "shop").stdout
        self.assertIn("Name:", out)
        self.assertIn("web", out)
        self.assertIn("nginx:1.25", out)
        out = self.k("describe", "node", "node-a").stdout
        self.assertIn("node-a", out)

    def test_label_and_annotate(self):
        self.k("label", "pod", "web", "-n", "shop", "color=blue")
        pod = json.loads(self.k("get", "pod", "web", "-n", "shop", "-o", "json").stdout)
        self.assertEqual(pod["metadata"]["labels"]["color"], "blue")
        self.k("label", "pod", "web", "-n", "shop", "color-")
        pod = json.loads(self.k("get", "pod", "web", "-n", "shop", "-o", "json").stdout)
        self.assertNotIn("color", pod["metadata"]["labels"])
        self.k("annotate", "pod", "web", "-n", "shop", "note=hello")
        pod = json.loads(self.k("get", "pod", "web", "-n", "shop", "-o", "json").stdout)
        self.assertEqual(pod["metadata"]["annotations"]["note"], "hello")

    def test_cordon_uncordon_and_taint(self):
        self.k("cordon", "node-a")
        self.assertIn("Ready,SchedulingDisabled", self.k("get", "nodes").stdout)
        self.k("uncordon", "node-a")
        node = json.loads(self.k("get", "node", "node-a", "-o", "json").stdout)
        self.assertFalse(node["spec"].get("unschedulable", False))
        self.k("taint", "nodes", "node-a", "dedicated=gpu:NoSchedule")
        node = json.loads(self.k("get", "node", "node-a", "-o", "json").stdout)
        self.assertEqual(node["spec"]["taints"],
                         [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
        self.k("taint", "nodes", "node-a", "dedicated-")
        node = json.loads(self.k("get", "node", "node-a", "-o", "json").stdout)
        self.assertFalse(node["spec"].get("taints"))

    def test_patch_all_three_types(self):
        self.k("patch", "pod", "db", "-n", "shop", "-p", '{"metadata":{"labels":{"s":"1"}}}')
        self.k("patch", "pod", "db", "-n", "shop", "--type=merge",
               "-p", '{"metadata":{"labels":{"m":"2"}}}')
        self.k("patch", "pod", "db", "-n", "shop", "--type=json",
               "-p", '[{"op":"add","path":"/metadata/labels/j","value":"3"}]')
        labels = json.loads(self.k("get", "pod", "db", "-n", "shop", "-o", "json").stdout)["metadata"]["labels"]
        self.assertEqual((labels["s"], labels["m"], labels["j"]), ("1", "2", "3"))

    def test_pod_spec_is_fixed_but_for_what_kube_allows(self):
        p = self.k("patch", "pod", "db", "-n", "shop", "-p", '{"spec":{"nodeName":"node-b"}}', check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('The Pod "db" is invalid: spec: Forbidden: pod updates may not change fields other than '
                      '`spec.containers[*].image`', p.stderr)
        self.k("set", "image", "pod/db", "-n", "shop", "c=postgres:17")
        pod = json.loads(self.k("get", "pod", "db", "-n", "shop", "-o", "json").stdout)
        self.assertEqual((pod["spec"]["nodeName"], pod["spec"]["containers"][0]["image"]), ("node-a", "postgres:17"))

    def test_replace_with_stale_resource_version_conflicts(self):
        pod = json.loads(self.k("get", "pod", "web", "-n", "shop", "-o", "json").stdout)
        pod["metadata"]["labels"]["replaced"] = "yes"
        self.k("replace", "-f", "-", input=json.dumps(pod))
        p = self.k("replace", "-f", "-", input=json.dumps(pod), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("Conflict", p.stderr)
        self.assertIn("the object has been modified", p.stderr)

    def test_scale_deployment(self):
        self.k("scale", "deployment", "api", "-n", "shop", "--replicas=5")
        d = json.loads(self.k("get", "deployment", "api", "-n", "shop", "-o", "json").stdout)
        self.assertEqual(d["spec"]["replicas"], 5)

    def test_create_errors_are_kube_statuses(self):
        web = MANIFEST.split("---")[2]
        self.assertIn("name: web", web)
        p = self.k("create", "-f", "-", check=False, input=web)
        self.assertIn('(AlreadyExists): error when creating "STDIN": pods "web" already exists',
                      p.stderr)
        bad = """{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad","namespace":"shop"},
                  "spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"-1"}}}]}}"""
        p = self.k("create", "-f", "-", check=False, input=bad)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("Invalid", p.stderr)
        self.assertIn("spec.containers[0].resources.requests", p.stderr)
        p = self.k("create", "-f", "-", check=False,
                   input=MANIFEST.split("---")[3].replace("namespace: shop", "namespace: nowhere"))
        self.assertIn('namespaces "nowhere" not found', p.stderr)

    def test_delete_pod(self):
        self.k("run", "tmp", "-n", "shop", "--image=busybox", "--restart=Never")
        self.k("delete", "pod", "tmp", "-n", "shop")
        p = self.k("get", "pod", "tmp", "-n", "shop", check=False)
        self.assertIn("NotFound", p.stderr)

    def test_get_pods_watch_receives_concurrent_changes(self):
        cmd = [KUBECTL, "--server", self.server.url, "--cache-dir",
               os.path.join(self.server.tmp, "kube-cache"), "get", "pods", "-n", "shop", "-w"]
        env = dict(os.environ, HOME=self.server.tmp)
        watcher = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        lines = []
        reader = threading.Thread(target=lambda: [lines.append(l) for l in watcher.stdout])
        reader.start()
        try:
            deadline = time.time() + 10
            while not any(l.startswith("web") for l in lines) and time.time() < deadline:
                time.sleep(0.05)
            self.k("run", "watched", "-n", "shop", "--image=busybox", "--restart=Never")
            self.k("label", "pod", "watched", "-n", "shop", "x=y")
            deadline = time.time() + 10
            while sum(l.startswith("watched") for l in lines) < 2 and time.time() < deadline:
                time.sleep(0.05)
        finally:
            watcher.terminate()
            watcher.wait(timeout=10)
            watcher.stdout.close()
            watcher.stderr.close()
            reader.join(timeout=5)
        watched = [l for l in lines if l.startswith("watched")]
        self.assertGreaterEqual(len(watched), 2, "".join(lines))
        self.assertIn("Pending", watched[0])


if __name__ == "__main__":
    unittest.main()
