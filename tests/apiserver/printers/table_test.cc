// What `kubectl get` prints for each built-in kind: the columns of
// kube-apiserver 1.32 and the cells that take formatting.

#include "apiserver/printers/table.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "api/object.h"
#include "api/time/rfc3339.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

// Objects are created at 00:00:00 and printed at 00:10:00 (Age "10m").
constexpr std::string_view kCreated = "2024-01-01T00:00:00Z";
const auto kNow = *api::ParseRfc3339("2024-01-01T00:10:00Z");

api::ObjectPtr MakeObject(std::string_view api_version, std::string_view kind, json::object body) {
  body["apiVersion"] = api_version;
  body["kind"] = kind;
  json::object& meta = body["metadata"].is_object() ? body["metadata"].as_object()
                                                    : body["metadata"].emplace_object();
  if (!meta.contains("name")) meta["name"] = "x";
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = kCreated;
  auto object = api::Object::FromJson(json::value(std::move(body)));
  EXPECT_TRUE(object.ok()) << object.status().ToString();
  return *object;
}

json::object Print(const api::ObjectPtr& object, const TableOptions& options = {}) {
  TableOptions o = options;
  o.now = kNow;
  api::ObjectPtr objects[] = {object};
  return MakeTable(object->kind(), objects, "1", "", o);
}

// Column names joined by "|", wide ones marked with a trailing "*".
std::string Columns(const json::object& table) {
  std::string out;
  for (const auto& c : table.at("columnDefinitions").as_array()) {
    if (!out.empty()) out += "|";
    out += c.at("name").as_string();
    if (c.at("priority").to_number<int>() == 1) out += "*";
  }
  return out;
}

// The first row's cells, strings as they are and the rest as JSON, joined by "|".
std::string Row(const json::object& table) {
  std::string out;
  bool first = true;
  for (const auto& cell : table.at("rows").as_array().at(0).at("cells").as_array()) {
    if (!first) out += "|";
    first = false;
    out += cell.is_string() ? std::string(cell.as_string()) : json::serialize(cell);
  }
  return out;
}

std::string RowOf(std::string_view api_version, std::string_view kind, std::string_view body) {
  return Row(Print(MakeObject(api_version, kind, json::parse(body).as_object())));
}

struct ColumnCase {
  std::string_view api_version, kind, columns;
};

class ColumnsTest : public testing::TestWithParam<ColumnCase> {};

TEST_P(ColumnsTest, MatchKubeApiserver) {
  const ColumnCase& c = GetParam();
  json::object table = Print(MakeObject(c.api_version, c.kind, {}));
  EXPECT_EQ(Columns(table), c.columns);
  EXPECT_EQ(table.at("rows").as_array().at(0).at("cells").as_array().size(),
            table.at("columnDefinitions").as_array().size());
}

