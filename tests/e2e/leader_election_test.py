"""Two `berth scheduler` replicas elect a leader through a
coordination.k8s.io/v1 Lease in kube-system, as kube-scheduler's replicas
do: one binds, the other waits; the leader paused (SIGSTOP), the other takes
over; the old one resumed binds nothing and stays a follower."""

import json
import os
import re
import signal
import subprocess
import time
import unittest
import urllib.request

from berth_server import BERTH, BerthServer, wait_for

# Short durations, generous enough for a busy machine: a renewal may take up
# to 2 s before the leader gives up.
ELECTION = ["--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s",
            "--leader-elect-retry-period", "500ms"]


def node(name):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": "64", "memory": "64Gi", "pods": "110"},
                       "allocatable": {"cpu": "64", "memory": "64Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pods(prefix, count):
    return {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{prefix}-{i}", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9",
                                  "resources": {"requests": {"cpu": "10m"}}}]}}
        for i in range(count)]}


class Replica:
    def __init__(self, server, name):
        self.log_path = os.path.join(server.tmp, f"{name}.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([BERTH, "scheduler", "--server", server.url] + ELECTION,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def logs(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def identity(self):
        m = re.search(r'competing for lease kube-system/kube-scheduler as ([^\s"]+)', self.logs())
        return m.group(1) if m else None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            code = self.proc.wait(timeout=20)
        else:
            code = self.proc.returncode
        self.log.close()
        return code


class LeaderElection(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer(extra_args=["--in-memory"]).start()  # no scheduler of its own
        self.server.kubectl("apply", "-f", "-", input=json.dumps(node("n1")))
        self.replicas = [Replica(self.server, "a"), Replica(self.server, "b")]

    def tearDown(self):
        for r in self.replicas:
            self.assertEqual(r.stop(), 0, r.logs()[-2000:])
        self.server.stop()
        self.server.cleanup()

    def lease(self):
        p = self.server.kubectl("get", "lease", "-n", "kube-system", "kube-scheduler", "-o", "json", check=False)
        return json.loads(p.stdout)["spec"] if p.returncode == 0 else {}

    def holder(self):
        return self.lease().get("holderIdentity")

    def all_bound(self, prefix, count):
        items = json.loads(self.server.kubectl("get", "pods", "-o", "json").stdout)["items"]
        bound = [p for p in items if p["metadata"]["name"].startswith(prefix + "-") and p["spec"].get("nodeName")]
        return len(bound) == count

    def bindings(self):
        """apiserver_request_total for pods/binding, by response code."""
        text = urllib.request.urlopen(self.server.url + "/metrics", timeout=5).read().decode()
        out = {}
        for m in re.finditer(r'apiserver_request_total\{([^}]*)\} (\S+)', text):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
            if labels.get("resource") == "pods" and labels.get("subresource") == "binding":
                out[labels["code"]] = out.get(labels["code"], 0) + float(m.group(2))
        return out

    def test_paused_leader_is_replaced_and_binds_nothing_when_resumed(self):
        s, k = self.server, self.server.kubectl
        ids = wait_for(self, s, "both replicas' identities",
                       lambda: all(r.identity() for r in self.replicas) and [r.identity() for r in self.replicas])
        for i in ids:
            hostname, _, uuid = i.rpartition("_")
            self.assertTrue(hostname, i)
            self.assertRegex(uuid, r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        first = wait_for(self, s, "a leader", lambda: self.holder() in ids and self.holder())
        leader = self.replicas[ids.index(first)]
        follower = self.replicas[1 - ids.index(first)]
        # kubectl shows the holder.
        table = k("get", "lease", "-n", "kube-system").stdout
        self.assertRegex(table, r"kube-scheduler\s+" + re.escape(first))
        self.assertEqual(self.lease()["leaseDurationSeconds"], 3)

        k("create", "-f", "-", input=json.dumps(pods("before", 5)))
        wait_for(self, s, "pods bound by the first leader", lambda: self.all_bound("before", 5))

        # The leader freezes; pods keep coming; the follower takes over.
        leader.proc.send_signal(signal.SIGSTOP)
        paused_at = time.time()
        k("create", "-f", "-", input=json.dumps(pods("paused", 20)))
        second = wait_for(self, s, "the follower to take the lease",
                          lambda: self.holder() not in (None, first) and self.holder(), timeout=30)
        self.assertEqual(second, follower.identity())
        wait_for(self, s, "pods bound by the new leader", lambda: self.all_bound("paused", 20), timeout=30)
        self.assertGreaterEqual(time.time() - paused_at, 2.0)  # not before the lease could expire
        self.assertEqual(self.lease()["leaseTransitions"], 1)

        # The old leader resumes: its informers deliver what happened meanwhile,
        # but it has stopped leading before it could act on any of it.
        leader.proc.send_signal(signal.SIGCONT)
        wait_for(self, s, "the old leader to step down",
                 lambda: "lost the lease: stopped, following" in leader.logs(), timeout=20)
        k("create", "-f", "-", input=json.dumps(pods("after", 5)))
        wait_for(self, s, "pods bound after the old leader resumed", lambda: self.all_bound("after", 5))
        time.sleep(3)  # a lease duration: the old leader keeps following

        self.assertEqual(self.holder(), second)
        self.assertEqual(self.lease()["leaseTransitions"], 1)
        self.assertEqual(leader.logs().count("leading: started"), 1, leader.logs()[-2000:])
        # Every pod was bound once: 30 successful bindings and no refused
        # (double) one. (Without the lease guard on writes, the resumed
        # replica's informers hand it pods the other has just bound, and its
        # bindings of them come back 409.)
        wait_for(self, s, "the binding counts", lambda: self.bindings().get("201") == 30)
        self.assertEqual(self.bindings(), {"201": 30})
        events = json.loads(k("get", "events", "--field-selector", "reason=Scheduled", "-o", "json").stdout)["items"]
        per_pod = {}
        for e in events:
            name = e["involvedObject"]["name"]
            per_pod[name] = per_pod.get(name, 0) + e.get("count", 1)
        self.assertEqual(len(per_pod), 30)
        self.assertEqual(set(per_pod.values()), {1})

    def test_clean_shutdown_releases_the_lease(self):
        s = self.server
        ids = wait_for(self, s, "both replicas' identities",
                       lambda: all(r.identity() for r in self.replicas) and [r.identity() for r in self.replicas])
        first = wait_for(self, s, "a leader", lambda: self.holder() in ids and self.holder())
        leader = self.replicas[ids.index(first)]
        follower = self.replicas[1 - ids.index(first)]
        self.assertEqual(leader.stop(), 0)
        # Released (holderIdentity "", leaseDurationSeconds 1), the other takes it
        # at its next try instead of waiting out the lease.
        second = wait_for(self, s, "the other replica to lead", lambda: self.holder() == follower.identity(),
                          timeout=10)
        self.assertTrue(second)
        self.server.kubectl("create", "-f", "-", input=json.dumps(pods("p", 3)))
        wait_for(self, s, "pods bound by the new leader", lambda: self.all_bound("p", 3))


class LeaderElectionFlags(unittest.TestCase):
    """Refused as kube refuses them, before anything connects."""

    def test_bad_durations_and_locks_are_refused_with_kubes_words(self):
        cases = [
            (["scheduler", "--leader-elect-lease-duration", "5s", "--leader-elect-renew-deadline", "5s"],
             'leaderElection.leaseDuration: Invalid value: "5s": must be greater than `RenewDeadline`'),
            (["controller-manager", "--leader-elect-retry-period", "0s"],
             'generic.leaderElection.retryPeriod: Invalid value: "0s": must be greater than zero'),
            (["scheduler", "--leader-elect-retry-period", "9s"],
             "renewDeadline must be greater than retryPeriod*JitterFactor"),
            (["scheduler", "--leader-elect-resource-lock", "configmaps"],
             "configmaps lock is removed, migrate to configmapsleases (using version v0.27.x)"),
            (["controller-manager", "--leader-elect-lease-duration", "soon"],
             'invalid argument "soon" for "--leader-elect-lease-duration" flag: time: invalid duration "soon"'),
        ]
        for args, message in cases:
            p = subprocess.run([BERTH] + args + ["--server", "http://127.0.0.1:1"], capture_output=True, text=True,
                               timeout=30)
            self.assertEqual(p.returncode, 1, (args, p.stderr))
            self.assertIn(message, p.stderr, args)
            self.assertNotIn("connecting", p.stderr, args)


if __name__ == "__main__":
    unittest.main()
