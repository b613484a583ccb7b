"""examples/myapp-operator against berth serve with simulated nodes, driven
by real kubectl: a MyApp gets a Deployment of its name, owned by it, whose
available replicas show in the MyApp's status; scaling and a new image
reach the Deployment; deleting the MyApp lets the garbage collector delete
the Deployment. MYAPP_OPERATOR names the operator's binary (CTest passes it)."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer, wait_for  # noqa: E402

OPERATOR = os.environ.get("MYAPP_OPERATOR", "build/myapp-operator")
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../examples/myapp-operator")
WAIT = 60  # seconds, at most, for any one thing to happen


class MyAppOperatorTest(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer(scheduler=True, extra_args=["--sim-nodes", "2"]).start()
        self.addCleanup(self.server.cleanup)
        self.addCleanup(self.server.stop)
        k = self.server.kubectl
        k("apply", "-f", os.path.join(EXAMPLE, "crd.yaml"))
        k("wait", "--for=condition=Established", "crd/myapps.example.com", "--timeout=10s")
        self.operator_log_path = os.path.join(self.server.tmp, "operator.log")
        self.operator_log = open(self.operator_log_path, "ab")
        self.operator = subprocess.Popen([OPERATOR, "--server", self.server.url],
                                         stdout=self.operator_log, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop_operator)

    def stop_operator(self):
        if self.operator.poll() is None:
            self.operator.terminate()
            try:
                self.operator.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.operator.kill()
                self.operator.wait()
        self.operator_log.close()

    def operator_logs(self):
        with open(self.operator_log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def get(self, *args):
        p = self.server.kubectl("get", *args, "-o", "json", check=False)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def wait(self, what, predicate):
        return wait_for(self, self.server, what + "\noperator log:\n" + self.operator_logs()[-2000:],
                        predicate, timeout=WAIT, interval=0.2)

    def deployment_matches(self, image, replicas):
        d = self.get("deployment", "web")
        if not d:
            return None
        containers = d["spec"]["template"]["spec"]["containers"]
        if d["spec"]["replicas"] == replicas and [(c["name"], c["image"]) for c in containers] == [("app", image)]:
            return d
        return None

    def available_in_status(self, replicas):
        app = self.get("myapp", "web")
        d = self.get("deployment", "web")
        return (app and d and d.get("status", {}).get("availableReplicas") == replicas
                and app.get("status", {}).get("availableReplicas") == replicas)

    def test_a_myapp_is_run_scaled_updated_and_collected(self):
        k = self.server.kubectl
        k("apply", "-f", os.path.join(EXAMPLE, "sample.yaml"))
        app = self.get("myapp", "web")
        replicas = app["spec"]["replicas"]
        image = app["spec"]["image"]

        d = self.wait("the Deployment of web", lambda: self.deployment_matches(image, replicas))
        self.assertEqual(d["metadata"]["labels"], {"app": "web"})
        self.assertEqual(d["spec"]["selector"], {"matchLabels": {"app": "web"}})
        self.assertEqual(d["metadata"]["ownerReferences"], [{
            "apiVersion": "example.com/v1", "kind": "MyApp", "name": "web", "uid": app["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True}])
        self.wait(f"{replicas} available replicas in web's status", lambda: self.available_in_status(replicas))
        table = k("get", "myapp", "web").stdout.split()
        self.assertEqual(table[:5], ["NAME", "IMAGE", "REPLICAS", "AVAILABLE", "AGE"])
        self.assertEqual(table[5:9], ["web", image, str(replicas), str(replicas)])

        k("patch", "myapp", "web", "--type=merge", "-p", '{"spec":{"replicas":3}}')
        self.wait("the Deployment scaled to 3", lambda: self.deployment_matches(image, 3))
        self.wait("3 available replicas in web's status", lambda: self.available_in_status(3))

        k("patch", "myapp", "web", "--type=merge", "-p", '{"spec":{"image":"nginx:1.26"}}')
        self.wait("the Deployment's template on nginx:1.26", lambda: self.deployment_matches("nginx:1.26", 3))
        # Nothing to change: the operator leaves the Deployment alone.
        generation = self.get("deployment", "web")["metadata"]["generation"]
        self.wait("the rollout to end", lambda: self.available_in_status(3) and all(
            p["spec"]["containers"][0]["image"] == "nginx:1.26"
            for p in self.get("pods", "-l", "app=web")["items"] if not p["metadata"].get("deletionTimestamp")))
        self.assertEqual(self.get("deployment", "web")["metadata"]["generation"], generation)

        k("delete", "myapp", "web")
        self.wait("the garbage collector to delete the Deployment", lambda: self.get("deployment", "web") is None)
        self.assertIn("created deployment web", self.operator_logs())
        self.assertIsNone(self.operator.poll(), "the operator exited:\n" + self.operator_logs())


if __name__ == "__main__":
    unittest.main()