INSTANTIATE_TEST_SUITE_P(
    BuiltinKinds, ColumnsTest,
    testing::Values(
        ColumnCase{"v1", "Pod",
                   "Name|Ready|Status|Restarts|Age|IP*|Node*|Nominated Node*|Readiness Gates*"},
        ColumnCase{"v1", "Node",
                   "Name|Status|Roles|Age|Version|Internal-IP*|External-IP*|OS-Image*|Kernel-"
                   "Version*|Container-Runtime*"},
        ColumnCase{"v1", "Namespace", "Name|Status|Age"},
        ColumnCase{
            "v1", "Event",
            "Last Seen|Type|Reason|Object|Subobject*|Source*|Message|First Seen*|Count*|Name*"},
        ColumnCase{"v1", "PersistentVolume",
                   "Name|Capacity|Access Modes|Reclaim "
                   "Policy|Status|Claim|StorageClass|VolumeAttributesClass|Reason|Age|VolumeMode*"},
        ColumnCase{"v1", "PersistentVolumeClaim",
                   "Name|Status|Volume|Capacity|Access "
                   "Modes|StorageClass|VolumeAttributesClass|Age|VolumeMode*"},
        ColumnCase{"v1", "ConfigMap", "Name|Data|Age"},
        ColumnCase{"v1", "Secret", "Name|Type|Data|Age"},
        ColumnCase{"v1", "Service", "Name|Type|Cluster-IP|External-IP|Port(s)|Age|Selector*"},
        ColumnCase{"v1", "Endpoints", "Name|Endpoints|Age"},
        ColumnCase{"v1", "ServiceAccount", "Name|Secrets|Age"},
        ColumnCase{"v1", "LimitRange", "Name|Created At"},
        ColumnCase{"v1", "ResourceQuota", "Name|Age|Request|Limit"},
        ColumnCase{"v1", "PodTemplate", "Name|Containers|Images|Pod Labels"},
        ColumnCase{"v1", "ReplicationController",
                   "Name|Desired|Current|Ready|Age|Containers*|Images*|Selector*"},
        ColumnCase{"apps/v1", "ReplicaSet",
                   "Name|Desired|Current|Ready|Age|Containers*|Images*|Selector*"},
        ColumnCase{"apps/v1", "Deployment",
                   "Name|Ready|Up-to-date|Available|Age|Containers*|Images*|Selector*"},
        ColumnCase{"apps/v1", "StatefulSet", "Name|Ready|Age|Containers*|Images*"},
        ColumnCase{"apps/v1", "DaemonSet",
                   "Name|Desired|Current|Ready|Up-to-date|Available|Node "
                   "Selector|Age|Containers*|Images*|Selector*"},
        ColumnCase{"apps/v1", "ControllerRevision", "Name|Controller|Revision|Age"},
        ColumnCase{"batch/v1", "Job",
                   "Name|Status|Completions|Duration|Age|Containers*|Images*|Selector*"},
        ColumnCase{"batch/v1", "CronJob",
                   "Name|Schedule|Timezone|Suspend|Active|Last "
                   "Schedule|Age|Containers*|Images*|Selector*"},
        ColumnCase{"autoscaling/v2", "HorizontalPodAutoscaler",
                   "Name|Reference|Targets|MinPods|MaxPods|Replicas|Age"},
        ColumnCase{"policy/v1", "PodDisruptionBudget",
                   "Name|Min Available|Max Unavailable|Allowed Disruptions|Age"},
        ColumnCase{"discovery.k8s.io/v1", "EndpointSlice", "Name|AddressType|Ports|Endpoints|Age"},
        ColumnCase{"networking.k8s.io/v1", "Ingress", "Name|Class|Hosts|Address|Ports|Age"},
        ColumnCase{"networking.k8s.io/v1", "IngressClass", "Name|Controller|Parameters|Age"},
        ColumnCase{"networking.k8s.io/v1", "NetworkPolicy", "Name|Pod-Selector|Age"},
        ColumnCase{"rbac.authorization.k8s.io/v1", "Role", "Name|Created At"},
        ColumnCase{"rbac.authorization.k8s.io/v1", "ClusterRole", "Name|Created At"},
        ColumnCase{"rbac.authorization.k8s.io/v1", "RoleBinding",
                   "Name|Role|Age|Users*|Groups*|ServiceAccounts*"},
        ColumnCase{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding",
                   "Name|Role|Age|Users*|Groups*|ServiceAccounts*"},
        ColumnCase{"node.k8s.io/v1", "RuntimeClass", "Name|Handler|Age"},
        ColumnCase{"storage.k8s.io/v1", "StorageClass",
                   "Name|Provisioner|ReclaimPolicy|VolumeBindingMode|AllowVolumeExpansion|Age"},
        ColumnCase{"storage.k8s.io/v1", "CSIDriver",
                   "Name|AttachRequired|PodInfoOnMount|StorageCapacity|TokenRequests|"
                   "RequiresRepublish|Modes|Age"},
        ColumnCase{"storage.k8s.io/v1", "CSINode", "Name|Drivers|Age"},
        ColumnCase{"storage.k8s.io/v1", "CSIStorageCapacity", "Name|StorageClassName|Capacity"},
        ColumnCase{"storage.k8s.io/v1", "VolumeAttachment", "Name|Attacher|PV|Node|Attached|Age"},
        ColumnCase{"scheduling.k8s.io/v1", "PriorityClass",
                   "Name|Value|Global-Default|Age|PreemptionPolicy"},
        ColumnCase{"coordination.k8s.io/v1", "Lease", "Name|Holder|Age"},
        ColumnCase{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "Name|Created At"}),
    [](const testing::TestParamInfo<ColumnCase>& info) { return std::string(info.param.kind); });

TEST(TableTest, KindsWithoutPrinterShowTheCreationTime) {
  EXPECT_EQ(RowOf("rbac.authorization.k8s.io/v1", "Role", R"({"metadata":{"name":"reader"}})"),
            "reader|2024-01-01T00:00:00Z");
  json::object table = Print(MakeObject("rbac.authorization.k8s.io/v1", "Role", {}));
  EXPECT_EQ(table.at("columnDefinitions").as_array()[1].at("type").as_string(), "date");
}

