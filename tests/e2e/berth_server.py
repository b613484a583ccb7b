"""Starts `berth serve` on a free loopback port for end-to-end tests."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

BERTH = os.environ.get("BERTH_BINARY", "build/berth")
KUBECTL = os.environ.get("KUBECTL", "/usr/bin/kubectl")


def wait_for(test, server, what, predicate, timeout=30, interval=0.05):
    """Polls `predicate` until it returns something true, and returns that; on
    timeout fails `test` with the last answer and the tail of the server's log."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    test.fail(f"timed out waiting for {what}; last: {last}\n{server.logs()[-3000:]}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BerthServer:
    """A berth serve process with its own data directory and kubectl cache."""

    def __init__(self, extra_args=(), data_dir=None, port=None, scheduler=False):
        """API tests run without the in-process scheduler (it would bind their pods);
        scheduling tests pass scheduler=True."""
        self.tmp = tempfile.mkdtemp(prefix="berth-e2e-")
        self.data_dir = data_dir or os.path.join(self.tmp, "data")
        self.port = port or free_port()
        self.extra_args = list(extra_args) + ([] if scheduler else ["--no-scheduler"])
        self.proc = None
        self.log_path = os.path.join(self.tmp, "berth.log")

    def write_file(self, name, text):
        """Writes `text` to NAME in the server's temporary directory; returns the path."""
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [BERTH, "serve", "--listen", f"127.0.0.1:{self.port}", "--data-dir", self.data_dir]
            + self.extra_args,
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"berth serve exited: {self.logs()}")
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("berth serve did not become healthy: " + self.logs())

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=20)
        self.log.close()
        return self.proc.returncode

    def logs(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def kubectl(self, *args, input=None, check=True, timeout=60):
        cmd = [KUBECTL, "--server", self.url, "--cache-dir", os.path.join(self.tmp, "kube-cache")]
        cmd += list(args)
        env = dict(os.environ, KUBECONFIG=os.path.join(self.tmp, "no-kubeconfig"), HOME=self.tmp)
        p = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout, env=env)
        if check and p.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
        return p
