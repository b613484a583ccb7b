"""DaemonSets end to end: real kubectl against `berth serve --sim-nodes 3`
(and a node added with `berth sim node-add`)
(scheduler, controllers and simulated kubelets in process). Each test works
in a namespace of its own."""

import json
import subprocess
import unittest
import time
import urllib.request

from berth_server import BERTH, BerthServer, wait_for

SIM_NODES = ["sim-node-0", "sim-node-1", "sim-node-2"]


def daemon_set(name, image="busybox:1.36", node_selector=None, strategy=None):
    spec = {"containers": [{"name": "agent", "image": image}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name},
          "spec": {"selector": {"matchLabels": {"app": name}},
                   "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}
    if strategy:
        ds["spec"]["updateStrategy"] = strategy
    return ds


class DaemonSetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(
            ["--sim-nodes", "3", "--node-monitor-grace-period", "3s", "--node-monitor-period", "250ms"],
            scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def setUp(self):
        self.ns = self.id().rsplit(".", 1)[-1].replace("_", "-")[:60]
        self.kubectl("create", "namespace", self.ns)

    def kubectl(self, *args, **kw):
        return self.server.kubectl(*args, **kw)

    def get(self, path):
        with urllib.request.urlopen(self.server.url + path, timeout=10) as r:
            return json.loads(r.read())

    def wait(self, what, predicate, timeout=60):
        return wait_for(self, self.server, what, predicate, timeout, interval=0.1)

    def apply(self, obj):
        self.kubectl("apply", "-n", self.ns, "-f", "-", input=json.dumps(obj))

    def pods(self, name):
        items = self.get(f"/api/v1/namespaces/{self.ns}/pods?labelSelector=app%3D{name}")["items"]
        return [p for p in items if "deletionTimestamp" not in p["metadata"]]

    def status(self, name):
        return self.get(f"/apis/apps/v1/namespaces/{self.ns}/daemonsets/{name}").get("status", {})

    @staticmethod
    def running(pod):
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in pod["status"].get("conditions", []))
        return pod["status"].get("phase") == "Running" and ready

    def running_by_node(self, name):
        """node → images of the daemon set's Running pods there."""
        out = {}
        for p in self.pods(name):
            if self.running(p):
                out.setdefault(p["spec"]["nodeName"], []).append(p["spec"]["containers"][0]["image"])
        return out

    def test_one_running_pod_per_node(self):
        self.apply(daemon_set("agent"))
        by_node = self.wait("a Running pod on every node",
                            lambda: (lambda m: m if sorted(m) == SIM_NODES else None)(self.running_by_node("agent")))
        self.assertTrue(all(len(images) == 1 for images in by_node.values()), by_node)
        st = self.wait("status", lambda: (lambda s: s if s.get("numberAvailable") == 3 else None)(self.status("agent")))
        self.assertEqual((st["desiredNumberScheduled"], st["currentNumberScheduled"], st["numberReady"],
                          st["updatedNumberScheduled"], st["numberMisscheduled"]), (3, 3, 3, 3, 0))
        pod = self.pods("agent")[0]
        self.assertIn("controller-revision-hash", pod["metadata"]["labels"])
        self.assertIn("pod-template-generation", pod["metadata"]["labels"])
        terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        self.assertEqual(terms, [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                   "values": [pod["spec"]["nodeName"]]}]}])
        owner = pod["metadata"]["ownerReferences"][0]
        self.assertEqual((owner["kind"], owner["name"], owner["controller"]), ("DaemonSet", "agent", True))
        # kubectl's own view agrees.
        out = self.kubectl("get", "ds", "agent", "-n", self.ns, "--no-headers").stdout.split()
        self.assertEqual(out[:6], ["agent", "3", "3", "3", "3", "3"])

    def test_node_added_later_gets_a_pod(self):
        self.apply(daemon_set("late", node_selector={"role": "late"}))
        self.kubectl("label", "node", "sim-node-0", "role=late")
        self.addCleanup(self.kubectl, "label", "node", "sim-node-0", "role-")
        self.wait("a pod on the labelled node", lambda: sorted(self.running_by_node("late")) == ["sim-node-0"])
        # A simulated node joins the running server (`berth sim node-add`):
        # its kubelet registers it Ready and runs the daemon pod placed there.
        subprocess.run([BERTH, "sim", "node-add", "late-node", "--label", "role=late", "--cpu", "4",
                        "--server", self.server.url], check=True, capture_output=True, text=True)
        self.addCleanup(self.kubectl, "delete", "node", "late-node", "--ignore-not-found")
        bound = self.wait("a Running pod on the new node", lambda: [
            p for p in self.pods("late") if p["spec"].get("nodeName") == "late-node" and self.running(p)])
        self.assertEqual(len(bound), 1)
        self.assertEqual(self.wait("desired 2", lambda: self.status("late").get("desiredNumberScheduled") == 2), True)
        # Its labels change: the pod there is deleted.
        self.kubectl("label", "node", "late-node", "role=early", "--overwrite")
        self.wait("no pod on the relabelled node",
                  lambda: not [p for p in self.pods("late") if p["spec"].get("nodeName") == "late-node"])
        self.assertEqual(sorted(self.running_by_node("late")), ["sim-node-0"])
        # Labelled back, then removed: the daemon set follows.
        self.kubectl("label", "node", "late-node", "role=late", "--overwrite")
        self.wait("a pod on the node again", lambda: [
            p for p in self.pods("late") if p["spec"].get("nodeName") == "late-node"])
        self.kubectl("delete", "node", "late-node")
        self.wait("desired 1 once the node is gone", lambda: self.status("late").get("desiredNumberScheduled") == 1)

    def test_untolerated_no_execute_taint_removes_the_pod(self):
        self.apply(daemon_set("tainted"))
        self.wait("three Running pods", lambda: sorted(self.running_by_node("tainted")) == SIM_NODES)
        self.kubectl("taint", "node", "sim-node-1", "evict=now:NoExecute")
        self.addCleanup(self.kubectl, "taint", "node", "sim-node-1", "evict-", check=False)
        self.wait("no pod on the tainted node", lambda: "sim-node-1" not in {
            p["spec"].get("nodeName") for p in self.pods("tainted")})
        self.wait("desired 2", lambda: self.status("tainted").get("desiredNumberScheduled") == 2)
        # A NoSchedule taint keeps the pod that is there (counted misscheduled).
        self.kubectl("taint", "node", "sim-node-2", "dedicated=x:NoSchedule")
        self.addCleanup(self.kubectl, "taint", "node", "sim-node-2", "dedicated-", check=False)
        st = self.wait("misscheduled 1", lambda: (lambda s: s if s.get("numberMisscheduled") == 1 else None)(
            self.status("tainted")))
        self.assertEqual(st["desiredNumberScheduled"], 1)
        self.assertIn("sim-node-2", self.running_by_node("tainted"))
        # Taints removed: the pod comes back.
        self.kubectl("taint", "node", "sim-node-1", "evict-")
        self.kubectl("taint", "node", "sim-node-2", "dedicated-")
        self.wait("three Running pods again", lambda: sorted(self.running_by_node("tainted")) == SIM_NODES)

    def test_pods_survive_an_unreachable_node(self):
        self.apply(daemon_set("steady"))
        self.wait("three Running pods", lambda: sorted(self.running_by_node("steady")) == SIM_NODES)
        before = {p["metadata"]["name"] for p in self.pods("steady")}
        subprocess.run([BERTH, "sim", "node-down", "sim-node-0", "--server", self.server.url], check=True,
                       capture_output=True)
        self.addCleanup(self.node_up, "sim-node-0")
        self.wait("the unreachable taint", lambda: "node.kubernetes.io/unreachable" in self.taint_keys("sim-node-0"))
        # The daemon pods tolerate it for ever: the same pods stay, none deleted.
        deadline = time.time() + 3
        while time.time() < deadline:
            self.assertEqual({p["metadata"]["name"] for p in self.pods("steady")}, before)
            time.sleep(0.2)

    def taint_keys(self, node):
        return {t["key"] for t in self.get(f"/api/v1/nodes/{node}")["spec"].get("taints", [])}

    def node_up(self, node):
        subprocess.run([BERTH, "sim", "node-up", node, "--server", self.server.url], check=True, capture_output=True)
        self.wait("the node reachable again", lambda: "node.kubernetes.io/unreachable" not in self.taint_keys(node))

    def test_rollout_status_history_and_undo(self):
        self.apply(daemon_set("web", image="nginx:1.24"))
        self.kubectl("rollout", "status", "ds/web", "-n", self.ns, "--timeout=120s")
        self.assertEqual(set(sum(self.running_by_node("web").values(), [])), {"nginx:1.24"})
        self.kubectl("set", "image", "ds/web", "agent=nginx:1.25", "-n", self.ns)
        out = self.kubectl("rollout", "status", "ds/web", "-n", self.ns, "--timeout=120s").stdout
        self.assertIn('daemon set "web" successfully rolled out', out)
        images = self.wait("every pod on the new image", lambda: (lambda m: m if sorted(m) == SIM_NODES and all(
            v == ["nginx:1.25"] for v in m.values()) else None)(self.running_by_node("web")))
        self.assertEqual(len(images), 3)
        history = self.kubectl("rollout", "history", "ds/web", "-n", self.ns).stdout.split()
        self.assertEqual(history[history.index("CHANGE-CAUSE") + 1::2], ["1", "2"])
        detail = self.kubectl("rollout", "history", "ds/web", "-n", self.ns, "--revision=1").stdout
        self.assertIn("nginx:1.24", detail)

        self.kubectl("rollout", "undo", "ds/web", "-n", self.ns)
        self.kubectl("rollout", "status", "ds/web", "-n", self.ns, "--timeout=120s")
        self.wait("every pod back on the old image", lambda: (lambda m: sorted(m) == SIM_NODES and all(
            v == ["nginx:1.24"] for v in m.values()))(self.running_by_node("web")))
        ds = self.get(f"/apis/apps/v1/namespaces/{self.ns}/daemonsets/web")
        self.assertEqual(ds["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.24")
        revisions = self.get(f"/apis/apps/v1/namespaces/{self.ns}/controllerrevisions")["items"]
        by_revision = {r["revision"]: r["metadata"]["name"] for r in revisions}
        self.assertEqual(sorted(by_revision), [2, 3])  # the first template came back as revision 3
        for name in by_revision.values():
            self.assertTrue(name.startswith("web-"), name)

    def test_on_delete_waits_for_the_user(self):
        self.apply(daemon_set("manual", image="nginx:1.24", strategy={"type": "OnDelete"}))
        self.wait("three Running pods", lambda: sorted(self.running_by_node("manual")) == SIM_NODES)
        self.kubectl("set", "image", "ds/manual", "agent=nginx:1.25", "-n", self.ns)
        self.wait("the new generation observed",
                  lambda: self.status("manual").get("observedGeneration") == 2)
        self.assertEqual(self.status("manual").get("updatedNumberScheduled", 0), 0)
        victim = [p for p in self.pods("manual") if p["spec"]["nodeName"] == "sim-node-0"][0]["metadata"]["name"]
        self.kubectl("delete", "pod", victim, "-n", self.ns)
        self.wait("a new pod on sim-node-0", lambda: self.running_by_node("manual").get("sim-node-0") == ["nginx:1.25"])
        self.assertEqual(self.running_by_node("manual").get("sim-node-1"), ["nginx:1.24"])


if __name__ == "__main__":
    unittest.main()
