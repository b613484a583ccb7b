"""The official Python client (Debian's python3-kubernetes) against berth serve,
and restarts: watch resumption across a restart, and writes surviving SIGKILL;
service account tokens and TokenReview; exec over WebSocket."""

import json
import os
import signal
import sys
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

from kubernetes import client, watch  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402


def api_for(server):
    config = client.Configuration()
    config.host = server.url
    return client.CoreV1Api(client.ApiClient(config))


def pod(name, labels=None, scheduler="default-scheduler"):
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels or {}),
        spec=client.V1PodSpec(scheduler_name=scheduler,
                              containers=[client.V1Container(name="c", image="nginx")]))


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = BerthServer().start()
        cls.v1 = api_for(cls.server)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def test_create_list_and_already_exists(self):
        created = self.v1.create_namespaced_pod("default", pod("py-a", {"app": "py"}))
        self.assertEqual(created.status.phase, "Pending")
        self.assertEqual(created.spec.scheduler_name, "default-scheduler")
        with self.assertRaises(ApiException) as e:
            self.v1.create_namespaced_pod("default", pod("py-a"))
        self.assertEqual(e.exception.status, 409)
        self.assertEqual(json.loads(e.exception.body)["reason"], "AlreadyExists")
        names = [p.metadata.name for p in
                 self.v1.list_namespaced_pod("default", label_selector="app=py").items]
        self.assertEqual(names, ["py-a"])

    def test_field_selector_for_a_custom_scheduler(self):
        self.v1.create_namespaced_pod("default", pod("custom-1", scheduler="my-scheduler"))
        pods = self.v1.list_namespaced_pod(
            "default", field_selector="spec.schedulerName=my-scheduler,spec.nodeName=").items
        self.assertEqual([p.metadata.name for p in pods], ["custom-1"])

    def test_watch_resumes_from_resource_version(self):
        first = self.v1.create_namespaced_pod("default", pod("w-1", {"watch": "me"}))
        rv = first.metadata.resource_version
        self.v1.create_namespaced_pod("default", pod("w-2", {"watch": "me"}))
        self.v1.patch_namespaced_pod("w-1", "default", {"metadata": {"labels": {"x": "1"}}})
        w = watch.Watch()
        seen = []
        for event in w.stream(self.v1.list_namespaced_pod, "default", label_selector="watch=me",
                              resource_version=rv, timeout_seconds=2):
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == 2:
                w.stop()
        self.assertEqual(seen, [("ADDED", "w-2"), ("MODIFIED", "w-1")])

    def test_binding(self):
        self.v1.create_namespaced_pod("default", pod("bind-me"))
        body = client.V1Binding(metadata=client.V1ObjectMeta(name="bind-me"),
                                target=client.V1ObjectReference(kind="Node", name="node-x"))
        # kube answers a Status, which the client cannot turn into a V1Binding
        # (kubernetes-client/python#825): ask for the raw response.
        resp = self.v1.create_namespaced_pod_binding("bind-me", "default", body,
                                                     _preload_content=False)
        self.assertEqual(resp.status, 201)
        self.assertEqual(self.v1.read_namespaced_pod("bind-me", "default").spec.node_name, "node-x")
        with self.assertRaises(ApiException) as e:
            self.v1.create_namespaced_pod_binding("bind-me", "default", body, _preload_content=False)
        self.assertEqual(e.exception.status, 409)
        self.assertIn('already assigned to node "node-x"', json.loads(e.exception.body)["message"])

    def test_a_service_account_token_is_reviewed_as_its_account(self):
        self.v1.create_namespaced_service_account("default", client.V1ServiceAccount(
            metadata=client.V1ObjectMeta(name="robot")))
        answer = self.v1.create_namespaced_service_account_token("robot", "default", client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=3600)))
        self.assertEqual(answer.spec.expiration_seconds, 3600)
        config = client.Configuration()
        config.host = self.server.url
        auth = client.AuthenticationV1Api(client.ApiClient(config))
        review = auth.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=answer.status.token)))
        self.assertTrue(review.status.authenticated)
        self.assertEqual(review.status.user.username, "system:serviceaccount:default:robot")

    # The client speaks exec over WebSocket only (v4.channel.k8s.io): the
    # refusal comes on the error channel as a Status, as a command's failure would.
    def test_exec_over_websocket_reads_the_refusal_on_its_error_channel(self):
        from kubernetes.stream import stream
        self.v1.create_namespaced_pod("default", pod("execed"))
        ws = stream(self.v1.connect_get_namespaced_pod_exec, "execed", "default", command=["ls"],
                    stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
        ws.run_forever(timeout=10)
        status = json.loads(ws.read_channel(3))
        self.assertEqual(status["status"], "Failure")
        self.assertEqual(status["code"], 400)
        self.assertIn('cannot exec into pod "execed": simulated pods run no processes', status["message"])


class RestartTest(unittest.TestCase):
    def test_watch_resumes_across_restart_without_losing_events(self):
        server = BerthServer().start()
        try:
            v1 = api_for(server)
            created = v1.create_namespaced_pod("default", pod("r-1", {"r": "1"}))
            last_rv = created.metadata.resource_version
            # Changes the watcher has not seen yet when the server restarts.
            v1.create_namespaced_pod("default", pod("r-2", {"r": "1"}))
            v1.delete_namespaced_pod("r-1", "default")
            self.assertEqual(server.stop(), 0)
            server.start()
            v1 = api_for(server)
            seen = []
            w = watch.Watch()
            for event in w.stream(v1.list_namespaced_pod, "default", label_selector="r=1",
                                  resource_version=last_rv, timeout_seconds=2):
                seen.append((event["type"], event["object"].metadata.name))
                if len(seen) == 2:
                    w.stop()
            self.assertEqual(seen, [("ADDED", "r-2"), ("DELETED", "r-1")])
        finally:
            server.stop()
            server.cleanup()

    def test_writes_survive_sigkill(self):
        server = BerthServer().start()
        try:
            v1 = api_for(server)
            for i in range(50):
                v1.create_namespaced_pod("default", pod(f"k-{i}"))
            server.stop(sig=signal.SIGKILL)
            server.start()
            v1 = api_for(server)
            names = {p.metadata.name for p in v1.list_namespaced_pod("default").items}
            self.assertTrue({f"k-{i}" for i in range(50)} <= names)
        finally:
            server.stop()
            server.cleanup()

    def test_expired_watch_is_410(self):
        server = BerthServer(extra_args=["--watch-history", "5"]).start()
        try:
            v1 = api_for(server)
            for i in range(20):
                v1.create_namespaced_pod("default", pod(f"e-{i}"))
            with self.assertRaises(ApiException) as e:
                for _ in watch.Watch().stream(v1.list_namespaced_pod, "default",
                                              resource_version="2", timeout_seconds=2):
                    pass
            self.assertEqual(e.exception.status, 410)
        finally:
            server.stop()
            server.cleanup()


if __name__ == "__main__":
    unittest.main()