TEST(TableTest, ServicePortsExternalIpAndSelector) {
  EXPECT_EQ(RowOf("v1", "Service", R"({"spec":{"type":"NodePort","clusterIPs":["10.0.0.5"],
      "ports":[{"port":80,"protocol":"TCP","nodePort":30080},{"port":53,"protocol":"UDP"}],
      "selector":{"tier":"front","app":"web"}}})"),
            "x|NodePort|10.0.0.5|<none>|80:30080/TCP,53/UDP|10m|app=web,tier=front");
  // Fields kube defaults: type ClusterIP, protocol TCP; no cluster IP yet.
  EXPECT_EQ(RowOf("v1", "Service", R"({"spec":{"ports":[{"port":443}]}})"),
            "x|ClusterIP|<none>|<none>|443/TCP|10m|<none>");
  EXPECT_EQ(RowOf("v1", "Service", R"({"spec":{"type":"LoadBalancer","clusterIP":"10.0.0.7"}})"),
            "x|LoadBalancer|10.0.0.7|<pending>|<none>|10m|<none>");
  EXPECT_EQ(RowOf("v1", "Service", R"({"spec":{"type":"LoadBalancer","externalIPs":["9.9.9.9"]},
      "status":{"loadBalancer":{"ingress":[{"ip":"5.5.5.5"},{"hostname":"lb.example.com"}]}}})"),
            "x|LoadBalancer|<none>|5.5.5.5,lb.example.com,9.9.9.9|<none>|10m|<none>");
  EXPECT_EQ(
      RowOf("v1", "Service", R"({"spec":{"type":"ExternalName","externalName":"db.example.com"}})"),
      "x|ExternalName|<none>|db.example.com|<none>|10m|<none>");
}

TEST(TableTest, ConfigMapAndSecretCountKeys) {
  EXPECT_EQ(RowOf("v1", "ConfigMap", R"({"data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}})"),
            "x|3|10m");
  EXPECT_EQ(RowOf("v1", "Secret", R"({"data":{"a":"MQ=="},"stringData":{"a":"1","b":"2"}})"),
            "x|Opaque|2|10m");
  EXPECT_EQ(RowOf("v1", "Secret", R"({"type":"kubernetes.io/tls"})"), "x|kubernetes.io/tls|0|10m");
}

TEST(TableTest, EndpointsListThreeAddressesThenCount) {
  EXPECT_EQ(
      RowOf("v1", "Endpoints", R"({"subsets":[{"addresses":[{"ip":"10.1.0.1"},{"ip":"10.1.0.2"}],
      "ports":[{"port":80},{"port":443}]}]})"),
      "x|10.1.0.1:80,10.1.0.2:80,10.1.0.1:443 + 1 more...|10m");
  EXPECT_EQ(RowOf("v1", "Endpoints", "{}"), "x|<none>|10m");
}

TEST(TableTest, ResourceQuotaSplitsRequestsAndLimits) {
  EXPECT_EQ(RowOf("v1", "ResourceQuota", R"({"status":{
      "hard":{"pods":"10","limits.memory":"2Gi","requests.cpu":"1"},
      "used":{"pods":"2","requests.cpu":"500m"}}})"),
            "x|10m|pods: 2/10, requests.cpu: 500m/1|limits.memory: 0/2Gi");
}

TEST(TableTest, PodStatusRestartsAndWideCells) {
  EXPECT_EQ(
      RowOf("v1", "Pod", R"({"spec":{"nodeName":"n1","containers":[{"name":"a"},{"name":"b"}]},
      "status":{"phase":"Running","podIP":"10.1.0.9","containerStatuses":[
        {"name":"a","ready":true,"restartCount":2,"state":{"running":{}},
         "lastState":{"terminated":{"exitCode":1,"finishedAt":"2024-01-01T00:05:00Z"}}},
        {"name":"b","ready":false,"restartCount":0,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})"),
      "x|1/2|CrashLoopBackOff|2 (5m ago)|10m|10.1.0.9|n1|<none>|<none>");
  EXPECT_EQ(
      RowOf("v1", "Pod", R"({"spec":{"containers":[{"name":"a"}],"initContainers":[{"name":"i"}]},
      "status":{"phase":"Pending","initContainerStatuses":[{"name":"i","state":{"waiting":{"reason":"PodInitializing"}}}]}})"),
      "x|0/1|Init:0/1|0|10m|<none>|<none>|<none>|<none>");
  EXPECT_EQ(RowOf("v1", "Pod", R"({"spec":{"containers":[{"name":"a"}]},
      "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]}})"),
            "x|0/1|SchedulingGated|0|10m|<none>|<none>|<none>|<none>");
  EXPECT_EQ(RowOf("v1", "Pod", R"({"spec":{"containers":[{"name":"a"}]},
      "status":{"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":137}}}]}})"),
            "x|0/1|ExitCode:137|0|10m|<none>|<none>|<none>|<none>");
}

