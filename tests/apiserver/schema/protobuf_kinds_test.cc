// The protobuf decoder, kind by kind, for the kinds beyond kubectl's typed
// create commands (protobuf_test.cc has those): a representative object of
// each, as client-go writes it (zero-valued non-pointer scalars included,
// some status), and the JSON the API server stores. Each case exercises what is easy to get
// wrong there: inlined structs, maps, IntOrString, Quantity, MicroTime,
// RawExtension, repeated messages, and zeros kept for pointer fields.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "apiserver/schema/protobuf.h"
#include "protobuf_wire.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;
using testing::Envelope;
using testing::Pb;

// ObjectMeta as Go writes a new object's: its name and the zero-valued
// non-pointer fields (generation, an empty creationTimestamp).
Pb Meta(std::string_view name) {
  return Pb().Str(1, name).Str(2, "").Str(3, "").Int(7, 0).Msg(8, Pb());
}
constexpr const char* kMetaJson = R"("metadata":{"name":"x","creationTimestamp":null})";

// A one-container pod template.
Pb Template() {
  Pb container = Pb().Str(1, "c").Str(2, "busybox").Msg(8, Pb()).Bool(16, false);
  return Pb().Msg(1, Pb().Entry(11, "app", "x")).Msg(2, Pb().Msg(2, container).Str(3, "Always"));
}
constexpr const char* kTemplateJson =
    R"({"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"busybox","resources":{}}],)"
    R"("restartPolicy":"Always"}})";
Pb Selector() { return Pb().Entry(1, "app", "x"); }

struct KindCase {
  const char* name;
  api::Kind kind;
  const char* api_version;
  const char* kind_name;
  Pb raw;
  std::string want;  // the JSON's fields besides apiVersion and kind
};

std::string WithMeta(const std::string& rest) {
  return "{" + std::string(kMetaJson) + (rest.empty() ? "" : ",") + rest + "}";
}

