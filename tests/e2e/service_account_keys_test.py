"""Service account tokens signed with an ECDSA key, as kube-apiserver takes
one: `openssl ecparam` makes the key, berth serve signs `kubectl create token`
with it (ES256), the signature verifies with Python's cryptography package
(JWS's r || s form), and the JWKS publishes the EC key."""

import base64
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer  # noqa: E402

from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, utils  # noqa: E402


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class EcdsaServiceAccountKeyTest(unittest.TestCase):
    def test_tokens_are_es256_and_verify_outside_berth(self):
        server = BerthServer(["--in-memory"])
        key_path = server.write_file("sa-es256.key", "")
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key_path],
                       check=True, capture_output=True)
        server.extra_args += ["--service-account-signing-key-file", key_path]
        server.start()
        try:
            server.kubectl("create", "serviceaccount", "robot")
            token = server.kubectl("create", "token", "robot").stdout.strip()
            header, payload, signature = token.split(".")
            self.assertEqual(json.loads(b64url(header))["alg"], "ES256")
            raw = b64url(signature)
            self.assertEqual(len(raw), 64)
            with open(key_path, "rb") as f:
                public = serialization.load_pem_private_key(f.read(), None).public_key()
            der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
            public.verify(der, f"{header}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if not
            review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}
            reviewed = json.loads(server.kubectl("create", "-f", "-", "-o", "json", input=json.dumps(review)).stdout)
            self.assertTrue(reviewed["status"]["authenticated"], reviewed)
            jwks = json.loads(server.kubectl("get", "--raw", "/openid/v1/jwks").stdout)
            [jwk] = jwks["keys"]
            self.assertEqual((jwk["kty"], jwk["crv"], jwk["alg"]), ("EC", "P-256", "ES256"))
            numbers = public.public_numbers()
            self.assertEqual(int.from_bytes(b64url(jwk["x"]), "big"), numbers.x)
            self.assertEqual(int.from_bytes(b64url(jwk["y"]), "big"), numbers.y)
        finally:
            server.stop()
            server.cleanup()


if __name__ == "__main__":
    unittest.main()