TEST(TableTest, NodeStatusAndRoles) {
  EXPECT_EQ(
      RowOf(
          "v1", "Node",
          R"({"metadata":{"labels":{"node-role.kubernetes.io/worker":"","node-role.kubernetes.io/control-plane":""}},
      "spec":{"unschedulable":true},
      "status":{"conditions":[{"type":"Ready","status":"Unknown"}],"addresses":[{"type":"InternalIP","address":"192.168.0.2"}],
                "nodeInfo":{"kubeletVersion":"v1.32.0"}}})"),
      "x|NotReady,SchedulingDisabled|control-plane,worker|10m|v1.32.0|192.168.0.2|<none>|<unknown>|"
      "<unknown>|<unknown>");
}

TEST(TableTest, EventTargetSourceAndCount) {
  EXPECT_EQ(RowOf("v1", "Event", R"({"type":"Normal","reason":"Scheduled","message":" bound \n",
      "involvedObject":{"kind":"Pod","name":"web","fieldPath":"spec.containers{c}"},
      "source":{"component":"default-scheduler"},"firstTimestamp":"2024-01-01T00:01:00Z"})"),
            "9m|Normal|Scheduled|pod/web|spec.containers{c}|default-scheduler|bound|9m|1|x");
}

TEST(TableTest, PersistentVolumeClaimShowsCapacityOnlyWhenBound) {
  EXPECT_EQ(RowOf("v1", "PersistentVolumeClaim",
                  R"({"spec":{"storageClassName":"fast"},"status":{"phase":"Pending"}})"),
            "x|Pending||||fast|<unset>|10m|Filesystem");
  EXPECT_EQ(RowOf("v1", "PersistentVolumeClaim", R"({"spec":{"volumeName":"pv1"},
      "status":{"phase":"Bound","capacity":{"storage":"1.5Gi"},"accessModes":["ReadWriteMany","ReadWriteOnce"]}})"),
            "x|Bound|pv1|1536Mi|RWO,RWX||<unset>|10m|Filesystem");
}

TEST(TableTest, WorkloadReadinessAndSelectors) {
  EXPECT_EQ(
      RowOf(
          "apps/v1", "StatefulSet",
          R"({"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"db","image":"pg:16"}]}}},
      "status":{"readyReplicas":1}})"),
      "x|1/3|10m|db|pg:16");
  EXPECT_EQ(RowOf("apps/v1", "DaemonSet", R"({"spec":{"selector":{"matchLabels":{"app":"agent"}},
      "template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"},"containers":[{"name":"a","image":"agent:1"}]}}},
      "status":{"desiredNumberScheduled":2,"numberReady":1}})"),
            "x|2|0|1|0|0|kubernetes.io/os=linux|10m|a|agent:1|app=agent");
  EXPECT_EQ(RowOf("apps/v1", "ReplicaSet", R"({"spec":{"replicas":2,"selector":{"matchExpressions":[
      {"key":"tier","operator":"In","values":["b","a"]},{"key":"canary","operator":"DoesNotExist"}]}}})"),
            "x|2|0|0|10m|||!canary,tier in (a,b)");
  EXPECT_EQ(RowOf("apps/v1", "ControllerRevision", R"({"metadata":{"ownerReferences":[
      {"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"u","controller":true}]},"revision":3})"),
            "x|statefulset.apps/web|3|10m");
}

