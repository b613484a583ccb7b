"""Controllers and simulated nodes end to end: real kubectl against
`berth serve --sim-nodes` (scheduler, controllers and simulated kubelets in
process). Timings are shortened with kube's flag names."""

import json
import os
import subprocess
import time
import unittest
import urllib.request

from berth_server import BERTH, BerthServer, wait_for


def create_deployment(server, name, replicas, image="nginx", namespace="default"):
    # kubectl's typed client sends this one as protobuf.
    server.kubectl("create", "deployment", name, f"--image={image}", f"--replicas={replicas}", "-n", namespace)


class ControllersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(
            ["--sim-nodes", "4", "--sim-zones", "2", "--sim-cpu", "4", "--sim-memory", "8Gi",
             "--node-monitor-grace-period", "3s", "--node-monitor-period", "250ms",
             "--default-unreachable-toleration-seconds", "1", "--default-not-ready-toleration-seconds", "1"],
            scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def get(self, path):
        with urllib.request.urlopen(self.server.url + path, timeout=10) as r:
            return json.loads(r.read())

    def apply(self, obj):
        self.server.kubectl("apply", "-f", "-", input=json.dumps(obj))

    def wait(self, what, predicate, timeout=30):
        return wait_for(self, self.server, what, predicate, timeout)

    def pods(self, namespace, selector):
        return self.get(f"/api/v1/namespaces/{namespace}/pods?labelSelector={selector}")["items"]

    @staticmethod
    def ready(pod):
        return any(c["type"] == "Ready" and c["status"] == "True" for c in pod.get("status", {}).get("conditions", []))

    def running_ready(self, namespace, selector):
        return [p for p in self.pods(namespace, selector)
                if p["status"].get("phase") == "Running" and self.ready(p) and "deletionTimestamp" not in p["metadata"]]

    def test_nodes_registered_with_standard_labels(self):
        nodes = self.get("/api/v1/nodes")["items"]
        sim = [n for n in nodes if n["metadata"]["name"].startswith("sim-node-")]
        self.assertEqual(len(sim), 4)
        for n in sim:
            labels = n["metadata"]["labels"]
            self.assertEqual(labels["kubernetes.io/hostname"], n["metadata"]["name"])
            self.assertEqual(labels["kubernetes.io/os"], "linux")
            self.assertIn(labels["topology.kubernetes.io/zone"], ("zone-a", "zone-b"))
            self.assertEqual(n["status"]["allocatable"]["cpu"], "4")
        leases = self.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")["items"]
        self.assertEqual(sorted(l["metadata"]["name"] for l in leases if l["metadata"]["name"].startswith("sim-")),
                         sorted(n["metadata"]["name"] for n in sim))
        out = self.server.kubectl("get", "nodes").stdout
        self.assertEqual(out.count(" Ready "), 4, out)

    def test_deployment_scale_rollout_undo_delete(self):
        create_deployment(self.server, "web", 6)
        self.server.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
        pods = self.wait("6 running pods", lambda: len(self.running_ready("default", "app%3Dweb")) == 6)
        pods = self.running_ready("default", "app%3Dweb")
        self.assertTrue(all(p["spec"]["nodeName"].startswith("sim-node-") for p in pods))
        self.assertTrue(all(p["status"]["podIP"] for p in pods))
        owner = pods[0]["metadata"]["ownerReferences"][0]
        self.assertEqual((owner["kind"], owner["controller"]), ("ReplicaSet", True))
        # The scheduler's and the (simulated) kubelet's events, as kubectl describe shows them.
        name, node = pods[0]["metadata"]["name"], pods[0]["spec"]["nodeName"]
        described = self.wait("the pod's events", lambda: (
            lambda out: out if "Started container" in out else None)(
                self.server.kubectl("describe", "pod", name).stdout))
        self.assertRegex(described, rf"Normal\s+Scheduled\s+\S+\s+default-scheduler\s+"
                                    rf"Successfully assigned default/{name} to {node}\n")
        for reason, message in (("Pulled", 'Container image "nginx" already present on machine'),
                                ("Created", "Created container nginx"), ("Started", "Started container nginx")):
            self.assertRegex(described, rf"Normal\s+{reason}\s+\S+\s+kubelet(, {node})?\s+{message}\n")

        # Scale up and down.
        self.server.kubectl("scale", "deployment/web", "--replicas=10")
        self.wait("10 pods", lambda: len(self.running_ready("default", "app%3Dweb")) == 10)
        self.server.kubectl("scale", "deployment/web", "--replicas=4")
        self.wait("4 pods", lambda: len(self.pods("default", "app%3Dweb")) == 4)
        self.server.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
        # The controllers' events, as `kubectl describe` shows them.
        rs_name = self.get("/apis/apps/v1/namespaces/default/replicasets")["items"][0]["metadata"]["name"]
        described = self.wait("the deployment's scaling events", lambda: (
            lambda out: out if "to 4 from 10" in out else None)(
                self.server.kubectl("describe", "deployment", "web").stdout))
        self.assertRegex(described, rf"Normal\s+ScalingReplicaSet\s+\S+\s+deployment-controller\s+"
                                    rf"Scaled up replica set {rs_name} to 6\n")
        self.assertIn(f"Scaled up replica set {rs_name} to 10 from 6", described)
        self.assertIn(f"Scaled down replica set {rs_name} to 4 from 10", described)
        described = self.wait("the replica set's events", lambda: (
            lambda out: out if "SuccessfulDelete" in out else None)(
                self.server.kubectl("describe", "rs", rs_name).stdout))
        self.assertRegex(described, rf"Normal\s+SuccessfulCreate\s+\S+\s+replicaset-controller\s+"
                                    rf"Created pod: {rs_name}-")
        self.assertRegex(described, rf"Normal\s+SuccessfulDelete\s+\S+\s+replicaset-controller\s+"
                                    rf"Deleted pod: {rs_name}-")

        # A rolling update with maxUnavailable 1 and maxSurge 1, pods ready for 1 s before available:
        # at every observed moment at least 3 of 4 pods are available, at most 5 exist.
        self.server.kubectl("patch", "deployment/web", "--type=merge", "-p",
                            json.dumps({"spec": {"minReadySeconds": 1, "strategy": {
                                "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}}}}))
        self.server.kubectl("set", "image", "deployment/web", "nginx=nginx:1.27")
        observations, worst_ready, most_pods = 0, 99, 0
        deadline = time.time() + 60
        while time.time() < deadline:
            pods = [p for p in self.pods("default", "app%3Dweb") if "deletionTimestamp" not in p["metadata"]]
            ready = [p for p in pods if self.ready(p)]
            worst_ready = min(worst_ready, len(ready))
            most_pods = max(most_pods, len(pods))
            observations += 1
            images = {p["spec"]["containers"][0]["image"] for p in ready}
            if images == {"nginx:1.27"} and len(ready) == 4 and len(pods) == 4:
                break
            time.sleep(0.02)
        else:
            self.fail("rolling update did not finish")
        self.assertGreater(observations, 5)
        self.assertGreaterEqual(worst_ready, 3)
        self.assertLessEqual(most_pods, 5)
        self.server.kubectl("rollout", "status", "deployment/web", "--timeout=60s")

        history = self.server.kubectl("rollout", "history", "deployment/web").stdout
        self.assertIn("1 ", history)
        self.assertIn("2 ", history)
        self.server.kubectl("rollout", "undo", "deployment/web")
        self.server.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
        self.wait("the old image back", lambda: {p["spec"]["containers"][0]["image"]
                                                 for p in self.running_ready("default", "app%3Dweb")} == {"nginx"})
        rs = self.get("/apis/apps/v1/namespaces/default/replicasets")["items"]
        self.assertEqual(len(rs), 2, "undo reuses the first ReplicaSet")
        revisions = sorted(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"] for r in rs)
        self.assertEqual(revisions, ["2", "3"])
        d = self.get("/apis/apps/v1/namespaces/default/deployments/web")
        self.assertEqual(d["status"]["observedGeneration"], d["metadata"]["generation"])
        self.assertEqual({c["type"]: c["status"] for c in d["status"]["conditions"]},
                         {"Available": "True", "Progressing": "True"})

        # Deleting the deployment collects its ReplicaSets and pods.
        self.server.kubectl("delete", "deployment", "web")
        self.wait("replicasets collected", lambda: not [
            r for r in self.get("/apis/apps/v1/namespaces/default/replicasets")["items"]
            if r["metadata"]["name"].startswith("web-")])
        self.wait("pods collected", lambda: not self.pods("default", "app%3Dweb"))

    def test_orphan_and_foreground_deletion(self):
        create_deployment(self.server, "keep", 2)
        self.server.kubectl("rollout", "status", "deployment/keep", "--timeout=60s")
        self.server.kubectl("delete", "deployment", "keep", "--cascade=orphan")
        rs = self.wait("the orphaned ReplicaSet", lambda: [
            r for r in self.get("/apis/apps/v1/namespaces/default/replicasets")["items"]
            if r["metadata"]["name"].startswith("keep-") and not r["metadata"].get("ownerReferences")])
        self.assertEqual(len(self.running_ready("default", "app%3Dkeep")), 2)
        self.server.kubectl("delete", "replicaset", rs[0]["metadata"]["name"], "--cascade=foreground")
        # Foreground: when kubectl returns (it waits), the pods are already gone.
        self.assertEqual(self.pods("default", "app%3Dkeep"), [])

    def test_node_down_pods_move_and_node_comes_back(self):
        create_deployment(self.server, "spread", 8)
        self.server.kubectl("rollout", "status", "deployment/spread", "--timeout=60s")
        on_node0 = [p for p in self.running_ready("default", "app%3Dspread") if p["spec"]["nodeName"] == "sim-node-0"]
        self.assertTrue(on_node0, "the scheduler spreads 8 pods over 4 nodes")
        out = subprocess.run([BERTH, "sim", "node-down", "sim-node-0", "--server", self.server.url],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.wait("node Unknown", lambda: any(
            c["type"] == "Ready" and c["status"] == "Unknown"
            for c in self.get("/api/v1/nodes/sim-node-0")["status"]["conditions"]))
        taints = self.wait("unreachable taints", lambda: self.get("/api/v1/nodes/sim-node-0")["spec"].get("taints"))
        self.assertIn(("node.kubernetes.io/unreachable", "NoExecute"), [(t["key"], t["effect"]) for t in taints])
        # Evicted after the 1 s toleration, replaced elsewhere.
        self.wait("8 pods running on other nodes", lambda: len(
            [p for p in self.running_ready("default", "app%3Dspread") if p["spec"]["nodeName"] != "sim-node-0"]) == 8)
        described = self.wait("the node's event", lambda: (
            lambda out: out if "NodeNotReady" in out else None)(
                self.server.kubectl("describe", "node", "sim-node-0").stdout))
        self.assertRegex(described, r"Normal\s+NodeNotReady\s+\S+\s+node-controller\s+"
                                    r"Node sim-node-0 status is now: NodeNotReady")
        evictions = self.wait("eviction events", lambda: self.get(
            "/api/v1/namespaces/default/events?fieldSelector=reason%3DTaintManagerEviction")["items"])
        self.assertTrue(all(e["involvedObject"]["name"] in [p["metadata"]["name"] for p in on_node0]
                            for e in evictions), evictions)
        self.assertTrue(all(e["message"].startswith("Marking for deletion Pod default/spread-") for e in evictions))
        out = subprocess.run([BERTH, "sim", "node-up", "sim-node-0", "--server", self.server.url],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.wait("node Ready without taints", lambda: any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in self.get("/api/v1/nodes/sim-node-0")["status"]["conditions"])
            and not self.get("/api/v1/nodes/sim-node-0")["spec"].get("taints"))
        # The kubelet's and node controller's node events; NodeReady again after coming back (counted).
        ready = self.wait("NodeReady recorded twice", lambda: [
            e for e in self.get("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dsim-node-0")[
                "items"] if e["reason"] == "NodeReady" and e["count"] >= 2])
        self.assertEqual(ready[0]["source"], {"component": "kubelet", "host": "sim-node-0"})
        described = self.server.kubectl("describe", "node", "sim-node-0").stdout
        self.assertRegex(described, r"Normal\s+Starting\s+\S+\s+kubelet(, sim-node-0)?\s+Starting kubelet\.")
        self.assertRegex(described, r"Normal\s+RegisteredNode\s+\S+\s+node-controller\s+"
                                    r"Node sim-node-0 event: Registered Node sim-node-0 in Controller")
        # Its kubelet finishes the terminations it missed.
        self.wait("terminating pods gone", lambda: not [
            p for p in self.pods("default", "app%3Dspread") if p["spec"].get("nodeName") == "sim-node-0"])
        self.server.kubectl("delete", "deployment", "spread")

    def test_applied_deployment_yaml_works_too(self):
        p = self.server.kubectl("create", "deployment", "applied", "--image=nginx", "--replicas=2",
                                "--dry-run=client", "-o", "json")
        self.apply(json.loads(p.stdout))
        self.server.kubectl("rollout", "status", "deployment/applied", "--timeout=60s")
        self.server.kubectl("delete", "deployment", "applied")

    def test_sim_command_errors(self):
        out = subprocess.run([BERTH, "sim", "node-down", "no-such-node", "--server", self.server.url],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 1)
        self.assertIn('nodes "no-such-node" not found', out.stderr)

    def test_namespace_deletion_drains_it(self):
        self.server.kubectl("create", "namespace", "scratch")
        create_deployment(self.server, "tmp", 3, namespace="scratch")
        self.server.kubectl("rollout", "status", "deployment/tmp", "-n", "scratch", "--timeout=60s")
        self.server.kubectl("delete", "namespace", "scratch")
        self.wait("namespace gone", lambda: "scratch" not in [
            n["metadata"]["name"] for n in self.get("/api/v1/namespaces")["items"]])
        self.assertEqual(self.get("/api/v1/pods?fieldSelector=metadata.namespace%3Dscratch")["items"], [])


class StandaloneControllerManagerTest(unittest.TestCase):
    """`berth controller-manager --server URL` against `berth serve --no-controllers`."""

    def test_deployment_through_the_standalone_controllers(self):
        server = BerthServer(["--no-controllers", "--sim-nodes", "2"], scheduler=True).start()
        manager = None
        try:
            server.kubectl("create", "deployment", "solo", "--image=nginx", "--replicas=3")
            time.sleep(1)
            rs = json.loads(server.kubectl("get", "rs", "-o", "json").stdout)["items"]
            self.assertEqual(rs, [], "no controllers run in serve: nothing acts on the deployment")
            log = open(os.path.join(server.tmp, "controller-manager.log"), "wb")
            manager = subprocess.Popen([BERTH, "controller-manager", "--server", server.url],
                                       stdout=log, stderr=subprocess.STDOUT)
            server.kubectl("rollout", "status", "deployment/solo", "--timeout=60s")
            # It runs with kube's leader election by default: it holds the Lease.
            holder = server.kubectl("get", "lease", "-n", "kube-system", "kube-controller-manager",
                                    "-o", "jsonpath={.spec.holderIdentity}").stdout
            self.assertRegex(holder, r"^.+_[0-9a-f-]{36}$")
            pods = json.loads(server.kubectl("get", "pods", "-l", "app=solo", "-o", "json").stdout)["items"]
            self.assertEqual(len(pods), 3)
            self.assertTrue(all(p["status"]["phase"] == "Running" for p in pods))
            # The standalone manager's events arrive over HTTP.
            described, deadline = "", time.time() + 20
            while time.time() < deadline and "ScalingReplicaSet" not in described:
                described = server.kubectl("describe", "deployment", "solo").stdout
                time.sleep(0.1)
            self.assertRegex(described, r"Normal\s+ScalingReplicaSet\s+\S+\s+deployment-controller\s+"
                                        r"Scaled up replica set solo-\w+ to 3")
            server.kubectl("delete", "deployment", "solo")
            deadline = time.time() + 30
            while time.time() < deadline and json.loads(
                    server.kubectl("get", "pods", "-l", "app=solo", "-o", "json").stdout)["items"]:
                time.sleep(0.1)
            self.assertEqual(json.loads(server.kubectl("get", "pods", "-l", "app=solo", "-o", "json").stdout)["items"],
                             [])
        finally:
            if manager:
                manager.terminate()
                self.assertEqual(manager.wait(timeout=20), 0)
                log.close()
            server.stop()
            server.cleanup()


class ControllerSelectionTest(unittest.TestCase):
    """kube's --controllers syntax chooses what runs, in serve and standalone."""

    def test_a_disabled_controller_does_not_act(self):
        server = BerthServer(["--controllers=*,-deployment", "--sim-nodes", "1"], scheduler=True).start()
        try:
            create_deployment(server, "idle", 2)
            # The ReplicaSet controller still runs: a ReplicaSet gets its pods.
            self_rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "direct"},
                       "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "direct"}},
                                "template": {"metadata": {"labels": {"app": "direct"}},
                                             "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
            server.kubectl("apply", "-f", "-", input=json.dumps(self_rs))
            deadline = time.time() + 30
            pods = []
            while time.time() < deadline and len(pods) < 2:
                pods = json.loads(server.kubectl("get", "pods", "-l", "app=direct", "-o", "json").stdout)["items"]
                time.sleep(0.05)
            self.assertEqual(len(pods), 2)
            rs = json.loads(server.kubectl("get", "rs", "-o", "json").stdout)["items"]
            self.assertEqual([r["metadata"]["name"] for r in rs], ["direct"],
                             "no deployment controller: nothing makes the deployment's ReplicaSet")
        finally:
            server.stop()
            server.cleanup()

    def test_an_unknown_controller_is_refused_with_its_name(self):
        for command in (["serve", "--in-memory", "--listen", "127.0.0.1:0"], ["controller-manager"]):
            out = subprocess.run([BERTH] + command + ["--controllers", "*,-bogus"], capture_output=True,
                                 text=True, timeout=30)
            self.assertEqual(out.returncode, 1, out.stderr)
            self.assertIn('--controllers: "bogus" is not in the list of known controllers', out.stderr)


if __name__ == "__main__":
    unittest.main()
