"""Secrets encrypted at rest (`berth serve --encryption-provider-config`, kube's
EncryptionConfiguration): no file of the data directory holds a Secret's value
or its base64, kubectl reads it back, a restart with the same configuration
reads it, with identity first new Secrets are written plain and old ones still
read, and a configuration that cannot be used stops serve with the file and
field named."""

import base64
import json
import os
import subprocess
import unittest

from berth_server import BERTH, BerthServer

KEY = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()


def config(providers):
    return ("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
            "  - resources: [secrets]\n    providers:\n" + providers)


AESGCM = f"      - aesgcm:\n          keys:\n            - name: key1\n              secret: {KEY}\n"
IDENTITY = "      - identity: {}\n"


def data_dir_bytes(path):
    out = b""
    for root, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                out += f.read()
    return out


class EncryptionTest(unittest.TestCase):
    def setUp(self):
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.stop()
        for s in self.servers:
            s.cleanup()

    def serve(self, providers, data_dir=None):
        s = BerthServer(data_dir=data_dir)
        path = s.write_file("encryption.yaml", config(providers))
        # No controllers: no serviceaccount controller makes the accounts
        # ServiceAccount admission requires (kube's integration tests turn it off too).
        s.extra_args += ["--encryption-provider-config", path, "--no-controllers",
                         "--disable-admission-plugins", "ServiceAccount"]
        self.servers.append(s)
        return s.start()

    def secret_value(self, server, name):
        out = server.kubectl("get", "secret", name, "-o", "json").stdout
        return base64.b64decode(json.loads(out)["data"]["password"]).decode()

    def test_secrets_encrypted_at_rest(self):
        marker = "correct-horse-battery-staple-7f3a"
        s = self.serve(AESGCM)
        s.kubectl("create", "secret", "generic", "s1", f"--from-literal=password={marker}")
        s.kubectl("run", "plainpod", "--image=nginx")
        files = data_dir_bytes(s.data_dir)
        self.assertNotIn(marker.encode(), files)
        self.assertNotIn(base64.b64encode(marker.encode()), files)
        self.assertIn(b"k8s:enc:aesgcm:v1:key1:", files)
        self.assertIn(b"plainpod", files)  # only Secrets pay
        self.assertEqual(self.secret_value(s, "s1"), marker)
        s.stop()

        again = self.serve(AESGCM, data_dir=s.data_dir)
        self.assertEqual(self.secret_value(again, "s1"), marker)
        again.stop()

        # Identity first: new writes plain, old ones still readable.
        third = self.serve(IDENTITY + AESGCM, data_dir=s.data_dir)
        third.kubectl("create", "secret", "generic", "s2", "--from-literal=password=second-value-9c1e")
        self.assertIn(base64.b64encode(b"second-value-9c1e"), data_dir_bytes(s.data_dir))
        self.assertEqual(self.secret_value(third, "s1"), marker)
        self.assertEqual(self.secret_value(third, "s2"), "second-value-9c1e")

    def test_bad_config_stops_serve(self):
        s = BerthServer()
        self.addCleanup(s.cleanup)
        bad = AESGCM.replace(KEY, base64.b64encode(b"too short").decode())
        path = s.write_file("encryption.yaml", config(bad))
        p = subprocess.run([BERTH, "serve", "--listen", f"127.0.0.1:{s.port}", "--data-dir", s.data_dir,
                            "--encryption-provider-config", path],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(p.returncode, 0)
        out = p.stdout + p.stderr
        self.assertIn(path, out)
        self.assertIn("resources[0].providers[0].aesgcm.keys[0].secret", out)
        self.assertIn("secret is not of the expected length", out)


if __name__ == "__main__":
    unittest.main()
