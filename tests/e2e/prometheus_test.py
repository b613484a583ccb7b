"""A real Prometheus (Debian's) scrapes a `berth serve` under load, and every
query of the shipped Grafana dashboard returns data through its HTTP API."""

import json
import math
import os
import re
import subprocess
import time
import unittest
import urllib.parse
import urllib.request

from berth_server import BerthServer, free_port, wait_for

PROMETHEUS = os.environ.get("PROMETHEUS", "/usr/bin/prometheus")
DASHBOARD = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "grafana", "berth-dashboard.json")
# Grafana's interval variables, as a literal window holding many 1 s scrapes.
WINDOW = "1m"


def dashboard_queries():
    with open(DASHBOARD) as f:
        dash = json.load(f)
    out = []
    for panel in dash["panels"]:
        for target in panel.get("targets", []):
            expr = re.sub(r"\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}",
                          WINDOW, target["expr"])
            out.append((panel["title"], expr))
    return out


class PrometheusTest(unittest.TestCase):
    def setUp(self):
        self.server = BerthServer(["--sim-nodes", "3", "--sim-cpu", "4", "--sim-memory", "8Gi"],
                                  scheduler=True).start()
        self.port = free_port()
        config = self.server.write_file("prometheus.yml", f"""
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: berth
    static_configs:
      - targets: ["127.0.0.1:{self.server.port}"]
""")
        self.prom_log = open(os.path.join(self.server.tmp, "prometheus.log"), "wb")
        self.prom = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={self.server.tmp}/tsdb",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=self.prom_log, stderr=subprocess.STDOUT)

    def tearDown(self):
        self.prom.terminate()
        self.prom.wait(timeout=30)
        self.prom_log.close()
        self.server.stop()
        self.server.cleanup()

    def prom_get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:
            return r.read().decode()

    def query(self, expr):
        body = json.loads(self.prom_get("/api/v1/query?" + urllib.parse.urlencode({"query": expr})))
        self.assertEqual(body["status"], "success", body)
        return body["data"]["result"]

    def ready(self):
        try:
            self.prom_get("/-/ready")
            return True
        except OSError:
            return False

    def test_every_dashboard_query_returns_data(self):
        wait_for(self, self.server, "prometheus ready", self.ready, timeout=30)
        # The load starts after a first scrape: rates then see it grow.
        wait_for(self, self.server, "a first scrape of berth",
                 lambda: self.query('up{job="berth"} == 1'), timeout=30, interval=0.2)
        k = self.server.kubectl
        deployment = {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 10, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}
        # Load in three steps, each seen by its own scrapes: a series that
        # appears with the first step (a plugin's, an attempts label's) grows
        # in the next ones, so its rate is more than nothing.
        k("apply", "-f", "-", input=json.dumps(deployment))
        for replicas in (20, 30):
            time.sleep(2.5)
            k("scale", "deployment/web", f"--replicas={replicas}")
        # One pod that fits nowhere keeps the unschedulable queue non-empty.
        k("run", "huge", "--image=nginx", "--overrides",
          json.dumps({"spec": {"containers": [{"name": "huge", "image": "nginx",
                                               "resources": {"requests": {"cpu": "64"}}}]}}))

        def scraped_scheduled():
            r = self.query('sum(scheduler_schedule_attempts_total{result="scheduled"})')
            return r and float(r[0]["value"][1]) >= 30
        wait_for(self, self.server, "Prometheus to see 30 pods scheduled", scraped_scheduled, timeout=60,
                 interval=0.5)
        # A few more scrapes, so that every rate has samples after the load.
        time.sleep(3)

        queries = dashboard_queries()
        self.assertGreaterEqual(len(queries), 8)
        empty = []
        for title, expr in queries:
            result = self.query(expr)
            values = [float(s["value"][1]) for s in result]
            # Data: at least one series with a number (a quantile of nothing is NaN).
            if not any(not math.isnan(v) for v in values):
                empty.append(f"{title}: {expr} -> {result}")
        self.maxDiff = None
        self.assertEqual(empty, [], "dashboard queries without data")


if __name__ == "__main__":
    unittest.main()