std::vector<KindCase> CoreCases() {
  Pb probe = Pb().Msg(1, Pb().Msg(2, Pb().Str(1, "/healthz").IntOrStr(2, "http").Str(4, "HTTP")))
                 .Int(2, 5)
                 .Int(3, 1)
                 .Int(7, 0);
  Pb lifecycle = Pb().Msg(2, Pb().Msg(4, Pb().Int(1, 0)));  // preStop sleep 0s: a pointer's zero
  Pb container =
      Pb().Str(1, "app")
          .Str(2, "nginx")
          .Msg(6, Pb().Str(1, "http").Int(3, 8080).Str(4, "TCP"))
          .Msg(7, Pb().Str(1, "POD").Msg(3, Pb().Msg(1, Pb().Str(1, "v1").Str(2, "metadata.name"))))
          .Msg(8, Pb().QuantityEntry(1, "memory", "128Mi").QuantityEntry(2, "cpu", "100m"))
          .Msg(23, Pb().Str(1, "cpu").Str(2, "NotRequired"))
          .Msg(9, Pb().Str(1, "cfg").Bool(2, true).Str(3, "/etc/cfg"))
          .Msg(11, probe)
          .Msg(12, lifecycle)
          .Msg(15, Pb().Int(4, 0).Bool(5, true))  // runAsUser 0 is meant
          .Bool(16, false)
          .Bool(17, false)
          .Bool(18, false);
  Pb debug = Pb().Msg(1, Pb().Str(1, "debugger").Str(2, "busybox").Msg(8, Pb())).Str(2, "app");
  Pb claim_template = Pb().Msg(1, Pb().Entry(11, "type", "scratch"))
                          .Msg(2, Pb().Str(1, "ReadWriteOnce")
                                      .Msg(2, Pb().QuantityEntry(2, "storage", "1Gi"))
                                      .Str(5, ""));  // storageClassName "": a pointer, kept
  Pb volumes =
      Pb().Msg(1, Pb().Str(1, "cfg").Msg(
                      2, Pb().Msg(19, Pb().Msg(1, Pb().Str(1, "app-config"))
                                          .Msg(2, Pb().Str(1, "a").Str(2, "a.conf").Int(3, 0400)))))
          .Msg(1, Pb().Str(1, "scratch").Msg(2, Pb().Msg(29, Pb().Msg(1, claim_template))))
          .Msg(1,
               Pb().Str(1, "pd").Msg(
                   2, Pb().Msg(3, Pb().Str(1, "disk-1").Str(2, "ext4").Int(3, 0).Bool(4, false))));
  Pb spread = Pb().Int(1, 1)
                  .Str(2, "topology.kubernetes.io/zone")
                  .Str(3, "DoNotSchedule")
                  .Msg(4, Selector())
                  .Str(8, "pod-template-hash");
  Pb pod_spec = volumes.Msg(2, container)
                    .Msg(34, debug)
                    .Str(3, "Always")
                    .Int(4, 0)
                    .Str(6, "ClusterFirst")
                    .Bool(11, false)
                    .Msg(22, Pb().Str(1, "dedicated").Str(2, "Exists").Str(4, "NoSchedule"))
                    .Msg(28, Pb().Str(1, "example.com/ready"))
                    .QuantityEntry(32, "cpu", "250m")
                    .Msg(33, spread)
                    .Msg(36, Pb().Str(1, "linux"))
                    .Msg(38, Pb().Str(1, "example.com/gate"));
  std::string pod_json = R"("spec":{"volumes":[
      {"name":"cfg","configMap":{"name":"app-config","items":[{"key":"a","path":"a.conf","mode":256}]}},
      {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"metadata":{"labels":{"type":"scratch"}},
        "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"storageClassName":""}}}},
      {"name":"pd","gcePersistentDisk":{"pdName":"disk-1","fsType":"ext4"}}],
    "containers":[{"name":"app","image":"nginx","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
      "env":[{"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],
      "resources":{"limits":{"memory":"128Mi"},"requests":{"cpu":"100m"}},
      "resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}],
      "volumeMounts":[{"name":"cfg","readOnly":true,"mountPath":"/etc/cfg"}],
      "readinessProbe":{"httpGet":{"path":"/healthz","port":"http","scheme":"HTTP"},"initialDelaySeconds":5,
        "timeoutSeconds":1,"terminationGracePeriodSeconds":0},
      "lifecycle":{"preStop":{"sleep":{"seconds":0}}},
      "securityContext":{"runAsUser":0,"runAsNonRoot":true}}],
    "ephemeralContainers":[{"name":"debugger","image":"busybox","resources":{},"targetContainerName":"app"}],
    "restartPolicy":"Always","terminationGracePeriodSeconds":0,"dnsPolicy":"ClusterFirst",
    "tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}],
    "readinessGates":[{"conditionType":"example.com/ready"}],"overhead":{"cpu":"250m"},
    "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",
      "whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"x"}},
      "matchLabelKeys":["pod-template-hash"]}],
    "os":{"name":"linux"},"schedulingGates":[{"name":"example.com/gate"}]},"status":{"phase":"Pending"})";

  Pb pv_spec = Pb().QuantityEntry(1, "storage", "10Gi")
                   .Msg(2, Pb().Msg(22, Pb().Str(1, "csi.example.com")
                                            .Str(2, "vol-1")
                                            .Bool(3, false)
                                            .Entry(5, "tier", "fast")
                                            .Msg(7, Pb().Str(1, "creds").Str(2, "kube-system"))))
                   .Str(3, "ReadWriteOnce")
                   .Msg(4, Pb().Str(1, "PersistentVolumeClaim").Str(2, "default").Str(3, "data"))
                   .Str(5, "Retain")
                   .Str(6, "fast")
                   .Str(8, "Filesystem")
                   .Msg(9, Pb().Msg(1, Pb().Msg(1, Pb().Msg(1, Pb().Str(1, "kubernetes.io/hostname")
                                                                   .Str(2, "In")
                                                                   .Str(3, "node-1")))));
  return {
      {"PodWithEphemeralContainersVolumesProbesAndScheduling", api::Kind::kPod, "v1", "Pod",
       Pb().Msg(1, Meta("x")).Msg(2, pod_spec).Msg(3, Pb().Str(1, "Pending")), WithMeta(pod_json)},
      {"NodeWithTaintsAndCidrs", api::Kind::kNode, "v1", "Node",
       Pb().Msg(1, Meta("x"))
           .Msg(2,
                Pb().Str(1, "10.0.0.0/24")
                    .Str(7, "10.0.0.0/24")
                    .Str(7, "fd00::/64")
                    .Bool(4, true)
                    .Msg(5, Pb().Str(1, "gpu").Str(2, "").Str(3, "NoSchedule").Time(4, 1700000000)))
           .Msg(3, Pb().QuantityEntry(1, "cpu", "4")),
       WithMeta(
           R"("spec":{"podCIDR":"10.0.0.0/24","podCIDRs":["10.0.0.0/24","fd00::/64"],"unschedulable":true,)"
           R"("taints":[{"key":"gpu","effect":"NoSchedule","timeAdded":"2023-11-14T22:13:20Z"}]},)"
           R"("status":{"capacity":{"cpu":"4"}})")},
      {"EventWithMicroTimesAndSeries", api::Kind::kEvent, "v1", "Event",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Str(1, "Pod").Str(2, "default").Str(3, "web").Str(4, "u-1"))
           .Str(3, "Pulled")
           .Str(4, "pulled image")
           .Msg(5, Pb().Str(1, "kubelet").Str(2, "node-1"))
           .Time(6, 1700000000)
           .Time(7, 0)
           .Int(8, 2)
           .Str(9, "Normal")
           .Time(10, 1700000000, 123456789)
           .Msg(11, Pb().Int(1, 3).Time(2, 1700000001, 5000))
           .Str(12, "")
           .Str(14, "kubelet")
           .Str(15, ""),
       WithMeta(
           R"("involvedObject":{"kind":"Pod","namespace":"default","name":"web","uid":"u-1"},)"
           R"("reason":"Pulled","message":"pulled image","source":{"component":"kubelet","host":"node-1"},)"
           R"("firstTimestamp":"2023-11-14T22:13:20Z","lastTimestamp":null,"count":2,"type":"Normal",)"
           R"("eventTime":"2023-11-14T22:13:20.123456Z",)"
           R"("series":{"count":3,"lastObservedTime":"2023-11-14T22:13:21.000005Z"},)"
           R"("reportingComponent":"kubelet","reportingInstance":"")")},
      {"EventsV1EventWithItsOwnNames", api::Kind::kEventsEvent, "events.k8s.io/v1", "Event",
       Pb().Msg(1, Meta("x"))
           .Time(2, 1700000000, 123456789)
           .Str(4, "example.com/ctl")
           .Str(5, "ctl-1")
           .Str(6, "Scale")
           .Str(7, "Scaled")
           .Msg(8, Pb().Str(1, "Deployment").Str(2, "default").Str(3, "web"))
           .Str(10, "scaled up")
           .Str(11, "Normal")
           .Int(15, 0),
       WithMeta(
           R"("eventTime":"2023-11-14T22:13:20.123456Z","reportingController":"example.com/ctl",)"
           R"("reportingInstance":"ctl-1","action":"Scale","reason":"Scaled",)"
           R"("regarding":{"kind":"Deployment","namespace":"default","name":"web"},"note":"scaled up",)"
           R"("type":"Normal")")},
      {"EndpointsWithReadyAndNotReadyAddresses", api::Kind::kEndpoints, "v1", "Endpoints",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Msg(1, Pb().Str(1, "10.0.0.5")
                                   .Str(4, "node-1")
                                   .Msg(2, Pb().Str(1, "Pod").Str(3, "web-1")))
                       .Msg(2, Pb().Str(1, "10.0.0.6"))
                       .Msg(3, Pb().Str(1, "http").Int(2, 80).Str(3, "TCP"))),
       WithMeta(
           R"("subsets":[{"addresses":[{"ip":"10.0.0.5","nodeName":"node-1",)"
           R"("targetRef":{"kind":"Pod","name":"web-1"}}],"notReadyAddresses":[{"ip":"10.0.0.6"}],)"
           R"("ports":[{"name":"http","port":80,"protocol":"TCP"}]}])")},
      {"LimitRangeQuantityMaps", api::Kind::kLimitRange, "v1", "LimitRange",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Msg(1, Pb().Str(1, "Container")
                                   .QuantityEntry(2, "cpu", "2")
                                   .QuantityEntry(4, "memory", "256Mi")
                                   .QuantityEntry(5, "memory", "128Mi"))),
       WithMeta(
           R"("spec":{"limits":[{"type":"Container","max":{"cpu":"2"},"default":{"memory":"256Mi"},)"
           R"("defaultRequest":{"memory":"128Mi"}}]})")},
      {"PodTemplate", api::Kind::kPodTemplate, "v1", "PodTemplate",
       Pb().Msg(1, Meta("x")).Msg(2, Template()),
       WithMeta(R"("template":)" + std::string(kTemplateJson))},
      {"ReplicationControllerKeepsZeroReplicas", api::Kind::kReplicationController, "v1",
       "ReplicationController",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Int(1, 0).Int(4, 0).Entry(2, "app", "x").Msg(3, Template()))
           .Msg(3, Pb()),
       WithMeta(R"("spec":{"replicas":0,"selector":{"app":"x"},"template":)" +
                std::string(kTemplateJson) + R"(},"status":{})")},
      {"PersistentVolumeInlinesItsSource", api::Kind::kPersistentVolume, "v1", "PersistentVolume",
       Pb().Msg(1, Meta("x")).Msg(2, pv_spec).Msg(3, Pb().Str(1, "Available")),
       WithMeta(
           R"("spec":{"capacity":{"storage":"10Gi"},"csi":{"driver":"csi.example.com","volumeHandle":"vol-1",)"
           R"("volumeAttributes":{"tier":"fast"},"nodeStageSecretRef":{"name":"creds","namespace":"kube-system"}},)"
           R"("accessModes":["ReadWriteOnce"],)"
           R"("claimRef":{"kind":"PersistentVolumeClaim","namespace":"default","name":"data"},)"
           R"("persistentVolumeReclaimPolicy":"Retain","storageClassName":"fast","volumeMode":"Filesystem",)"
           R"("nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname",)"
           R"("operator":"In","values":["node-1"]}]}]}}},"status":{"phase":"Available"})")},
      {"PersistentVolumeClaimWithDataSourceRef", api::Kind::kPersistentVolumeClaim, "v1",
       "PersistentVolumeClaim",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Str(1, "ReadWriteOnce")
                       .Msg(2, Pb().QuantityEntry(2, "storage", "5Gi"))
                       .Str(3, "")
                       .Str(5, "standard")
                       .Msg(8, Pb().Str(1, "snapshot.storage.k8s.io")
                                   .Str(2, "VolumeSnapshot")
                                   .Str(3, "snap-1")))
           .Msg(3, Pb()),
       WithMeta(
           R"("spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"5Gi"}},)"
           R"("storageClassName":"standard","dataSourceRef":{"apiGroup":"snapshot.storage.k8s.io",)"
           R"("kind":"VolumeSnapshot","name":"snap-1"}},"status":{})")},
      {"Binding", api::Kind::kBinding, "v1", "Binding",
       Pb().Msg(1, Meta("x")).Msg(2, Pb().Str(1, "Node").Str(3, "node-1")),
       WithMeta(R"("target":{"kind":"Node","name":"node-1"})")},
  };
}

