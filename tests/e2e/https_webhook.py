"""An HTTPS webhook server for the end-to-end tests (admission and CRD
conversion webhooks): a self-signed certificate for 127.0.0.1 and a
Service's DNS name, and a server on a free loopback port that answers each
POSTed JSON review with what its `answer` function makes of it, keeping
every request it was sent."""

import base64
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from berth_server import BerthServer, free_port

SERVICE_HOST = "webhook.hooks.svc"  # the name a Service reference is verified as


def self_signed(directory):
    """A certificate for 127.0.0.1 and the Service's DNS name, and its key."""
    cert, key = os.path.join(directory, "webhook.crt"), os.path.join(directory, "webhook.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=webhook", "-addext", f"subjectAltName=IP:127.0.0.1,DNS:{SERVICE_HOST}",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


class JsonWebhookServer:
    """Answers POST PATH?QUERY with `answer(path, full_path, document)` as JSON.
    `requests` holds (path, full_path, document) for each request."""

    def __init__(self, cert, key, answer):
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                document = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                path = self.path.split("?", 1)[0]
                server.requests.append((path, self.path, document))
                body = json.dumps(answer(path, self.path, document)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:  # the API server gave up waiting
                    pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"https://127.0.0.1:{self.port}{path}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class WebhookTestCase(unittest.TestCase):
    """A berth server (in memory) and a webhook made by `make_webhook(cert, key)`,
    trusted through `ca_bundle` (base64 PEM, as a clientConfig takes it)."""

    make_webhook = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="berth-e2e-webhook-")
        cert, key = self_signed(cls.tmp)
        with open(cert, "rb") as f:
            cls.ca_bundle = base64.b64encode(f.read()).decode()
        cls.webhook = cls.make_webhook(cert, key)
        cls.server = BerthServer(["--in-memory"])
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()
        cls.webhook.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def kubectl(self, *args, input=None, check=True):
        return self.server.kubectl(*args, input=input, check=check)
