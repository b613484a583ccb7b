"""The simulated kubelets of `berth serve --sim-nodes` as kubectl sees them:
exit codes and restart policies (Failed pods, CrashLoopBackOff), simulated
`kubectl logs`, image changes on a running pod, and what a restart of the
server keeps (unique pod IPs, a node taken down stays down)."""

import json
import os
import subprocess
import time
import unittest

from berth_server import BERTH, BerthServer, wait_for


def pod_manifest(name, annotations=None, restart_policy="Always", image="busybox"):
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "annotations": annotations or {}},
        "spec": {"restartPolicy": restart_policy, "containers": [{"name": "c", "image": image}]},
    })


class SimKubeletTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer(["--sim-nodes", "2"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def pod(self, name, server=None):
        p = (server or self.server).kubectl("get", "pod", name, "-o", "json", check=False)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def container(self, name):
        pod = self.pod(name)
        statuses = (pod or {}).get("status", {}).get("containerStatuses") or [{}]
        return statuses[0]

    def wait(self, what, predicate, timeout=60, server=None):
        return wait_for(self, server or self.server, what, predicate, timeout, interval=0.2)

    def test_never_pod_with_non_zero_exit_code_fails(self):
        self.server.kubectl("apply", "-f", "-", input=pod_manifest(
            "exit-one", {"sim.berth.dev/exit-code": "1", "sim.berth.dev/run-duration": "1s"}, "Never"))
        pod = self.wait("exit-one to fail", lambda: (p := self.pod("exit-one")) and
                        p["status"].get("phase") == "Failed" and p)
        terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
        self.assertEqual(terminated["exitCode"], 1)
        self.assertEqual(terminated["reason"], "Error")
        self.assertEqual(pod["status"]["containerStatuses"][0]["restartCount"], 0)
        ready = [c for c in pod["status"]["conditions"] if c["type"] == "Ready"][0]
        self.assertEqual((ready["status"], ready["reason"]), ("False", "PodFailed"))
        self.assertIn("Error", self.server.kubectl("get", "pod", "exit-one").stdout)

    def test_plain_never_pod_completes_after_the_default_run_duration(self):
        self.server.kubectl("run", "plain", "--image=busybox", "--restart=Never")
        pod = self.wait("plain to succeed", lambda: (p := self.pod("plain")) and
                        p["status"].get("phase") == "Succeeded" and p)
        self.assertEqual(pod["status"]["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed")

    def test_always_pod_with_exit_code_crash_loops(self):
        self.server.kubectl("apply", "-f", "-", input=pod_manifest(
            "crasher", {"sim.berth.dev/exit-code": "2", "sim.berth.dev/run-duration": "1s"}))
        waiting = self.wait("crasher in CrashLoopBackOff",
                            lambda: self.container("crasher").get("state", {}).get("waiting"))
        uid = self.pod("crasher")["metadata"]["uid"]
        self.assertEqual(waiting["reason"], "CrashLoopBackOff")
        self.assertEqual(waiting["message"],
                         f"back-off 10s restarting failed container=c pod=crasher_default({uid})")
        status = self.container("crasher")
        self.assertEqual(status["restartCount"], 1)
        self.assertEqual(status["lastState"]["terminated"]["exitCode"], 2)
        self.assertEqual(self.pod("crasher")["status"]["phase"], "Running")
        self.assertIn("CrashLoopBackOff", self.server.kubectl("get", "pod", "crasher").stdout)
        # After its 10s backoff it runs again.
        self.wait("crasher restarted again", lambda: self.container("crasher").get("restartCount", 0) >= 2)
        previous = self.server.kubectl("logs", "crasher", "--previous").stdout
        self.assertIn("berth-sim: container c exited with code 2", previous)

    def test_logs_print_the_simulated_lines(self):
        self.server.kubectl("apply", "-f", "-", input=pod_manifest(
            "talker", {"sim.berth.dev/log": "hello from talker\nsecond line",
                       "sim.berth.dev/run-duration": "1s", "sim.berth.dev/exit-code": "3"}, "Never",
            image="talker:1"))
        self.wait("talker to finish", lambda: (self.pod("talker") or {}).get("status", {}).get("phase") == "Failed")
        out = self.server.kubectl("logs", "talker").stdout
        self.assertEqual(out.splitlines(), ["berth-sim: started container c (image talker:1)", "hello from talker",
                                            "second line", "berth-sim: container c exited with code 3"])
        self.assertEqual(self.server.kubectl("logs", "talker", "-c", "c", "--tail=1").stdout,
                         "berth-sim: container c exited with code 3\n")
        # -f returns what there is.
        followed = self.server.kubectl("logs", "-f", "talker", timeout=30).stdout
        self.assertIn("hello from talker", followed)
        missing = self.server.kubectl("logs", "talker", "--previous", check=False)
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn('previous terminated container "c" in pod "talker" not found', missing.stderr)

    def test_exec_is_refused_with_a_clear_message(self):
        self.server.kubectl("run", "shell", "--image=busybox")
        self.wait("shell running", lambda: (self.pod("shell") or {}).get("status", {}).get("phase") == "Running")
        p = self.server.kubectl("exec", "shell", "--", "ls", check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('cannot exec into pod "shell": simulated pods run no processes', p.stderr)

    def test_set_image_on_a_bare_pod_is_reported(self):
        self.server.kubectl("run", "web", "--image=nginx:1.26")
        self.wait("web running", lambda: self.container("web").get("state", {}).get("running"))
        first_id = self.container("web")["containerID"]
        self.server.kubectl("set", "image", "pod/web", "web=nginx:1.27")
        status = self.wait("the new image reported", lambda: (s := self.container("web")).get("image") ==
                           "nginx:1.27" and s)
        self.assertEqual(status["imageID"], "sim://nginx:1.27")
        self.assertEqual(status["restartCount"], 1)
        self.assertIn("running", status["state"])
        self.assertNotEqual(status["containerID"], first_id)
        self.assertEqual(status["lastState"]["terminated"]["containerID"], first_id)
        self.assertIn("image nginx:1.27", self.server.kubectl("logs", "web").stdout)

    def test_readiness_gate_holds_ready_until_its_condition_is_true(self):
        manifest = json.loads(pod_manifest("gated"))
        manifest["spec"]["readinessGates"] = [{"conditionType": "example.com/lb"}]
        self.server.kubectl("apply", "-f", "-", input=json.dumps(manifest))

        def ready():
            pod = self.pod("gated") or {}
            return [c for c in pod.get("status", {}).get("conditions", []) if c["type"] == "Ready"]

        self.wait("gated to be reported", lambda: ready() and ready()[0]["reason"] == "ReadinessGatesNotReady")
        self.server.kubectl("patch", "pod", "gated", "--subresource=status", "--type=json", "-p",
                            json.dumps([{"op": "add", "path": "/status/conditions/-",
                                         "value": {"type": "example.com/lb", "status": "True"}}]))
        self.wait("gated Ready", lambda: ready() and ready()[0]["status"] == "True")

    def test_sim_node_down_refuses_a_node_that_is_not_simulated(self):
        self.server.kubectl("apply", "-f", "-", input=json.dumps(
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "real-node"}}))
        p = subprocess.run([BERTH, "sim", "node-down", "real-node", "--server", self.server.url],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("node real-node is not a simulated node", p.stderr)
        node = json.loads(self.server.kubectl("get", "node", "real-node", "-o", "json").stdout)
        self.assertNotIn("sim.berth.dev/down", node["metadata"].get("annotations", {}))


class SimKubeletRestartTest(unittest.TestCase):
    FLAGS = ["--sim-nodes", "2", "--sim-heartbeat-period", "1s", "--node-monitor-grace-period", "4s",
             "--node-monitor-period", "1s"]

    def setUp(self):
        self.servers = [BerthServer(self.FLAGS, scheduler=True).start()]

    def tearDown(self):
        for s in self.servers:
            s.stop()
            s.cleanup()

    def pods(self, server):
        return json.loads(server.kubectl("get", "pods", "-o", "json").stdout)["items"]

    def ready_status(self, server, node):
        n = json.loads(server.kubectl("get", "node", node, "-o", "json").stdout)
        return [c["status"] for c in n["status"].get("conditions", []) if c["type"] == "Ready"][0]

    def running_ips(self, server):
        return [p["status"].get("podIP") for p in self.pods(server) if p["status"].get("phase") == "Running"]

    def test_restart_keeps_pod_ips_unique_and_a_downed_node_down(self):
        first = self.servers[0]
        for i in range(4):
            first.kubectl("run", f"before-{i}", "--image=nginx")
        wait_for(self, first, "4 pods running", lambda: len(self.running_ips(first)) == 4, timeout=60)
        p = subprocess.run([BERTH, "sim", "node-down", "sim-node-0", "--server", first.url],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        wait_for(self, first, "sim-node-0 unknown", lambda: self.ready_status(first, "sim-node-0") == "Unknown",
                 timeout=60)
        self.assertEqual(first.stop(), 0)

        second = BerthServer(self.FLAGS, data_dir=first.data_dir, port=first.port, scheduler=True)
        self.servers.append(second)
        second.start()
        # For a while after the start the downed node must not come back.
        deadline = time.time() + 6
        while time.time() < deadline:
            self.assertNotEqual(self.ready_status(second, "sim-node-0"), "True")
            time.sleep(0.3)
        for i in range(4):
            second.kubectl("run", f"after-{i}", "--image=nginx")
        wait_for(self, second, "the new pods running",
                 lambda: all((p["status"].get("phase") == "Running")
                             for p in self.pods(second) if p["metadata"]["name"].startswith("after-"))
                 and len([p for p in self.pods(second) if p["metadata"]["name"].startswith("after-")]) == 4,
                 timeout=60)
        live = [p for p in self.pods(second) if p["status"].get("phase") == "Running"]
        ips = [p["status"]["podIP"] for p in live]
        self.assertEqual(len(ips), len(set(ips)), f"pod IPs in use twice: {sorted(ips)}")
        for p in live:
            if p["metadata"]["name"].startswith("after-"):
                self.assertEqual(p["spec"]["nodeName"], "sim-node-1")


if __name__ == "__main__":
    unittest.main()
