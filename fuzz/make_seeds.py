#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/corpus/<target>/ (committed; run again
only to change them). Sources: Kubernetes' API round-trip test data
(../shared/fixtures/k8s-api-testdata, JSON, minified here; and k8s.io/api's
testdata/HEAD/*.pb from a git mirror given as the first argument, optional)
and hand-written cases. Each target's input shape is described in its
fuzz_<target>.cc."""
import json
import os
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(ROOT, "corpus")
FIXTURES = os.path.join(ROOT, "..", "..", "shared", "fixtures", "k8s-api-testdata")
API_MIRROR = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/kubernetes+api/repo"


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def mini(value):
    return json.dumps(value, separators=(",", ":"))


# ---- objects and views -------------------------------------------------------
small_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default",
             "labels": {"app": "web"}},
             "spec": {"containers": [{"name": "c", "image": "nginx",
                                      "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                                                    "limits": {"cpu": "1", "memory": "1Gi"}},
                                      "ports": [{"containerPort": 80}]}],
                      "priority": 10,
                      "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"},
                                      {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
                      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                          "nodeSelectorTerms": [{"matchExpressions": [
                              {"key": "zone", "operator": "In", "values": ["a", "b"]},
                              {"key": "cpu", "operator": "Gt", "values": ["4"]}]}]},
                          "preferredDuringSchedulingIgnoredDuringExecution": [
                              {"weight": 5, "preference": {"matchFields": [
                                  {"key": "metadata.name", "operator": "NotIn", "values": ["n2"]}]}}]},
                          "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                              {"labelSelector": {"matchLabels": {"app": "web"}},
                               "topologyKey": "kubernetes.io/hostname"}]}},
                      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                                     "whenUnsatisfiable": "DoNotSchedule",
                                                     "labelSelector": {"matchExpressions": [
                                                         {"key": "app", "operator": "Exists"}]}}],
                      "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "c"}},
                                  {"name": "e", "emptyDir": {"sizeLimit": "1Gi"}}]},
             "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True",
                                                            "lastTransitionTime": "2024-01-01T00:00:00Z"}]}}
small_node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}},
              "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}], "unschedulable": False},
              "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                         "allocatable": {"cpu": "7500m", "memory": "30Gi", "pods": "110",
                                         "ephemeral-storage": "100G"},
                         "conditions": [{"type": "Ready", "status": "True"}]}}
template = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
small_deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": template,
                             "strategy": {"type": "RollingUpdate",
                                          "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}}}}
small_statefulset = {"spec": {"replicas": 2, "serviceName": "s", "selector": {"matchLabels": {"app": "web"}},
                              "template": template,
                              "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {
                                  "accessModes": ["ReadWriteOnce"],
                                  "resources": {"requests": {"storage": "1Gi"}}}}]},
                     "metadata": {"name": "s"}}
small_job = {"metadata": {"name": "j"}, "spec": {"completions": 3, "parallelism": 2, "backoffLimit": 1,
                                                 "template": {"spec": {"restartPolicy": "Never",
                                                                       "containers": [{"name": "c",
                                                                                       "image": "busybox"}]}}}}
small_cronjob = {"metadata": {"name": "cj"}, "spec": {"schedule": "*/5 * * * *",
                                                       "jobTemplate": {"spec": small_job["spec"]}}}
small_pvc = {"metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                                                 "resources": {"requests": {"storage": "10Gi"}}}}
small_pv = {"metadata": {"name": "pv"}, "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                                                 "hostPath": {"path": "/data"},
                                                 "nodeAffinity": {"required": {"nodeSelectorTerms": [
                                                     {"matchExpressions": [{"key": "zone", "operator": "In",
                                                                            "values": ["a"]}]}]}}}}

fixtures = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".json"))
for f in fixtures:
    write("object_decode", f, mini(fixture(f)))
write("object_decode", "small-pod.json", mini(small_pod))
write("object_decode", "small-node.json", mini(small_node))
write("object_decode", "small-deployment.json", mini(small_deployment))

