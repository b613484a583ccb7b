"""The web dashboard (/ui/) in a real browser: Debian's chromium driven by
npm's playwright-core (tests/ui/ui_test.mjs), against berth serve with
simulated nodes. Leaves ui_test.png beside the berth binary."""

import os
import shutil
import subprocess
import unittest
import urllib.request

from berth_server import BERTH, KUBECTL, BerthServer

UI_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class WebUiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(os.path.join(UI_DIR, "node_modules", "playwright-core")):
            raise AssertionError("tests/ui/node_modules is missing: run scripts/install-deps.sh (npm ci in tests/ui)")
        if not shutil.which("node") or not os.path.exists(CHROMIUM):
            raise AssertionError("node and " + CHROMIUM + " are needed: run scripts/install-deps.sh")
        cls.server = BerthServer(["--sim-nodes", "16", "--sim-zones", "3"], scheduler=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def test_assets_are_served_with_their_types(self):
        with urllib.request.urlopen(self.server.url + "/ui/") as r:
            self.assertEqual(r.headers["Content-Type"], "text/html; charset=utf-8")
            page = r.read().decode()
        self.assertIn('src="app.js"', page)
        self.assertNotIn("http://", page.split("<body>")[0])  # nothing from another origin
        with urllib.request.urlopen(self.server.url + "/ui/app.js") as r:
            self.assertEqual(r.headers["Content-Type"], "text/javascript; charset=utf-8")

    def test_dashboard_in_chromium(self):
        screenshot = os.path.join(os.path.dirname(os.path.abspath(BERTH)), "ui_test.png")
        env = dict(os.environ,
                   BERTH_URL=self.server.url,
                   KUBECTL=KUBECTL,
                   KUBE_CACHE_DIR=os.path.join(self.server.tmp, "kube-cache"),
                   SCREENSHOT=screenshot,
                   USER_DATA_DIR=os.path.join(self.server.tmp, "chromium-profile"),
                   CHROMIUM=CHROMIUM,
                   HOME=self.server.tmp)
        p = subprocess.run(["node", os.path.join(UI_DIR, "ui_test.mjs")], cwd=UI_DIR, env=env,
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            self.fail(f"ui_test.mjs failed ({p.returncode}):\n{p.stdout}\n{p.stderr}\n{self.server.logs()[-2000:]}")
        self.assertIn("ui_test: ok", p.stdout)
        self.assertTrue(os.path.getsize(screenshot) > 10000)


if __name__ == "__main__":
    unittest.main()
