"""The SIGKILL loop (scripts/sigkill-loop.py), bounded for CI: rounds of mixed
pod creates, patches, bindings and deletes from many connections, `berth
serve` killed at a random moment and restarted on the same data directory;
after every round each acknowledged write is there."""

import importlib.util
import os
import unittest

from berth_server import BERTH

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "sigkill-loop.py")


def load_script():
    spec = importlib.util.spec_from_file_location("sigkill_loop", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SigkillLoopTest(unittest.TestCase):
    def test_every_acknowledged_write_survives(self):
        loop = load_script()
        seed = int.from_bytes(os.urandom(4), "little")
        summary = loop.run(os.path.abspath(BERTH), rounds=5, workers=12, seed=seed, min_run=0.3, max_run=2.0)
        print(summary)
        self.assertEqual(summary["rounds"], 5)
        self.assertEqual(summary["lost"], [], f"acknowledged writes lost (seed {seed})")
        self.assertEqual(summary["unexpected"], [], f"unexpected answers (seed {seed})")
        # The loop did write, and the kills did land mid-write.
        self.assertGreater(summary["acknowledged_writes"], 100)
        self.assertGreater(summary["cut_off_writes"], 0)


if __name__ == "__main__":
    unittest.main()