write("pod_view", "fixture-pod.json", mini(fixture("core.v1.Pod.json")))
write("pod_view", "small-pod.json", mini(small_pod))
write("pod_view", "empty.json", "{}")
write("node_view", "fixture-node.json", mini(fixture("core.v1.Node.json")))
write("node_view", "small-node.json", mini(small_node))

# fuzz_workload: first byte picks the kind (its list in fuzz_workload.cc).
WORKLOAD = {"deployment": 0, "replicaset": 1, "statefulset": 2, "daemonset": 3, "job": 4, "cronjob": 5,
            "pdb": 9}
write("workload", "fixture-deployment", bytes([WORKLOAD["deployment"]]) + mini(fixture("apps.v1.Deployment.json")).encode())
write("workload", "fixture-replicaset", bytes([WORKLOAD["replicaset"]]) + mini(fixture("apps.v1.ReplicaSet.json")).encode())
write("workload", "fixture-pdb", bytes([WORKLOAD["pdb"]]) + mini(fixture("policy.v1.PodDisruptionBudget.json")).encode())
write("workload", "small-deployment", bytes([WORKLOAD["deployment"]]) + mini(small_deployment).encode())
write("workload", "small-statefulset", bytes([WORKLOAD["statefulset"]]) + mini(small_statefulset).encode())
write("workload", "small-daemonset", bytes([WORKLOAD["daemonset"]]) + mini({"metadata": {"name": "ds"}, "spec": {
    "selector": {"matchLabels": {"app": "web"}}, "template": template}}).encode())
write("workload", "small-job", bytes([WORKLOAD["job"]]) + mini(small_job).encode())
write("workload", "small-cronjob", bytes([WORKLOAD["cronjob"]]) + mini(small_cronjob).encode())

# fuzz_storage_view: first byte picks PV, PVC, StorageClass, PriorityClass, ...
write("storage_view", "fixture-pv", b"\x00" + mini(fixture("core.v1.PersistentVolume.json")).encode())
write("storage_view", "fixture-pvc", b"\x01" + mini(fixture("core.v1.PersistentVolumeClaim.json")).encode())
write("storage_view", "fixture-sc", b"\x02" + mini(fixture("storage.k8s.io.v1.StorageClass.json")).encode())
write("storage_view", "fixture-pc", b"\x03" + mini(fixture("scheduling.k8s.io.v1.PriorityClass.json")).encode())
write("storage_view", "small-pv", b"\x00" + mini(small_pv).encode())
write("storage_view", "small-pvc", b"\x01" + mini(small_pvc).encode())
write("storage_view", "small-sc", b"\x02" + mini({"metadata": {"name": "fast"}, "provisioner": "x",
                                                    "volumeBindingMode": "WaitForFirstConsumer",
                                                    "allowedTopologies": [{"matchLabelExpressions": [
                                                        {"key": "zone", "values": ["a"]}]}]}).encode())

# ---- container commands (sh -c scripts, or argv split at NUL) -----------------
for i, script in enumerate(["sleep 5; exit 3", "echo 'a  b' \"c\" && false || printenv FOO", "env",
                            "TEST_VAR=wrong echo \"$(FOO)\"", "sleep infinity", "exit 257",
                            "echo -n x;;; true", "while true; do sleep 1; done", "sleep\x001m\x0030"]):
    write("container_command", "c%02d" % i, script)

# ---- selectors and quantities -------------------------------------------------
for i, q in enumerate(["100m", "1.5Gi", "1e3", "0.5", "-1", "12345678901234567890Ki", ".5", "1E-3", "0",
                       "9223372036854775807", "1Ei", "+3k", "1.000000001"]):
    write("quantity", "q%02d" % i, q)
for i, s in enumerate(["app=web,tier in (a,b),!canary", "x notin (y, z)", "a>3,b<10", "k", "app==web,env!=prod",
                       "", "example.com/key in ()"]):
    write("label_selector", "s%02d" % i, s)