std::vector<KindCase> OtherGroupCases() {
  Pb claim =
      Pb().Msg(1, Pb().Str(1, "data"))
          .Msg(2, Pb().Str(1, "ReadWriteOnce").Msg(2, Pb().QuantityEntry(2, "storage", "1Gi")))
          .Msg(3, Pb().Str(1, "Pending"));
  Pb revision_data = Pb().Str(1, R"({"spec":{"template":{"metadata":{"labels":{"app":"x"}}}}})");
  Pb hpa_spec =
      Pb().Msg(1, Pb().Str(1, "Deployment").Str(2, "web").Str(3, "apps/v1"))
          .Int(2, 1)
          .Int(3, 10)
          .Msg(4, Pb().Str(1, "Resource")
                      .Msg(4, Pb().Str(1, "cpu").Msg(2, Pb().Str(1, "Utilization").Int(4, 60))))
          .Msg(4, Pb().Str(1, "Pods").Msg(
                      3, Pb().Msg(1, Pb().Str(1, "qps"))
                             .Msg(2, Pb().Str(1, "AverageValue").Quantity(3, "1k"))))
          .Msg(5, Pb().Msg(2, Pb().Int(3, 0)
                                  .Str(1, "Min")
                                  .Msg(2, Pb().Str(1, "Percent").Int(2, 10).Int(3, 60))
                                  .Quantity(4, "0.05")));
  Pb slice_endpoint = Pb().Str(1, "10.0.0.5")
                          .Msg(2, Pb().Bool(1, false).Bool(2, true).Bool(3, false))
                          .Str(6, "node-1")
                          .Str(7, "zone-a")
                          .Msg(8, Pb().Msg(1, Pb().Str(1, "zone-a")));
  Pb netpol_spec =
      Pb().Msg(1, Selector())
          .Msg(2, Pb().Msg(1, Pb().Str(1, "TCP").IntOrStr(2, 8000).Int(3, 9000))
                      .Msg(2, Pb().Msg(3, Pb().Str(1, "10.0.0.0/8").Str(2, "10.1.0.0/16")))
                      .Msg(2, Pb().Msg(2, Pb())))  // every namespace: an empty selector
          .Msg(3, Pb().Msg(1, Pb().Str(1, "UDP").IntOrStr(2, "dns")))
          .Str(4, "Ingress")
          .Str(4, "Egress");
  // An OpenAPI schema: a map of schemas, unions (additionalProperties: false,
  // items: a schema), raw JSON values, doubles.
  Pb replicas = Pb().Str(5, "integer").Double(9, 10).Double(11, 0.5).Msg(8, Pb().Str(1, "1"));
  Pb mode =
      Pb().Str(5, "string").Msg(20, Pb().Str(1, R"("fast")")).Msg(20, Pb().Str(1, R"("safe")"));
  Pb tags = Pb().Str(5, "array").Msg(24, Pb().Msg(1, Pb().Str(5, "string")));
  Pb spec_schema = Pb().Str(5, "object")
                       .Entry(29, "replicas", replicas)
                       .Entry(29, "mode", mode)
                       .Entry(29, "tags", tags)
                       .Msg(30, Pb().Bool(1, false));
  Pb root = Pb().Str(5, "object")
                .Entry(29, "spec", spec_schema)
                .Entry(29, "status", Pb().Str(5, "object").Bool(38, true));
  Pb crd_version = Pb().Str(1, "v1")
                       .Bool(2, true)
                       .Bool(3, true)
                       .Bool(7, false)
                       .Msg(4, Pb().Msg(1, root))
                       .Msg(5, Pb().Msg(1, Pb()));
  Pb crd_spec = Pb().Str(1, "example.com")
                    .Msg(3, Pb().Str(1, "widgets")
                                .Str(2, "widget")
                                .Str(3, "wd")
                                .Str(4, "Widget")
                                .Str(5, "WidgetList"))
                    .Str(4, "Namespaced")
                    .Msg(7, crd_version)
                    .Msg(9, Pb().Str(1, "None"))
                    .Bool(10, false);
  return {
      {"CustomResourceDefinitionWithAnOpenAPISchema", api::Kind::kCustomResourceDefinition,
       "apiextensions.k8s.io/v1", "CustomResourceDefinition",
       Pb().Msg(1, Meta("x")).Msg(2, crd_spec).Msg(3, Pb()),
       WithMeta(
           R"("spec":{"group":"example.com","names":{"plural":"widgets","singular":"widget",)"
           R"("shortNames":["wd"],"kind":"Widget","listKind":"WidgetList"},"scope":"Namespaced",)"
           R"("versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{)"
           R"("type":"object","properties":{"spec":{"type":"object","properties":{)"
           R"("replicas":{"type":"integer","maximum":10,"minimum":0.5,"default":1},)"
           R"("mode":{"type":"string","enum":["fast","safe"]},)"
           R"("tags":{"type":"array","items":{"type":"string"}}},"additionalProperties":false},)"
           R"("status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}},)"
           R"("subresources":{"status":{}}}],"conversion":{"strategy":"None"}},"status":{})")},
      {"ReplicaSet", api::Kind::kReplicaSet, "apps/v1", "ReplicaSet",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Int(1, 2).Int(4, 0).Msg(2, Selector()).Msg(3, Template())),
       WithMeta(R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"x"}},"template":)" +
                std::string(kTemplateJson) + "}")},
      {"StatefulSetWithClaimTemplatesRetentionAndOrdinals", api::Kind::kStatefulSet, "apps/v1",
       "StatefulSet",
       Pb().Msg(1, Meta("x"))
           .Msg(2,
                Pb().Int(1, 3)
                    .Msg(2, Selector())
                    .Msg(3, Template())
                    .Msg(4, claim)
                    .Str(5, "web")
                    .Str(6, "Parallel")
                    .Msg(7, Pb().Str(1, "RollingUpdate").Msg(2, Pb().Int(1, 0).IntOrStr(2, "50%")))
                    .Int(8, 5)
                    .Msg(10, Pb().Str(1, "Delete").Str(2, "Retain"))
                    .Msg(11, Pb().Int(1, 0))),
       WithMeta(
           R"("spec":{"replicas":3,"selector":{"matchLabels":{"app":"x"}},"template":)" +
           std::string(kTemplateJson) +
           R"(,"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],)"
           R"("resources":{"requests":{"storage":"1Gi"}}},"status":{"phase":"Pending"}}],"serviceName":"web",)"
           R"("podManagementPolicy":"Parallel","updateStrategy":{"type":"RollingUpdate",)"
           R"("rollingUpdate":{"partition":0,"maxUnavailable":"50%"}},"revisionHistoryLimit":5,)"
           R"("persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Retain"},)"
           R"("ordinals":{"start":0}})")},
      {"DaemonSetWithIntOrStringRollingUpdate", api::Kind::kDaemonSet, "apps/v1", "DaemonSet",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Msg(1, Selector())
                       .Msg(2, Template())
                       .Msg(3, Pb().Str(1, "RollingUpdate")
                                   .Msg(2, Pb().IntOrStr(1, "10%").IntOrStr(2, 0)))
                       .Int(4, 0)
                       .Int(6, 10)),
       WithMeta(
           R"("spec":{"selector":{"matchLabels":{"app":"x"}},"template":)" +
           std::string(kTemplateJson) +
           R"(,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"10%","maxSurge":0}},)"
           R"("revisionHistoryLimit":10})")},
      {"ControllerRevisionDataIsItsJson", api::Kind::kControllerRevision, "apps/v1",
       "ControllerRevision", Pb().Msg(1, Meta("x")).Msg(2, revision_data).Int(3, 4),
       WithMeta(
           R"("data":{"spec":{"template":{"metadata":{"labels":{"app":"x"}}}}},"revision":4)")},
      {"LeaseMicroTimesAndPointerZeros", api::Kind::kLease, "coordination.k8s.io/v1", "Lease",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Str(1, "node-1")
                       .Int(2, 40)
                       .Time(3, 1700000000, 999999999)
                       .Time(4, 1700000010, 1000)
                       .Int(5, 0)),
       WithMeta(
           R"("spec":{"holderIdentity":"node-1","leaseDurationSeconds":40,)"
           R"("acquireTime":"2023-11-14T22:13:20.999999Z","renewTime":"2023-11-14T22:13:30.000001Z",)"
           R"("leaseTransitions":0})")},
      {"HorizontalPodAutoscalerMetricsAndBehavior", api::Kind::kHorizontalPodAutoscaler,
       "autoscaling/v2", "HorizontalPodAutoscaler",
       Pb().Msg(1, Meta("x")).Msg(2, hpa_spec).Msg(3, Pb().Int(3, 0)),
       WithMeta(
           R"("spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},)"
           R"("minReplicas":1,"maxReplicas":10,"metrics":[)"
           R"({"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}},)"
           R"({"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"1k"}}}],)"
           R"("behavior":{"scaleDown":{"stabilizationWindowSeconds":0,"selectPolicy":"Min",)"
           R"("policies":[{"type":"Percent","value":10,"periodSeconds":60}],"tolerance":"0.05"}}},"status":{})")},
      {"HorizontalPodAutoscalerV1AsKubectlAutoscaleSendsIt", api::Kind::kHorizontalPodAutoscalerV1,
       "autoscaling/v1", "HorizontalPodAutoscaler",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Msg(1, Pb().Str(1, "Deployment").Str(2, "web").Str(3, "apps/v1")).Int(2, 2).Int(3, 5).Int(4, 80))
           .Msg(3, Pb().Int(3, 0).Int(4, 0)),
       WithMeta(
           R"("spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},)"
           R"("minReplicas":2,"maxReplicas":5,"targetCPUUtilizationPercentage":80},)"
           R"("status":{"currentReplicas":0,"desiredReplicas":0})")},
      {"EndpointSliceKeepsFalseConditions", api::Kind::kEndpointSlice, "discovery.k8s.io/v1",
       "EndpointSlice",
       Pb().Msg(1, Meta("x"))
           .Str(4, "IPv4")
           .Msg(2, slice_endpoint)
           .Msg(3, Pb().Str(1, "").Str(2, "TCP").Int(3, 80)),
       WithMeta(
           R"("addressType":"IPv4","endpoints":[{"addresses":["10.0.0.5"],)"
           R"("conditions":{"ready":false,"serving":true,"terminating":false},"nodeName":"node-1",)"
           R"("zone":"zone-a","hints":{"forZones":[{"name":"zone-a"}]}}],)"
           R"("ports":[{"name":"","protocol":"TCP","port":80}])")},
      {"IngressClassWithParameters", api::Kind::kIngressClass, "networking.k8s.io/v1",
       "IngressClass",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Str(1, "example.com/ingress")
                       .Msg(2, Pb().Str(1, "k8s.example.com")
                                   .Str(2, "Params")
                                   .Str(3, "p")
                                   .Str(4, "Namespace")
                                   .Str(5, "infra"))),
       WithMeta(
           R"("spec":{"controller":"example.com/ingress","parameters":{"apiGroup":"k8s.example.com",)"
           R"("kind":"Params","name":"p","scope":"Namespace","namespace":"infra"}})")},
      {"NetworkPolicyPortsPeersAndTypes", api::Kind::kNetworkPolicy, "networking.k8s.io/v1",
       "NetworkPolicy", Pb().Msg(1, Meta("x")).Msg(2, netpol_spec),
       WithMeta(
           R"("spec":{"podSelector":{"matchLabels":{"app":"x"}},"ingress":[{"ports":[{"protocol":"TCP",)"
           R"("port":8000,"endPort":9000}],"from":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}},)"
           R"({"namespaceSelector":{}}]}],"egress":[{"ports":[{"protocol":"UDP","port":"dns"}]}],)"
           R"("policyTypes":["Ingress","Egress"]})")},
      {"RuntimeClassOverheadAndScheduling", api::Kind::kRuntimeClass, "node.k8s.io/v1",
       "RuntimeClass",
       Pb().Msg(1, Meta("x"))
           .Str(2, "runsc")
           .Msg(3, Pb().QuantityEntry(1, "memory", "64Mi"))
           .Msg(4, Pb().Entry(1, "sandbox", "true")
                       .Msg(2, Pb().Str(1, "sandbox").Str(2, "Exists").Int(5, 0))),
       WithMeta(
           R"("handler":"runsc","overhead":{"podFixed":{"memory":"64Mi"}},"scheduling":{)"
           R"("nodeSelector":{"sandbox":"true"},"tolerations":[{"key":"sandbox","operator":"Exists",)"
           R"("tolerationSeconds":0}]})")},
      {"StorageClassKeepsFalseExpansion", api::Kind::kStorageClass, "storage.k8s.io/v1",
       "StorageClass",
       Pb().Msg(1, Meta("x"))
           .Str(2, "csi.example.com")
           .Entry(3, "type", "ssd")
           .Str(4, "Delete")
           .Str(5, "debug")
           .Bool(6, false)
           .Str(7, "WaitForFirstConsumer")
           .Msg(8, Pb().Msg(1, Pb().Str(1, "topology.kubernetes.io/zone").Str(2, "a").Str(2, "b"))),
       WithMeta(
           R"("provisioner":"csi.example.com","parameters":{"type":"ssd"},"reclaimPolicy":"Delete",)"
           R"("mountOptions":["debug"],"allowVolumeExpansion":false,"volumeBindingMode":"WaitForFirstConsumer",)"
           R"("allowedTopologies":[{"matchLabelExpressions":[{"key":"topology.kubernetes.io/zone",)"
           R"("values":["a","b"]}]}])")},
      {"CSIDriverPointerBoolsAndTokenRequests", api::Kind::kCSIDriver, "storage.k8s.io/v1",
       "CSIDriver",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Bool(1, false)
                       .Bool(2, true)
                       .Str(3, "Persistent")
                       .Str(3, "Ephemeral")
                       .Str(5, "File")
                       .Msg(6, Pb().Str(1, "vault").Int(2, 3600))),
       WithMeta(R"("spec":{"attachRequired":false,"podInfoOnMount":true,)"
                R"("volumeLifecycleModes":["Persistent","Ephemeral"],"fsGroupPolicy":"File",)"
                R"("tokenRequests":[{"audience":"vault","expirationSeconds":3600}]})")},
      {"CSINodeDrivers", api::Kind::kCSINode, "storage.k8s.io/v1", "CSINode",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Msg(1, Pb().Str(1, "csi.example.com")
                                   .Str(2, "node-1")
                                   .Str(3, "topology.kubernetes.io/zone")
                                   .Msg(4, Pb().Int(1, 0)))),
       WithMeta(R"("spec":{"drivers":[{"name":"csi.example.com","nodeID":"node-1",)"
                R"("topologyKeys":["topology.kubernetes.io/zone"],"allocatable":{"count":0}}]})")},
      {"CSIStorageCapacityQuantities", api::Kind::kCSIStorageCapacity, "storage.k8s.io/v1",
       "CSIStorageCapacity",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Entry(1, "topology.kubernetes.io/zone", "a"))
           .Str(3, "fast")
           .Quantity(4, "100Gi")
           .Quantity(5, "10Gi"),
       WithMeta(
           R"("nodeTopology":{"matchLabels":{"topology.kubernetes.io/zone":"a"}},"storageClassName":"fast",)"
           R"("capacity":"100Gi","maximumVolumeSize":"10Gi")")},
      {"VolumeAttachmentWithAnInlineSpec", api::Kind::kVolumeAttachment, "storage.k8s.io/v1",
       "VolumeAttachment",
       Pb().Msg(1, Meta("x"))
           .Msg(2, Pb().Str(1, "csi.example.com")
                       .Msg(2, Pb().Msg(2, Pb().QuantityEntry(1, "storage", "1Gi")
                                               .Msg(2, Pb().Msg(22, Pb().Str(1, "csi.example.com")
                                                                        .Str(2, "h")))))
                       .Str(3, "node-1"))
           .Msg(3, Pb().Bool(1, false)),
       WithMeta(
           R"("spec":{"attacher":"csi.example.com","source":{"inlineVolumeSpec":{"capacity":{"storage":"1Gi"},)"
           R"("csi":{"driver":"csi.example.com","volumeHandle":"h"}}},"nodeName":"node-1"},"status":{"attached":false})")},
  };
}