TEST(TableTest, JobStatusCompletionsAndDuration) {
  EXPECT_EQ(
      RowOf(
          "batch/v1", "Job",
          R"({"spec":{"completions":3,"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}},
      "status":{"succeeded":1,"startTime":"2024-01-01T00:02:00Z"}})"),
      "x|Running|1/3|8m|10m|c|busybox|<none>");
  EXPECT_EQ(RowOf("batch/v1", "Job", R"({"spec":{"parallelism":2},"status":{"succeeded":1,
      "startTime":"2024-01-01T00:00:00Z","completionTime":"2024-01-01T00:00:42Z",
      "conditions":[{"type":"Complete","status":"True"}]}})"),
            "x|Complete|1/1 of 2|42s|10m|||<none>");
  EXPECT_EQ(RowOf("batch/v1", "Job",
                  R"({"status":{"conditions":[{"type":"Suspended","status":"True"}]}})"),
            "x|Suspended|0/1||10m|||<none>");
}

TEST(TableTest, CronJobScheduleTimezoneAndLastSchedule) {
  EXPECT_EQ(RowOf("batch/v1", "CronJob",
                  R"({"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{}}}})"),
            "x|*/5 * * * *|<none>|False|0|<none>|10m|||<none>");
  EXPECT_EQ(RowOf("batch/v1", "CronJob",
                  R"({"spec":{"schedule":"@hourly","timeZone":"Etc/UTC","suspend":true},
      "status":{"active":[{"name":"j"}],"lastScheduleTime":"2024-01-01T00:09:30Z"}})"),
            "x|@hourly|Etc/UTC|True|1|30s|10m|||<none>");
}

TEST(TableTest, HorizontalPodAutoscalerTargets) {
  EXPECT_EQ(RowOf("autoscaling/v2", "HorizontalPodAutoscaler", R"({"spec":{
      "scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":5,
      "metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}})"),
            "x|Deployment/web|cpu: <unknown>/50%|1|5|0|10m");
  EXPECT_EQ(RowOf("autoscaling/v2", "HorizontalPodAutoscaler",
                  R"({"spec":{"minReplicas":2,"maxReplicas":4,
      "scaleTargetRef":{"kind":"StatefulSet","name":"db"},
      "metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"512Mi"}}},
                 {"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"1k"}}},
                 {"type":"External","external":{"metric":{"name":"q"},"target":{"type":"Value","value":"10"}}}]},
      "status":{"currentReplicas":3,"currentMetrics":[
        {"type":"Resource","resource":{"name":"memory","current":{"averageValue":"256Mi"}}},
        {"type":"Pods","pods":{"metric":{"name":"qps"},"current":{"averageValue":"500"}}}]}})"),
            "x|StatefulSet/db|memory: 256Mi/512Mi, 500/1k + 1 more...|2|4|3|10m");
  EXPECT_EQ(RowOf("autoscaling/v2", "HorizontalPodAutoscaler", R"({"spec":{"maxReplicas":1}})"),
            "x|/|<none>|1|1|0|10m");
}

TEST(TableTest, IngressClassHostsAddressAndPorts) {
  EXPECT_EQ(RowOf("networking.k8s.io/v1", "Ingress", R"({"spec":{"ingressClassName":"nginx",
      "rules":[{"host":"a.example.com"},{},{"host":"b.example.com"}],"tls":[{"hosts":["a.example.com"]}]},
      "status":{"loadBalancer":{"ingress":[{"ip":"10.9.0.2"},{"ip":"10.9.0.1"}]}}})"),
            "x|nginx|a.example.com,b.example.com|10.9.0.1,10.9.0.2|80, 443|10m");
  EXPECT_EQ(RowOf("networking.k8s.io/v1", "Ingress", R"({"spec":{}})"), "x|<none>|*||80|10m");
  EXPECT_EQ(
      RowOf("networking.k8s.io/v1", "IngressClass", R"({"spec":{"controller":"k8s.io/ingress-nginx",
      "parameters":{"apiGroup":"k8s.example.com","kind":"IngressParameters","name":"p"}}})"),
      "x|k8s.io/ingress-nginx|IngressParameters.k8s.example.com/p|10m");
  EXPECT_EQ(RowOf("networking.k8s.io/v1", "NetworkPolicy", R"({"spec":{"podSelector":{}}})"),
            "x|<none>|10m");
}

TEST(TableTest, EndpointSlicePortsAndEndpoints) {
  EXPECT_EQ(RowOf("discovery.k8s.io/v1", "EndpointSlice", R"({"addressType":"IPv4",
      "ports":[{"port":80},{"name":"metrics"},{}],
      "endpoints":[{"addresses":["10.1.0.1","10.1.0.2"]},{"addresses":["10.1.0.3","10.1.0.4"]}]})"),
            "x|IPv4|80,metrics,*|10.1.0.1,10.1.0.2,10.1.0.3 + 1 more...|10m");
  EXPECT_EQ(RowOf("discovery.k8s.io/v1", "EndpointSlice", R"({"addressType":"IPv6"})"),
            "x|IPv6|<unset>|<unset>|10m");
}

