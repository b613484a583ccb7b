"""The web dashboard (/ui/) in a real browser: Debian's chromium driven by
npm's playwright-core (tests/ui/ui_test.mjs), against berth serve with
simulated nodes, and against a standalone scheduler's endpoint, which reads
the cluster through its --server. Leaves ui_test.png and
ui_test_scheduler.png beside the berth binary."""

import json
import os
import shutil
import subprocess
import threading
import unittest
import urllib.error
import urllib.request

from berth_server import BERTH, KUBECTL, BerthServer, free_port, wait_for

UI_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = os.path.dirname(os.path.abspath(BERTH))


def require_browser():
    if not os.path.isdir(os.path.join(UI_DIR, "node_modules", "playwright-core")):
        raise AssertionError("tests/ui/node_modules is missing: run scripts/install-deps.sh (npm ci in tests/ui)")
    if not shutil.which("node") or not os.path.exists(CHROMIUM):
        raise AssertionError("node and " + CHROMIUM + " are needed: run scripts/install-deps.sh")


def run_browser(test, server, page_url, screenshot, checks="full", token=""):
    env = dict(os.environ,
               BERTH_TOKEN=token,
               BERTH_URL=page_url,
               KUBE_SERVER=server.url,
               KUBECTL=KUBECTL,
               KUBE_CACHE_DIR=os.path.join(server.tmp, "kube-cache"),
               SCREENSHOT=screenshot,
               USER_DATA_DIR=os.path.join(server.tmp, "chromium-profile-" + checks),
               CHROMIUM=CHROMIUM,
               UI_CHECKS=checks,
               HOME=server.tmp)
    p = subprocess.run(["node", os.path.join(UI_DIR, "ui_test.mjs")], cwd=UI_DIR, env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        test.fail(f"ui_test.mjs failed ({p.returncode}):\n{p.stdout}\n{p.stderr}\n{server.logs()[-2000:]}")
    test.assertIn("ui_test: ok", p.stdout)
    test.assertGreater(os.path.getsize(screenshot), 10000)


class WebUiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_browser()
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
        self.assertNotIn("//", page.split("<body>")[0])  # nothing from another origin
        with urllib.request.urlopen(self.server.url + "/ui/app.js") as r:
            self.assertEqual(r.headers["Content-Type"], "text/javascript; charset=utf-8")

    def test_page_logic(self):
        p = subprocess.run(["node", "--test", "page_logic_test.mjs"], cwd=UI_DIR, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("# fail 0", p.stdout)

    def test_dashboard_in_chromium(self):
        run_browser(self, self.server, self.server.url, os.path.join(ARTIFACTS, "ui_test.png"))


class TokenWebUiTest(unittest.TestCase):
    """berth serve --token-file: the page's files are public, the API needs
    the token, which the page asks for and sends with every request."""

    TOKEN = "ui-secret-token"

    @classmethod
    def setUpClass(cls):
        require_browser()
        cls.server = BerthServer(["--sim-nodes", "4", "--sim-zones", "2", "--token-file", "tokens.csv"],
                                 scheduler=True)
        cls.server.write_file("tokens.csv", f'{cls.TOKEN},admin,uid-1,"system:masters"\n')
        cls.server.extra_args = [a if a != "tokens.csv" else os.path.join(cls.server.tmp, "tokens.csv")
                                 for a in cls.server.extra_args]
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def test_files_are_public_and_the_api_is_not(self):
        with urllib.request.urlopen(self.server.url + "/ui/auth.js") as r:
            self.assertEqual(r.status, 200)
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(self.server.url + "/api/v1/nodes")
        self.assertEqual(refused.exception.code, 401)
        request = urllib.request.Request(self.server.url + "/api/v1/nodes",
                                         headers={"Authorization": "Bearer " + self.TOKEN})
        with urllib.request.urlopen(request) as r:
            self.assertEqual(len(json.loads(r.read())["items"]), 4)

    def test_dashboard_asks_for_the_token_in_chromium(self):
        run_browser(self, self.server, self.server.url, os.path.join(ARTIFACTS, "ui_test_token.png"),
                    checks="token", token=self.TOKEN)


class SchedulerWebUiTest(unittest.TestCase):
    """berth scheduler against berth serve --no-scheduler: its --listen port
    serves the page and reads nodes, pods and events through its --server."""

    @classmethod
    def setUpClass(cls):
        require_browser()
        cls.server = BerthServer(["--sim-nodes", "4", "--sim-zones", "2"]).start()
        cls.port = free_port()
        cls.log = open(os.path.join(cls.server.tmp, "scheduler.log"), "wb")
        cls.scheduler = subprocess.Popen(
            [BERTH, "scheduler", "--server", cls.server.url, "--listen", f"127.0.0.1:{cls.port}"],
            stdout=cls.log, stderr=subprocess.STDOUT)
        cls.url = f"http://127.0.0.1:{cls.port}"

    @classmethod
    def tearDownClass(cls):
        cls.scheduler.terminate()
        cls.scheduler.wait(timeout=20)
        cls.log.close()
        cls.server.stop()
        cls.server.cleanup()

    def get(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
        except OSError:
            return None, ""

    def test_reads_pass_through_and_writes_do_not(self):
        status, page = wait_for(self, self.server, "the scheduler's /ui/",
                                lambda: (lambda r: r if r[0] == 200 else None)(self.get("/ui/")))
        self.assertIn("<title>berth</title>", page)
        status, body = self.get("/api/v1/nodes")
        self.assertEqual(status, 200)
        self.assertEqual(len(json.loads(body)["items"]), 4)
        status, body = self.get("/api/v1/secrets")
        self.assertEqual((status, json.loads(body)["reason"]), (403, "Forbidden"))
        request = urllib.request.Request(self.url + "/api/v1/namespaces/default/pods", data=b"{}", method="POST")
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        self.assertEqual(refused.exception.code, 405)

        # A watch through the scheduler sees a pod created on the API server.
        rv = json.loads(self.get("/api/v1/namespaces/default/pods")[1])["metadata"]["resourceVersion"]
        seen = []
        stream = urllib.request.urlopen(
            f"{self.url}/api/v1/namespaces/default/pods?watch=1&resourceVersion={rv}", timeout=30)

        def read():
            for line in stream:
                event = json.loads(line)
                seen.append((event["type"], event["object"]["metadata"]["name"]))
                if event["object"]["metadata"]["name"] == "watched":
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        self.server.kubectl("run", "watched", "--image=nginx")
        reader.join(timeout=30)
        stream.close()
        self.assertIn(("ADDED", "watched"), seen)

    def test_dashboard_in_chromium(self):
        wait_for(self, self.server, "the scheduler's /healthz", lambda: self.get("/healthz")[0] == 200)
        run_browser(self, self.server, self.url, os.path.join(ARTIFACTS, "ui_test_scheduler.png"), checks="scheduler")


if __name__ == "__main__":
    unittest.main()