class ProtobufKinds : public ::testing::TestWithParam<KindCase> {};

TEST_P(ProtobufKinds, DecodesAsKubeStoresIt) {
  const KindCase& c = GetParam();
  auto decoded = DecodeProtobuf(Envelope(c.api_version, c.kind_name, c.raw), c.kind);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  json::value want = json::parse(c.want);
  want.as_object()["apiVersion"] = c.api_version;
  want.as_object()["kind"] = c.kind_name;
  EXPECT_EQ(decoded.value(), want) << json::serialize(decoded.value());
}

std::string CaseName(const ::testing::TestParamInfo<KindCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Core, ProtobufKinds, ::testing::ValuesIn(CoreCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(OtherGroups, ProtobufKinds, ::testing::ValuesIn(OtherGroupCases()),
                         CaseName);

// Every built-in kind has a message: none answers "unsupported" for its objects.
TEST(ProtobufKindCoverage, EveryBuiltinKindHasAMessage) {
  for (int k = 0; k < api::kBuiltinKindCount; ++k) {
    auto kind = static_cast<api::Kind>(k);
    const api::KindInfo& info = api::Info(kind);
    auto decoded =
        DecodeProtobuf(Envelope(info.ApiVersion(), info.name, Pb().Msg(1, Meta("x"))), kind);
    ASSERT_TRUE(decoded.ok()) << info.name << ": " << decoded.status().message();
    EXPECT_EQ(decoded.value().at("metadata").at("name"), "x") << info.name;
    EXPECT_EQ(decoded.value().at("kind").as_string(), info.name);
  }
}

TEST(ProtobufRawExtension, ANonJsonRevisionIsUnsupportedMediaType) {
  Pb raw = Pb().Msg(1, Meta("x")).Msg(2, Pb().Str(1, std::string("k8s\0\x0a", 5))).Int(3, 1);
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "ControllerRevision", raw),
                                api::Kind::kControllerRevision);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kUnsupportedMediaType);
  EXPECT_NE(decoded.status().message().find("ControllerRevision data"), std::string::npos)
      << decoded.status().message();
}

// The CRD schema is recursive: a body nesting deeper than any real schema is
// a clear error, not a stack that grows with the input.
TEST(ProtobufDepth, ASchemaNestedTooDeepIsABadRequest) {
  auto crd_with_depth = [](int depth) {
    Pb schema = Pb().Str(5, "object");
    for (int i = 0; i < depth; ++i) schema = Pb().Msg(28, schema);  // not: {not: {...}}
    Pb version = Pb().Str(1, "v1").Bool(2, true).Bool(3, true).Msg(4, Pb().Msg(1, schema));
    return Envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition",
                    Pb().Msg(1, Meta("x")).Msg(2, Pb().Str(1, "example.com").Msg(7, version)));
  };
  EXPECT_TRUE(DecodeProtobuf(crd_with_depth(40), api::Kind::kCustomResourceDefinition).ok());
  auto deep = DecodeProtobuf(crd_with_depth(1000), api::Kind::kCustomResourceDefinition);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(deep.status().message().find("nested deeper than"), std::string::npos)
      << deep.status().message();
}

}  // namespace
}  // namespace berth::apiserver