TEST(TableTest, RoleBindingSubjects) {
  EXPECT_EQ(
      RowOf("rbac.authorization.k8s.io/v1", "RoleBinding",
            R"({"roleRef":{"kind":"Role","name":"reader","apiGroup":"rbac.authorization.k8s.io"},
      "subjects":[{"kind":"User","name":"alice"},{"kind":"User","name":"bob"},{"kind":"Group","name":"devs"},
                  {"kind":"ServiceAccount","name":"ci","namespace":"build"}]})"),
      "x|Role/reader|10m|alice, bob|devs|build/ci");
}

TEST(TableTest, StorageAndSchedulingKinds) {
  EXPECT_EQ(RowOf("storage.k8s.io/v1", "StorageClass", R"({"metadata":{"name":"fast",
      "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"csi.example.com"})"),
            "fast (default)|csi.example.com|Delete|Immediate|false|10m");
  EXPECT_EQ(RowOf("storage.k8s.io/v1", "CSIDriver",
                  R"({"spec":{"tokenRequests":[{"audience":"a"},{"audience":"b"}],
      "volumeLifecycleModes":["Persistent","Ephemeral"]}})"),
            "x|true|false|false|a,b|false|Persistent,Ephemeral|10m");
  EXPECT_EQ(RowOf("storage.k8s.io/v1", "CSIStorageCapacity",
                  R"({"storageClassName":"fast","capacity":"1024Mi"})"),
            "x|fast|1Gi");
  EXPECT_EQ(RowOf("scheduling.k8s.io/v1", "PriorityClass",
                  R"({"value":1000,"preemptionPolicy":"Never"})"),
            "x|1000|false|10m|Never");
  EXPECT_EQ(RowOf("coordination.k8s.io/v1", "Lease", R"({"spec":{"holderIdentity":"node-a"}})"),
            "x|node-a|10m");
  EXPECT_EQ(RowOf("policy/v1", "PodDisruptionBudget",
                  R"({"spec":{"minAvailable":"50%"},"status":{"disruptionsAllowed":1}})"),
            "x|50%|N/A|1|10m");
  EXPECT_EQ(RowOf("v1", "PodTemplate", R"({"template":{"metadata":{"labels":{"b":"2","a":"1"}},
      "spec":{"containers":[{"name":"c1","image":"i1"},{"name":"c2","image":"i2"}]}}})"),
            "x|c1,c2|i1,i2|a=1,b=2");
}

TEST(TableTest, CustomPrinterIsIgnoredForBuiltinKinds) {
  TablePrinter custom{{{"Name", "string", "name", "", 0}, {"Size", "integer", "", "", 0}},
                      [](const api::Object& o, std::chrono::system_clock::time_point) {
                        return json::array{json::value(o.name()), json::value(1)};
                      }};
  TableOptions options;
  options.custom_printer = &custom;
  EXPECT_EQ(Columns(Print(MakeObject("v1", "ConfigMap", {}), options)), "Name|Data|Age");
}

TEST(TableTest, CustomResourcesPrintWithTheHookOrNameAndCreatedAt) {
  api::KindSpec spec;
  spec.group = "example.com";
  spec.version = "v1";
  spec.name = "Widget";
  spec.resource = "widgets";
  spec.singular = "widget";
  ASSERT_TRUE(api::RegisterKind(spec).ok());
  api::ObjectPtr widget =
      MakeObject("example.com/v1", "Widget", json::parse(R"({"spec":{"size":3}})").as_object());
  EXPECT_EQ(Columns(Print(widget)), "Name|Created At");

  TablePrinter custom{{{"Name", "string", "name", "", 0}, {"Size", "integer", "", "", 1}},
                      [](const api::Object& o, std::chrono::system_clock::time_point) {
                        return json::array{json::value(o.name()), o.json().at("spec").at("size")};
                      }};
  TableOptions options;
  options.custom_printer = &custom;
  json::object table = Print(widget, options);
  EXPECT_EQ(Columns(table), "Name|Size*");
  EXPECT_EQ(Row(table), "x|3");
}

}  // namespace
}  // namespace berth::apiserver
