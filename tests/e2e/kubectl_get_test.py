"""`kubectl get` (v1.32) against berth serve prints kube-apiserver's columns and cells."""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from berth_server import BerthServer, wait_for  # noqa: E402

MANIFEST = """
apiVersion: v1
kind: Namespace
metadata: {name: web}
---
apiVersion: v1
kind: Service
metadata: {name: frontend, namespace: web}
spec:
  type: NodePort
  clusterIP: 10.96.0.10
  selector: {app: web}
  ports:
  - {name: http, port: 80, protocol: TCP, nodePort: 30080}
  - {name: https, port: 443, protocol: TCP, nodePort: 30443}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: web}
data: {a: "1", b: "2"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: web}
type: Opaque
data: {user: YWRtaW4=, pass: c2VjcmV0}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: web}
spec:
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: work, image: "busybox:1.36"}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: web}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: report, image: "busybox:1.36"}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: web}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: postgres, image: "postgres:16"}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: web}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: agent, image: "agent:1"}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: "api:2"}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy, namespace: web}
spec:
  replicas: 0
  selector: {app: legacy}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      containers: [{name: old, image: "old:1"}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: site, namespace: web}
spec:
  ingressClassName: nginx
  tls: [{hosts: [a.example.com]}]
  rules:
  - host: a.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: frontend, port: {number: 80}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: web}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-pods, namespace: web}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
- {kind: ServiceAccount, name: ci, namespace: web}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
"""


def parse_table(text):
    """kubectl's human output as (header names, rows of cells). Columns are
    separated by at least three spaces and names hold at most single ones, so
    the header gives each column's start; an empty cell stays "" in its row."""
    lines = [l for l in text.splitlines() if l.strip()]
    header = lines[0]
    starts = [m.start() for m in re.finditer(r"(?:^|(?<=\s\s))\S", header)]
    names = [header[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
    rows = [[line[s:e].strip() for s, e in zip(starts, starts[1:] + [None])] for line in lines[1:]]
    return names, rows


class KubectlGetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # No CronJob controller: the "nightly" row's ACTIVE and LAST SCHEDULE
        # must not change when a */5 boundary passes during the test.
        cls.server = BerthServer(["--controllers", "*,-cronjob-controller,-job-controller"]).start()
        cls.k = cls.server.kubectl
        cls.k("apply", "--validate=false", "-f", "-", input=MANIFEST)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.server.cleanup()

    def get(self, *args):
        """`kubectl get ARGS -n web` as (header, {name: {column: cell}})."""
        names, rows = parse_table(self.k("get", *args, "-n", "web").stdout)
        return names, {row[0]: dict(zip(names, row)) for row in rows}

    def assertTable(self, args, header, name, cells):
        got_header, rows = self.get(*args)
        self.assertEqual(got_header, header)
        self.assertIn(name, rows)
        for column, value in cells.items():
            self.assertEqual(rows[name][column], value, f"{column} of {name} in kubectl get {' '.join(args)}")
        self.assertRegex(rows[name].get("AGE", "0s"), r"^\d+[smhd]")

    def test_services(self):
        cells = {"TYPE": "NodePort", "CLUSTER-IP": "10.96.0.10", "EXTERNAL-IP": "<none>",
                 "PORT(S)": "80:30080/TCP,443:30443/TCP"}
        self.assertTable(["services"], ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
                         "frontend", cells)
        self.assertTable(["services", "-o", "wide"],
                         ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
                         "frontend", dict(cells, SELECTOR="app=web"))

    def test_configmaps_and_secrets(self):
        self.assertTable(["configmaps"], ["NAME", "DATA", "AGE"], "settings", {"DATA": "2"})
        self.assertTable(["secrets"], ["NAME", "TYPE", "DATA", "AGE"], "creds", {"TYPE": "Opaque", "DATA": "2"})

    def test_jobs(self):
        cells = {"STATUS": "Running", "COMPLETIONS": "0/2", "DURATION": ""}
        self.assertTable(["jobs"], ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"], "once", cells)
        self.assertTable(["jobs", "-o", "wide"],
                         ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"],
                         "once", dict(cells, CONTAINERS="work", IMAGES="busybox:1.36"))

    def test_cronjobs(self):
        self.assertTable(["cronjobs"],
                         ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"], "nightly",
                         {"SCHEDULE": "*/5 * * * *", "TIMEZONE": "<none>", "SUSPEND": "False", "ACTIVE": "0",
                          "LAST SCHEDULE": "<none>"})

    def test_statefulsets_and_daemonsets(self):
        self.assertTable(["statefulsets"], ["NAME", "READY", "AGE"], "db", {"READY": "0/3"})
        self.assertTable(["statefulsets", "-o", "wide"], ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"], "db",
                         {"CONTAINERS": "postgres", "IMAGES": "postgres:16"})
        self.assertTable(["daemonsets"],
                         ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"],
                         "agent", {"DESIRED": "0", "READY": "0", "NODE SELECTOR": "kubernetes.io/os=linux"})
        self.assertTable(["daemonsets", "-o", "wide"],
                         ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE",
                          "CONTAINERS", "IMAGES", "SELECTOR"],
                         "agent", {"SELECTOR": "app=agent", "IMAGES": "agent:1"})

    def test_ingresses(self):
        self.assertTable(["ingresses"], ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"], "site",
                         {"CLASS": "nginx", "HOSTS": "a.example.com", "ADDRESS": "", "PORTS": "80, 443"})

    def test_roles_and_rolebindings(self):
        header, rows = self.get("roles")
        self.assertEqual(header, ["NAME", "CREATED AT"])
        self.assertRegex(rows["reader"]["CREATED AT"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertTable(["rolebindings"], ["NAME", "ROLE", "AGE"], "read-pods", {"ROLE": "Role/reader"})
        self.assertTable(["rolebindings", "-o", "wide"],
                         ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"], "read-pods",
                         {"USERS": "alice", "GROUPS": "", "SERVICEACCOUNTS": "web/ci"})

    def test_horizontalpodautoscalers(self):
        self.assertTable(["hpa"], ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"], "api",
                         {"REFERENCE": "Deployment/api", "TARGETS": "cpu: <unknown>/50%", "MINPODS": "2",
                          "MAXPODS": "5", "REPLICAS": "0"})

    def test_get_all_lists_every_workload_kind(self):
        # The deployment controller makes the replica set and its pod.
        wait_for(self, self.server, "the deployment's pod",
                 lambda: "pod/api-" in self.k("get", "all", "-n", "web").stdout)
        out = self.k("get", "all", "-n", "web").stdout
        for name in ["service/frontend", "deployment.apps/api", "replicaset.apps/api-", "pod/api-",
                     "statefulset.apps/db", "daemonset.apps/agent", "job.batch/once", "cronjob.batch/nightly",
                     "horizontalpodautoscaler.autoscaling/api", "replicationcontroller/legacy"]:
            self.assertRegex(out, rf"(?m)^{re.escape(name)}", out)
        # Each kind keeps its own columns.
        self.assertRegex(out, r"(?m)^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$")
        self.assertRegex(out, r"(?m)^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$")


if __name__ == "__main__":
    unittest.main()