write("label_selector", "json", mini({"matchLabels": {"app": "web"}, "matchExpressions": [
    {"key": "tier", "operator": "In", "values": ["a", "b"]}, {"key": "x", "operator": "DoesNotExist"}]}))
for i, s in enumerate(["spec.nodeName=n1,status.phase!=Failed", "metadata.name==x", "metadata.namespace!=",
                       "involvedObject.kind=Pod", r"metadata.name=a\,b"]):
    write("field_selector", "s%02d" % i, s)
write("node_selector", "selector", mini(small_pod["spec"]["affinity"]["nodeAffinity"]
                                        ["requiredDuringSchedulingIgnoredDuringExecution"]))
write("node_selector", "term", mini({"matchExpressions": [{"key": "cpu", "operator": "Lt", "values": ["16"]}],
                                     "matchFields": [{"key": "metadata.name", "operator": "In",
                                                      "values": ["n1"]}]}))

# ---- patches: original JSON, NUL, patch body ----------------------------------
pod = mini(small_pod).encode()
write("merge_patch", "labels", pod + b"\x00" + b'{"metadata":{"labels":{"app":null,"new":"x"}}}')
write("merge_patch", "spec", b'{"spec":{"containers":[{"name":"c","image":"busybox"}],"nodeName":"n1"}}')
write("merge_patch", "null", b'{"a":{"b":null}}\x00{"a":{"c":1},"d":null}')
write("json_patch", "ops", pod + b"\x00" + mini([
    {"op": "add", "path": "/metadata/labels/x", "value": "1"},
    {"op": "replace", "path": "/spec/containers/0/image", "value": "busybox"},
    {"op": "remove", "path": "/spec/tolerations/0"},
    {"op": "copy", "from": "/metadata/name", "path": "/metadata/generateName"},
    {"op": "move", "from": "/metadata/labels/x", "path": "/metadata/labels/y"},
    {"op": "test", "path": "/kind", "value": "Pod"}]).encode())
write("json_patch", "escape", b'{"a~b":{"c/d":[1,2]}}\x00[{"op":"add","path":"/a~0b/c~1d/-","value":3}]')
write("strategic_merge_patch", "containers", pod + b"\x00" + mini({"spec": {"containers": [
    {"name": "c", "image": "busybox"}, {"name": "d", "image": "x"}]}}).encode())
write("strategic_merge_patch", "directives", pod + b"\x00" + mini({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]},
    "spec": {"$setElementOrder/containers": [{"name": "c"}], "tolerations": [{"$patch": "replace"}],
             "containers": [{"name": "c", "$patch": "delete"}]}}).encode())
