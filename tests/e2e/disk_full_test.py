"""Disk full, on a real small file system: `berth serve` keeps its data
directory on a 12 MiB tmpfs (mounted in a user and mount namespace, so no root
is needed; skipped where unprivileged namespaces are not allowed). Once the
tmpfs is full, writes are answered 500 with the cause, reads go on and
/readyz reports not ready; the write that met the full disk is held, not lost;
once space returns writes are accepted again, and after a SIGKILL and a restart
everything acknowledged is there (the log recovers)."""

import http.client
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from berth_server import BERTH, free_port

NAMESPACE = "disk"


def namespaces_available():
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class DiskFullTest(unittest.TestCase):
    def setUp(self):
        if not namespaces_available():
            self.skipTest("unprivileged user and mount namespaces (unshare -rm) are not available")
        self.tmp = tempfile.mkdtemp(prefix="berth-diskfull-")
        self.mnt = os.path.join(self.tmp, "mnt")
        os.mkdir(self.mnt)
        self.stop_file = os.path.join(self.tmp, "stop")
        self.port = free_port()
        self.log_path = os.path.join(self.tmp, "berth.log")
        # berth serve restarts in the same namespace (same tmpfs) until the stop file appears.
        script = (f"mount -t tmpfs -o size=12m tmpfs {self.mnt} || exit 97; "
                  f"while [ ! -e {self.stop_file} ]; do {os.path.abspath(BERTH)} serve --listen "
                  f"127.0.0.1:{self.port} --data-dir {self.mnt}/data --no-scheduler --no-controllers "
                  f"--disable-admission-plugins ServiceAccount; done")
        with open(self.log_path, "ab") as log:
            self.shell = subprocess.Popen(["unshare", "-rm", "sh", "-c", script], stdout=log,
                                          stderr=subprocess.STDOUT)
        # The tmpfs as seen from outside the namespace.
        self.inside = f"/proc/{self.shell.pid}/root{self.mnt}"

    def tearDown(self):
        open(self.stop_file, "w").close()
        pid = self.berth_pid()
        if pid:
            os.kill(pid, signal.SIGTERM)
        try:
            self.shell.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.shell.kill()
            self.shell.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def logs(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")[-3000:]

    def berth_pid(self):
        try:
            with open(f"/proc/{self.shell.pid}/task/{self.shell.pid}/children") as f:
                children = f.read().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    def call(self, method, path, body=None, timeout=10):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json"} if body is not None else {})
            r = conn.getresponse()
            return r.status, r.read().decode(errors="replace")
        finally:
            conn.close()

    def wait_ready(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.call("GET", "/readyz", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.fail("berth serve did not become ready:\n" + self.logs())

    def create(self, name, timeout=10):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                "data": {"payload": name * (16384 // len(name))}}
        return self.call("POST", f"/api/v1/namespaces/{NAMESPACE}/configmaps", body, timeout=timeout)

    def test_full_disk_refuses_writes_until_space_returns(self):
        self.wait_ready()
        status, body = self.call("POST", "/api/v1/namespaces",
                                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
        self.assertEqual(status, 201, body)
        acked = []
        for i in range(3):
            self.assertEqual(self.create(f"before-{i}")[0], 201)
            acked.append(f"before-{i}")

        # Fill the tmpfs.
        filler = os.path.join(self.inside, "filler")
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 20))
            except OSError:
                pass

        held, refused = [], None
        for i in range(100):
            name = f"full-{i}"
            try:
                status, body = self.create(name, timeout=3)
            except (TimeoutError, OSError):
                held.append(name)  # met the full disk: waits for space
                continue
            if status == 201:
                acked.append(name)  # still fitted in space the log had allocated ahead
                continue
            refused = (name, status, body)
            break
        self.assertIsNotNone(refused, "no write was refused on a full disk:\n" + self.logs())
        name, status, body = refused
        self.assertEqual(status, 500, body)
        self.assertIn("No space left on device", body)
        self.assertEqual(json.loads(body)["reason"], "InternalError")
        # Reads go on; the server says it is not ready.
        status, body = self.call("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps/before-0")
        self.assertEqual(status, 200, body)
        self.assertEqual(self.call("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps")[0], 200)
        status, body = self.call("GET", "/readyz")
        self.assertEqual(status, 500)
        self.assertIn("No space left on device", body)

        # Space returns: writes are accepted again.
        os.remove(filler)
        deadline = time.time() + 30
        while True:
            status, body = self.create("after", timeout=10)
            if status == 201:
                break
            self.assertLess(time.time(), deadline, f"writes not accepted again: {status} {body}")
            time.sleep(0.2)
        acked.append("after")
        self.wait_ready()

        # Killed and restarted on the same tmpfs: everything acknowledged (and the held writes) is there.
        os.kill(self.berth_pid(), signal.SIGKILL)
        time.sleep(0.2)
        self.wait_ready()
        status, body = self.call("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps")
        self.assertEqual(status, 200, body)
        names = {item["metadata"]["name"] for item in json.loads(body)["items"]}
        for n in acked + held:
            self.assertIn(n, names)
        self.assertNotIn(refused[0], names)


if __name__ == "__main__":
    unittest.main()