write("strategic_merge_patch", "deployment", mini(small_deployment).encode() + b"\x00" + mini(
    {"spec": {"template": {"spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "2"}]}]}},
              "strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}).encode())


# ---- the store's files -------------------------------------------------------
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def payload(rtype, revision, key, value):
    return bytes([rtype]) + varint(revision) + varint(len(key)) + key + varint(len(value)) + value


def frame(p):
    return struct.pack("<II", len(p), crc32c(p)) + p


def segment_header(first):
    h = bytearray(b"BERTHWAL" + struct.pack("<IIq", 1, 0, first))
    h[12:16] = struct.pack("<I", crc32c(bytes(h)))
    return bytes(h)


pod_value = mini(small_pod).encode()
p1 = payload(1, 1, b"/registry/pods/default/p", pod_value)
p2 = payload(3, 2, b"/registry/nodes/n1", mini(small_node).encode())
p3 = payload(2, 3, b"/registry/pods/default/p", b"")
write("wal_record", "framed-put", b"\x00" + frame(p1))
write("wal_record", "payload-delete", b"\x01" + p3)
write("wal_record", "payload-put-at-revision", b"\x01" + p2)
# fuzz_wal_recover: mode 0 the file as it is, 1 after a header, 2 chunks framed.
write("wal_recover", "whole-file", b"\x00" + segment_header(1) + frame(p1) + frame(p2) + frame(p3))
write("wal_recover", "torn-tail", b"\x01" + frame(p1) + frame(p2)[:20])
write("wal_recover", "zero-filled", b"\x01" + frame(p1) + b"\x00" * 64)
small_p1 = payload(1, 1, b"/registry/configmaps/default/c", b'{"apiVersion":"v1","kind":"ConfigMap"}')
write("wal_recover", "chunks", b"\x02" + bytes([len(small_p1)]) + small_p1 + bytes([len(p3)]) + p3)
write("wal_recover", "chunks-gap", b"\x02" + bytes([len(small_p1)]) + small_p1 +
      bytes([len(payload(2, 5, b"k", b""))]) + payload(2, 5, b"k", b""))


def snapshot(revision, entries):
    body = b"BERTHSNP" + struct.pack("<IIqQ", 1, 0, revision, len(entries))
    for key, rev, value in entries:
        body += varint(len(key)) + key + varint(rev) + varint(len(value)) + value
    return body


snap = snapshot(3, [(b"/registry/nodes/n1", 2, mini(small_node).encode()),
                    (b"/registry/pods/default/p", 3, pod_value)])
write("snapshot", "two-entries", b"\x01" + snap)
write("snapshot", "two-entries-with-crc", b"\x00" + snap + struct.pack("<I", crc32c(snap)))
write("snapshot", "empty", b"\x01" + snapshot(7, []))

# ---- configuration files ------------------------------------------------------
examples = os.path.join(ROOT, "..", "examples")
for name in ["scheduler-config/weighted-by-labels.yaml", "scheduler-config/volume-zone-affinity.yaml",
             "my-scheduler/min-score-config.yaml"]:
    with open(os.path.join(examples, name), "rb") as f:
        write("scheduler_config", os.path.basename(name), f.read())
write("scheduler_config", "profiles.yaml", """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 8
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: "*"
      enabled:
      - name: NodeResourcesFit
        weight: 2
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 1
- schedulerName: other
  percentageOfNodesToScore: 10
extenders:
- urlPrefix: http://127.0.0.1:9999/scheduler
  filterVerb: filter
  weight: 1
  httpTimeout: 2s
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
""")
write("kubeconfig", "basic.yaml", """apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: bm90IGEgY2VydA==
    tls-server-name: berth
contexts:
- name: dev
  context:
    cluster: local
    user: admin
    namespace: team
users:
- name: admin
  user:
    token: abc
- name: cert
  user:
    client-certificate: /tmp/c.pem
    client-key-data: a2V5
""")
write("kubeconfig", "insecure.yaml", """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "http://localhost:8080", insecure-skip-tls-verify: true}
users: []
contexts: [{name: x, context: {cluster: c}}]
current-context: x
""")

# ---- HTTP requests ------------------------------------------------------------
write("http_request", "get", "GET /api/v1/namespaces/default/pods?labelSelector=app%3Dweb&watch=1 HTTP/1.1\r\n"
      "Host: x\r\nAccept: application/json\r\n\r\n")
write("http_request", "post", "POST /apis/apps/v1/namespaces/default/deployments HTTP/1.1\r\nHost: x\r\n"
      "Content-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"kind\":\"D\"}\n")
write("http_request", "chunked", "PATCH /api/v1/nodes/n1/status HTTP/1.1\r\nHost: x\r\n"
      "Content-Type: application/merge-patch+json\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n")
write("http_request", "keepalive-two", "GET /api/v1/namespaces/a%2Fb/pods/p HTTP/1.1\r\nHost: x\r\n\r\n"
      "DELETE /api/v1/watch/namespaces/x/pods/p?gracePeriodSeconds=0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
write("http_request", "too-large", "PUT /api/v1/namespaces/default/configmaps/c HTTP/1.1\r\nHost: x\r\n"
      "Content-Length: 2000\r\n\r\n" + "x" * 40)

# ---- protobuf: first byte picks the kind (api::Kind's order), then the body.
KIND_INDEX = {"core.v1.Namespace": 0, "core.v1.Node": 1, "core.v1.Pod": 2, "core.v1.ConfigMap": 13,
              "core.v1.Secret": 14, "core.v1.Service": 15, "batch.v1.Job": 25}
for name, index in KIND_INDEX.items():
    try:
        data = subprocess.run(["git", "-C", API_MIRROR, "show", "HEAD:testdata/HEAD/%s.pb" % name],
                              check=True, capture_output=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        continue
    if len(data) <= 16384:
        write("protobuf", name, bytes([index]) + data)


# ---- CBOR: a few items by hand ------------------------------------------------
def cbor_head(major, n):
    if n < 24:
        return bytes([(major << 5) | n])
    for size, code, fmt in ((1, 24, "B"), (2, 25, ">H"), (4, 26, ">I"), (8, 27, ">Q")):
        if n < (1 << (8 * size)):
            return bytes([(major << 5) | code]) + struct.pack(fmt, n)


def cbor(v):
    if v is None:
        return b"\xf6"
    if v is True:
        return b"\xf5"
    if v is False:
        return b"\xf4"
    if isinstance(v, int):
        return cbor_head(0, v) if v >= 0 else cbor_head(1, -1 - v)
    if isinstance(v, float):
        return b"\xfb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return cbor_head(2, len(b)) + b  # byte strings, as kube writes strings
    if isinstance(v, list):
        return cbor_head(4, len(v)) + b"".join(cbor(x) for x in v)
    if isinstance(v, dict):
        return cbor_head(5, len(v)) + b"".join(cbor(k) + cbor(x) for k, x in sorted(v.items()))


write("cbor", "pod", b"\xd9\xd9\xf7" + cbor(small_pod))
write("cbor", "numbers", cbor([0, -1, 24, 65536, 2 ** 40, 1.5, -0.0, None, True, False]))
write("cbor", "text-and-tags", b"\x82\x63abc\xc0\x74" + b"2024-01-01T00:00:00Z" + b"\xd5\x43\x01\x02\x03")
write("cbor", "indefinite", b"\xbf\x41a\x9f\x01\x02\xff\xff")
write("cbor", "half-float", b"\x83\xf9\x3c\x00\xfa\x47\xc3\x50\x00\xc1\x1a\x65\x92\x00\x80")

# ---- CRD schemas: [schema, object] --------------------------------------------
schema = {"type": "object", "properties": {
    "spec": {"type": "object", "required": ["replicas"], "properties": {
        "replicas": {"type": "integer", "minimum": 0, "maximum": 10, "default": 1},
        "image": {"type": "string", "pattern": "^[a-z]+(:[0-9]+)?$", "maxLength": 20},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "items": {"type": "array", "maxItems": 3, "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "required": ["name"], "properties": {
                      "name": {"type": "string"}, "size": {"type": "number", "multipleOf": 0.5}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 4},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                     "x-kubernetes-preserve-unknown-fields": True}}},
    "status": {"type": "object", "nullable": True, "properties": {"ready": {"type": "boolean"}}}}}
obj = {"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "a"},
       "spec": {"replicas": 3, "image": "nginx:80", "mode": "c", "port": "http", "unknown": 1,
                "items": [{"name": "x", "size": 1.5}, {"name": "x"}], "labels": {"a": "b"},
                "free": {"anything": [1]}, "embedded": {"apiVersion": "v1", "kind": "ConfigMap"}},
       "status": None}
write("crd_schema", "app.json", mini([schema, obj]))
write("crd_schema", "schema-only.json", mini(schema))
write("crd_schema", "all-of.json", mini([{"type": "object", "properties": {"a": {"type": "string",
    "allOf": [{"minLength": 2}], "not": {"enum": ["zz"]}}}}, {"a": "z"}]))
